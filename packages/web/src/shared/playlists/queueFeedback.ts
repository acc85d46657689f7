/**
 * The queue's transient feedback on a title card (library-playlists-account.md §2, §9): while the request runs,
 * and for at least 800 ms, an overlay reads 'Adding to your queue...' or 'Removing from your queue...'; then a
 * banner reads 'Added to your queue', 'Removed from your queue' or 'Error: {reason}' for 1.2 s.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { PLAYLIST_ACTION_ERRORS, PLAYLIST_MESSAGES, PLAYLIST_TIMINGS } from '@lectern/core';
import { isApiError } from '../../api/client.ts';

export type QueuePhase = { kind: 'working'; adding: boolean } | { kind: 'done'; text: string; ok: boolean } | null;

/**
 * The {reason} of 'Error: {reason}': what the server said when it refused the change (a 4xx with its own
 * sentence), otherwise the catalogue's sentence for the action.
 */
export function queueErrorReason(error: unknown, adding: boolean): string {
  if (isApiError(error) && error.status >= 400 && error.status < 500 && error.detail) return error.detail;
  return adding ? PLAYLIST_ACTION_ERRORS.addToQueue : PLAYLIST_ACTION_ERRORS.removeFromQueue;
}

export function queuePhaseText(phase: QueuePhase): string {
  if (!phase) return '';
  if (phase.kind === 'working') return phase.adding ? PLAYLIST_MESSAGES.addingToQueue : PLAYLIST_MESSAGES.removingFromQueue;
  return phase.text;
}

export function useQueueFeedback() {
  const [phase, setPhase] = useState<QueuePhase>(null);
  const timers = useRef<ReturnType<typeof setTimeout>[]>([]);
  const clear = () => {
    for (const t of timers.current) clearTimeout(t);
    timers.current = [];
  };
  useEffect(() => clear, []);

  /** Runs the change with its feedback; resolves to whether it succeeded. */
  const run = useCallback(async (adding: boolean, work: () => Promise<unknown>): Promise<boolean> => {
    clear();
    setPhase({ kind: 'working', adding });
    const started = Date.now();
    let ok = true;
    let text: string = adding ? PLAYLIST_MESSAGES.addedToQueue : PLAYLIST_MESSAGES.removedFromQueue;
    try {
      await work();
    } catch (error) {
      ok = false;
      text = `Error: ${queueErrorReason(error, adding)}`;
    }
    const wait = Math.max(0, PLAYLIST_TIMINGS.queueOverlayMs - (Date.now() - started));
    timers.current.push(
      setTimeout(() => {
        setPhase({ kind: 'done', text, ok });
        timers.current.push(setTimeout(() => setPhase(null), PLAYLIST_TIMINGS.queueFeedbackMs));
      }, wait),
    );
    return ok;
  }, []);

  return { phase, busy: phase?.kind === 'working', run };
}
