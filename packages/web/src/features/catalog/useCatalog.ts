import { infiniteQueryOptions, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api, FIRST_PAGE, nextPageOf, type BookListParams } from '../../api/client.ts';
import { queryKeys } from '../../api/queryKeys.ts';

export type CatalogFilter = Pick<BookListParams, 'topic' | 'publisher' | 'sort' | 'format'>;

/**
 * The catalog's query for `filter`: one definition for the page and for its first screen rendered on the server and
 * hydrated in the browser (app/firstScreen.ts), which must ask for the same key to find the same answer.
 */
export const catalogQueryOf = (filter: CatalogFilter) =>
  infiniteQueryOptions({
    queryKey: queryKeys.books(filter),
    queryFn: ({ pageParam, signal }) => api.listBooks({ ...filter, ...pageParam }, signal),
    initialPageParam: FIRST_PAGE,
    getNextPageParam: (last) => nextPageOf(last),
    staleTime: 60_000,
  });

/** The filter of the whole catalog as /library/ opens (no topic, publisher or format; the title order). */
export const WHOLE_CATALOG: CatalogFilter = { sort: 'title' };

/** Pages of the catalog in the chosen order and format, following `next` and its cursor ("Load more"). */
export function useCatalog(filter: CatalogFilter) {
  return useInfiniteQuery(catalogQueryOf(filter));
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
