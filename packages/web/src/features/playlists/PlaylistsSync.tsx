/**
 * Mounted once in the shell for signed-in users. §4: "Queue refresh happens only when logged in, 1500 ms after a
 * fetch": each successful fetch of the playlist list (not the cache writes of our own changes) schedules a read
 * of the queue; when the queue and the default playlist disagree (changed in another tab or app), the list is
 * fetched again, once, so both show the same items.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { PLAYLIST_TIMINGS, type Collection, type CollectionSummary } from '@lectern/core';
import { hasLoginCookie } from '../../api/cookies.ts';
import { fetchQueueUrls, playlistKeys } from '../../shared/playlists/store.ts';

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
    /** Reads the queue and refetches the lists once when they disagree; catches its own failure. */
    const refresh = async () => {
      if (!hasLoginCookie()) return;
      try {
        const urls = await queryClient.fetchQuery({
          queryKey: playlistKeys.queue,
          queryFn: ({ signal }) => fetchQueueUrls(signal),
          staleTime: 0,
          retry: false,
        });
        // the queue's addresses are what the toggles read; the lists must agree with them (items, or the count)
        const whole = queryClient.getQueryData<Collection[]>(playlistKeys.collections)?.find((p) => p.is_default);
        const light = queryClient.getQueryData<CollectionSummary[]>(playlistKeys.summaries)?.find((p) => p.is_default);
        if (!whole && !light) return;
        const agrees = (!whole || sameSet(urls, whole.content.map((i) => i.api_url))) && (!light || light.content_count === new Set(urls).size);
        if (agrees) {
          refetchedForQueue = false;
        } else if (!refetchedForQueue) {
          refetchedForQueue = true;
          void queryClient.invalidateQueries({ queryKey: playlistKeys.collections });
          void queryClient.invalidateQueries({ queryKey: playlistKeys.summaries });
        }
      } catch {
        // a failed refresh changes nothing; the next fetch of the list schedules another
      }
    };
    const unsubscribe = queryClient.getQueryCache().subscribe((event) => {
      if (event.type !== 'updated' || event.action.type !== 'success' || event.action.manual) return;
      // the whole list or the light one (every page but the playlists area reads the light one)
      const key = event.query.queryKey[0];
      if (key !== playlistKeys.collections[0] && key !== playlistKeys.summaries[0]) return;
      clearTimeout(timer);
      timer = setTimeout(() => void refresh(), PLAYLIST_TIMINGS.queueRefreshDelayMs);
    });
    return () => {
      unsubscribe();
      clearTimeout(timer);
    };
  }, [queryClient]);
  return null;
}
