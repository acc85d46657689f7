import { afterEach, describe, expect, it, vi } from 'vitest';
import { FrameInput } from '../src/features/reader/engine/frame/input.ts';
import { Listeners } from '../src/features/reader/engine/frame/listeners.ts';
import { chapterFrame, layoutOf, removeFrames, type ChapterFrame } from './frame-fixture.ts';

const listeners = new Listeners();
afterEach(() => {
  listeners.removeAll();
  removeFrames();
});

function input(c: ChapterFrame, prefs: Parameters<typeof layoutOf>[1] = { pagination: 'page' }, fixed: Parameters<typeof layoutOf>[2] = null) {
  const layout = layoutOf(c, prefs, fixed);
  const hooks = { turn: vi.fn(), jump: vi.fn(), onMiddleTap: vi.fn() };
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
});
