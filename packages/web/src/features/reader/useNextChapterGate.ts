/**
 * When the next chapter may be prepared (usePrefetchReaderChapter: its request, decryption and source). Prepared a
 * second after the chapter opened, it competed with the opening itself: the 33 KB block answer, its check and the
 * next chapter's source were main-thread work inside the window Lighthouse counts as blocking (TBT) on the reader
 * (docs/performance.md "Reader"). Now it waits until the chapter is painted and then either the reader
 * moves in it (a page turned, a scroll: the position changes) or the first screen has stayed quiet for
 * NEXT_CHAPTER_QUIET_MS. A reader turning into the next chapter moves through this one first; one who jumps
 * straight to "Next chapter" starts its load with the click (useStartChapterLoad).
 */
import { useEffect, useRef, useState } from 'react';

/** Quiet time after the first paint before the next chapter is prepared anyway (Lighthouse's TTI window is 5 s). */
export const NEXT_CHAPTER_QUIET_MS = 5_000;
/** The mark useReadingSession sets when a chapter is on screen, with `{ detail: { href } }`. */
const PAINTED = 'reader:chapter-painted';

/** True once the next chapter of `href` may be prepared; false again when `href` changes. */
export function useNextChapterGate(href: string, percent: number): boolean {
  // `since`: when this chapter became the one shown; a paint mark counts only if it is this chapter's and not older.
  const [state, setState] = useState<{ href: string; since: number; painted: number | null; open: boolean }>(() => ({ href, since: performance.now(), painted: null, open: false }));
  const current = state.href === href ? state : { href, since: performance.now(), painted: null, open: false };
  if (current !== state) setState(current);
  const since = current.since;
  const percentRef = useRef(percent);
  percentRef.current = percent;

  // The chapter's paint: the position it opened at is where "moving" is measured from.
  useEffect(() => {
    const painted = () => setState((s) => (s.href === href && s.painted === null ? { ...s, painted: percentRef.current } : s));
    if (typeof PerformanceObserver === 'undefined') {
      const t = window.setTimeout(painted, NEXT_CHAPTER_QUIET_MS);
      return () => window.clearTimeout(t);
    }
    // This chapter's mark (its href in the detail), set since it was shown: a previous chapter's late mark does not
    // count, and one set before this effect subscribed is read from the timeline.
    const ours = (entries: PerformanceEntryList) =>
      entries.some((e) => e.startTime >= since && (e as PerformanceMark).detail?.href === href);
    const observer = new PerformanceObserver((list) => {
      if (ours(list.getEntriesByName(PAINTED))) painted();
    });
    observer.observe({ type: 'mark' });
    if (ours(performance.getEntriesByName(PAINTED))) painted();
    return () => observer.disconnect();
  }, [href, since]);

  const painted = current.painted !== null;
  // Moved in the chapter: open now.
  useEffect(() => {
    if (painted && !current.open && percent !== current.painted) setState((s) => (s.href === href ? { ...s, open: true } : s));
  }, [painted, percent, current.open, current.painted, href]);

  // Or quiet since the paint: open when the browser is idle.
  useEffect(() => {
    if (!painted || current.open) return;
    let idleHandle: number | undefined;
    const idle = window.requestIdleCallback ?? ((cb: () => void) => window.setTimeout(cb, 0));
    const cancel = window.cancelIdleCallback ?? window.clearTimeout;
    const timer = window.setTimeout(() => {
      idleHandle = idle(() => setState((s) => (s.href === href ? { ...s, open: true } : s)));
    }, NEXT_CHAPTER_QUIET_MS);
    return () => {
      window.clearTimeout(timer);
      if (idleHandle !== undefined) cancel(idleHandle);
    };
  }, [painted, current.open, href]);

  return current.open;
}
