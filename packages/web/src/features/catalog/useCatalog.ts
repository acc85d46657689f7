import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api, FIRST_PAGE, nextPageOf, type BookListParams } from '../../api/client.ts';
import { queryKeys } from '../../api/queryKeys.ts';

export type CatalogFilter = Pick<BookListParams, 'topic' | 'publisher' | 'sort' | 'format'>;

/** Pages of the catalog in the chosen order and format, following `next` and its cursor ("Load more"). */
export function useCatalog(filter: CatalogFilter) {
  return useInfiniteQuery({
    queryKey: queryKeys.books(filter),
    queryFn: ({ pageParam, signal }) => api.listBooks({ ...filter, ...pageParam }, signal),
    initialPageParam: FIRST_PAGE,
    getNextPageParam: (last) => nextPageOf(last),
    staleTime: 60_000,
  });
}

export function useTopics() {
  return useQuery({
    queryKey: queryKeys.topics,
    queryFn: ({ signal }) => api.listTopics(signal),
    staleTime: 5 * 60_000,
  });
}

export function usePublisher(slug: string, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.publisher(slug),
    queryFn: ({ signal }) => api.getPublisher(slug, signal),
    enabled,
    staleTime: 5 * 60_000,
  });
}
