/**
 * The search page's query from its address (/search/?q=&page=&after=&sort=&format=&topic=&publisher=&language=):
 * one definition for the page and for its first screen rendered on the server and hydrated in the browser
 * (ssr.tsx, app/firstScreen.ts), which must ask for the same key to find the same answer.
 */
import { CONTENT_FORMATS, SEARCH_SORTS, type CatalogSearchResponse } from '@lectern/core';
import { api } from '../../api/client.ts';

export const FACETS = ['format', 'topic', 'publisher', 'language'] as const;

export function searchAddressOf(params: URLSearchParams) {
  const q = params.get('q') ?? '*';
  const page = Math.max(1, Number(params.get('page')) || 1);
  const sort = (SEARCH_SORTS as readonly string[]).includes(params.get('sort') ?? '') ? (params.get('sort') as (typeof SEARCH_SORTS)[number]) : 'relevance';
  const filters = Object.fromEntries(FACETS.map((f) => [f, params.get(f)])) as Record<(typeof FACETS)[number], string | null>;
  const format = filters.format && (CONTENT_FORMATS as readonly string[]).includes(filters.format) ? (filters.format as (typeof CONTENT_FORMATS)[number]) : undefined;
  // where a page of a large match set starts (the server's `next` gives it; without it the page is found from the start)
  const after = params.get('after') ?? undefined;
  return { q, page, sort, filters, format, after };
}

export function searchQueryOf(params: URLSearchParams) {
  const { q, page, sort, filters, format, after } = searchAddressOf(params);
  return {
    queryKey: ['search', q, page, after, sort, filters.format, filters.topic, filters.publisher, filters.language],
    queryFn: ({ signal }: { signal?: AbortSignal }): Promise<CatalogSearchResponse> =>
      api.searchCatalog(
        { q, page, after, sort, format, topic: filters.topic ?? undefined, publisher: filters.publisher ?? undefined, language: filters.language ?? undefined },
        signal,
      ),
  };
}
