/**
 * The signed-in user's playlists (library-playlists-account.md §4 "Playlist list"), kept in the react-query
 * cache under one key. The list keeps the store order of the spec's reducer (`reducePlaylists`: whatever a
 * change touches moves to the front, so the title card's dropdown offers the most recently used playlists);
 * screens that list them use the display order (`sortPlaylists`). Fetching is ETag-aware in the api client.
 */
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { PLAYLIST_MESSAGES, defaultPlaylist, sortPlaylists, withTryAgain, type Collection } from '@lectern/core';
import { api, isApiError } from '../../api/client.ts';
import { useSession } from '../useSession.ts';

export const playlistKeys = {
  collections: ['collections'] as const,
  queue: ['queue'] as const,
};

/** What the query cache reports for a failed fetch (see app/providers.tsx). */
export interface ErrorMeta extends Record<string, unknown> {
  errorLevel: 'FATAL' | 'WARN';
  errorMessage: string;
}

/** §8: the playlist list fetch is the one FATAL error. */
export const COLLECTIONS_META: ErrorMeta = { errorLevel: 'FATAL', errorMessage: withTryAgain(PLAYLIST_MESSAGES.fetchFailed) };

export type PlaylistsStatus = 'anonymous' | 'loading' | 'fatal' | 'ready';

export interface PlaylistsView {
  status: PlaylistsStatus;
  /** Store order (most recently changed first). */
  playlists: Collection[];
  /** Display order: default first, then by name ignoring case; owned only. */
  sorted: Collection[];
  /** The default playlist (the queue); when none is marked default, the first in display order. */
  defaultPlaylist: Collection | undefined;
  /** api_urls in the queue (the default playlist). */
  queueUrls: ReadonlySet<string>;
  /** The failed fetch, when status is 'fatal'. */
  error: unknown;
  /** True when the failure was a 401 (the session has gone). */
  signedOut: boolean;
  refetch: () => void;
  isRefetching: boolean;
}

const EMPTY: Collection[] = [];

export function usePlaylists(): PlaylistsView {
  const { profile, isLoading } = useSession();
  // While the profile is on its way (the `logged_in` cookie says a session may exist), the list is asked for
  // alongside it rather than a round trip later: a playlist page needs both. A 401 means signed out after all.
  const enabled = !!profile || isLoading;
  const query = useQuery({
    queryKey: playlistKeys.collections,
    queryFn: ({ signal }) => api.listCollections(signal),
    enabled,
    staleTime: 60_000,
    meta: COLLECTIONS_META,
  });
  const playlists = query.data ?? EMPTY;
  const sorted = useMemo(() => sortPlaylists(playlists), [playlists]);
  const owned = useMemo(() => playlists.filter((p) => p.is_owned !== false), [playlists]);
  const def = useMemo(() => defaultPlaylist(owned), [owned]);
  const queueUrls = useMemo(() => new Set((def?.is_default ? def.content : []).map((i) => i.api_url)), [def]);
  const signedOut = isApiError(query.error) && query.error.status === 401;
  let status: PlaylistsStatus;
  if (!enabled) status = isLoading ? 'loading' : 'anonymous';
  else if (query.data) status = 'ready';
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
