/**
 * The title page's table of contents: entries indented by depth, each linking to the reader page of its chapter,
 * with the chapter's reading time on its first entry. For an anonymous visitor, chapters that are neither samples
 * nor public show a lock and lead to sign-in; the Sample badge is for those who cannot read everything. Long
 * contents show their first entries and a button that shows the rest.
 */
import { useState, type CSSProperties } from 'react';
import { Link } from 'react-router';
import { consumeVerb, formatClock, formatReadingTime, paths, type BookDetail, type TocEntry } from '@lectern/core';
import { Icon } from '../../components/Icon.tsx';
import { appPaths } from '../../shared/links.ts';
import './TableOfContents.css';

function fragmentOf(href: string): string {
  const i = href.indexOf('#');
  return i >= 0 && i < href.length - 1 ? href.slice(i) : '';
}

/** Entries shown before "Show all N chapters". */
export const TOC_COLLAPSED_ENTRIES = 10;

export function TableOfContents({ book, signedIn, showSamples = true }: { book: BookDetail; signedIn: boolean; showSamples?: boolean }) {
  const [expanded, setExpanded] = useState(false);
  const chapters = new Map(book.chapters.map((c) => [c.full_path, c]));
  const entries: TocEntry[] = book.toc.length
    ? book.toc
    : book.chapters.map((c) => ({ label: c.label, href: c.full_path, full_path: c.full_path, depth: 0 }));
  if (!entries.length) return <p className="toc__empty">This title has no table of contents.</p>;
  const minDepth = Math.min(...entries.map((e) => e.depth));
  // A chapter's reading time goes on its first entry only.
  const timed = new Set<string>();
  const timeOf = entries.map((entry) => {
    if (timed.has(entry.full_path)) return null;
    timed.add(entry.full_path);
    const chapter = chapters.get(entry.full_path);
    if (chapter?.duration_ms) return formatClock(chapter.duration_ms / 1000);
    const minutes = chapter?.minutes_required ?? 0;
    return minutes > 0 ? formatReadingTime(minutes) : null;
  });
  const collapsible = entries.length > TOC_COLLAPSED_ENTRIES + 2;
  const shown = collapsible && !expanded ? entries.slice(0, TOC_COLLAPSED_ENTRIES) : entries;

  return (
    <>
      <ol className="toc" id={`toc-${book.book_id}`}>
        {shown.map((entry, i) => {
          const chapter = chapters.get(entry.full_path);
          const time = timeOf[i] ? <span className="toc__time">{timeOf[i]}</span> : null;
          const sample = !!chapter?.as_sample;
          const open = sample || !!chapter?.is_public;
          const locked = !signedIn && !open;
          const readerPath = paths.reader(book.title_safe, book.book_id, entry.full_path) + fragmentOf(entry.href);
          const depth = Math.min(entry.depth - minDepth, 5);
          return (
            <li key={`${entry.href}-${i}`} className={`toc__entry toc__entry--depth-${depth}`} style={{ '--toc-depth': depth } as CSSProperties}>
              {locked ? (
                <Link to={appPaths.login(readerPath)} className="toc__link toc__link--locked">
                  <span className="toc__label">{entry.label}</span>
                  {time}
                  <span className="toc__lock">
                    <Icon name="lock" size={14} />
                    {`Sign in to ${consumeVerb(book.content_format).verb}`}
                  </span>
                </Link>
              ) : (
                <Link to={readerPath} className="toc__link">
                  <span className="toc__label">{entry.label}</span>
                  {sample && showSamples ? <span className="toc__badge">Sample</span> : null}
                  {time}
                </Link>
              )}
            </li>
          );
        })}
      </ol>
      {collapsible ? (
        <button
          type="button"
          className="toc__toggle"
          aria-expanded={expanded}
          aria-controls={`toc-${book.book_id}`}
          onClick={() => setExpanded((open) => !open)}
        >
          {expanded ? 'Show fewer chapters' : `Show all ${entries.length} chapters`}
        </button>
      ) : null}
    </>
  );
}
