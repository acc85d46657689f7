import { afterEach, describe, expect, it, vi } from 'vitest';
import { FrameInput } from '../src/features/reader/engine/frame/input.ts';
import { Listeners } from '../src/features/reader/engine/frame/listeners.ts';
import { chapterFrame, layoutOf, removeFrames, type ChapterFrame } from './frame-fixture.ts';

const listeners = new Listeners();
afterEach(() => {
  listeners.removeAll();
  removeFrames();
  vi.useRealTimers();
});

function input(c: ChapterFrame, prefs: Parameters<typeof layoutOf>[1] = { pagination: 'page' }, fixed: Parameters<typeof layoutOf>[2] = null) {
  const layout = layoutOf(c, prefs, fixed);
  const hooks = { turn: vi.fn(), jump: vi.fn(), chapter: vi.fn(), onMiddleTap: vi.fn() };
  return { layout, hooks, input: new FrameInput(layout, listeners.listen, hooks) };
}

const key = (c: ChapterFrame, k: string, init: KeyboardEventInit = {}) => new c.win.KeyboardEvent('keydown', { key: k, cancelable: true, ...init });

describe('frame input: keys', () => {
  it('paged: arrows turn the way the pages go, Home and End jump, modified keys and fields are left alone', () => {
    const c = chapterFrame('<p>words</p><input id="f">');
    const { layout, hooks, input: i } = input(c);
    const right = key(c, 'ArrowRight');
    expect(i.handleKey(right)).toBe(true);
    expect(right.defaultPrevented).toBe(true);
    expect(hooks.turn).toHaveBeenLastCalledWith('next');
    layout.rtl = true;
    i.handleKey(key(c, 'ArrowRight'));
    expect(hooks.turn).toHaveBeenLastCalledWith('prev');
    i.handleKey(key(c, 'End'));
    expect(hooks.jump).toHaveBeenCalledWith('last');
    expect(i.handleKey(key(c, 'ArrowRight', { ctrlKey: true }))).toBe(false);
    const field = c.doc.getElementById('f')!;
    const typed = key(c, 'ArrowLeft');
    Object.defineProperty(typed, 'target', { value: field });
    expect(i.handleKey(typed)).toBe(false);
    expect(i.handleKey(key(c, 'a'))).toBe(false);
    expect(hooks.turn).toHaveBeenCalledTimes(2);
  });

  it('scroll mode: arrows scroll, space turns a screen, left and right are not taken', () => {
    const c = chapterFrame('<p>words</p>');
    c.geometry({ width: 600, height: 800, scrollHeight: 3000 });
    const { hooks, input: i } = input(c, { pagination: 'scroll' });
    const scrollBy = vi.fn();
    c.doc.documentElement.scrollBy = scrollBy;
    i.handleKey(key(c, 'ArrowDown'));
    expect(scrollBy).toHaveBeenCalledWith({ top: 48 });
    i.handleKey(key(c, ' ', { shiftKey: true }));
    expect(hooks.turn).toHaveBeenCalledWith('prev');
    expect(i.handleKey(key(c, 'ArrowLeft'))).toBe(false);
    i.handleKey(key(c, 'End'));
    expect(c.doc.documentElement.scrollTop).toBe(3000);
  });

  it('scroll mode in vertical-rl: the left arrow goes on', () => {
    const c = chapterFrame('<p>縦書き</p>', 'body { writing-mode: vertical-rl }');
    const { input: i } = input(c, { pagination: 'scroll' });
    const scrollBy = vi.fn();
    c.doc.documentElement.scrollBy = scrollBy;
    i.handleKey(key(c, 'ArrowLeft'));
    expect(scrollBy).toHaveBeenLastCalledWith({ left: -48 });
    i.handleKey(key(c, 'ArrowRight'));
    expect(scrollBy).toHaveBeenLastCalledWith({ left: 48 });
  });

  it('a fixed-layout page leaves Home and End to its view', () => {
    const c = chapterFrame('<p>page</p>');
    const { hooks, input: i } = input(c, {}, { tapTurn: () => 'next', zoomed: () => false, pages: () => ({ index: 0, count: 2 }) });
    expect(i.handleKey(key(c, 'Home'))).toBe(false);
    expect(hooks.jump).not.toHaveBeenCalled();
  });
});

describe('frame input: taps, swipes, wheel', () => {
  const click = (c: ChapterFrame, x: number) => new c.win.MouseEvent('click', { clientX: x, bubbles: true, cancelable: true });

  it('tap zones turn in paged mode; the middle toggles, except on something that acts itself', () => {
    const c = chapterFrame('<p>words <button>b</button></p>');
    const { hooks, input: i } = input(c);
    const width = c.win.innerWidth;
    i.tap(click(c, width * 0.95), c.root);
    expect(hooks.turn).toHaveBeenCalledWith('next');
    i.tap(click(c, width * 0.05), c.root);
    expect(hooks.turn).toHaveBeenLastCalledWith('prev');
    i.tap(click(c, width / 2), c.root.querySelector('button'));
    expect(hooks.onMiddleTap).not.toHaveBeenCalled();
    i.tap(click(c, width / 2), c.root);
    expect(hooks.onMiddleTap).toHaveBeenCalledOnce();
  });

  it('a swipe turns a page (paged), not when a fixed page is zoomed', () => {
    const c = chapterFrame('<p>words</p>');
    const { hooks } = input(c);
    const touch = (type: string, x: number) => {
      const e = new c.win.Event(type, { cancelable: true });
      const list = [{ clientX: x, clientY: 100 }];
      Object.defineProperty(e, type === 'touchstart' ? 'touches' : 'changedTouches', { value: list });
      c.doc.dispatchEvent(e);
    };
    touch('touchstart', 400);
    touch('touchend', 100);
    expect(hooks.turn).toHaveBeenCalledWith('next');
    const zoomed = chapterFrame('<p>page</p>');
    const z = input(zoomed, {}, { tapTurn: () => null, zoomed: () => true, pages: () => ({ index: 0, count: 1 }) });
    const e1 = new zoomed.win.Event('touchstart');
    Object.defineProperty(e1, 'touches', { value: [{ clientX: 400, clientY: 100 }] });
    zoomed.doc.dispatchEvent(e1);
    const e2 = new zoomed.win.Event('touchend');
    Object.defineProperty(e2, 'changedTouches', { value: [{ clientX: 100, clientY: 100 }] });
    zoomed.doc.dispatchEvent(e2);
    expect(z.hooks.turn).not.toHaveBeenCalled();
  });

  it('the wheel moves a sideways-scrolling chapter along once wired', () => {
    const c = chapterFrame('<p>縦書き</p>', 'body { writing-mode: vertical-rl }');
    const { input: i } = input(c, { pagination: 'scroll' });
    const wheel = () => {
      const e = new c.win.WheelEvent('wheel', { deltaY: 100, cancelable: true });
      c.doc.dispatchEvent(e);
      return e;
    };
    expect(wheel().defaultPrevented).toBe(false);
    i.wireWheel();
    i.wireWheel(); // once only
    expect(wheel().defaultPrevented).toBe(true);
    expect(c.doc.documentElement.scrollLeft).toBe(-100);
  });

  const swipe = (c: ChapterFrame, from: { x: number; y?: number; target?: Element }, to: { x: number; y?: number }) => {
    const start = new c.win.Event('touchstart', { bubbles: true });
    Object.defineProperty(start, 'touches', { value: [{ clientX: from.x, clientY: from.y ?? 300 }] });
    (from.target ?? c.root).dispatchEvent(start);
    const end = new c.win.Event('touchend', { bubbles: true, cancelable: true });
    Object.defineProperty(end, 'changedTouches', { value: [{ clientX: to.x, clientY: to.y ?? 300 }] });
    (from.target ?? c.root).dispatchEvent(end);
    return end;
  };
  /** A code block `room` px wider than its box, scrolled `left` px (jsdom lays nothing out). */
  const wideCode = (c: ChapterFrame, left: number, room = 500) => {
    const pre = c.doc.getElementById('code')!;
    Object.defineProperty(pre, 'clientWidth', { configurable: true, get: () => 300 });
    Object.defineProperty(pre, 'scrollWidth', { configurable: true, get: () => 300 + room });
    Object.defineProperty(pre, 'scrollLeft', { configurable: true, get: () => left });
    return pre;
  };

  it('scroll mode: a sideways swipe turns the chapter (mirrored right to left), not a drifting scroll', () => {
    const c = chapterFrame('<p>words</p>');
    const { layout, hooks } = input(c, { pagination: 'scroll' });
    expect(swipe(c, { x: 300 }, { x: 200 }).defaultPrevented).toBe(true);
    expect(hooks.chapter).toHaveBeenLastCalledWith('next');
    swipe(c, { x: 100 }, { x: 200 });
    expect(hooks.chapter).toHaveBeenLastCalledWith('prev');
    // down the page, 70 px sideways on the way: a scroll
    swipe(c, { x: 100, y: 600 }, { x: 170, y: 250 });
    expect(hooks.chapter).toHaveBeenCalledTimes(2);
    layout.rtl = true;
    swipe(c, { x: 100 }, { x: 200 });
    expect(hooks.chapter).toHaveBeenLastCalledWith('next');
    expect(hooks.turn).not.toHaveBeenCalled();
  });

  it('scroll mode: no chapter turns in a vertical chapter (it scrolls sideways) or in a stacked book', () => {
    const c = chapterFrame('<p>縦書き</p>', 'body { writing-mode: vertical-rl }');
    const { hooks } = input(c, { pagination: 'scroll' });
    swipe(c, { x: 300 }, { x: 100 });
    expect(hooks.chapter).not.toHaveBeenCalled();
    const s = chapterFrame('<p>words</p>');
    const layout = layoutOf(s, { pagination: 'scroll' });
    Object.defineProperty(layout, 'stack', { value: { scrollTop: 0 } });
    const stackHooks = { turn: vi.fn(), jump: vi.fn(), chapter: vi.fn() };
    new FrameInput(layout, listeners.listen, stackHooks);
    swipe(s, { x: 300 }, { x: 100 });
    expect(stackHooks.chapter).not.toHaveBeenCalled();
  });

  it('a swipe over a code block that can still scroll that way scrolls it; at its end, it turns', () => {
    const c = chapterFrame('<pre id="code" style="overflow-x: auto"><code>const a = 1;</code></pre><p>words</p>');
    const { hooks } = input(c, { pagination: 'scroll' });
    const code = c.doc.querySelector('code')!;
    wideCode(c, 0);
    // leftwards drags it towards its right end: its own
    swipe(c, { x: 300, target: code }, { x: 100 });
    expect(hooks.chapter).not.toHaveBeenCalled();
    // rightwards, it is at its left end already: the previous chapter
    swipe(c, { x: 100, target: code }, { x: 300 });
    expect(hooks.chapter).toHaveBeenLastCalledWith('prev');
    wideCode(c, 500);
    swipe(c, { x: 300, target: code }, { x: 100 });
    expect(hooks.chapter).toHaveBeenLastCalledWith('next');
    // paged mode keeps the same rule
    const p = chapterFrame('<pre id="code" style="overflow-x: auto"><code>const a = 1;</code></pre>');
    const paged = input(p);
    wideCode(p, 0);
    swipe(p, { x: 300, target: p.doc.querySelector('code')! }, { x: 100 });
    expect(paged.hooks.turn).not.toHaveBeenCalled();
  });

  it('scroll mode: a sideways wheel turns the chapter once a gesture and is cancelled; a vertical one is left alone', () => {
    vi.useFakeTimers();
    const c = chapterFrame('<pre id="code" style="overflow-x: auto"><code>const a = 1;</code></pre><p>words</p>');
    const { input: i, hooks } = input(c, { pagination: 'scroll' });
    const wheel = (deltaX: number, deltaY: number, target: Element = c.root) => {
      const e = new c.win.WheelEvent('wheel', { deltaX, deltaY, bubbles: true, cancelable: true });
      target.dispatchEvent(e);
      return e;
    };
    vi.advanceTimersByTime(1000);
    expect(wheel(100, 0).defaultPrevented).toBe(false); // not listened to until wired
    i.wireSidewaysWheel();
    vi.advanceTimersByTime(1000);
    expect(wheel(100, 0).defaultPrevented).toBe(true);
    expect(hooks.chapter).toHaveBeenCalledExactlyOnceWith('next');
    vi.advanceTimersByTime(16);
    expect(wheel(100, 0).defaultPrevented).toBe(true); // the same gesture's momentum
    expect(hooks.chapter).toHaveBeenCalledOnce();
    vi.advanceTimersByTime(1000);
    expect(wheel(10, 100).defaultPrevented).toBe(false);
    vi.advanceTimersByTime(1000);
    wideCode(c, 0);
    expect(wheel(100, 0, c.doc.querySelector('code')!).defaultPrevented).toBe(false); // the block scrolls
    vi.advanceTimersByTime(1000);
    expect(wheel(-100, 0).defaultPrevented).toBe(true);
    expect(hooks.chapter).toHaveBeenLastCalledWith('prev');
    expect(hooks.chapter).toHaveBeenCalledTimes(2);
  });
});
