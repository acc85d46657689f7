/** The chapter bar: previous and next chapter, and where the reader is in this one (percent, or page of pages). */
import type { ArchiveItem } from '@lectern/core';
import { Link } from 'react-router';
import { track } from '../../shared/analytics.ts';
import { ReaderIcon } from './ReaderIcon.tsx';

export interface ReaderFooterProps {
  item: ArchiveItem | null;
  percent: number;
  /** Paged mode: the page on show and how many; null in scroll mode. */
  pages: { index: number; count: number } | null;
  readerPath: (fullPath: string) => string;
}

export function ReaderFooter({ item, percent, pages, readerPath }: ReaderFooterProps) {
  const position = pages ? `Page ${pages.index + 1} of ${pages.count}` : `${Math.round(percent)}%`;
  return (
    <nav className="reader-footer" aria-label="Chapters">
      {item?.previous_chapter_uri ? (
        <Link className="reader-footer__link" rel="prev" to={readerPath(item.previous_chapter_uri)} onClick={() => track('reader', 'navigate', 'previous-chapter')}>
          <ReaderIcon name="prev" size={18} />
          <span>Previous</span>
        </Link>
      ) : (
        <span className="reader-footer__link reader-footer__link--none" />
      )}
      <div className="reader-footer__position" aria-live="off">
        {/* a right-to-left book's pages fill the bar from the right, the way they turn */}
        <span className="reader-footer__bar" aria-hidden="true" dir={pages && item?.page_progression === 'rtl' ? 'rtl' : undefined}>
          <span style={{ width: `${Math.round(percent)}%` }} />
        </span>
        <span className="reader-footer__text">{position}</span>
      </div>
      {item?.next_chapter_uri ? (
        <Link className="reader-footer__link reader-footer__link--next" rel="next" to={readerPath(item.next_chapter_uri)} onClick={() => track('reader', 'navigate', 'next-chapter')}>
          <span>Next chapter</span>
          <ReaderIcon name="next" size={18} />
        </Link>
      ) : (
        <span className="reader-footer__link reader-footer__link--none" />
      )}
    </nav>
  );
}
