/**
 * The in-book search panel (reader.md §2, §4 "Search panel", §8): a search field, 5 results a page (the chapter,
 * its reading time and the snippet with the hit words marked), paging, 'No results for "{query}"', the failure
 * message, and 'Search the whole site'. Snippets are escaped text where only <mark> is markup (core/search.ts):
 * they are split into text nodes and <mark> elements, never set as HTML.
 */
import { formatReadingTime, IN_BOOK_SEARCH_MESSAGES, IN_BOOK_SEARCH_PAGE_SIZE, searchPaths, type InBookSearchResult } from '@lectern/core';
import { Snippet } from '../../shared/Snippet.tsx';
import { memo, useEffect, useId, useRef } from 'react';
import { Link } from 'react-router';
import { Spinner } from '../../components/Spinner.tsx';
import { toAppPath } from '../../shared/links.ts';
import { ReaderIcon } from '../../shared/reading/ReaderIcon.tsx';
import type { InBookSearch } from './useInBookSearch.ts';
import { SidePanel } from '../../shared/reading/SidePanel.tsx';

export interface SearchPanelProps {
  open: boolean;
  search: InBookSearch;
  onClose: () => void;
}

export const SearchPanel = memo(function SearchPanel({ open, search, onClose }: SearchPanelProps) {
  const fieldRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLOListElement>(null);
  const statusId = useId();

  // A new page of results starts at its top.
  useEffect(() => {
    listRef.current?.scrollIntoView?.({ block: 'nearest' });
  }, [search.page]);

  const { status, asked, results, total, page, pageCount } = search;
  const siteQuery = (asked ?? search.draft).trim();
  return (
    <SidePanel open={open} block="reader-search" label="Search this book" heading="Search this book" closeLabel="Close search" onClose={onClose} initialFocus={fieldRef}>
      <form
        className="reader-search__form"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          search.submit(search.draft);
        }}
      >
        <input
          ref={fieldRef}
          type="search"
          className="reader-search__field"
          aria-label="Search this book"
          aria-describedby={statusId}
          placeholder="Search this book"
          value={search.draft}
          maxLength={200}
          enterKeyHint="search"
          onChange={(e) => search.setDraft(e.target.value)}
        />
        <button type="submit" className="reader-chip reader-search__go">
          Search
        </button>
      </form>
      <div className="reader-search__body">
        <div id={statusId} className="reader-search__status" role="status" aria-live="polite">
          {status === 'loading' ? (
            <p className="reader-search__loading">
              <Spinner size="sm" /> Searching…
            </p>
          ) : null}
          {status === 'empty' && asked ? <p className="reader-search__message">{IN_BOOK_SEARCH_MESSAGES.noResults(asked)}</p> : null}
          {status === 'results' ? (
            <p className="reader-search__count">
              {total === 1 ? '1 result' : `${total} results`}
              {pageCount > 1 ? `, page ${page} of ${pageCount}` : ''}
            </p>
          ) : null}
        </div>
        {status === 'error' ? (
          <p className="reader-search__message reader-search__message--error" role="alert">
            {IN_BOOK_SEARCH_MESSAGES.failed}
          </p>
        ) : null}
        {results.length ? (
          <ol ref={listRef} className={`reader-search__results${status === 'loading' ? ' reader-search__results--stale' : ''}`} start={(page - 1) * IN_BOOK_SEARCH_PAGE_SIZE + 1}>
            {results.map((r, i) => (
              <ResultRow key={`${r.full_path}-${i}`} result={r} index={i} onChoose={search.choose} />
            ))}
          </ol>
        ) : null}
        {status === 'results' && pageCount > 1 ? (
          <nav className="reader-search__pages" aria-label="Search result pages">
            <button type="button" className="reader-chip" disabled={page <= 1} onClick={() => search.goToPage(page - 1)}>
              <ReaderIcon name="prev" size={16} /> Previous
            </button>
            <span className="reader-search__pageno">
              {page} / {pageCount}
            </span>
            <button type="button" className="reader-chip" disabled={page >= pageCount} onClick={() => search.goToPage(page + 1)}>
              Next <ReaderIcon name="next" size={16} />
            </button>
          </nav>
        ) : null}
        <Link className="reader-search__site" to={searchPaths.searchPage(siteQuery)}>
          {IN_BOOK_SEARCH_MESSAGES.wholeSite}
        </Link>
      </div>
    </SidePanel>
  );
});

function ResultRow({ result, index, onChoose }: { result: InBookSearchResult; index: number; onChoose: (r: InBookSearchResult, i: number) => void }) {
  return (
    <li className="reader-search__result">
      <a
        href={toAppPath(result.web_url)}
        className="reader-search__link"
        onClick={(e) => {
          if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
          e.preventDefault();
          onChoose(result, index);
        }}
      >
        <span className="reader-search__chapter">
          <span className="reader-search__chapter-title">{result.chapter_title}</span>
          {result.minutes_required > 0 ? <span className="reader-search__minutes">{formatReadingTime(result.minutes_required)}</span> : null}
        </span>
        <span className="reader-search__snippet">
          <Snippet html={result.highlighted_content} />
        </span>
      </a>
    </li>
  );
}
