/**
 * The title page's table of contents: entries indented by depth, each linking to the reader page of its chapter.
 * For an anonymous visitor, chapters that are neither samples nor public show a lock and lead to sign-in.
 */
import type { CSSProperties } from 'react';
import { Link } from 'react-router';
import { paths, type BookDetail, type TocEntry } from '@lectern/core';
import { Icon } from '../../components/Icon.tsx';
import { appPaths } from '../../shared/links.ts';
import './TableOfContents.css';

function fragmentOf(href: string): string {
  const i = href.indexOf('#');
  return i >= 0 && i < href.length - 1 ? href.slice(i) : '';
}

export function TableOfContents({ book, signedIn }: { book: BookDetail; signedIn: boolean }) {
  const chapters = new Map(book.chapters.map((c) => [c.full_path, c]));
  const entries: TocEntry[] = book.toc.length
    ? book.toc
    : book.chapters.map((c) => ({ label: c.label, href: c.full_path, full_path: c.full_path, depth: 0 }));
  if (!entries.length) return <p className="toc__empty">This title has no table of contents.</p>;
  const minDepth = Math.min(...entries.map((e) => e.depth));

  return (
    <ol className="toc">
      {entries.map((entry, i) => {
        const chapter = chapters.get(entry.full_path);
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
                <span className="toc__lock">
                  <Icon name="lock" size={14} />
                  Sign in to read
                </span>
              </Link>
            ) : (
              <Link to={readerPath} className="toc__link">
                <span className="toc__label">{entry.label}</span>
                {sample ? <span className="toc__badge">Sample</span> : null}
              </Link>
            )}
          </li>
        );
      })}
    </ol>
  );
}
