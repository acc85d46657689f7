/**
 * The video session of a media title (reader.md §3 "Video session", §4 "Video", §7): asked once when the title
 * opens (retried on failure, api/media.ts), and again on a media error — at most once per 90 s (§9) — since a
 * session expires. Visitors have none (§1): they get the preview without asking.
 */
import { READER_CONSTANTS } from '@lectern/core';
import { useCallback, useEffect, useRef, useState } from 'react';
import { getMediaSession, type SessionOutcome } from '../../api/media.ts';

export type SessionState = { kind: 'loading' } | SessionOutcome;

export function useMediaSession(bookId: string, signedIn: boolean, now: () => number = Date.now) {
  const [state, setState] = useState<SessionState>(signedIn ? { kind: 'loading' } : { kind: 'anonymous' });
  const [generation, setGeneration] = useState(0);
  const lastRefresh = useRef<number | null>(null);

  useEffect(() => {
    if (!signedIn) {
      setState({ kind: 'anonymous' });
      return;
    }
    const abort = new AbortController();
    getMediaSession(bookId, abort.signal).then(
      (outcome) => {
        if (!abort.signal.aborted) setState(outcome);
      },
      () => undefined,
    );
    return () => abort.abort();
  }, [bookId, signedIn, generation]);

  /**
   * A media error: a new session unless one was asked for on an error less than 90 s ago. Returns whether it asked
   * (when it did not, the error stands: the player shows the failure page).
   */
  const refresh = useCallback((): boolean => {
    if (!signedIn) return false;
    const t = now();
    if (lastRefresh.current !== null && t - lastRefresh.current < READER_CONSTANTS.mediaSessionRefreshMs) return false;
    lastRefresh.current = t;
    setGeneration((g) => g + 1);
    return true;
  }, [signedIn, now]);

  return { state, refresh };
}
