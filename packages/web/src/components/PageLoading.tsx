import { LOADING_DELAY_MS } from '@lectern/core';
import { useEffect, useState } from 'react';
import { Spinner } from './Spinner.tsx';

/**
 * The page shown while a page's code or its first data is on its way (styles: .page-loading in app/Shell.css). Its
 * spinner shows only after §9's loading delay (2000 ms): a page that arrives sooner never flashes one. Until then
 * the space is held, busy, and quiet.
 */
export function PageLoading({ delayMs = LOADING_DELAY_MS }: { delayMs?: number }) {
  const [late, setLate] = useState(delayMs <= 0);
  useEffect(() => {
    if (delayMs <= 0) return;
    const timer = window.setTimeout(() => setLate(true), delayMs);
    return () => window.clearTimeout(timer);
  }, [delayMs]);
  return (
    <div className="page page-loading" aria-busy="true">
      {late ? <Spinner size="lg" label="Loading…" /> : null}
    </div>
  );
}
