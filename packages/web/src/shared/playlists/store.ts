/**
 * The signed-in user's playlists (library-playlists-account.md §4 "Playlist list"), kept in the react-query
 * cache under one key. The list keeps the store order of the spec's reducer (`reducePlaylists`: whatever a
 * change touches moves to the front, so the title card's dropdown offers the most recently used playlists);
 * screens that list them use the display order (`sortPlaylists`). Fetching is ETag-aware in the api client.
 */
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { normalizeContentUri, PLAYLIST_MESSAGES, sortPlaylists, withTryAgain, type Collection, type CollectionSummary } from '@lectern/core';
import { api, isApiError } from '../../api/client.ts';
import { useSession } from '../useSession.ts';

export const playlistKeys = {
  /** the whole list, items and all (§7): no screen asks for it any more; read where a cache holds it */
  collections: ['collections'] as const,
  /** the light list (names and counts): every other page (docs/decisions.md, "The light playlist list") */
  summaries: ['collection-summaries'] as const,
  /** the queue's api_urls (normalised), first shown first */
  queue: ['queue'] as const,
  /** one playlist with its items: the playlist the playlists area opens */
  playlist: (id: string) => ['collection', id] as const,
  /** the ids of the playlists holding one address (a title card's "Added to Playlist" and its menu's checks) */
  holding: (apiUrl: string) => ['collection-holding', apiUrl] as const,
};

/** A playlist as a list gives it: whole, or light (names and counts). */
export type PlaylistEntry = Collection | CollectionSummary;

/** How many items a playlist holds, whichever form it came in. */
export const itemCount = (p: PlaylistEntry): number => ('content' in p ? p.content.length : p.content_count);

/** The light form of a whole playlist. */
export function summaryOf(p: PlaylistEntry): CollectionSummary {
  if (!('content' in p)) return p;
  const { content, ...rest } = p;
  return { ...rest, content_count: content.length };
}
/** What the query cache reports for a failed fetch (see app/providers.tsx). */
export interface ErrorMeta extends Record<string, unknown> {
  errorLevel: 'FATAL' | 'WARN';
  errorMessage: string;
}

/** §8: the playlist list fetch is the one FATAL error. */
export const COLLECTIONS_META: ErrorMeta = { errorLevel: 'FATAL', errorMessage: withTryAgain(PLAYLIST_MESSAGES.fetchFailed) };

export type PlaylistsStatus = 'anonymous' | 'loading' | 'fatal' | 'ready';

export interface PlaylistsView<T extends PlaylistEntry = PlaylistEntry> {
  status: PlaylistsStatus;
  /** Store order (most recently changed first). */
  playlists: T[];
  /** Display order: default first, then by name ignoring case; owned only. */
  sorted: T[];
  /** The default playlist (the queue); when none is marked default, the first in display order. */
  defaultPlaylist: T | undefined;
  /** api_urls in the queue (the default playlist). */
  queueUrls: ReadonlySet<string>;
  /** The failed fetch, when status is 'fatal'. */
  error: unknown;
  /** True when the failure was a 401 (the session has gone). */
  signedOut: boolean;
  refetch: () => void;
  isRefetching: boolean;
}

const EMPTY: never[] = [];
const NO_URLS: ReadonlySet<string> = new Set();

/** The queue's addresses as the queue call gives them, normalised as the playlists hold them. */
export async function fetchQueueUrls(signal?: AbortSignal): Promise<string[]> {
  return (await api.getQueue(signal)).map((e) => normalizeContentUri(e.url)?.apiUrl ?? e.url);
}

/** What the whole list, when this page has it, already says (no request needed for the light forms). */
const wholeList = (client: QueryClient) => client.getQueryData<Collection[]>(playlistKeys.collections);

function useSignedInEnabled(): { enabled: boolean; isLoading: boolean } {
  const { profile, isLoading } = useSession();
  // While the profile is on its way (the `logged_in` cookie says a session may exist), the list is asked for
  // alongside it rather than a round trip later. A 401 means signed out after all.
  return { enabled: !!profile || isLoading, isLoading };
}

/**
 * The playlists as every page needs them: names and counts (the light list, `?content=none`) and the queue's
 * addresses (the queue call), never the whole library of items (51 playlists of 100 items were a
 * megabyte on every page). Which playlists hold a title is asked for by the cards on screen (`useHolding`).
 * Where the whole list is cached, both come from it. A playlist's items load when it opens (`usePlaylistItems`).
 */
export function usePlaylists(): PlaylistsView<PlaylistEntry> {
  const client = useQueryClient();
  const { enabled, isLoading } = useSignedInEnabled();
  const query = useQuery({
    queryKey: playlistKeys.summaries,
    queryFn: ({ signal }) => {
      const whole = wholeList(client);
      return whole ? Promise.resolve(whole.map(summaryOf)) : api.listCollectionSummaries(signal);
    },
    initialData: () => wholeList(client)?.map(summaryOf),
    initialDataUpdatedAt: () => client.getQueryState(playlistKeys.collections)?.dataUpdatedAt,
    enabled,
    staleTime: 60_000,
    meta: COLLECTIONS_META,
  });
  const queue = useQuery({
    queryKey: playlistKeys.queue,
    queryFn: ({ signal }) => {
      const def = wholeList(client)?.find((p) => p.is_default);
      return def ? Promise.resolve(def.content.map((i) => i.api_url)) : fetchQueueUrls(signal);
    },
    initialData: () => wholeList(client)?.find((p) => p.is_default)?.content.map((i) => i.api_url),
    initialDataUpdatedAt: () => client.getQueryState(playlistKeys.collections)?.dataUpdatedAt,
    enabled: enabled && !!query.data,
    staleTime: 60_000,
    retry: false,
  });
  const playlists: PlaylistEntry[] = query.data ?? EMPTY;
  const queueUrls = useMemo(() => (queue.data ? new Set(queue.data) : NO_URLS), [queue.data]);
  return useView(playlists, queueUrls, query, enabled, isLoading, !!queue.data || queue.isError);
}

function useView<T extends PlaylistEntry>(
  playlists: T[],
  queueUrls: ReadonlySet<string>,
  query: { data: unknown; error: unknown; isError: boolean; isFetching: boolean; refetch: () => unknown },
  enabled: boolean,
  isLoading: boolean,
  queueKnown: boolean,
): PlaylistsView<T> {
  const sorted = useMemo(() => sortPlaylists(playlists), [playlists]);
  const owned = useMemo(() => playlists.filter((p) => p.is_owned !== false), [playlists]);
  // core's defaultPlaylist, for either form
  const def = useMemo(() => owned.find((p) => p.is_default) ?? sortPlaylists(owned)[0], [owned]);
  const signedOut = isApiError(query.error) && query.error.status === 401;
  let status: PlaylistsStatus;
  if (!enabled) status = isLoading ? 'loading' : 'anonymous';
  else if (query.data && queueKnown) status = 'ready';
  else if (query.isError) status = signedOut ? 'anonymous' : 'fatal';
  else status = 'loading';
  return {
    status,
    playlists: owned,
    sorted,
    defaultPlaylist: def,
    queueUrls,
    error: query.error,
    signedOut,
    refetch: () => void query.refetch(),
    isRefetching: query.isFetching,
  };
}

/**
 * One playlist with its items and their topics: what the playlists area shows when a playlist opens (from the whole
 * list when this page has it). `missing` when the server says there is no such playlist of this reader.
 */
export function usePlaylistItems(id: string | null | undefined): { playlist: Collection | undefined; status: 'loading' | 'ready' | 'missing' | 'failed' } {
  const client = useQueryClient();
  const fromWhole = () => (id ? wholeList(client)?.find((p) => p.id === id) : undefined);
  const query = useQuery({
    queryKey: playlistKeys.playlist(id ?? ''),
    queryFn: ({ signal }) => fromWhole() ?? api.getCollection(id!, signal),
    initialData: fromWhole,
    initialDataUpdatedAt: () => client.getQueryState(playlistKeys.collections)?.dataUpdatedAt,
    enabled: !!id,
    staleTime: 60_000,
    retry: false,
  });
  if (query.data) return { playlist: query.data, status: 'ready' };
  if (query.isError) return { playlist: undefined, status: isApiError(query.error) && query.error.status === 404 ? 'missing' : 'failed' };
  return { playlist: undefined, status: 'loading' };
}

// ---- which playlists hold a title: asked for by the cards on screen, in one call per screen ----

let pending: Map<string, { resolve: (ids: string[]) => void; reject: (e: unknown) => void }[]> | null = null;

/** Gathers the addresses asked about in one turn of the event loop's microtasks (one render) into one call. */
function holdingOf(apiUrl: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    if (!pending) {
      pending = new Map();
      void Promise.resolve().then(async () => {
        const batch = pending!;
        pending = null;
        try {
          const results = await api.collectionsHolding([...batch.keys()]);
          for (const [url, waiting] of batch) for (const w of waiting) w.resolve(results[url] ?? []);
        } catch (error) {
          for (const waiting of batch.values()) for (const w of waiting) w.reject(error);
        }
      });
    }
    pending.set(apiUrl, [...(pending.get(apiUrl) ?? []), { resolve, reject }]);
  });
}

const holdersIn = (whole: readonly Collection[], apiUrl: string) => whole.filter((p) => p.content.some((i) => i.api_url === apiUrl)).map((p) => p.id);

/** The ids of the reader's playlists holding `apiUrl` (normalised); null until known. */
export function useHolding(apiUrl: string, enabled: boolean): ReadonlySet<string> | null {
  const client = useQueryClient();
  const query = useQuery({
    queryKey: playlistKeys.holding(apiUrl),
    queryFn: () => {
      const whole = wholeList(client);
      return whole ? Promise.resolve(holdersIn(whole, apiUrl)) : holdingOf(apiUrl);
    },
    initialData: () => {
      const whole = wholeList(client);
      return whole ? holdersIn(whole, apiUrl) : undefined;
    },
    initialDataUpdatedAt: () => client.getQueryState(playlistKeys.collections)?.dataUpdatedAt,
    enabled,
    staleTime: 60_000,
    retry: false,
  });
  return useMemo(() => (query.data ? new Set(query.data) : null), [query.data]);
}
