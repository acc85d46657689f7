import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api, isApiError } from '../../api/client.ts';
import { queryKeys } from '../../api/queryKeys.ts';

const chapterQuery = (bookId: string, fullPath: string) => ({
  queryKey: queryKeys.chapter(bookId, fullPath),
  queryFn: ({ signal }: { signal: AbortSignal }) => api.getChapter(bookId, fullPath, signal),
  staleTime: 10 * 60_000,
  retry: (failures: number, error: Error) => !(isApiError(error) && error.status >= 400 && error.status < 500) && failures < 2,
});

export function useChapter(bookId: string, fullPath: string) {
  return useQuery({ ...chapterQuery(bookId, fullPath), enabled: !!fullPath });
}

/** Fetch the next chapter while the reader reads this one, so "Next chapter" opens at once. */
export function usePrefetchChapter(bookId: string, fullPath: string | null | undefined) {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!fullPath) return;
    const idle = window.requestIdleCallback ?? ((cb: () => void) => window.setTimeout(cb, 500));
    const cancel = window.cancelIdleCallback ?? window.clearTimeout;
    const handle = idle(() => void queryClient.prefetchQuery(chapterQuery(bookId, fullPath)));
    return () => cancel(handle);
  }, [queryClient, bookId, fullPath]);
}
