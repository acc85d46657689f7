/**
 * One console action at a time per form: busy while it runs, the server's field errors under their fields (a 400
 * names the field), any other refusal as one sentence, and a confirmation when it is done.
 */
import { useCallback, useState } from 'react';
import { isApiError, type FieldErrors } from '../../api/client.ts';
import { CONSOLE_MESSAGES as M } from '@lectern/core';

export function useAction() {
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const run = useCallback(async <T,>(work: () => Promise<T>, doneMessage?: (result: T) => string): Promise<boolean> => {
    setBusy(true);
    setErrors({});
    setError(null);
    setDone(null);
    try {
      const result = await work();
      if (doneMessage) setDone(doneMessage(result));
      return true;
    } catch (e) {
      if (isApiError(e)) {
        setErrors(e.errors);
        setError(e.detail);
      } else setError(M.loadFailed);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, errors, error, done, run };
}

export type Action = ReturnType<typeof useAction>;

/** The line under a form: what went wrong or that it went well (announced). */
export function ActionStatus({ action }: { action: Action }) {
  return (
    <div role="status" aria-live="polite">
      {action.error ? <p className="admin-error">{action.error}</p> : action.done ? <p className="admin-ok">{action.done}</p> : null}
    </div>
  );
}
