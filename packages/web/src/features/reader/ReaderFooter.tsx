/** The chapter bar: previous and next chapter, and where the reader is in this one (percent, or page of pages). */
import type { ArchiveItem } from '@lectern/core';
import { Link } from 'react-router';
import { track } from '../../shared/analytics.ts';
import { ReaderIcon } from '../../shared/reading/ReaderIcon.tsx';

export interface ReaderFooterProps {
  item: ArchiveItem | null;
  percent: number;
  /** Paged mode: the page on show and how many; null in scroll mode. */
  pages: { index: number; count: number } | null;
  readerPath: (fullPath: string) => string;
}

export function ReaderFooter({ item, percent, pages, readerPath }: ReaderFooterProps) {
  const position = pages ? `Page ${pages.index + 1} of ${pages.count}` : `${Math.round(percent)}%`;
  // A right-to-left book's chapters go the other way: the next is on the left, pointing left, and the bar fills
  // from the right (the order in the document, previous then next, stays for screen readers).
  const rtl = item?.page_progression === 'rtl';
  return (
    <nav className="reader-footer" aria-label="Chapters" dir={rtl ? 'rtl' : undefined}>
      {item?.previous_chapter_uri ? (
        <Link className="reader-footer__link" rel="prev" to={readerPath(item.previous_chapter_uri)} onClick={() => track('reader', 'navigate', 'previous-chapter')}>
          <ReaderIcon name={rtl ? 'next' : 'prev'} size={18} />
          <span>Previous</span>
        </Link>
      ) : (
        <span className="reader-footer__link reader-footer__link--none" />
      )}
      <div className="reader-footer__position" aria-live="off">
        <span className="reader-footer__bar" aria-hidden="true">
          <span style={{ width: `${Math.round(percent)}%` }} />
        </span>
        <span className="reader-footer__text">{position}</span>
      </div>
      {item?.next_chapter_uri ? (
        <Link className="reader-footer__link reader-footer__link--next" rel="next" to={readerPath(item.next_chapter_uri)} onClick={() => track('reader', 'navigate', 'next-chapter')}>
          <span>Next chapter</span>
          <ReaderIcon name={rtl ? 'prev' : 'next'} size={18} />
        </Link>
      ) : (
        <span className="reader-footer__link reader-footer__link--none" />
      )}
    </nav>
  );
}
