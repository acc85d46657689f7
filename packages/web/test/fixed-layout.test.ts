/**
 * Fixed layout's rules (engine/fixedLayout.ts, bookFlow.ts): which pages share a spread and on which side, when
 * spreads are allowed, how a spread is fitted to the stage, and the scroll or page default a book's flow gives.
 */
import type { Rendition } from '@lectern/core';
import { DEFAULT_PREFERENCES } from '@lectern/core';
import { describe, expect, it } from 'vitest';
import { prefsForBook } from '../src/features/reader/bookFlow.ts';
import {
  buildFixedPageDocument,
  deviceFit,
  layoutSpread,
  spreadAllowed,
  spreadHref,
  spreadIndexOf,
  spreadsOf,
  reflowableSide,
  turnSpread,
  viewportOf,
  ZOOM_BAR,
  zoomBarCovers,
  type SpineEntry,
} from '../src/features/reader/engine/fixedLayout.ts';

const fixed = (page_spread: Rendition['page_spread'] = null, extra: Partial<Rendition> = {}): Rendition => ({
  layout: 'pre-paginated',
  spread: 'landscape',
  flow: 'auto',
  page_spread,
  viewport: { width: 600, height: 800 },
  align_x_center: false,
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
      { href: 'd', rendition: fixed() },
      { href: 'e', rendition: fixed('left') },
      { href: 'g', rendition: fixed('left') },
      { href: 'text', rendition: { ...fixed(), layout: 'reflowable' } },
      { href: 'f', rendition: null },
    ];
    expect(sides(spreadsOf(mixed, desktop, false))).toEqual(['a:right', 'b:left c:right', 'd:left', 'e:left', 'g:left', 'text:center', 'f:center']);
  });

  // docs/conformance.md "Also noticed": page 1 without a side was alone on the left half when page 2 could not join it
  it('shows a first page with no side as the cover: alone on the second side, the pages after it paired from page 2', () => {
    const unmarked: SpineEntry[] = ['1', '2', '3', '4'].map((href) => ({ href, rendition: fixed() }));
    expect(sides(spreadsOf(unmarked, desktop, false))).toEqual(['1:right', '2:left 3:right', '4:left']);
    expect(sides(spreadsOf(unmarked, desktop, true))).toEqual(['1:left', '2:right 3:left', '4:right']);
    // page 2 marked for the first side (lay-fxl-page-spread-left): the cover still on the right, not the left
    const leftNext: SpineEntry[] = [{ href: '1', rendition: fixed() }, { href: '2', rendition: fixed('left') }, { href: '3', rendition: fixed() }];
    expect(sides(spreadsOf(leftNext, desktop, false))).toEqual(['1:right', '2:left 3:right']);
    // a side the book gives wins; no spreads (a phone, spread none): centred as before
    expect(sides(spreadsOf([{ href: '1', rendition: fixed('left') }, { href: '2', rendition: fixed() }], desktop, false))).toEqual(['1:left 2:right']);
    expect(sides(spreadsOf(unmarked, phone, false))).toEqual(['1:center', '2:center', '3:center', '4:center']);
    expect(sides(spreadsOf([{ href: '1', rendition: fixed(null, { spread: 'none' }) }, { href: '2', rendition: fixed() }], desktop, false))).toEqual(['1:center', '2:left']);
  });

  // rendition:align-x-center (W3C lay-reflow-align-x-center's property on a fixed-layout page): a page alone centred
  it('centres a page alone whose spine item is align-x-center and gives no side; a side the book gives still wins', () => {
    const centre = { align_x_center: true };
    const book: SpineEntry[] = [
      { href: 'cover', rendition: fixed(null, centre) },
      { href: 'a', rendition: fixed() },
      { href: 'b', rendition: fixed() },
      { href: 'c', rendition: fixed(null, centre) },
      { href: 'd', rendition: fixed('left') },
      { href: 'e', rendition: fixed('right', centre) },
      { href: 'f', rendition: fixed('right', centre) },
    ];
    // c is alone (d may only be a first page), so centred; paired pages stay on their halves; f alone keeps its side
    expect(sides(spreadsOf(book, desktop, false))).toEqual(['cover:center', 'a:left b:right', 'c:center', 'd:left e:right', 'f:right']);
    expect(sides(spreadsOf(book, phone, false)).every((s) => s.endsWith(':center'))).toBe(true);
  });

  // docs/decisions.md "Fixed layout and flow": a reflowable item inside a fixed-layout book sits on its side of the spread
  it('puts a reflowable item of a fixed-layout book on its page-spread side of a wide stage only', () => {
    const text = (side: Rendition['page_spread'], extra: Partial<Rendition> = {}) => fixed(side, { layout: 'reflowable', viewport: null, ...extra });
    const spine: SpineEntry[] = [{ href: 'cover', rendition: fixed('right') }, { href: 'text', rendition: text('left') }];
    expect(reflowableSide(text('left'), spine, desktop)).toBe('left');
    expect(reflowableSide(text('right'), spine, desktop)).toBe('right');
    // a phone, spread none, no side, a centre side, a fixed page (the spread view's), a book with no fixed page
    expect(reflowableSide(text('left'), spine, phone)).toBeNull();
    expect(reflowableSide(text('left', { spread: 'none' }), spine, desktop)).toBeNull();
    expect(reflowableSide(text(null), spine, desktop)).toBeNull();
    expect(reflowableSide(text('center'), spine, desktop)).toBeNull();
    expect(reflowableSide(fixed('left'), spine, desktop)).toBeNull();
    expect(reflowableSide(text('left'), [{ href: 'a', rendition: text('right') }, { href: 'b', rendition: text('left') }], desktop)).toBeNull();
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
    const device: SpineEntry[] = [{ href: 'a', rendition: fixed(null, { viewport: { width: 'device', height: 'device' } }) }, { href: 'b', rendition: fixed(null, { viewport: null }) }];
    expect(viewportOf(device, 'b')).toEqual({ width: 'device', height: 'device' });
    const spine: SpineEntry[] = [{ href: 'a', rendition: fixed() }, { href: 'b', rendition: fixed(null, { viewport: null }) }];
    expect(viewportOf(spine, 'b')).toEqual({ width: 600, height: 800 });
    expect(viewportOf([{ href: 'x', rendition: fixed(null, { viewport: null }) }], 'x')).toEqual({ width: 1000, height: 1400 });
  });
});

// W3C epub-tests lay-fxl-xhtml-icb_device_sizes: a page whose viewport is device-width / device-height fills the display.
describe('device-sized fixed-layout pages', () => {
  const device = (extra: Partial<Rendition> = {}) => fixed(null, { viewport: { width: 'device', height: 'device' }, ...extra });
  const sizes = (spine: SpineEntry[]) => (h: string) => viewportOf(spine, h);

  it('fills the whole stage alone, unscaled, at any stage size (a resize lays it out again)', () => {
    const spine: SpineEntry[] = [{ href: 'd', rendition: device({ spread: 'none' }) }];
    for (const stage of [{ width: 1280, height: 737 }, { width: 390, height: 700 }, { width: 1000, height: 500 }]) {
      const [spread] = spreadsOf(spine, stage, false);
      const layout = layoutSpread(spread!, sizes(spine), stage);
      expect(layout).toMatchObject({ width: stage.width, height: stage.height });
      expect(layout.pages).toEqual([{ href: 'd', side: 'center', width: stage.width, height: stage.height, scale: 1, size: { width: 'device', height: 'device' }, left: 0, top: 0 }]);
    }
  });

  it('takes half the stage in a spread, meeting its neighbour in the middle', () => {
    const spine: SpineEntry[] = [{ href: 'cover', rendition: fixed() }, { href: 'd', rendition: device() }, { href: 'p', rendition: fixed() }];
    const spreads = spreadsOf(spine, desktop, false);
    expect(sides(spreads)).toEqual(['cover:right', 'd:left p:right']);
    const [d, p] = layoutSpread(spreads[1]!, sizes(spine), desktop).pages;
    expect(d).toMatchObject({ width: 640, height: 700, scale: 1, left: 0, top: 0 });
    expect(p!.left).toBeCloseTo(640);
    // two device pages: two halves, the whole stage between them
    const both: SpineEntry[] = [{ href: 'c', rendition: fixed() }, { href: 'x', rendition: device() }, { href: 'y', rendition: device() }];
    const [x, y] = layoutSpread(spreadsOf(both, desktop, false)[1]!, sizes(both), desktop).pages;
    expect([x!.left, x!.width, y!.left, y!.width, y!.height, y!.scale]).toEqual([0, 640, 640, 640, 700, 1]);
  });

  it('fills the stage when alone even on a side: the book\'s first page or one marked for a side', () => {
    const spine: SpineEntry[] = [{ href: 'd', rendition: device() }, { href: 'r', rendition: device({ page_spread: 'right' }) }, { href: 'n', rendition: fixed() }];
    expect(sides(spreadsOf(spine, desktop, false))).toEqual(['d:center', 'r:center', 'n:left']);
  });

  it('keeps the number beside a device side, scaled down only when the number does not fit', () => {
    // width=device-width, height=600 on a 1280x700 stage: the stage's width, 600 high, unscaled, centred
    expect(deviceFit({ width: 'device', height: 600 }, { width: 1280, height: 700 })).toEqual({ width: 1280, height: 600, scale: 1 });
    // height 1400 on a 700 high stage: half the scale, and twice the stage's width so that it still spans it
    expect(deviceFit({ width: 'device', height: 1400 }, { width: 1280, height: 700 })).toEqual({ width: 2560, height: 1400, scale: 0.5 });
    expect(deviceFit({ width: 780, height: 'device' }, { width: 390, height: 700 })).toEqual({ width: 780, height: 1400, scale: 0.5 });
    const spine: SpineEntry[] = [{ href: 'm', rendition: fixed(null, { spread: 'none', viewport: { width: 'device', height: 600 } }) }];
    const [m] = layoutSpread(spreadsOf(spine, desktop, false)[0]!, sizes(spine), desktop).pages;
    expect(m).toMatchObject({ width: 1280, height: 600, scale: 1, left: 0, top: 50 });
  });

  it('zooms like any page: the canvas holds the enlarged page', () => {
    const spine: SpineEntry[] = [{ href: 'd', rendition: device({ spread: 'none' }) }];
    const layout = layoutSpread(spreadsOf(spine, phone, false)[0]!, sizes(spine), phone, 2);
    expect(layout.pages[0]).toMatchObject({ width: 390, height: 700, scale: 2, left: 0, top: 0 });
    expect(layout).toMatchObject({ width: 780, height: 1400 });
  });

  it("writes the page's own device viewport back into its document", () => {
    const doc = buildFixedPageDocument({ html: '<p>x</p>', label: 'Page', stylesheets: [], baseHref: 'https://x/', width: 'device', height: 600 });
    expect(doc).toContain('<meta name="viewport" content="width=device-width, height=600">');
  });

  it("puts the page's own html and body class, id and style on the frame's", () => {
    const doc = new DOMParser().parseFromString(
      buildFixedPageDocument({
        html: '<p>x</p>', label: 'Page', stylesheets: [], baseHref: 'https://x/', width: 600, height: 800,
        root: { html: { class: 'manga' }, body: { class: 'page right', style: 'background-color: black' } },
      }),
      'text/html',
    );
    expect(doc.documentElement.className).toBe('lectern-fixed manga');
    expect(doc.body.className).toBe('page right');
    expect(doc.body.getAttribute('style')).toBe('background-color: black');
  });
});

describe("the book's flow as the scroll or page default", () => {
  const flow = (f: Rendition['flow']): Rendition => ({ layout: 'reflowable', spread: 'auto', flow: f, page_spread: null, viewport: null, align_x_center: false });
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

describe('where the zoom buttons go', () => {
  const cover: SpineEntry[] = [{ href: 'p1', rendition: fixed('right', { spread: 'none' }) }];
  it('gives them a strip of their own where they would cover a page, and leaves a free corner to them', () => {
    // a phone, a portrait page as wide as the screen: the buttons' corner is on it when the stage is short
    expect(zoomBarCovers(cover, { width: 390, height: 560 }, false)).toBe(true);
    // a tall phone screen leaves room under the page
    expect(zoomBarCovers(cover, { width: 390, height: 900 }, false)).toBe(false);
    // every spread of the book on a desktop's stage (1280x800 less the bars) leaves the corner free
    expect(zoomBarCovers(book, { width: 1280, height: 590 }, false)).toBe(false);
    // a page the size of the device covers the whole stage, the corner too
    const device: SpineEntry[] = [{ href: 'd', rendition: fixed(null, { spread: 'none', viewport: { width: 'device', height: 'device' } }) }];
    expect(zoomBarCovers(device, desktop, false)).toBe(true);
    expect(zoomBarCovers(device, phone, false)).toBe(true);
    // one covered spread is enough: the pages keep their size from one turn to the next
    expect(zoomBarCovers([...book, ...device], { width: 1280, height: 590 }, false)).toBe(true);
    // with the strip taken off the stage, the page laid out in the rest ends above it
    const stage = { width: 390, height: 560 - ZOOM_BAR.strip };
    const [spread] = spreadsOf(cover, stage, false);
    const [page] = layoutSpread(spread!, (h) => viewportOf(cover, h), stage).pages;
    expect(page!.top + page!.height * page!.scale).toBeLessThanOrEqual(stage.height);
  });
});
