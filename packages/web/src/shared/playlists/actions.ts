/**
 * Playlist changes (library-playlists-account.md §4, §7, §8): each calls the api client, applies the spec's
 * reducer to the cached list on success, and on failure reports the catalogue's WARN message (followed by
 * 'Please try again soon.') to the global error bar before rethrowing, so the caller can show its own state.
 */
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import {
  normalizeContentUri,
  PLAYLIST_ACTION_ERRORS,
  reducePlaylists,
  withTryAgain,
  type Collection,
  type CollectionItem,
  type CollectionSummary,
  type PlaylistAction,
  type PlaylistListAction,
  type Topic,
} from '@lectern/core';
import { api } from '../../api/client.ts';
import { reportError } from '../errorState.ts';
import { playlistKeys, summaryOf, type PlaylistEntry } from './store.ts';

export const normalizeUri = (uri: string) => normalizeContentUri(uri)?.apiUrl ?? uri;

export interface ActionOptions {
  /** Do not report a failure to the error bar (e.g. adding content after create: the spec ignores it). */
  quiet?: boolean;
}

export function createPlaylistActions(queryClient: QueryClient) {
  const dispatch = (action: PlaylistListAction<Collection>) =>
    queryClient.setQueryData<Collection[]>(playlistKeys.collections, (old) => (old ? reducePlaylists(old, action) : old));

  async function run<T>(action: PlaylistAction, work: () => Promise<T>, options: ActionOptions = {}): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!options.quiet) reportError('WARN', withTryAgain(PLAYLIST_ACTION_ERRORS[action]), error);
      throw error;
    }
  }

  const itemsFor = (urls: readonly string[], from: readonly CollectionItem[] | null, topics: readonly Topic[]): CollectionItem[] =>
    urls.map((u) => from?.find((i) => i.api_url === u) ?? { api_url: u, metadata: { topics: [...topics] } });

  const findDefault = (): PlaylistEntry | undefined =>
    queryClient.getQueryData<Collection[]>(playlistKeys.collections)?.find((p) => p.is_default) ??
    queryClient.getQueryData<CollectionSummary[]>(playlistKeys.summaries)?.find((p) => p.is_default);

  // The light forms every page reads (store.ts) follow each change too: the light list (names, counts, the changed
  // playlist to the front as §4 says), the queue's addresses, and which playlists hold each address.
  const setSummaries = (change: (old: CollectionSummary[]) => CollectionSummary[]) =>
    queryClient.setQueryData<CollectionSummary[]>(playlistKeys.summaries, (old) => (old ? change(old) : old));
  const toFront = (playlist: PlaylistEntry) => setSummaries((old) => [summaryOf(playlist), ...old.filter((p) => p.id !== playlist.id)]);
  const setHolding = (urls: readonly string[], id: string, held: boolean) => {
    for (const url of urls)
      queryClient.setQueryData<string[]>(playlistKeys.holding(url), (old) => (old ? (held ? [...new Set([...old, id])] : old.filter((x) => x !== id)) : old));
  };
  // The opened playlist's own cache (usePlaylistItems) takes the server's answer, or the same reducer.
  const setPlaylist = (playlist: Collection) => queryClient.setQueryData<Collection>(playlistKeys.playlist(playlist.id), (old) => (old ? playlist : old));
  const dispatchOne = (action: PlaylistListAction<Collection> & { id: string }) =>
    queryClient.setQueryData<Collection>(playlistKeys.playlist(action.id), (old) => (old ? (reducePlaylists([old], action)[0] ?? old) : old));
  const setQueue = (change: (old: string[]) => string[]) => queryClient.setQueryData<string[]>(playlistKeys.queue, (old) => (old ? change(old) : old));
  const queueAdded = (urls: readonly string[]) => setQueue((old) => [...urls.filter((u) => !old.includes(u)), ...old]);
  const queueRemoved = (urls: readonly string[]) => setQueue((old) => old.filter((u) => !urls.includes(u)));

  return {
    create: (input: { name: string; description: string }) =>
      run('create', async () => {
        const playlist = await api.createCollection({ name: input.name.trim(), description: input.description ?? '' });
        dispatch({ type: 'created', playlist });
        toFront(playlist);
        return playlist;
      }),

    update: (input: { id: string; name: string; description: string }) =>
      run('update', async () => {
        const playlist = await api.updateCollection({ id: input.id, name: input.name.trim(), description: input.description });
        dispatch({ type: 'updated', playlist });
        toFront(playlist);
        setPlaylist(playlist);
        return playlist;
      }),

    /** Deletes on the server; `beforeRemove` runs before the playlist leaves the cache (navigate away first). */
    remove: (id: string, beforeRemove?: () => void) =>
      run('delete', async () => {
        await api.deleteCollection(id);
        beforeRemove?.();
        dispatch({ type: 'deleted', id });
        setSummaries((old) => old.filter((p) => p.id !== id));
        queryClient.removeQueries({ queryKey: playlistKeys.playlist(id), exact: true });
        queryClient.setQueriesData<string[]>({ queryKey: playlistKeys.holding('').slice(0, 1) }, (old) => old?.filter((x) => x !== id));
      }),

    addContent: (id: string, uris: readonly string[], topics: readonly Topic[] = [], options?: ActionOptions) =>
      run(
        'addContent',
        async () => {
          const urls = uris.map(normalizeUri);
          const playlist = await api.addContent(id, urls);
          dispatch({ type: 'contentAdded', id, items: itemsFor(urls, playlist.content, topics) });
          toFront(playlist);
          setPlaylist(playlist);
          setHolding(urls, id, true);
          if (playlist.is_default) queueAdded(urls);
          return playlist;
        },
        options,
      ),

    removeContent: (id: string, uris: readonly string[]) =>
      run('removeContent', async () => {
        const urls = uris.map(normalizeUri);
        const playlist = await api.removeContent(id, urls);
        dispatch({ type: 'contentRemoved', id, apiUrls: urls });
        toFront(playlist);
        setPlaylist(playlist);
        setHolding(urls, id, false);
        if (playlist.is_default) queueRemoved(urls);
        return playlist;
      }),

    /**
     * Puts a playlist's items in a new order: shown at once, then kept on the server; a failure puts the old
     * order back and says so (the catalogue's 'updating your playlist' message).
     */
    reorder: (id: string, apiUrls: readonly string[]) =>
      run('update', async () => {
        const before =
          queryClient.getQueryData<Collection>(playlistKeys.playlist(id)) ?? queryClient.getQueryData<Collection[]>(playlistKeys.collections)?.find((p) => p.id === id);
        dispatch({ type: 'reordered', id, apiUrls });
        dispatchOne({ type: 'reordered', id, apiUrls });
        try {
          const playlist = await api.reorderCollection(id, apiUrls);
          if (playlist.is_default) setQueue(() => [...apiUrls]);
          return playlist;
        } catch (error) {
          if (before) {
            dispatch({ type: 'reordered', id, apiUrls: before.content.map((i) => i.api_url) });
            dispatchOne({ type: 'reordered', id, apiUrls: before.content.map((i) => i.api_url) });
          }
          throw error;
        }
      }),

    /** The queue is the default playlist: queue-simple calls, then the same reducer on the default playlist. */
    addToQueue: (uris: readonly string[], topics: readonly Topic[] = []) =>
      run('addToQueue', async () => {
        const urls = uris.map(normalizeUri);
        await api.addToQueue(urls);
        const def = findDefault();
        if (def) dispatch({ type: 'contentAdded', id: def.id, items: itemsFor(urls, null, topics) });
        if (def) dispatchOne({ type: 'contentAdded', id: def.id, items: itemsFor(urls, null, topics) });
        queueAdded(urls);
        if (def) setHolding(urls, def.id, true);
        // the queue call does not say the new count: the light list is asked again
        void queryClient.invalidateQueries({ queryKey: playlistKeys.summaries });
      }),

    removeFromQueue: (uris: readonly string[]) =>
      run('removeFromQueue', async () => {
        const urls = uris.map(normalizeUri);
        await api.removeFromQueue(urls);
        const def = findDefault();
        if (def) dispatch({ type: 'contentRemoved', id: def.id, apiUrls: urls });
        if (def) dispatchOne({ type: 'contentRemoved', id: def.id, apiUrls: urls });
        queueRemoved(urls);
        if (def) setHolding(urls, def.id, false);
        void queryClient.invalidateQueries({ queryKey: playlistKeys.summaries });
      }),
  };
}

export type PlaylistActions = ReturnType<typeof createPlaylistActions>;

export function usePlaylistActions(): PlaylistActions {
  const queryClient = useQueryClient();
  return useMemo(() => createPlaylistActions(queryClient), [queryClient]);
}

/** Whether a playlist holds a title: from `holding` (the ids holding it) when given, else from its items. */
export const holds = (playlist: PlaylistEntry, apiUrl: string, holding?: ReadonlySet<string> | null) =>
  holding ? holding.has(playlist.id) : 'content' in playlist && playlist.content.some((i) => i.api_url === apiUrl);
