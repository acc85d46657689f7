import { afterEach, describe, expect, it } from 'vitest';
import { SETTINGS_STYLE_ID } from '../src/features/reader/engine/chapterDocument.ts';
import { chapterFrame, layoutOf, removeFrames } from './frame-fixture.ts';

afterEach(removeFrames);

const rect = (r: Partial<DOMRect>) => ({ left: 0, top: 0, right: 0, bottom: 0, width: 1, height: 16, ...r }) as DOMRect;

describe('frame layout: paged', () => {
  it('counts pages along the strip and says which one is in view', () => {
    const c = chapterFrame('<p>words</p>');
    c.geometry({ width: 600, height: 800, scrollWidth: 3000 });
    const layout = layoutOf(c, { pagination: 'page' });
    layout.along = 1200;
    expect(layout.paged).toBe(true);
    expect(layout.pages()).toEqual({ index: 2, count: 5 });
    expect(layout.percentage()).toBe(50);
    expect(layout.seenWhole()).toBe(false);
    // turning moves along one axis and puts the other back
    c.doc.documentElement.scrollTop = 40;
    layout.along = 600;
    expect(c.doc.documentElement.scrollTop).toBe(0);
    expect(layout.pages().index).toBe(1);
  });

  it('shows the page holding a glyph, or the page of a percentage', () => {
    const c = chapterFrame('<p>words</p>');
    c.geometry({ width: 600, height: 800, scrollWidth: 3000 });
    const layout = layoutOf(c, { pagination: 'page' });
    layout.show(rect({ left: 2 * 600 + 30 }), 0);
    expect(layout.along).toBe(1200);
    layout.show(null, 100);
    expect(layout.along).toBe(2400);
    // an empty box (a node not laid out) is no place: the percentage decides
    layout.show(rect({ left: 30, width: 0, height: 0 }), 25);
    expect(layout.along).toBe(600);
  });

  it('reads a right-to-left strip from the layout, not from the book flag', () => {
    const c = chapterFrame('<p>words</p>', 'body { direction: rtl }');
    c.geometry({ width: 600, height: 800, scrollWidth: 1800 });
    const layout = layoutOf(c, { pagination: 'page' });
    expect(layout.stripRtl).toBe(true);
    layout.along = -600;
    expect(layout.pages()).toEqual({ index: 1, count: 3 });
  });

  it('writes the settings style element and the reader classes', () => {
    const c = chapterFrame('<p>words</p>');
    c.geometry({ width: 600, height: 800 });
    const layout = layoutOf(c, { pagination: 'page' });
    layout.rtl = true;
    layout.writeSettings();
    expect(c.doc.getElementById(SETTINGS_STYLE_ID)!.textContent).toContain('column');
    expect(c.doc.documentElement.className.split(' ')).toEqual(expect.arrayContaining(['lectern-paged', 'lectern-rtl']));
    layout.prefs = { ...layout.prefs, pagination: 'scroll' };
    c.doc.documentElement.scrollLeft = 300;
    layout.writeSettings();
    expect(c.doc.documentElement.className.split(' ')).toContain('lectern-scroll');
    expect(c.doc.documentElement.scrollLeft).toBe(0);
  });
});

describe('frame layout: scroll', () => {
  it('gives the percentage of the scroll and shows a glyph at the top, 8 px below the edge', () => {
    const c = chapterFrame('<p>words</p>');
    c.geometry({ width: 600, height: 800, scrollHeight: 2800 });
    const layout = layoutOf(c);
    const s = c.doc.documentElement;
    s.scrollTop = 1000;
    expect(layout.paged).toBe(false);
    expect(layout.percentage()).toBe(50);
    layout.show(rect({ top: 308 }), 0);
    expect(s.scrollTop).toBe(1300);
    layout.show(null, 100);
    expect(s.scrollTop).toBe(2000);
  });

  it('a chapter that fits the screen is seen whole', () => {
    const c = chapterFrame('<p>words</p>');
    c.geometry({ width: 600, height: 800, scrollHeight: 800 });
    expect(layoutOf(c).seenWhole()).toBe(true);
    expect(layoutOf(c).percentage()).toBe(100);
  });
});

describe('frame layout: vertical writing', () => {
  it('stacks pages downwards: the page is the height and turns move scrollTop', () => {
    const c = chapterFrame('<p>縦書き</p>', 'body { writing-mode: vertical-rl }');
    c.geometry({ width: 600, height: 800, scrollHeight: 2400 });
    const layout = layoutOf(c, { pagination: 'page' });
    expect(layout.vertical).toBe(true);
    expect(layout.pageSize).toBe(800);
    layout.along = 1600;
    expect(c.doc.documentElement.scrollTop).toBe(1600);
    expect(layout.pages()).toEqual({ index: 2, count: 3 });
    // vertical-rl reads right to left: taps and arrows turn that way even in a left-to-right book
    expect(layout.inputRtl).toBe(true);
  });

  it('in scroll mode scrolls sideways and shows a line at the right edge (the left one in vertical-lr)', () => {
    const rl = chapterFrame('<p>縦書き</p>', 'body { writing-mode: vertical-rl }');
    rl.geometry({ width: 600, height: 800, scrollWidth: 1800 });
    const layout = layoutOf(rl);
    layout.show(rect({ left: -400, right: -380 }), 0);
    expect(rl.doc.documentElement.scrollLeft).toBe(-380 + 8 - 600);
    const lr = chapterFrame('<p>縦書き</p>', 'body { writing-mode: vertical-lr }');
    lr.geometry({ width: 600, height: 800, scrollWidth: 1800 });
    const lrLayout = layoutOf(lr);
    expect(lrLayout.inputRtl).toBe(false);
    lrLayout.show(rect({ left: 700, right: 720 }), 0);
    expect(lr.doc.documentElement.scrollLeft).toBe(692);
  });
});

describe('frame layout: a fixed-layout page', () => {
  it('is the view’s page: its pages and no settings of its own', () => {
    const c = chapterFrame('<p>page</p>');
    c.geometry({ width: 600, height: 800, scrollWidth: 3000 });
    const layout = layoutOf(c, { pagination: 'scroll' }, { tapTurn: () => null, zoomed: () => false, pages: () => ({ index: 3, count: 7 }) });
    expect(layout.paged).toBe(true);
    expect(layout.pages()).toEqual({ index: 3, count: 7 });
    expect(layout.percentage()).toBe(100);
    layout.writeSettings();
    expect(c.doc.getElementById(SETTINGS_STYLE_ID)!.textContent).toBe('');
  });
});
