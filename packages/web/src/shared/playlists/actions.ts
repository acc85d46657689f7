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
  type PlaylistAction,
  type PlaylistListAction,
  type Topic,
} from '@lectern/core';
import { api } from '../../api/client.ts';
import { reportError } from '../errorState.ts';
import { playlistKeys } from './store.ts';

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

  const findDefault = () => queryClient.getQueryData<Collection[]>(playlistKeys.collections)?.find((p) => p.is_default);

  return {
    create: (input: { name: string; description: string }) =>
      run('create', async () => {
        const playlist = await api.createCollection({ name: input.name.trim(), description: input.description ?? '' });
        dispatch({ type: 'created', playlist });
        return playlist;
      }),

    update: (input: { id: string; name: string; description: string }) =>
      run('update', async () => {
        const playlist = await api.updateCollection({ id: input.id, name: input.name.trim(), description: input.description });
        dispatch({ type: 'updated', playlist });
        return playlist;
      }),

    /** Deletes on the server; `beforeRemove` runs before the playlist leaves the cache (navigate away first). */
    remove: (id: string, beforeRemove?: () => void) =>
      run('delete', async () => {
        await api.deleteCollection(id);
        beforeRemove?.();
        dispatch({ type: 'deleted', id });
      }),

    addContent: (id: string, uris: readonly string[], topics: readonly Topic[] = [], options?: ActionOptions) =>
      run(
        'addContent',
        async () => {
          const urls = uris.map(normalizeUri);
          const playlist = await api.addContent(id, urls);
          dispatch({ type: 'contentAdded', id, items: itemsFor(urls, playlist.content, topics) });
          return playlist;
        },
        options,
      ),

    removeContent: (id: string, uris: readonly string[]) =>
      run('removeContent', async () => {
        const urls = uris.map(normalizeUri);
        const playlist = await api.removeContent(id, urls);
        dispatch({ type: 'contentRemoved', id, apiUrls: urls });
        return playlist;
      }),

    /**
     * Puts a playlist's items in a new order: shown at once, then kept on the server; a failure puts the old
     * order back and says so (the catalogue's 'updating your playlist' message).
     */
    reorder: (id: string, apiUrls: readonly string[]) =>
      run('update', async () => {
        const before = queryClient.getQueryData<Collection[]>(playlistKeys.collections)?.find((p) => p.id === id);
        dispatch({ type: 'reordered', id, apiUrls });
        try {
          return await api.reorderCollection(id, apiUrls);
        } catch (error) {
          if (before) dispatch({ type: 'reordered', id, apiUrls: before.content.map((i) => i.api_url) });
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
      }),

    removeFromQueue: (uris: readonly string[]) =>
      run('removeFromQueue', async () => {
        const urls = uris.map(normalizeUri);
        await api.removeFromQueue(urls);
        const def = findDefault();
        if (def) dispatch({ type: 'contentRemoved', id: def.id, apiUrls: urls });
      }),
  };
}

export type PlaylistActions = ReturnType<typeof createPlaylistActions>;

export function usePlaylistActions(): PlaylistActions {
  const queryClient = useQueryClient();
  return useMemo(() => createPlaylistActions(queryClient), [queryClient]);
}

/** Whether a playlist holds a title. */
export const holds = (playlist: Pick<Collection, 'content'>, apiUrl: string) => playlist.content.some((i) => i.api_url === apiUrl);
