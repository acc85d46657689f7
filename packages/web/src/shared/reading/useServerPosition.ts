/**
 * The reading position follows the account (docs/decisions.md "Positions"): the reader asks the server where the
 * reader left the book when it opens, and tells it where the reader is while reading.
 *
 * - Down: GET /api/v1/book/{id}/position/. A server position newer than the last one this browser saw or wrote
 *   (another device moved on since) is written into the local position store, where the engine's usual restore
 *   (engine/position.ts, ReaderPage's `initial`) finds it: the same chapter, then the same words. Otherwise the
 *   local position wins: it is this browser's own, at least as new. Both times compared are the server's.
 * - Up: PUT, 2 s after the reader stops moving, one request at a time (the latest position wins the queue), and
 *   what is left unsent when the page goes away or the reader leaves, with fetch keepalive.
 *
 * The engine's Locator is the one the server keeps (core's): what is sent is only held to the contract's bounds.
 */
import { LOCATOR_LIMITS, type Locator, type PositionResponse } from '@lectern/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef } from 'react';
import { api } from '../../api/client.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { applyServerPosition, markSeen } from './serverPositionSeed.ts';

export { lastSeen, markSeen } from './serverPositionSeed.ts';

/** Quiet time after the last move before the position is sent. */
export const POSITION_SYNC_DELAY_MS = 2000;
/** How long a fetched server position is trusted before the reader asks again. */
const POSITION_FRESH_MS = 5000;

/** A Locator as PUT .../position/ takes it: progression within 0 to 1, its words within LOCATOR_LIMITS. */
export function sendableLocator(locator: Locator): Locator {
  const progression = Math.min(1, Math.max(0, Number.isFinite(locator.progression) ? locator.progression : 0));
  const t = locator.text;
  if (!t) return { href: locator.href, progression };
  return {
    href: locator.href,
    progression,
    text: {
      ...(t.before !== undefined ? { before: t.before.slice(-LOCATOR_LIMITS.context) } : {}),
      ...(t.highlight !== undefined ? { highlight: t.highlight.slice(0, LOCATOR_LIMITS.highlight) } : {}),
      ...(t.after !== undefined ? { after: t.after.slice(0, LOCATOR_LIMITS.context) } : {}),
    },
  };
}

/**
 * The server's position of this book, applied to the local store when it is newer than what this browser knows.
 * `ready` once it is known (or could not be had: reading never waits on a failed request).
 */
export function useServerPositionDown(bookId: string, userId: string | null) {
  const query = useQuery({
    queryKey: queryKeys.position(bookId, userId ?? ''),
    queryFn: async ({ signal }): Promise<PositionResponse> => applyServerPosition(bookId, userId, await api.getPosition(bookId, signal)),
    enabled: !!userId && !!bookId,
    staleTime: POSITION_FRESH_MS,
    retry: false,
  });
  return { ready: !userId || !query.isPending || query.isError, position: query.data?.position ?? null };
}

/**
 * The reader's side of the sync: `report(locator)` on every move; sends debounced, flushes on pagehide, when the
 * tab is hidden, and when the reader leaves the book. Nothing is sent for anonymous readers.
 */
export function useServerPositionUp(bookId: string, userId: string | null) {
  const queryClient = useQueryClient();
  const pending = useRef<Locator | null>(null);
  const lastSent = useRef<string>('');
  const inFlight = useRef(false);
  const timer = useRef(0);
  const leaving = useRef(false);

  const send = useCallback(
    (keepalive: boolean) => {
      window.clearTimeout(timer.current);
      const locator = pending.current;
      if (!userId || !locator) return;
      const body = JSON.stringify(locator);
      if (body === lastSent.current) {
        pending.current = null;
        return;
      }
      // One at a time, so an earlier write can never land after a later one; keepalive goes at once (the page is
      // going away, and it carries the latest position).
      if (inFlight.current && !keepalive) return;
      pending.current = null;
      inFlight.current = true;
      lastSent.current = body;
      // void: the write's failure is caught below (kept for the next try); the last step only schedules
      void api
        .putPosition(bookId, locator, { keepalive })
        .then((answer) => {
          if (answer.position) {
            markSeen(userId, bookId, answer.position.updated_at);
            queryClient.setQueryData(queryKeys.position(bookId, userId), answer);
          }
          // The catalog and the title page show continue_url and progress: they ask again when next shown.
          void queryClient.invalidateQueries({ queryKey: queryKeys.allBooks, refetchType: 'none' });
          void queryClient.invalidateQueries({ queryKey: queryKeys.book(bookId), refetchType: 'none' });
        })
        .catch(() => {
          // Kept for the next move or the next hide (no retry loop while offline), unless a newer one replaced it.
          lastSent.current = '';
          pending.current ??= locator;
          return 'failed' as const;
        })
        .then((outcome) => {
          inFlight.current = false;
          if (!pending.current || outcome === 'failed') return;
          if (leaving.current) send(true);
          else timer.current = window.setTimeout(() => send(false), POSITION_SYNC_DELAY_MS);
        });
    },
    [bookId, userId, queryClient],
  );

  const report = useCallback(
    (locator: Locator) => {
      if (!userId || !locator.href) return;
      pending.current = sendableLocator(locator);
      window.clearTimeout(timer.current);
      timer.current = window.setTimeout(() => send(false), POSITION_SYNC_DELAY_MS);
    },
    [userId, send],
  );

  useEffect(() => {
    const onHidden = () => {
      if (document.visibilityState === 'hidden') send(true);
    };
    const onPageHide = () => send(true);
    document.addEventListener('visibilitychange', onHidden);
    window.addEventListener('pagehide', onPageHide);
    return () => {
      document.removeEventListener('visibilitychange', onHidden);
      window.removeEventListener('pagehide', onPageHide);
      // Leaving the book (the page stays): after any write on its way, so the order holds.
      leaving.current = true;
      if (!inFlight.current) send(true);
    };
  }, [send]);

  return useMemo(() => ({ report }), [report]);
}
