import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FramePager } from '../src/features/reader/engine/frame/pager.ts';
import { chapterFrame, layoutOf, reducedMotion, removeFrames, useTestClock, type ChapterFrame } from './frame-fixture.ts';

let c: ChapterFrame;
beforeEach(() => {
  vi.useFakeTimers();
  c = chapterFrame('<p>words</p>');
  c.geometry({ width: 600, height: 800, scrollWidth: 2400, scrollHeight: 2000 });
  useTestClock(c.win);
});
afterEach(() => {
  removeFrames();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

function pager(prefs: Parameters<typeof layoutOf>[1] = { pagination: 'page' }) {
  const layout = layoutOf(c, prefs);
  const hooks = { onEdge: vi.fn(), settled: vi.fn() };
  return { layout, hooks, pager: new FramePager(layout, hooks) };
}

describe('frame pager: paged', () => {
  it('turns a page at once when the reader asks for less motion, and asks for the next chapter past the end', () => {
    reducedMotion(true);
    const { layout, hooks, pager: p } = pager();
    p.turn('next');
    expect(layout.along).toBe(600);
    expect(hooks.settled).toHaveBeenCalledOnce();
    p.jump('last');
    expect(layout.along).toBe(1800);
    p.turn('next');
    expect(hooks.onEdge).toHaveBeenCalledWith('next');
    expect(layout.along).toBe(1800);
    p.jump('first');
    p.turn('prev');
    expect(hooks.onEdge).toHaveBeenLastCalledWith('prev');
  });

  it('slides over 150 ms, and rapid turns count from where the slide is going', () => {
    reducedMotion(false);
    const { layout, hooks, pager: p } = pager();
    p.turn('next');
    p.turn('next');
    vi.advanceTimersByTime(50);
    // eased (1 - (1 - k)^3): a third of the time is most of the way
    expect(layout.along).toBeGreaterThan(600);
    expect(layout.along).toBeLessThan(1200);
    expect(hooks.settled).not.toHaveBeenCalled();
    vi.advanceTimersByTime(200);
    expect(layout.along).toBe(1200);
    expect(hooks.settled).toHaveBeenCalledOnce();
  });

  it('stopped, forgets where the slide was going', () => {
    reducedMotion(false);
    const { layout, pager: p } = pager();
    p.turn('next');
    p.stop();
    vi.advanceTimersByTime(500);
    expect(layout.along).toBe(0);
    reducedMotion(true);
    p.turn('next');
    expect(layout.along).toBe(600);
  });
});

describe('frame pager: scroll', () => {
  it('scrolls a screen less 48 px, and past the ends asks for the next chapter', () => {
    reducedMotion(true);
    const { hooks, pager: p } = pager({ pagination: 'scroll' });
    const s = c.doc.documentElement;
    const scrollBy = vi.fn();
    s.scrollBy = scrollBy;
    p.turn('next');
    expect(scrollBy).toHaveBeenCalledWith({ top: 752, behavior: 'auto' });
    p.turn('prev');
    expect(hooks.onEdge).toHaveBeenCalledWith('prev');
    s.scrollTop = 1200;
    p.turn('next');
    expect(hooks.onEdge).toHaveBeenLastCalledWith('next');
  });

  it('a vertical-rl chapter scrolls leftwards', () => {
    reducedMotion(false);
    c = chapterFrame('<p>縦書き</p>', 'body { writing-mode: vertical-rl }');
    c.geometry({ width: 600, height: 800, scrollWidth: 2400 });
    const { pager: p } = pager({ pagination: 'scroll' });
    const scrollBy = vi.fn();
    c.doc.documentElement.scrollBy = scrollBy;
    p.turn('next');
    expect(scrollBy).toHaveBeenCalledWith({ left: -552, behavior: 'smooth' });
  });

  it('a fixed-layout page hands every turn to its view', () => {
    const layout = layoutOf(c, {}, { tapTurn: () => null, zoomed: () => false, pages: () => ({ index: 0, count: 3 }) });
    const hooks = { onEdge: vi.fn(), settled: vi.fn() };
    new FramePager(layout, hooks).turn('next');
    expect(hooks.onEdge).toHaveBeenCalledWith('next');
  });
});
