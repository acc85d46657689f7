/**
 * One chapter, ready to show: POST /nest/epub/block/ for the archive item, then (for crypt64) the key and the
 * decryption. What can come back is spelled out in ChapterLoad so the page renders each case on purpose.
 */
import { MESSAGES, type ArchiveItem, type ChapterItem } from '@lectern/core';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef } from 'react';
import { isApiError, yieldToBrowser } from '../../api/client.ts';
import { primeSlices } from './engine/chapterSlices.ts';
import { decryptAsync, loadBlock, warmChapterWorker } from './engine/chapterWorker.ts';
import { storedKey, userKey } from './engine/keyStore.ts';
import { readerKeys } from '../../shared/reading/readerKeys.ts';

export type ChapterLoad =
  | { kind: 'html'; item: ArchiveItem; chapter: ChapterItem; html: string; encrypted: boolean }
  | { kind: 'pdf'; item: ArchiveItem; chapter: ChapterItem; fileUrl: string }
  | { kind: 'refused'; item: ArchiveItem; message: string; url: string | null }
  | { kind: 'still-loading' }
  | { kind: 'failed'; item: ArchiveItem | null; message: string };


async function loadChapter(bookId: string, href: string, userId: string | null, prefetch: boolean, signal?: AbortSignal): Promise<ChapterLoad> {
  if (userId) warmChapterWorker();
  if (!prefetch) performance.mark('reader:chapter-asked');
  // The stored key goes with the request, so the chapter comes back decrypted; without one (first visit), the key
  // request runs alongside the chapter request.
  const stored = userId ? storedKey(userId) : null;
  const keyLoading = userId && !stored ? userKey(userId) : null;
  keyLoading?.catch(() => undefined);
  const { items, decrypted, sliced } = await loadBlock(
    { bookId, href, screenWidth: window.innerWidth, screenHeight: window.innerHeight, updateProgress: !prefetch },
    stored,
    signal,
  );
  performance.mark('reader:block-received');
  // The answer is in: what follows (adopting it, the chapter's render, its document) goes in a task of its own.
  await yieldToBrowser();
  const item = items[0];
  if (!item) return { kind: 'still-loading' };
  if (item.error) return { kind: 'refused', item, message: item.error, url: item.url };
  const chapter = item.resources[0];
  if (!chapter) return { kind: 'still-loading' };
  if (chapter.content_type === 'application/pdf') {
    return item.url ? { kind: 'pdf', item, chapter, fileUrl: item.url } : { kind: 'failed', item, message: MESSAGES.imageLoadFailed };
  }
  if (chapter.encoding !== 'crypt64') return { kind: 'html', item, chapter, html: chapter.content, encrypted: false };
  if (!userId || !chapter.checksum) return { kind: 'failed', item, message: MESSAGES.unableToDecrypt };
  if (decrypted?.ok) {
    if (sliced !== undefined) primeSlices(decrypted.html, sliced);
    performance.mark('reader:decrypted');
    return { kind: 'html', item, chapter, html: decrypted.html, encrypted: true };
  }
  let key: string;
  try {
    key = stored && !decrypted ? stored : await (keyLoading ?? userKey(userId, !!decrypted));
  } catch {
    return { kind: 'failed', item, message: MESSAGES.unableToDecrypt };
  }
  const attempt = (k: string) => decryptAsync({ content: chapter.content, checksum: chapter.checksum!, key: k, bookId: item.book_id, chapterHref: item.chapter_href });
  let result = await attempt(key);
  if (!result.ok && !decrypted) {
    // A stale stored key (the server's secret changed): ask once more before giving up.
    try {
      const fresh = await userKey(userId, true);
      if (fresh !== key) result = await attempt(fresh);
    } catch {
      return { kind: 'failed', item, message: MESSAGES.unableToDecrypt };
    }
  }
  if (!result.ok) return { kind: 'failed', item, message: MESSAGES.chapterNotDecrypted };
  performance.mark('reader:decrypted');
  return { kind: 'html', item, chapter, html: result.html, encrypted: true };
}

const chapterQuery = (bookId: string, href: string, userId: string | null, prefetch: boolean) => ({
  queryKey: readerKeys.chapter(bookId, href, userId),
  queryFn: ({ signal }: { signal: AbortSignal }) => loadChapter(bookId, href, userId, prefetch, prefetch ? undefined : signal),
  staleTime: 10 * 60_000,
  gcTime: 10 * 60_000,
  retry: (failures: number, error: Error) => !(isApiError(error) && error.status >= 400 && error.status < 500) && failures < 2,
});

/**
 * The chapter at `href`. While another chapter of the book loads, the one on screen stays (placeholder data): the
 * reader keeps reading instead of looking at a spinner, and its frame is reused for the next document.
 */
export function useReaderChapter(bookId: string, href: string, userId: string | null, enabled = true) {
  return useQuery({ ...chapterQuery(bookId, href, userId, false), enabled: enabled && !!href, placeholderData: keepPreviousData });
}

/**
 * Back online (the `online` event): a chapter that failed or is waiting for the connection is asked for again at
 * once. React Query resumes paused requests by itself too; this also covers a request that failed outright.
 */
export function useRetryWhenOnline(query: { isError: boolean; isPaused: boolean; refetch: () => unknown }) {
  const latest = useRef(query);
  latest.current = query;
  useEffect(() => {
    const onOnline = () => {
      if (latest.current.isError || latest.current.isPaused) void latest.current.refetch();
    };
    window.addEventListener('online', onOnline);
    return () => window.removeEventListener('online', onOnline);
  }, []);
}

/** The chapter at `href` if it is already loaded (prefetched), without asking for it; updates when it arrives. */
export function useLoadedReaderChapter(bookId: string, href: string | null | undefined, userId: string | null): ChapterLoad | undefined {
  return useQuery({ ...chapterQuery(bookId, href ?? '', userId, true), enabled: false }).data;
}

/** How long after a chapter opens the next one is prepared: never in competition with the first paint. */
const PREFETCH_DELAY_MS = 1000;

/** Prepares the next chapter (request and decryption) while this one is read, so turning into it is instant. */
export function usePrefetchReaderChapter(bookId: string, href: string | null | undefined, userId: string | null) {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!href || !userId) return;
    const idle = window.requestIdleCallback ?? ((cb: () => void) => window.setTimeout(cb, 0));
    const cancel = window.cancelIdleCallback ?? window.clearTimeout;
    let idleHandle: number | undefined;
    const timer = window.setTimeout(() => {
      idleHandle = idle(() => void queryClient.prefetchQuery(chapterQuery(bookId, href, userId, true)));
    }, PREFETCH_DELAY_MS);
    return () => {
      window.clearTimeout(timer);
      if (idleHandle !== undefined) cancel(idleHandle);
    };
  }, [queryClient, bookId, href, userId]);
}

/**
 * Starts loading a chapter the moment the reader asks for it (a TOC click), before the route change tears the
 * current frame down: the request and the decryption overlap that work instead of following it.
 */
export function useStartChapterLoad(bookId: string, userId: string | null) {
  const queryClient = useQueryClient();
  return useCallback((href: string): Promise<void> => queryClient.prefetchQuery(chapterQuery(bookId, href, userId, false)), [queryClient, bookId, userId]);
}

/**
 * Fetches a chapter (from the cache when it is there) for the stacked view of a book read as one scroll
 * (ContinuousView.tsx): its neighbours come in as the reader nears an edge, and share the page's cache, so moving the
 * address to one of them finds it loaded. Not a read of the reader's progress (the block request does not update it).
 */
export function useFetchReaderChapter(bookId: string, userId: string | null) {
  const queryClient = useQueryClient();
  return useCallback((href: string): Promise<ChapterLoad> => queryClient.fetchQuery(chapterQuery(bookId, href, userId, true)), [queryClient, bookId, userId]);
}
