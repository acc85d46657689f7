/**
 * A chapter frame in jsdom for the tests of the frame's parts (engine/frame/): a real iframe with the reading root
 * and the settings style element, a layout jsdom does not compute given by hand, and the frame's clocks put on the
 * test's fake ones.
 */
import { DEFAULT_PREFERENCES, type ReaderPreferences } from '@lectern/core';
import { vi } from 'vitest';
import { ROOT_ID, SETTINGS_STYLE_ID } from '../src/features/reader/engine/chapterDocument.ts';
import { FrameLayout, type FixedPageOptions } from '../src/features/reader/engine/frame/layout.ts';

export interface Geometry {
  width: number;
  height: number;
  scrollWidth?: number;
  scrollHeight?: number;
}

export interface ChapterFrame {
  frame: HTMLIFrameElement;
  doc: Document;
  /** The frame's window, with its own constructors (MouseEvent, KeyboardEvent…). */
  win: Window & typeof globalThis;
  root: HTMLElement;
  /** The size of the view and of what scrolls, as the browser would lay it out. */
  geometry(g: Geometry): void;
}

export const framesMade: HTMLIFrameElement[] = [];

/** A frame holding `html` in its reading root; `css` is the book's stylesheet (writing-mode, direction). */
export function chapterFrame(html: string, css = ''): ChapterFrame {
  const frame = document.createElement('iframe');
  document.body.append(frame);
  framesMade.push(frame);
  const doc = frame.contentDocument!;
  const win = frame.contentWindow as Window & typeof globalThis;
  doc.open();
  doc.write(`<!doctype html><html><head><style>${css}</style><style id="${SETTINGS_STYLE_ID}"></style></head><body><div id="${ROOT_ID}">${html}</div></body></html>`);
  doc.close();
  const el = doc.documentElement;
  const geometry = (g: Geometry) => {
    const define = (name: string, value: number) => Object.defineProperty(el, name, { configurable: true, get: () => value });
    define('clientWidth', g.width);
    define('clientHeight', g.height);
    define('scrollWidth', g.scrollWidth ?? g.width);
    define('scrollHeight', g.scrollHeight ?? g.height);
  };
  return { frame, doc, win, root: doc.getElementById(ROOT_ID)!, geometry };
}

/** Removes the frames made (afterEach). */
export function removeFrames() {
  for (const f of framesMade.splice(0)) f.remove();
}

/** The frame's timers and animation frames run on the test's clock (after vi.useFakeTimers()). */
export function useTestClock(win: Window) {
  const w = win as unknown as Record<string, unknown>;
  w.setTimeout = (fn: () => void, ms?: number) => window.setTimeout(fn, ms);
  w.clearTimeout = (id: number) => window.clearTimeout(id);
  w.requestAnimationFrame = (fn: FrameRequestCallback) => window.requestAnimationFrame(fn);
  w.cancelAnimationFrame = (id: number) => window.cancelAnimationFrame(id);
  // a slide's start is read from the frame's own clock (pager.ts)
  Object.defineProperty(win.performance, 'now', { configurable: true, value: () => window.performance.now() });
}

/** The reader asked for less motion (page turns land at once). */
export function reducedMotion(on: boolean) {
  vi.stubGlobal('matchMedia', (q: string) => ({ matches: on && q.includes('reduce'), media: q }));
}

export function layoutOf(c: ChapterFrame, prefs: Partial<ReaderPreferences> = {}, fixed: FixedPageOptions | null = null) {
  return new FrameLayout(c.frame, c.doc, c.win, { ...DEFAULT_PREFERENCES, ...prefs }, fixed);
}
