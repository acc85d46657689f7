/**
 * A chapter frame in a stack (rendition:flow scrolled-continuous: engine/frame/stack.ts): the frame
 * is as tall as its text and the stack's scroller moves; the frame's parts (layout, position, pager, input) see the
 * chapter's part of that scroller as its own. And the stack's rules: the chapter under the top of the view is the one
 * read, neighbours come in two screens ahead, far frames go.
 */
import { DEFAULT_PREFERENCES } from '@lectern/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { captureRange } from '../src/features/reader/engine/frame/position.ts';
import { FramePager } from '../src/features/reader/engine/frame/pager.ts';
import { FrameInput } from '../src/features/reader/engine/frame/input.ts';
import { FrameLayout } from '../src/features/reader/engine/frame/layout.ts';
import {
  FAR_SCREENS,
  KEEP_AFTER,
  planStack,
  PREFETCH_SCREENS,
  slotAt,
  StackedScroller,
  type SlotBox,
  type StackHost,
} from '../src/features/reader/engine/frame/stack.ts';
import { FrameController } from '../src/features/reader/engine/frameController.ts';
import { chapterFrame, reducedMotion, removeFrames, useTestClock, type ChapterFrame } from './frame-fixture.ts';

afterEach(() => {
  removeFrames();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const VIEW = 800;

/**
 * A stack's scroller of `height` px of content in an 800 px view, holding the frame `c` at `top`, `frameHeight` tall
 * (jsdom lays nothing out: the geometry a browser would give, and scrollTop clamped as a browser clamps it).
 */
function stackOf(c: ChapterFrame, top: number, frameHeight: number, height = top + frameHeight + 2000) {
  const scroller = document.createElement('div');
  document.body.append(scroller);
  let scrollTop = 0;
  Object.defineProperty(scroller, 'clientHeight', { configurable: true, get: () => VIEW });
  Object.defineProperty(scroller, 'scrollHeight', { configurable: true, get: () => height });
  Object.defineProperty(scroller, 'scrollTop', {
    configurable: true,
    get: () => scrollTop,
    set: (v: number) => {
      scrollTop = Math.max(0, Math.min(height - VIEW, v));
      scroller.dispatchEvent(new Event('scroll'));
    },
  });
  scroller.scrollBy = ((o: ScrollToOptions) => void (scroller.scrollTop += o.top ?? 0)) as typeof scroller.scrollBy;
  Object.defineProperty(c.frame, 'offsetTop', { configurable: true, get: () => top });
  Object.defineProperty(c.frame, 'offsetHeight', { configurable: true, get: () => frameHeight });
  Object.defineProperty(c.frame, 'clientWidth', { configurable: true, get: () => 600 });
  const fit = vi.fn();
  const host: StackHost = { scroller, fit };
  return { scroller, host, fit, stacked: new StackedScroller(c.frame, host) };
}

const rect = (r: Partial<DOMRect>) => ({ left: 0, top: 0, right: 0, bottom: 0, width: 1, height: 16, ...r }) as DOMRect;

describe('a stacked chapter sees its part of the stack as its own scroller', () => {
  it('how far into the chapter the view is, the chapter as tall as its frame, the view as tall as the stack', () => {
    const c = chapterFrame('<p>words</p>');
    const { scroller, stacked } = stackOf(c, 3000, 2400);
    scroller.scrollTop = 2500;
    expect(stacked.scrollTop).toBe(-500); // the chapter starts 500 px below the top of the view
    expect(stacked.viewTop).toBe(0);
    scroller.scrollTop = 3600;
    expect(stacked.scrollTop).toBe(600);
    expect(stacked.viewTop).toBe(600);
    expect([stacked.scrollHeight, stacked.clientHeight, stacked.scrollLeft]).toEqual([2400, VIEW, 0]);
    stacked.scrollTop = 100;
    expect(scroller.scrollTop).toBe(3100);
    // within the chapter, as a frame's own scroller: its last screen at most
    stacked.scrollTop = 5000;
    expect(scroller.scrollTop).toBe(3000 + 2400 - VIEW);
    stacked.scrollTop = 100;
    stacked.scrollBy({ top: 700 });
    expect(scroller.scrollTop).toBe(3800);
  });

  it('the layout: the chapter’s percentage, a glyph shown at the top of the view, settings fitting the frame', () => {
    const c = chapterFrame('<p>words</p>');
    const { scroller, host, fit, stacked } = stackOf(c, 3000, 2400);
    const layout = new FrameLayout(c.frame, c.doc, c.win, { ...DEFAULT_PREFERENCES, pagination: 'scroll' }, null, stacked);
    expect(layout.scroller).toBe(stacked);
    scroller.scrollTop = 3000 + 800; // half way through the chapter's scroll (2400 - 800 = 1600)
    expect(layout.percentage()).toBe(50);
    // the frame does not scroll: a glyph's top in it is its place in the chapter
    layout.show(rect({ top: 1308 }), 0);
    expect(scroller.scrollTop).toBe(3000 + 1300);
    // a glyph in the chapter's last screen still goes to the top of the view (the next chapter below it)
    layout.show(rect({ top: 2208 }), 0);
    expect(scroller.scrollTop).toBe(3000 + 2200);
    layout.show(null, 100);
    expect(scroller.scrollTop).toBe(3000 + 1600);
    layout.show(null, 0);
    expect(scroller.scrollTop).toBe(3000);
    scroller.scrollTop = 3500;
    expect(layout.toView(600)).toBe(100);
    layout.writeSettings();
    expect(fit).toHaveBeenCalled();
    expect(host.scroller.scrollTop).toBe(3500); // writing the settings moves nothing
  });

  it('the position: the first character looked for at the top of the view, not at the frame’s top', () => {
    const c = chapterFrame('<p>The first words of the chapter, and more.</p>');
    const { scroller, stacked } = stackOf(c, 3000, 2400);
    const layout = new FrameLayout(c.frame, c.doc, c.win, { ...DEFAULT_PREFERENCES, pagination: 'scroll' }, null, stacked);
    const text = c.root.querySelector('p')!.firstChild!;
    const ys: number[] = [];
    (c.doc as Document & { caretRangeFromPoint?: unknown }).caretRangeFromPoint = (_x: number, y: number) => {
      ys.push(y);
      const r = c.doc.createRange();
      r.setStart(text, 4);
      return r;
    };
    Object.defineProperty(c.win, 'innerHeight', { configurable: true, value: 2400 });
    scroller.scrollTop = 3000 + 1000;
    expect(captureRange(layout)?.startOffset).toBe(4);
    expect(ys[0]).toBeGreaterThanOrEqual(1000);
    expect(ys[0]).toBeLessThan(1010);
  });

  it('the pager and the keys move the stack: a screen on inside the chapter, past its end the edge', () => {
    reducedMotion(true);
    const c = chapterFrame('<p>words</p>');
    const { scroller, stacked } = stackOf(c, 3000, 2400);
    const layout = new FrameLayout(c.frame, c.doc, c.win, { ...DEFAULT_PREFERENCES, pagination: 'scroll' }, null, stacked);
    const onEdge = vi.fn();
    const pager = new FramePager(layout, { onEdge, settled: vi.fn() });
    const input = new FrameInput(layout, (t, type, fn) => t.addEventListener(type, fn), { turn: (d) => pager.turn(d), jump: vi.fn() });
    scroller.scrollTop = 3000;
    const key = (k: string) => input.handleKey(new c.win.KeyboardEvent('keydown', { key: k, cancelable: true }));
    expect(key('PageDown')).toBe(true);
    expect(scroller.scrollTop).toBe(3000 + VIEW - 48);
    expect(key('ArrowDown')).toBe(true);
    expect(scroller.scrollTop).toBe(3000 + VIEW);
    expect(key('End')).toBe(true); // the chapter's last screen, not the stack's end
    expect(scroller.scrollTop).toBe(3000 + 2400 - VIEW);
    expect(onEdge).not.toHaveBeenCalled();
    expect(key(' ')).toBe(true); // at the chapter's end: the stack's business (its view scrolls on)
    expect(onEdge).toHaveBeenCalledWith('next');
    expect(key('Home')).toBe(true);
    expect(scroller.scrollTop).toBe(3000);
  });

  it('the controller hears the stack scroll, not its own window, and reports the chapter’s progress', () => {
    vi.useFakeTimers();
    const c = chapterFrame('<p>words</p>');
    useTestClock(c.win);
    const { scroller, host } = stackOf(c, 1000, 2400);
    const onProgress = vi.fn();
    const ctl = new FrameController(c.frame, { ...DEFAULT_PREFERENCES, pagination: 'scroll' }, 'ch2.xhtml', 'b1', (p) => p, { onProgress, onEdge: vi.fn(), onNavigate: vi.fn(), onImage: vi.fn() }, null, host);
    expect(ctl.scrollEvents).toBe(scroller);
    scroller.scrollTop = 1000 + 1600;
    vi.advanceTimersByTime(100);
    expect(onProgress).toHaveBeenLastCalledWith(100, expect.objectContaining({ href: 'ch2.xhtml' }));
    onProgress.mockClear();
    c.win.dispatchEvent(new c.win.Event('scroll'));
    vi.advanceTimersByTime(100);
    expect(onProgress).not.toHaveBeenCalled();
    ctl.destroy();
    scroller.scrollTop = 1000;
    vi.advanceTimersByTime(100);
    expect(onProgress).not.toHaveBeenCalled();
  });
});

/** Slots of these heights, one after another. */
const boxes = (...heights: number[]): SlotBox[] => {
  let top = 0;
  return heights.map((height) => {
    const box = { top, height };
    top += height;
    return box;
  });
};
const both = { canGrowBefore: true, canGrowAfter: true };

describe('the stack’s rules', () => {
  it('the chapter read is the one under the top of the view', () => {
    const b = boxes(1000, 3000, 500);
    expect(slotAt(b, 0)).toBe(0);
    expect(slotAt(b, 999)).toBe(0);
    expect(slotAt(b, 1000)).toBe(1);
    expect(slotAt(b, 3999)).toBe(1);
    expect(slotAt(b, 4200)).toBe(2);
    expect(planStack({ boxes: b, scrollTop: 999, viewHeight: VIEW, ...both }).current).toBe(1);
  });

  it('brings the next chapter in once the stack ends within two screens of the view, the previous likewise', () => {
    const b = boxes(5000, 5000);
    const at = (scrollTop: number) => planStack({ boxes: b, scrollTop, viewHeight: VIEW, ...both });
    // the end of the stack (10000) against the end of the view
    expect(at(10000 - VIEW - PREFETCH_SCREENS * VIEW - 1).loadNext).toBe(false);
    expect(at(10000 - VIEW - PREFETCH_SCREENS * VIEW + 1).loadNext).toBe(true);
    expect(at(PREFETCH_SCREENS * VIEW - 1).loadPrev).toBe(true);
    expect(at(PREFETCH_SCREENS * VIEW + 1).loadPrev).toBe(false);
    // nothing to bring in: the book's first or last chapter, a locked one, one on its way
    expect(planStack({ boxes: b, scrollTop: 9000, viewHeight: VIEW, canGrowBefore: false, canGrowAfter: false })).toMatchObject({ loadNext: false, loadPrev: false });
  });

  it('lets far chapters go, keeping one before the chapter read and two after, and any within three screens', () => {
    const b = boxes(4000, 4000, 4000, 4000, 4000, 4000, 4000);
    // reading the fourth chapter, near its top: the first two are far above, the last is far below
    const plan = planStack({ boxes: b, scrollTop: 12100, viewHeight: VIEW, ...both });
    expect(plan.current).toBe(3);
    expect(plan.dropBefore).toBe(2);
    expect(plan.dropAfter).toBe(7 - 1 - (3 + KEEP_AFTER));
    expect(plan.loadNext || plan.loadPrev).toBe(false); // never dropped and brought back in the same step
    // short chapters near the view all stay (the W3C test's three short chapters, one screen together)
    const short = planStack({ boxes: boxes(300, 300, 300, 300, 300, 300), scrollTop: 1500, viewHeight: VIEW, ...both });
    expect(short).toMatchObject({ current: 5, dropBefore: 0, dropAfter: 0 });
    expect(FAR_SCREENS).toBeGreaterThan(PREFETCH_SCREENS);
  });

  it('a dropped chapter is not brought back at once: it is further than the prefetch distance', () => {
    const b = boxes(4000, 4000, 4000, 4000);
    const plan = planStack({ boxes: b, scrollTop: 8000 + 4000 - VIEW, viewHeight: VIEW, ...both });
    expect(plan.dropBefore).toBe(1);
    const after = planStack({ boxes: boxes(4000, 4000, 4000).map((x) => ({ ...x, top: x.top + 4000 })), scrollTop: 12000 - VIEW, viewHeight: VIEW, ...both });
    expect(after.loadPrev).toBe(false);
  });

});
