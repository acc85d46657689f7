/**
 * The next chapter is prepared after the opening, not during it (its block, check and source were
 * blocking time on the reader's Lighthouse run): once the chapter is painted and the reader moves, or after the
 * first screen has been quiet NEXT_CHAPTER_QUIET_MS.
 */
import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NEXT_CHAPTER_QUIET_MS, useNextChapterGate } from '../src/features/reader/useNextChapterGate.ts';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'requestIdleCallback', 'cancelIdleCallback'] });
});
afterEach(() => vi.useRealTimers());

describe('useNextChapterGate', () => {
  it('stays shut until the chapter is painted, then opens when the reader moves', async () => {
    const { result, rerender } = renderHook(({ href, percent }) => useNextChapterGate(href, percent), { initialProps: { href: 'ch1', percent: 0 } });
    rerender({ href: 'ch1', percent: 3 });
    expect(result.current).toBe(false);
    await act(async () => {
      performance.mark('reader:chapter-painted', { detail: { href: 'ch1' } });
      await vi.advanceTimersByTimeAsync(1);
    });
    await act(async () => void (await Promise.resolve()));
    expect(result.current).toBe(false);
    rerender({ href: 'ch1', percent: 3 });
    expect(result.current).toBe(false);
    rerender({ href: 'ch1', percent: 7 });
    expect(result.current).toBe(true);
    // another chapter: shut again
    rerender({ href: 'ch2', percent: 0 });
    expect(result.current).toBe(false);
  });

  it("counts only the shown chapter's own paint: a late mark of the chapter before does not open the next", async () => {
    const { result, rerender } = renderHook(({ href, percent }) => useNextChapterGate(href, percent), { initialProps: { href: 'ch1', percent: 0 } });
    rerender({ href: 'ch2', percent: 0 });
    await act(async () => {
      performance.mark('reader:chapter-painted', { detail: { href: 'ch1' } });
      await vi.advanceTimersByTimeAsync(1);
    });
    rerender({ href: 'ch2', percent: 5 });
    expect(result.current).toBe(false);
    await act(async () => {
      performance.mark('reader:chapter-painted', { detail: { href: 'ch2' } });
      await vi.advanceTimersByTimeAsync(1);
    });
    rerender({ href: 'ch2', percent: 9 });
    expect(result.current).toBe(true);
  });

  it('reads a paint already on the timeline when it subscribes (the mark came before its effect ran)', async () => {
    performance.mark('reader:chapter-painted', { detail: { href: 'ch5' } });
    // the chapter counts as shown from before that mark (as when the mark lands between the render and the effect)
    const now = vi.spyOn(performance, 'now').mockReturnValue(0);
    const { result, rerender } = renderHook(({ href, percent }) => useNextChapterGate(href, percent), { initialProps: { href: 'ch5', percent: 0 } });
    now.mockRestore();
    await act(async () => void (await Promise.resolve()));
    rerender({ href: 'ch5', percent: 4 });
    expect(result.current).toBe(true);
  });

  it('opens after the first screen has been quiet a while, not before', async () => {
    const { result } = renderHook(({ href, percent }) => useNextChapterGate(href, percent), { initialProps: { href: 'ch1', percent: 0 } });
    await act(async () => {
      performance.mark('reader:chapter-painted', { detail: { href: 'ch1' } });
      await vi.advanceTimersByTimeAsync(1);
    });
    await act(async () => void (await vi.advanceTimersByTimeAsync(NEXT_CHAPTER_QUIET_MS - 100)));
    expect(result.current).toBe(false);
    await act(async () => void (await vi.advanceTimersByTimeAsync(200)));
    expect(result.current).toBe(true);
  });
});
