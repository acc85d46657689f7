/**
 * The app's start on a long chapter's page (app/pageFirstScreenGate.ts): the names it spells for itself are core's,
 * it waits only where the page's data calls the chapter long and the page started a worker, and never longer than its
 * cap. What ends the wait in a browser (the page's first screen painted, the worker's "none") is
 * e2e/page-first-screen.e2e.ts's.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EARLY_BLOCK_GLOBAL as CORE_EARLY_BLOCK_GLOBAL, PAGE_FRAME_ID as CORE_PAGE_FRAME_ID } from '@lectern/core';
import { EARLY_BLOCK_GLOBAL, PAGE_FIRST_SCREEN_WAIT_MS, PAGE_FRAME_ID, pageFirstScreenSettled, WAIT_OVER_MARK } from '../src/app/pageFirstScreenGate.ts';

/** A worker as the page's script leaves it: an EventTarget the test sends messages through (jsdom has no Worker). */
class PageWorker extends EventTarget {}

const pageState = (state: Record<string, unknown>) => {
  (window as unknown as Record<string, unknown>)[EARLY_BLOCK_GLOBAL] = state;
};
const waitOver = () => (performance.getEntriesByName(WAIT_OVER_MARK)[0] as PerformanceMark | undefined)?.detail ?? null;

afterEach(() => {
  delete (window as unknown as Record<string, unknown>)[EARLY_BLOCK_GLOBAL];
  vi.unstubAllGlobals();
  vi.useRealTimers();
  performance.clearMarks();
});

describe('the app start on a long chapter page (pageFirstScreenGate)', () => {
  it("spells core's names of the page's global and frame", () => {
    expect(EARLY_BLOCK_GLOBAL).toBe(CORE_EARLY_BLOCK_GLOBAL);
    expect(PAGE_FRAME_ID).toBe(CORE_PAGE_FRAME_ID);
  });

  it('does not wait where the page says nothing, the chapter is not long, or no worker started', async () => {
    vi.stubGlobal('Worker', PageWorker);
    await pageFirstScreenSettled();
    pageState({ long: false, worker: new PageWorker() });
    await pageFirstScreenSettled();
    pageState({ long: true });
    await pageFirstScreenSettled();
    expect(waitOver()).toBeNull();
  });

  it('waits for the worker, and starts when it says no first screen is coming', async () => {
    vi.stubGlobal('Worker', PageWorker);
    const worker = new PageWorker();
    pageState({ long: true, worker, replies: [] });
    let started = false;
    const settled = pageFirstScreenSettled().then(() => (started = true));
    await Promise.resolve();
    expect(started).toBe(false);
    worker.dispatchEvent(new MessageEvent('message', { data: { kind: 'no-first-screen' } }));
    await settled;
    expect(waitOver()).toBe('none');
  });

  it('starts at once when the worker said so before the app ran', async () => {
    vi.stubGlobal('Worker', PageWorker);
    pageState({ long: true, worker: new PageWorker(), replies: [{ kind: 'no-first-screen' }] });
    await pageFirstScreenSettled();
    expect(waitOver()).toBeNull();
  });

  it('waits no longer than its cap', async () => {
    // (the timers only: the wait's mark is read from the real performance timeline)
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    vi.stubGlobal('Worker', PageWorker);
    pageState({ long: true, worker: new PageWorker(), replies: [] });
    let started = false;
    const settled = pageFirstScreenSettled().then(() => (started = true));
    await vi.advanceTimersByTimeAsync(PAGE_FIRST_SCREEN_WAIT_MS - 1);
    expect(started).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await settled;
    expect(waitOver()).toBe('too-long');
  });
});
