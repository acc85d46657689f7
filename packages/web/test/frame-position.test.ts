import { locatorSchema, READER_CONSTANTS } from '@lectern/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { captureRange, findLocator, FramePosition, locatorAt } from '../src/features/reader/engine/frame/position.ts';
import type { Locator } from '../src/shared/reading/position.ts';
import { chapterFrame, layoutOf, removeFrames, useTestClock, type ChapterFrame } from './frame-fixture.ts';

afterEach(() => {
  removeFrames();
  vi.useRealTimers();
});

const LONG = 'The quick brown fox jumps over the lazy dog while the reader turns the page. ';

/** A caret that answers every point with `range` (jsdom lays nothing out). */
function caretAnswers(c: ChapterFrame, answer: (x: number, y: number) => Range | null) {
  const points: [number, number][] = [];
  (c.doc as Document & { caretRangeFromPoint?: unknown }).caretRangeFromPoint = (x: number, y: number) => {
    points.push([x, y]);
    return answer(x, y);
  };
  return points;
}

function rangeAt(node: Node, offset: number) {
  const r = node.ownerDocument!.createRange();
  r.setStart(node, offset);
  r.collapse(true);
  return r;
}

describe('locators', () => {
  it('carry 32 characters either side of the place and the progression (0 to 1)', () => {
    const c = chapterFrame(`<p>${LONG}${LONG}</p>`);
    const text = c.root.querySelector('p')!.firstChild!;
    const loc = locatorAt('ch1.xhtml', 0.4, rangeAt(text, 40), () => false);
    expect(locatorSchema.parse(loc)).toEqual(loc);
    expect(loc).toEqual({
      href: 'ch1.xhtml',
      progression: 0.4,
      text: { before: LONG.slice(8, 40), highlight: LONG.slice(40, 72), after: (LONG + LONG).slice(72, 104) },
    });
  });

  it('without words are the progression, and the start of a chapter seen whole', () => {
    const c = chapterFrame('<p><img alt=""></p>');
    expect(locatorAt('pics.xhtml', 1, null, () => true)).toEqual({ href: 'pics.xhtml', progression: 0 });
    expect(locatorAt('pics.xhtml', 0.6, rangeAt(c.root, 0), () => false)).toEqual({ href: 'pics.xhtml', progression: 0.6 });
  });

  it('are found again at the occurrence nearest their progression, across text nodes', () => {
    const c = chapterFrame(`<p>${LONG}</p><p>filler filler filler</p><p><em>The quick</em> brown fox jumps over the lazy dog again.</p>`);
    const loc: Locator = { href: 'ch', progression: 0.9, text: { before: 'The quick', highlight: ' brown fox', after: '' } };
    const found = findLocator(c.doc, loc)!;
    expect(found.startContainer.parentElement!.tagName).toBe('P');
    expect(found.startContainer.textContent).toMatch(/^ brown fox jumps over the lazy dog again/);
    expect(found.startOffset).toBe(0);
    const early = findLocator(c.doc, { ...loc, progression: 0 })!;
    expect(early.startContainer.textContent).toBe(LONG);
    expect(early.startOffset).toBe('The quick'.length);
    expect(findLocator(c.doc, { ...loc, text: { before: 'no such', highlight: ' words', after: '' } })).toBeNull();
    expect(findLocator(c.doc, { href: 'ch', progression: 0.1 })).toBeNull();
    // core's Locator may leave any of its words out: words after the place alone find nothing, words before it do
    expect(findLocator(c.doc, { href: 'ch', progression: 0.9, text: { after: ' brown fox' } })).toBeNull();
    const byBefore = findLocator(c.doc, { href: 'ch', progression: 0.9, text: { before: 'The quick' } })!;
    expect(byBefore.startContainer.textContent).toMatch(/^ brown fox/);
  });
});

describe('capturing the first character in view', () => {
  it('takes the caret at the start of the first line, inside the reading root only', () => {
    const c = chapterFrame(`<p>${LONG}</p>`);
    c.geometry({ width: 600, height: 800 });
    const outside = c.doc.createElement('p');
    outside.textContent = 'not the book';
    c.doc.body.prepend(outside);
    const text = c.root.querySelector('p')!.firstChild!;
    const points = caretAnswers(c, (_x, y) => (y < 14 ? rangeAt(outside.firstChild!, 0) : rangeAt(text, 5)));
    const r = captureRange(layoutOf(c))!;
    expect(r.startContainer).toBe(text);
    expect(r.startOffset).toBe(5);
    // the lines above y = 14 answered outside the root and were passed over
    expect(points.some(([, y]) => y < 14)).toBe(true);
  });

  it('finds nothing without a caret API or a reading root', () => {
    const c = chapterFrame('<p>words</p>');
    expect(captureRange(layoutOf(c))).toBeNull();
    caretAnswers(c, () => null);
    c.root.remove();
    expect(captureRange(layoutOf(c))).toBeNull();
  });

  it('in vertical-rl writing looks from the right edge inwards', () => {
    const c = chapterFrame('<p>縦書きの文</p>', 'body { writing-mode: vertical-rl }');
    c.geometry({ width: 600, height: 800 });
    const text = c.root.querySelector('p')!.firstChild!;
    const points = caretAnswers(c, (x) => (x < 590 ? rangeAt(text, 2) : null));
    expect(captureRange(layoutOf(c, { pagination: 'page' }))!.startOffset).toBe(2);
    expect(points[0]![0]).toBe(598);
  });
});

describe('the kept position', () => {
  let c: ChapterFrame;
  let frames: FrameRequestCallback[];
  beforeEach(() => {
    vi.useFakeTimers();
    c = chapterFrame(`<p id="a">${LONG}</p><p id="b">${LONG}</p>`);
    c.geometry({ width: 600, height: 800, scrollHeight: 4000 });
    useTestClock(c.win);
    frames = [];
    c.win.requestAnimationFrame = (fn) => frames.push(fn);
  });
  const nextFrame = () => frames.splice(0).forEach((f) => f(0));

  it('is restored after a re-layout and reported once things settle, scrolls of its own ignored', () => {
    const onProgress = vi.fn();
    const stopMoving = vi.fn();
    const position = new FramePosition(layoutOf(c), 'ch1.xhtml', { onProgress }, stopMoving);
    const kept = rangeAt(c.root.querySelector('#b')!.firstChild!, 4);
    position.restore(kept, 30);
    expect(stopMoving).toHaveBeenCalledOnce();
    // jsdom lays nothing out: without a glyph box the percentage places the view
    expect(c.doc.documentElement.scrollTop).toBe(960);
    position.scrolled(); // the restore's own scroll
    expect(position.anchor).toBe(kept);
    nextFrame();
    vi.advanceTimersByTime(60);
    expect(onProgress).toHaveBeenCalledTimes(1);
    const [pct, loc] = onProgress.mock.calls[0]!;
    expect(pct).toBe(30);
    expect(loc.text.highlight).toBe(LONG.slice(4, 36));
    // the reader scrolls: the kept range goes, the place is what is in view
    position.scrolled();
    expect(position.anchor).toBeNull();
  });

  it('goes to an anchor with the hash correction after its delay (scroll mode)', () => {
    const onProgress = vi.fn();
    const position = new FramePosition(layoutOf(c), 'ch1.xhtml', { onProgress }, () => {});
    const b = c.root.querySelector('#b')!;
    b.getBoundingClientRect = () => ({ top: 1500 }) as DOMRect;
    expect(position.goToAnchor('nowhere')).toBe(false);
    expect(position.goToAnchor('b')).toBe(true);
    expect(c.doc.documentElement.scrollTop).toBe(1500);
    vi.advanceTimersByTime(READER_CONSTANTS.hashScrollDelayMs);
    expect(c.doc.documentElement.scrollTop).toBe(1500 - READER_CONSTANTS.hashScrollOffsetPx);
    expect(position.anchor!.startContainer).toBe(b);
  });

  it('opens at the stored locator, the end or a percentage (reader.md §4)', () => {
    const position = new FramePosition(layoutOf(c), 'ch1.xhtml', { onProgress: () => {} }, () => {});
    position.goToInitial({ kind: 'stored', locator: { href: 'ch1.xhtml', progression: 0.8, text: { before: 'The quick', highlight: ' brown', after: '' } } });
    expect(position.anchor!.startContainer.parentElement!.id).toBe('b');
    position.goToInitial({ kind: 'end' });
    expect(position.anchor).toBeNull();
    expect(c.doc.documentElement.scrollTop).toBe(3200);
    position.goToInitial({ kind: 'percentage', value: 50 });
    expect(c.doc.documentElement.scrollTop).toBe(1600);
    // a stored Locator without words is its progression (0 to 1) of the chapter
    position.goToInitial({ kind: 'stored', locator: { href: 'ch1.xhtml', progression: 0.25 } });
    expect(c.doc.documentElement.scrollTop).toBe(800);
  });

  it('reports nothing once destroyed', () => {
    const onProgress = vi.fn();
    const position = new FramePosition(layoutOf(c), 'ch1.xhtml', { onProgress }, () => {});
    position.report();
    position.destroy();
    vi.advanceTimersByTime(1000);
    expect(onProgress).not.toHaveBeenCalled();
  });
});
