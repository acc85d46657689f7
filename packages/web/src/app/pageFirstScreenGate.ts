/**
 * On a long chapter's reader address, the app's start waits for the page's own first screen (docs/decisions.md "The
 * app's start waits for a long chapter's first screen"). The page's inline script (server routes/web.ts
 * EARLY_BLOCK_SCRIPT) started the chapter worker, which paints the first screen through that script
 * (engine/pageFirstScreen.ts); the worker's messages are handled on the main thread, and the app's start (its modules'
 * evaluation, the first render) held them there for hundreds of milliseconds. So where the page's data says the
 * chapter is long (`long`: the server's text length of it, at least LONG_CHAPTER_CHARS), the start waits until that
 * screen is painted, or until it is known that none is coming: the worker says so (`no-first-screen`, before it
 * decrypts when it can tell), its checked answer comes without a frame on the page, it fails, the page could not hand
 * it the answer, or the page's frame goes away. Never longer than PAGE_FIRST_SCREEN_WAIT_MS. Anywhere else, at once.
 */

// Core's EARLY_BLOCK_GLOBAL and PAGE_FRAME_ID, spelled here (test/pageFirstScreenGate.test.ts holds them equal): the
// entry imports nothing of core's, which the build would take from the start's chunk, evaluated before the wait.
export const EARLY_BLOCK_GLOBAL = '__lecternEarlyBlock';
export const PAGE_FRAME_ID = 'lectern-page-chapter';

/** The longest the app's start waits (the page's frame itself waits 3 s at most for the chapter's stylesheets). */
export const PAGE_FIRST_SCREEN_WAIT_MS = 4_000;
const PAINTED_MARK = 'reader:page-first-screen';
/** Marked when a wait ends, with why (its detail): bench/long-chapter.ts STEPS=1 and e2e/page-first-screen.e2e.ts read it. */
export const WAIT_OVER_MARK = 'reader:app-start-waited';
type Why = 'painted' | 'none' | 'no-frame' | 'frame-gone' | 'failed' | 'not-posted' | 'too-long';

/** What the page's script leaves under EARLY_BLOCK_GLOBAL that the wait reads (api/earlyBlock.ts has the rest). */
interface PageState {
  long?: unknown;
  worker?: unknown;
  posted?: unknown;
  failed?: unknown;
  replies?: unknown;
}

const kindOf = (m: unknown) => (m as { kind?: unknown } | null)?.kind;
/** The worker's checked answer to the page's request (api/earlyBlock.ts PAGE_BLOCK_ID), whatever it says. */
const isPageAnswer = (m: unknown) => (m as { id?: unknown } | null)?.id === 0;

export function pageFirstScreenSettled(): Promise<void> {
  const g = typeof window === 'undefined' ? undefined : (window as unknown as Record<string, PageState | undefined>)[EARLY_BLOCK_GLOBAL];
  const worker = g?.worker;
  if (!g || g.long !== true || typeof Worker === 'undefined' || !(worker instanceof Worker) || g.failed === true || typeof PerformanceObserver === 'undefined') return Promise.resolve();
  const frame = () => document.getElementById(PAGE_FRAME_ID);
  const said = Array.isArray(g.replies) ? (g.replies as unknown[]) : [];
  // (what happened before the app's entry ran: the page's script keeps the worker's messages, bar the first screen)
  if (performance.getEntriesByName(PAINTED_MARK).length || said.some((m) => kindOf(m) === 'no-first-screen' || (isPageAnswer(m) && !frame()))) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const painted = new PerformanceObserver((list) => {
      if (list.getEntriesByName(PAINTED_MARK).length) settle('painted');
    });
    // (the page's script takes its frame away unpainted where the reader lays the text out itself: vertical writing)
    const frames = new MutationObserver(() => {
      if (!frame()) settle('frame-gone');
    });
    const watchFrame = () => frames.observe(document.body, { childList: true });
    const onMessage = (event: MessageEvent) => {
      const m: unknown = event.data;
      // (the page's script handled the same message first: its listener was added before this one)
      if (kindOf(m) === 'no-first-screen') settle('none');
      else if (kindOf(m) === 'first-screen' || isPageAnswer(m)) {
        if (frame()) watchFrame();
        else settle('no-frame');
      }
    };
    const failed = () => settle('failed');
    const timer = setTimeout(() => settle('too-long'), PAGE_FIRST_SCREEN_WAIT_MS);
    function settle(why: Why) {
      clearTimeout(timer);
      painted.disconnect();
      frames.disconnect();
      (worker as Worker).removeEventListener('message', onMessage);
      (worker as Worker).removeEventListener('error', failed);
      performance.mark(WAIT_OVER_MARK, { detail: why });
      resolve();
    }
    painted.observe({ type: 'mark' });
    if (frame()) watchFrame();
    worker.addEventListener('message', onMessage);
    worker.addEventListener('error', failed);
    if (g.posted instanceof Promise) {
      void (g.posted as Promise<unknown>).then(
        (went) => {
          if (went !== true) settle('not-posted');
        },
        () => settle('not-posted'),
      );
    }
  });
}
