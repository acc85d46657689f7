/**
 * Mounted once in the shell for signed-in users. §4: "Queue refresh happens only when logged in, 1500 ms after a
 * fetch": each successful fetch of the playlist list (not the cache writes of our own changes) schedules a read
 * of the queue; when the queue and the default playlist disagree (changed in another tab or app), the list is
 * fetched again, once, so both show the same items.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { PLAYLIST_TIMINGS, type Collection } from '@lectern/core';
import { api } from '../../api/client.ts';
import { hasLoginCookie } from '../../api/cookies.ts';
import { normalizeUri } from '../../shared/playlists/actions.ts';
import { playlistKeys } from '../../shared/playlists/store.ts';

const sameSet = (a: readonly string[], b: readonly string[]) => {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
};

export function PlaylistsSync() {
  const queryClient = useQueryClient();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let refetchedForQueue = false;
    const unsubscribe = queryClient.getQueryCache().subscribe((event) => {
      if (event.type !== 'updated' || event.action.type !== 'success' || event.action.manual) return;
      if (event.query.queryKey[0] !== playlistKeys.collections[0]) return;
      clearTimeout(timer);
      timer = setTimeout(async () => {
        if (!hasLoginCookie()) return;
        try {
          const urls = await queryClient.fetchQuery({
            queryKey: playlistKeys.queue,
            queryFn: async ({ signal }) => (await api.getQueue(signal)).map((e) => normalizeUri(e.url)),
            staleTime: 0,
            retry: false,
          });
          const def = queryClient.getQueryData<Collection[]>(playlistKeys.collections)?.find((p) => p.is_default);
          if (!def) return;
          if (sameSet(urls, def.content.map((i) => i.api_url))) {
            refetchedForQueue = false;
          } else if (!refetchedForQueue) {
            refetchedForQueue = true;
            void queryClient.invalidateQueries({ queryKey: playlistKeys.collections });
          }
        } catch {
          // a failed refresh changes nothing; the next fetch of the list schedules another
        }
      }, PLAYLIST_TIMINGS.queueRefreshDelayMs);
    });
    return () => {
      unsubscribe();
      clearTimeout(timer);
    };
  }, [queryClient]);
  return null;
}
