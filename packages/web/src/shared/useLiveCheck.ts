/**
 * A field checked by the server as the person types (library-playlists-account.md §5): the email on keyup and
 * change, the password 300 ms after the last key. Each new value cancels the request still under way for the old
 * one, so an answer never lands on a value it was not asked about.
 */
import { useCallback, useEffect, useRef, useState } from 'react';

export type LiveCheck = { state: 'idle' } | { state: 'checking' } | { state: 'ok'; message: string } | { state: 'error'; message: string };

export function useLiveCheck(
  ask: (value: string, signal: AbortSignal) => Promise<{ ok: boolean; message: string }>,
  delayMs: number,
): { result: LiveCheck; check: (value: string) => void; reset: (to?: LiveCheck) => void } {
  const [result, setResult] = useState<LiveCheck>({ state: 'idle' });
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const inFlight = useRef<AbortController | null>(null);
  const askRef = useRef(ask);
  askRef.current = ask;

  const cancel = () => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    inFlight.current?.abort();
    inFlight.current = null;
  };
  useEffect(() => cancel, []);

  const check = useCallback(
    (value: string) => {
      cancel();
      setResult({ state: 'checking' });
      timer.current = setTimeout(() => {
        const controller = new AbortController();
        inFlight.current = controller;
        askRef.current(value, controller.signal).then(
          (answer) => {
            if (controller.signal.aborted) return;
            setResult(answer.ok ? { state: 'ok', message: answer.message } : { state: 'error', message: answer.message });
          },
          () => {
            // A failed check decides nothing: the server checks again when the form is sent.
            if (!controller.signal.aborted) setResult({ state: 'idle' });
          },
        );
      }, delayMs);
    },
    [delayMs],
  );

  const reset = useCallback((to: LiveCheck = { state: 'idle' }) => {
    cancel();
    setResult(to);
  }, []);

  return { result, check, reset };
}
