/**
 * A time as readers see it (library-playlists-account.md §9 relative time thresholds): "3 hours ago", "in 2 days",
 * said again every minute while on screen; the exact date and time in the title and the machine-readable
 * dateTime. Every time shown to readers goes through here (core's relativeTime is the one rule).
 */
import { RELATIVE_TIME_REFRESH_MS, relativeTime } from '@lectern/core';
import { useEffect, useState } from 'react';

// Made on first use, not as the module loads (it is in the app's start: features/account/money.ts formatDate says why).
let exact: Intl.DateTimeFormat | undefined;
const exactTime = (ms: number) => (exact ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'long', timeStyle: 'short' })).format(ms);

/** Now, renewed every RELATIVE_TIME_REFRESH_MS while the component using it is mounted. */
export function useNow(everyMs = RELATIVE_TIME_REFRESH_MS): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), everyMs);
    return () => window.clearInterval(timer);
  }, [everyMs]);
  return now;
}

export function RelativeTime({ at, now, className }: { at: string; /** given by a caller that keeps its own clock */ now?: number; className?: string }) {
  const ticking = useNow();
  const ms = Date.parse(at);
  if (!Number.isFinite(ms)) return null;
  return (
    <time dateTime={new Date(ms).toISOString()} title={exactTime(ms)} className={className}>
      {relativeTime(ms, now ?? ticking)}
    </time>
  );
}
