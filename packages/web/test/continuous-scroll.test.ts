/**
 * rendition:flow scrolled-continuous (engine/continuousScroll.ts): a wheel or a finger carried on past a chapter's
 * edge, and only once the chapter is at that edge already, asks for the neighbour; a book or mode that does not read
 * as one scroll never does.
 */
import { describe, expect, it } from 'vitest';
import { OVERSCROLL_PX, Overscroll, readsContinuously, watchContinuousScroll, type Direction } from '../src/features/reader/engine/continuousScroll.ts';

/** A document whose scroller stands at `top` of `height`, in a 500 px viewport (jsdom lays nothing out). */
function scrolledDocument(top: number, height = 2000): Document {
  const doc = document.implementation.createHTMLDocument('chapter');
  const s = doc.documentElement;
  Object.defineProperty(doc, 'scrollingElement', { value: s });
  Object.defineProperty(s, 'scrollHeight', { value: height, configurable: true });
  Object.defineProperty(s, 'clientHeight', { value: 500, configurable: true });
  s.scrollTop = top;
  Object.defineProperty(s, 'scrollTop', { value: top, writable: true, configurable: true });
  return doc;
}

const wheel = (doc: Document, deltaY: number, init: WheelEventInit = {}) => doc.dispatchEvent(new WheelEvent('wheel', { deltaY, ...init }));

describe('reading on past a chapter by wheel or finger', () => {
  it('counts a wheel only at the edge it turns towards, and asks once it has gone far enough', () => {
    const o = new Overscroll();
    expect(o.step(500, false, false)).toBeNull(); // inside the chapter
    expect(o.step(OVERSCROLL_PX - 1, false, true)).toBeNull(); // at the end, not yet far
    expect(o.step(1, false, true)).toBe('next');
    expect(o.step(OVERSCROLL_PX, true, false)).toBeNull(); // down at the top: nothing
    expect(o.step(-OVERSCROLL_PX, true, false)).toBe('prev');
    // back inside starts the count again
    expect(o.step(OVERSCROLL_PX / 2, false, true)).toBeNull();
    expect(o.step(-10, false, false)).toBeNull();
    expect(o.step(OVERSCROLL_PX / 2, false, true)).toBeNull();
  });

  it('goes on from the end and back from the top of a chapter document, not from its middle', () => {
    const asked: Direction[] = [];
    const end = scrolledDocument(1500);
    const stop = watchContinuousScroll(end, (d) => asked.push(d));
    wheel(end, 100);
    expect(asked).toEqual(['next']);
    wheel(end, 100, { ctrlKey: true }); // a pinch is not reading on
    wheel(end, 10, { deltaX: 200 }); // nor is a sideways scroll
    expect(asked).toEqual(['next']);
    stop();
    wheel(end, 500);
    expect(asked).toEqual(['next']);

    const middle = scrolledDocument(700);
    watchContinuousScroll(middle, (d) => asked.push(d));
    wheel(middle, 500);
    wheel(middle, -500);
    expect(asked).toEqual(['next']);

    const top = scrolledDocument(0);
    watchContinuousScroll(top, (d) => asked.push(d));
    wheel(top, -6, { deltaMode: 1 }); // six lines up (16 px each)
    expect(asked).toEqual(['next', 'prev']);
  });

  it('is for a reflowable scrolled-continuous chapter in scroll mode only', () => {
    expect(readsContinuously('scroll', { layout: 'reflowable', flow: 'scrolled-continuous' })).toBe(true);
    expect(readsContinuously('page', { layout: 'reflowable', flow: 'scrolled-continuous' })).toBe(false);
    expect(readsContinuously('scroll', { layout: 'reflowable', flow: 'scrolled-doc' })).toBe(false);
    expect(readsContinuously('scroll', { layout: 'pre-paginated', flow: 'scrolled-continuous' })).toBe(false);
    expect(readsContinuously('scroll', null)).toBe(false);
  });
});
