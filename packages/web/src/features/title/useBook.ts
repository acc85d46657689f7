import { useQuery } from '@tanstack/react-query';
import { api, isApiError } from '../../api/client.ts';
import { queryKeys } from '../../api/queryKeys.ts';

/** A title's detail: metadata, chapters in reading order and the flattened table of contents. */
export function useBook(bookId: string) {
  return useQuery({
    queryKey: queryKeys.book(bookId),
    queryFn: ({ signal }) => api.getBook(bookId, signal),
    staleTime: 5 * 60_000,
    // A missing book stays missing; other failures get one more try.
    retry: (failures, error) => !(isApiError(error) && error.status >= 400 && error.status < 500) && failures < 2,
  });
}
