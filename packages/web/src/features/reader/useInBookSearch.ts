/**
 * Search inside the open book (reader.md §2, §4 "Search panel", §7, §9): the query, the page of 5 results, and the
 * choice of one. Choosing a result posts the search-selection (bounded by SEARCH_SELECT_TIMEOUT_MS; a failure is
 * only logged, §8), keeps the clicked snippet and the query in cookies for a day, and goes to the result's
 * address (`?q=`, and `page=N` for a PDF), where useSearchJump finds the passage.
 */
import {
  IN_BOOK_SEARCH_PAGE_SIZE,
  type InBookSearchResult,
} from '@lectern/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import { api } from '../../api/client.ts';
import { toAppPath } from '../../shared/links.ts';
import { lastQuery, rememberChoice, trackSelection } from '../../shared/searchChoice.ts';

export type InBookSearchStatus = 'idle' | 'loading' | 'results' | 'empty' | 'error';

export interface InBookSearchInput {
  bookId: string;
  userId: string | null;
  sessionId: string | null;
  contentType: string;
  /** The panel is open; closing it (Escape, a click outside, a chosen result) resets the search (reader.md §4). */
  open: boolean;
  /** Goes to an app address (react-router's navigate). */
  go: (path: string) => void;
}

export function useInBookSearch({ bookId, userId, sessionId, contentType, open, go }: InBookSearchInput) {
  // The field starts with the query of the last day (reader.md §9 "Search query cookie 1 day").
  const [draft, setDraft] = useState(lastQuery);
  const [asked, setAsked] = useState<{ query: string; page: number } | null>(null);

  const search = useQuery({
    queryKey: ['in-book-search', bookId, asked?.query ?? '', asked?.page ?? 1],
    queryFn: ({ signal }) => api.searchInBook({ query: asked!.query, identifier: bookId, page: asked!.page }, signal),
    enabled: !!asked,
    // The results on show stay while the next page comes (the list does not jump to a spinner and back).
    placeholderData: keepPreviousData,
    staleTime: 60_000,
    retry: false,
  });

  const submit = useCallback((text?: string) => {
    const query = (text ?? '').trim();
    if (!query) return setAsked(null);
    setAsked({ query, page: 1 });
  }, []);
  const goToPage = useCallback((page: number) => setAsked((a) => (a ? { ...a, page: Math.max(1, page) } : a)), []);
  useEffect(() => {
    if (!open) setAsked(null);
  }, [open]);

  const data = search.data;
  const status: InBookSearchStatus = !asked
    ? 'idle'
    : search.isError
      ? 'error'
      : search.isFetching || !data
        ? 'loading'
        : data.total === 0 || data.results.length === 0
          ? 'empty'
          : 'results';
  const total = data?.total ?? 0;
  const page = asked?.page ?? 1;
  const pageCount = Math.max(1, Math.ceil(total / IN_BOOK_SEARCH_PAGE_SIZE));

  const choose = useCallback(
    (result: InBookSearchResult, index: number) => {
      if (!asked) return;
      const url = toAppPath(result.web_url);
      void trackSelection({
        rank: (asked.page - 1) * IN_BOOK_SEARCH_PAGE_SIZE + index,
        epubarchive_identifier: result.archive_id || bookId,
        scope: 'book',
        content_type: contentType,
        selection_type: 'passage',
        url,
        query: asked.query,
        session_id: sessionId ?? '',
        user_identifier: userId,
      });
      rememberChoice(result, asked.query);
      go(url);
    },
    [asked, bookId, contentType, sessionId, userId, go],
  );

  return {
    draft,
    setDraft,
    asked: asked?.query ?? null,
    status,
    // While the next page loads, the page on show stays (dimmed by the panel).
    results: status === 'results' || status === 'loading' ? (data?.results ?? []) : [],
    total,
    page,
    pageCount,
    submit,
    goToPage,
    choose,
  };
}

export type InBookSearch = ReturnType<typeof useInBookSearch>;
