/**
 * Fixed layout's rules (engine/fixedLayout.ts, bookFlow.ts): which pages share a spread and on which side, when
 * spreads are allowed, how a spread is fitted to the stage, and the scroll or page default a book's flow gives.
 */
import type { Rendition } from '@lectern/core';
import { DEFAULT_PREFERENCES } from '@lectern/core';
import { describe, expect, it } from 'vitest';
import { prefsForBook } from '../src/features/reader/bookFlow.ts';
import { layoutSpread, spreadAllowed, spreadHref, spreadIndexOf, spreadsOf, turnSpread, viewportOf, type SpineEntry } from '../src/features/reader/engine/fixedLayout.ts';

const fixed = (page_spread: Rendition['page_spread'] = null, extra: Partial<Rendition> = {}): Rendition => ({
  layout: 'pre-paginated',
  spread: 'landscape',
  flow: 'auto',
  page_spread,
  viewport: { width: 600, height: 800 },
  ...extra,
});
const book: SpineEntry[] = [
  { href: 'p1', rendition: fixed('right') },
  { href: 'p2', rendition: fixed('left') },
  { href: 'p3', rendition: fixed('right', { viewport: { width: 300, height: 400 } }) },
  { href: 'p4', rendition: fixed('center', { viewport: { width: 1200, height: 800 } }) },
  { href: 'p5', rendition: fixed(null, { spread: 'none' }) },
];
const desktop = { width: 1280, height: 700 };
const phone = { width: 390, height: 700 };
const sides = (spreads: ReturnType<typeof spreadsOf>) => spreads.map((s) => s.pages.map((p) => `${p.href}:${p.side}`).join(' '));

describe('fixed layout spreads', () => {
  it('pairs facing pages on a wide landscape stage: a cover alone on the right, a centre page alone', () => {
    expect(sides(spreadsOf(book, desktop, false))).toEqual(['p1:right', 'p2:left p3:right', 'p4:center', 'p5:center']);
  });

  it('shows one page at a time on a phone, a narrow window or a portrait stage', () => {
    expect(sides(spreadsOf(book, phone, false))).toEqual(['p1:center', 'p2:center', 'p3:center', 'p4:center', 'p5:center']);
    expect(spreadAllowed('landscape', { width: 900, height: 1200 })).toBe(false);
    expect(spreadAllowed('both', { width: 900, height: 1200 })).toBe(true);
    expect(spreadAllowed('both', { width: 700, height: 400 })).toBe(false);
    expect(spreadAllowed('none', desktop)).toBe(false);
    expect(spreadAllowed('auto', desktop)).toBe(true);
  });

  it('puts the first page of a spread on the right in a right-to-left book', () => {
    const rtl: SpineEntry[] = [
      { href: 'c', rendition: fixed('left') },
      { href: 'a', rendition: fixed() },
      { href: 'b', rendition: fixed() },
      { href: 'd', rendition: fixed('right') },
    ];
    expect(sides(spreadsOf(rtl, desktop, true))).toEqual(['c:left', 'a:right b:left', 'd:right']);
  });

  it('pairs unmarked pages in order, never a first-side page as the second, never a reflowable item', () => {
    const mixed: SpineEntry[] = [
      { href: 'a', rendition: fixed() },
      { href: 'b', rendition: fixed() },
      { href: 'c', rendition: fixed() },
      { href: 'd', rendition: fixed('left') },
      { href: 'e', rendition: fixed('left') },
      { href: 'text', rendition: { ...fixed(), layout: 'reflowable' } },
      { href: 'f', rendition: null },
    ];
    expect(sides(spreadsOf(mixed, desktop, false))).toEqual(['a:left b:right', 'c:left', 'd:left', 'e:left', 'text:center', 'f:center']);
  });

  it('moves by spreads and finds the spread of any page in it', () => {
    const spreads = spreadsOf(book, desktop, false);
    expect(spreadIndexOf(spreads, 'p3')).toBe(1);
    expect(spreadHref(turnSpread(spreads, 1, 'next')!)).toBe('p4');
    expect(spreadHref(turnSpread(spreads, 1, 'prev')!)).toBe('p1');
    expect(turnSpread(spreads, 3, 'next')).toBeNull();
    expect(turnSpread(spreads, 0, 'prev')).toBeNull();
  });

  it('fits each page inside its half of the stage (contain), a spread meeting in the middle, centred', () => {
    const spreads = spreadsOf(book, desktop, false);
    const size = (h: string) => viewportOf(book, h);
    const [left, right] = layoutSpread(spreads[1]!, size, desktop).pages;
    expect(left!.left + left!.width * left!.scale).toBeCloseTo(640);
    expect(right!.left).toBeCloseTo(640);
    expect(left!.height * left!.scale).toBeLessThanOrEqual(desktop.height);
    // p3 is half the size of p2 and is drawn at twice the scale: both fill their half
    expect(right!.scale).toBeCloseTo(left!.scale * 2);
    expect(right!.height * right!.scale).toBeCloseTo(left!.height * left!.scale);
    const alone = layoutSpread(spreads[2]!, size, phone).pages[0]!;
    expect(alone.width * alone.scale).toBeLessThanOrEqual(phone.width);
    expect(alone.left).toBeGreaterThanOrEqual(0);
    const zoomed = layoutSpread(spreads[2]!, size, phone, 2);
    expect(zoomed.width).toBeGreaterThan(phone.width);
    expect(zoomed.pages[0]!.scale).toBeCloseTo(alone.scale * 2);
  });

  it("takes a page's size from its neighbours when it gives none", () => {
    const spine: SpineEntry[] = [{ href: 'a', rendition: fixed() }, { href: 'b', rendition: fixed(null, { viewport: null }) }];
    expect(viewportOf(spine, 'b')).toEqual({ width: 600, height: 800 });
    expect(viewportOf([{ href: 'x', rendition: fixed(null, { viewport: null }) }], 'x')).toEqual({ width: 1000, height: 1400 });
  });
});

describe("the book's flow as the scroll or page default", () => {
  const flow = (f: Rendition['flow']): Rendition => ({ layout: 'reflowable', spread: 'auto', flow: f, page_spread: null, viewport: null });
  const paged = { ...DEFAULT_PREFERENCES, pagination: 'page' as const };
  it('opens scrolled-doc and scrolled-continuous books in scroll mode and paginated ones in pages, until the reader chooses', () => {
    expect(prefsForBook(paged, flow('scrolled-doc'), false).pagination).toBe('scroll');
    expect(prefsForBook(paged, flow('scrolled-continuous'), false).pagination).toBe('scroll');
    expect(prefsForBook(DEFAULT_PREFERENCES, flow('paginated'), false).pagination).toBe('page');
    expect(prefsForBook(paged, flow('auto'), false)).toBe(paged);
    expect(prefsForBook(paged, flow('scrolled-doc'), true)).toBe(paged);
    expect(prefsForBook(paged, undefined, false)).toBe(paged);
  });
  it('shows fixed-layout pages as pages whatever the mode', () => {
    expect(prefsForBook(DEFAULT_PREFERENCES, { ...flow('scrolled-doc'), layout: 'pre-paginated' }, true).pagination).toBe('page');
  });
});
