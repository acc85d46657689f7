/**
 * Long tasks of a page from its start, for the reader benches: an init script (context.addInitScript) that runs
 * before any script of every new top-level document and keeps each long task in `window.__lt`, buffered so the ones
 * before it ran are kept too.
 */
export interface LongTaskEntry {
  start: number;
  duration: number;
}

export function observeLongTasks() {
  if (window.top !== window) return;
  const w = window as unknown as { __lt: LongTaskEntry[] };
  w.__lt = [];
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__lt.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  } catch {
    /* no Long Tasks API: none reported */
  }
}
