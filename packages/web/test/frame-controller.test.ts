import { DEFAULT_PREFERENCES } from '@lectern/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FrameController, type FrameCallbacks } from '../src/features/reader/engine/frameController.ts';
import { chapterFrame, reducedMotion, removeFrames, useTestClock, type ChapterFrame } from './frame-fixture.ts';

let c: ChapterFrame;
beforeEach(() => {
  vi.useFakeTimers();
  reducedMotion(true);
  c = chapterFrame('<p>A claim<a id="ref" href="#n1" data-epub-type="noteref">1</a>.</p><aside data-epub-type="footnote" id="n1">The note.</aside>');
  c.geometry({ width: 600, height: 800, scrollWidth: 1800 });
  useTestClock(c.win);
});
afterEach(() => {
  removeFrames();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

function controller(over: Partial<FrameCallbacks> = {}) {
  const cb = { onProgress: vi.fn(), onEdge: vi.fn(), onNavigate: vi.fn(), onImage: vi.fn(), onMiddleTap: vi.fn(), onPages: vi.fn() };
  const ctl = new FrameController(c.frame, { ...DEFAULT_PREFERENCES, pagination: 'page' }, 'ch1.xhtml', 'b1', (p) => p, { ...cb, ...over });
  return { ctl, cb };
}

const clickAt = (target: Element, x: number) => target.dispatchEvent(new c.win.MouseEvent('click', { clientX: x, bubbles: true, cancelable: true }));
const press = (k: string) => c.doc.dispatchEvent(new c.win.KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true }));

describe('the frame controller composes its parts', () => {
  it('a click goes to an open note or a link first, the tap zones only when nothing took it', () => {
    const { ctl, cb } = controller();
    ctl.goToInitial({ kind: 'percentage', value: 0 });
    const edge = c.win.innerWidth * 0.95;
    clickAt(c.doc.getElementById('ref')!, edge);
    expect(c.doc.querySelector('.lectern-note')).not.toBeNull();
    expect(ctl.pages().index).toBe(0);
    clickAt(c.root, edge); // closes the note, turns nothing
    expect(c.doc.querySelector('.lectern-note')).toBeNull();
    expect(ctl.pages().index).toBe(0);
    clickAt(c.root, edge);
    expect(ctl.pages().index).toBe(1);
    clickAt(c.root, c.win.innerWidth / 2);
    expect(cb.onMiddleTap).toHaveBeenCalledOnce();
  });

  it('keys: Escape closes a note before the app sees it; without onKey the controller turns itself', () => {
    const onKey = vi.fn();
    const { ctl } = controller({ onKey });
    clickAt(c.doc.getElementById('ref')!, 10);
    press('Escape');
    expect(onKey).not.toHaveBeenCalled();
    press('ArrowRight');
    expect(onKey).toHaveBeenCalledOnce();
    expect(ctl.pages().index).toBe(0);
    ctl.destroy();
    const own = controller();
    press('ArrowRight');
    expect(own.ctl.pages().index).toBe(1);
  });

  it('reports the place and the pages once a turn lands, and nothing after destroy', () => {
    const { ctl, cb } = controller();
    ctl.turn('next');
    vi.advanceTimersByTime(60);
    expect(cb.onProgress).toHaveBeenCalledWith(50, { href: 'ch1.xhtml', progression: 0.5 });
    expect(cb.onPages).toHaveBeenCalledWith(1, 3);
    ctl.turn('next');
    ctl.turn('next');
    expect(cb.onEdge).toHaveBeenCalledWith('next');
    ctl.destroy();
    cb.onProgress.mockClear();
    c.win.dispatchEvent(new c.win.Event('scroll'));
    clickAt(c.root, 10);
    vi.advanceTimersByTime(1000);
    expect(cb.onProgress).not.toHaveBeenCalled();
    expect(ctl.pages().index).toBe(2);
  });

  it('new preferences rewrite the layout and keep the place', () => {
    const { ctl } = controller();
    ctl.turn('next');
    ctl.applyPrefs({ ...DEFAULT_PREFERENCES, pagination: 'scroll' });
    expect(ctl.paged).toBe(false);
    expect(c.doc.documentElement.classList.contains('lectern-scroll')).toBe(true);
  });
});
