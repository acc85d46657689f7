/**
 * Fixed layout (EPUB 3.3 §8, Reading Systems 3.3 §8.2): which pages show together, where each goes and how large.
 * Pure functions, tested without a browser (test/fixedLayout.test.ts); FixedLayoutView.tsx draws what they say.
 *
 * - Spreads: two pre-paginated spine items side by side when the stage is wide enough (SPREAD_MIN_WIDTH) and every
 *   page's rendition:spread allows it there: `both` on any wide stage, `landscape` and `auto` on a wide landscape
 *   stage, `none` never. A page marked page-spread-center, or one whose partner does not fit, shows alone.
 * - Sides: in a left-to-right book a spread's first page goes on the left; in a right-to-left one (the spine's
 *   page-progression-direction) on the right. A page marked for the second side starts a spread of its own with the
 *   first side empty (a cover on the right); a page marked for the first side is never the second of a spread. The
 *   book's first page, when it has no side, is its cover: alone on the second side (what Apple Books, Thorium and
 *   Readium's web navigator do), the pages after it paired from page 2. A page alone with no side of its own whose
 *   spine item is rendition:align-x-center is centred instead.
 * - Size: each page is scaled to fit its half of the stage (the whole stage when alone) within its viewport, keeping
 *   its proportions ("contain"), the two halves meeting in the middle; zoom multiplies that scale. A page whose
 *   viewport is the device's (device-width / device-height) is the size of its slot instead (the whole stage when
 *   alone, its half in a spread), unscaled, and follows the stage when it changes; a device side beside a number
 *   takes the slot's side, the number its own, scaled down only if the number does not fit (the device side then
 *   grows so the page still spans the slot).
 */
import type { Rendition, RootAttributes, TocResponse } from '@lectern/core';
import { CHAPTER_CSP, escapeHtml, LAYER_ORDER, ROOT_ID, rootAttributesHtml } from './chapterDocument.ts';

/** Below this stage width a spread's pages would be too small to read: one page at a time (a phone, a narrow window). */
export const SPREAD_MIN_WIDTH = 800;
/** The page size of a fixed-layout page that gives none and has no neighbour that does (a portrait page). */
export const DEFAULT_VIEWPORT = { width: 1000, height: 1400 } as const;
/** How far a page may be zoomed in (pinch or the zoom buttons), as a multiple of its fitted size. */
export const ZOOM_LIMITS = { min: 1, max: 4, step: 0.5 } as const;
/** The space kept around a fitted spread, in CSS pixels. */
export const STAGE_MARGIN = 8;

/** A page's size as the book gives it: CSS pixels, a side being `'device'` when it is the display's (its slot's). */
export type PageSize = NonNullable<Rendition['viewport']>;

/** Whether either side of a page is the device's: it is sized to its slot of the stage, not fitted into it. */
export const isDeviceSized = (size: PageSize | null | undefined) => size?.width === 'device' || size?.height === 'device';

export interface SpineEntry {
  href: string;
  rendition: Rendition | null;
}

export type Side = 'left' | 'right' | 'center';

export interface SpreadSlot {
  href: string;
  side: Side;
}

/** One screenful: its pages in reading order, each with the side it is drawn on. */
export interface Spread {
  pages: SpreadSlot[];
}

export interface Stage {
  width: number;
  height: number;
}

const isFixed = (e: SpineEntry | undefined) => e?.rendition?.layout === 'pre-paginated';

/** Whether a page with this rendition:spread may share the screen with another on this stage. */
export function spreadAllowed(spread: Rendition['spread'] | undefined, stage: Stage): boolean {
  if (stage.width < SPREAD_MIN_WIDTH) return false;
  const landscape = stage.width > stage.height;
  switch (spread ?? 'auto') {
    case 'none':
      return false;
    case 'both':
      return true;
    default:
      // landscape, and auto (the reading system's choice: spreads in landscape, as most reading systems do)
      return landscape;
  }
}

/** The spine from the contents response, with each item's rendition (null for reflowable books and older imports). */
export function spineOf(toc: Pick<TocResponse, 'chapters'>): SpineEntry[] {
  return toc.chapters.map((c) => ({ href: c.uri, rendition: c.rendition ?? null }));
}

/** The spreads of a spine on a stage: every item in exactly one spread, in reading order. */
export function spreadsOf(spine: readonly SpineEntry[], stage: Stage, rtl: boolean): Spread[] {
  const first: Side = rtl ? 'right' : 'left';
  const second: Side = rtl ? 'left' : 'right';
  const spreads: Spread[] = [];
  // A page alone whose size is the device's fills the stage: half of it would be a screen-sized page in half a screen.
  // One whose spine item asks to be centred (rendition:align-x-center) and gives no side is centred, not on a half.
  const centred = (r: Rendition | null) => isDeviceSized(r?.viewport) || (r?.align_x_center === true && r.page_spread === null);
  const alone = (entry: SpineEntry, side: Side): Spread => ({ pages: [{ href: entry.href, side: centred(entry.rendition) ? 'center' : side }] });
  for (let i = 0; i < spine.length; i++) {
    const entry = spine[i]!;
    const r = entry.rendition;
    if (!isFixed(entry) || !r || r.page_spread === 'center' || !spreadAllowed(r.spread, stage)) {
      spreads.push({ pages: [{ href: entry.href, side: 'center' }] });
      continue;
    }
    // The first page with no side is the cover (a closed book shows its front alone): on the second side.
    if (r.page_spread === second || (i === 0 && r.page_spread === null)) {
      // alone on its side, the first side left empty (a cover on the right in a left-to-right book)
      spreads.push(alone(entry, second));
      continue;
    }
    const next = spine[i + 1];
    const nr = next?.rendition;
    if (next && nr && isFixed(next) && nr.page_spread !== 'center' && nr.page_spread !== first && spreadAllowed(nr.spread, stage)) {
      spreads.push({ pages: [{ href: entry.href, side: first }, { href: next.href, side: second }] });
      i++;
      continue;
    }
    spreads.push(alone(entry, first));
  }
  return spreads;
}

/**
 * The half of the stage a reflowable spine item of a fixed-layout book is drawn on (docs/decisions.md "Fixed layout and
 * flow": it sits on its side of the spread): the side its itemref gives (page-spread-left / -right) when the stage
 * would show a spread with its rendition:spread, else null (the whole stage: a phone, a narrow window, spread none, no
 * side, or a book with no fixed-layout page, where there is no spread to place it in: a reflowable book whose tool
 * writes page-spread-* on every itemref keeps its whole screen).
 */
export function reflowableSide(rendition: Rendition | null | undefined, spine: readonly SpineEntry[], stage: Stage): 'left' | 'right' | null {
  if (!rendition || rendition.layout !== 'reflowable') return null;
  if (rendition.page_spread !== 'left' && rendition.page_spread !== 'right') return null;
  if (!spine.some(isFixed) || !spreadAllowed(rendition.spread, stage)) return null;
  return rendition.page_spread;
}

/** The index of the spread that shows `href` (0 when it is not in the spine). */
export function spreadIndexOf(spreads: readonly Spread[], href: string): number {
  const i = spreads.findIndex((s) => s.pages.some((p) => p.href === href));
  return i < 0 ? 0 : i;
}

/** A page's size: its own viewport, else the nearest page's that has one, else a portrait default. */
export function viewportOf(spine: readonly SpineEntry[], href: string): PageSize {
  const at = spine.findIndex((e) => e.href === href);
  if (at >= 0 && spine[at]!.rendition?.viewport) return spine[at]!.rendition.viewport;
  for (let d = 1; d < spine.length; d++) {
    for (const i of [at - d, at + d]) {
      const v = spine[i]?.rendition?.viewport;
      if (v && isFixed(spine[i])) return v;
    }
  }
  return DEFAULT_VIEWPORT;
}

export interface PageBox {
  href: string;
  side: Side;
  /** The page's frame in CSS pixels (its viewport; a device side is its slot's) and the scale it is drawn at. */
  width: number;
  height: number;
  scale: number;
  /** The size the book gives (a side may be 'device'): what the page's own viewport meta says. */
  size: PageSize;
  /** Where its top-left corner goes on the canvas, in CSS pixels. */
  left: number;
  top: number;
}

/**
 * A device-sized page in a slot of `slot` CSS pixels (the whole stage, or its half in a spread; no margin: the page
 * is the display): a device side is the slot's, a number its own. Unscaled, unless a number is larger than the slot
 * on its axis: then the page is scaled down to fit it and its device side grows by as much, so that it still spans
 * the slot ("width=device-width, height=2000" on an 800 px high stage: 0.4, and 2.5 slot widths wide before scaling).
 */
export function deviceFit(size: PageSize, slot: Stage): { width: number; height: number; scale: number } {
  const fit = Math.min(1, size.width === 'device' ? 1 : slot.width / size.width, size.height === 'device' ? 1 : slot.height / size.height);
  return {
    width: size.width === 'device' ? slot.width / fit : size.width,
    height: size.height === 'device' ? slot.height / fit : size.height,
    scale: fit,
  };
}

/**
 * Where each page of a spread goes. Alone, a page fits the whole stage; in a spread each fits half of it, the two
 * meeting at the middle. A device-sized page is its slot's size instead (deviceFit), unscaled. With zoom above 1 the
 * canvas grows past the stage and is panned by scrolling.
 */
export function layoutSpread(spread: Spread, sizeOf: (href: string) => PageSize, stage: Stage, zoom = 1): { pages: PageBox[]; width: number; height: number } {
  const availW = Math.max(1, stage.width - 2 * STAGE_MARGIN);
  const availH = Math.max(1, stage.height - 2 * STAGE_MARGIN);
  const two = spread.pages.length > 1 || spread.pages.some((p) => p.side !== 'center');
  const slotW = two ? availW / 2 : availW;
  // A device page's slot: whole CSS pixels, so that its layout viewport is what the frame shows.
  const deviceSlot = { width: Math.max(1, Math.floor(two ? stage.width / 2 : stage.width)), height: Math.max(1, Math.floor(stage.height)) };
  const fits = spread.pages.map((p) => {
    const size = sizeOf(p.href);
    if (size.width === 'device' || size.height === 'device') {
      const d = deviceFit(size, deviceSlot);
      return { ...p, size, width: d.width, height: d.height, scale: d.scale * zoom };
    }
    return { ...p, size, width: size.width, height: size.height, scale: Math.min(slotW / size.width, availH / size.height) * zoom };
  });
  // Each page fits its own half: a page made at half the resolution of its neighbour (an image page) still fills it.
  const canvasW = Math.max(stage.width, (two ? slotW * 2 : slotW) * zoom + 2 * STAGE_MARGIN, ...fits.map((f) => f.width * f.scale * (two ? 2 : 1)));
  const canvasH = Math.max(stage.height, availH * zoom + 2 * STAGE_MARGIN, ...fits.map((f) => f.height * f.scale));
  const middle = canvasW / 2;
  const pages = fits.map((f) => {
    const scale = f.scale;
    const w = f.width * scale;
    const h = f.height * scale;
    const left = f.side === 'left' ? middle - w : f.side === 'right' ? middle : middle - w / 2;
    return { href: f.href, side: f.side, width: f.width, height: f.height, scale, size: f.size, left, top: (canvasH - h) / 2 };
  });
  return { pages, width: canvasW, height: canvasH };
}

/**
 * The zoom buttons' box (FixedLayoutView.css .fixed-layout__zoom: three 40 px buttons in a pill) and its distance
 * from the stage's bottom-right corner, in CSS pixels; the strip of its own it gets when it would cover a page.
 */
export const ZOOM_BAR = { width: 148, height: 48, inset: 12, strip: 56 } as const;

/**
 * Whether the zoom buttons, floating in the bottom-right corner of `area`, would cover a page of any spread of the
 * book laid out (unzoomed) in all of it. Then they get a strip of their own under the pages (ZOOM_BAR.strip) and the
 * pages the rest: on a phone a portrait page is as wide as the screen and the strip costs it nothing; on a desktop a
 * spread leaves the corner free and keeps the whole height. Decided for the whole book, not spread by spread: the
 * pages keep their size from one turn to the next.
 */
export function zoomBarCovers(spine: readonly SpineEntry[], area: Stage, rtl: boolean): boolean {
  const bar = { left: area.width - ZOOM_BAR.inset - ZOOM_BAR.width, top: area.height - ZOOM_BAR.inset - ZOOM_BAR.height, right: area.width - ZOOM_BAR.inset, bottom: area.height - ZOOM_BAR.inset };
  return spreadsOf(spine, area, rtl).some((spread) =>
    layoutSpread(spread, (h) => viewportOf(spine, h), area, 1).pages.some(
      (p) => p.left < bar.right && p.left + p.width * p.scale > bar.left && p.top < bar.bottom && p.top + p.height * p.scale > bar.top,
    ),
  );
}

/** The spread to go to from `index` for a turn; null past either end of the book. */
export function turnSpread(spreads: readonly Spread[], index: number, direction: 'next' | 'prev'): Spread | null {
  return spreads[direction === 'next' ? index + 1 : index - 1] ?? null;
}

/** A spread's first page in reading order: where the reader's position (a Locator's href) goes. */
export const spreadHref = (spread: Spread) => spread.pages[0]!.href;

/**
 * The reader's own rules for a fixed-layout page, in `@layer lectern`: the frame is the page's viewport (its size in
 * CSS pixels, scaled from outside), so the book's absolute positions and vw/vh units mean what the author meant.
 * Nothing scrolls inside a page; the book's colours and fonts stand (the reading themes are for reflowable text).
 */
const FIXED_PAGE_CSS = `@layer lectern {
html, body { margin: 0; padding: 0; }
html { overflow: hidden !important; touch-action: pan-x pan-y; -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
html body, #${ROOT_ID} { display: block !important; visibility: visible !important; opacity: 1 !important; }
img.lectern-image-failed { display: none; }
.lectern-image-error { display: block; margin: 1em; padding: .75em 1em; border: 1px dashed #999; font: 14px/1.4 system-ui, sans-serif; color: #555; }
.lectern-note {
  position: fixed !important; z-index: 2147483647 !important; display: block !important; visibility: visible !important;
  left: 50% !important; bottom: 4% !important; transform: translateX(-50%) !important; box-sizing: border-box !important;
  width: 80% !important; max-height: 50% !important; overflow: auto !important; margin: 0 !important; padding: 1em 1.25em .75em !important;
  background: #fff !important; color: #1b1b1b !important; border: 1px solid #ccc !important; border-radius: 10px !important;
  box-shadow: 0 8px 28px rgb(0 0 0 / .28) !important; font: 1.4em/1.5 Georgia, serif !important;
}
.lectern-note__close { display: block !important; margin: .75em 0 0 auto !important; font: 600 .8em system-ui, sans-serif !important; }
a:focus-visible { outline: 3px solid #1a73e8; outline-offset: 2px; }
}`;

export interface FixedPageInput {
  html: string;
  label: string;
  stylesheets: readonly string[];
  baseHref: string;
  /** The page's size as the book gives it: a side is written back as device-width / device-height. */
  width: number | 'device';
  height: number | 'device';
  /** The class, id and style of the page's own html and body (ours: root_attributes), set on the frame's. */
  root?: RootAttributes | null;
}

/** A fixed-layout page's document: the same CSP, base and cascade layers as a chapter's (chapterDocument.ts). */
export function buildFixedPageDocument(input: FixedPageInput): string {
  const links = input.stylesheets.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join('\n');
  return `<!doctype html>
<html lang="en"${rootAttributesHtml(input.root?.html, 'lectern-fixed')}>
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CHAPTER_CSP}">
<base href="${escapeHtml(input.baseHref)}" target="_top">
<meta name="viewport" content="width=${input.width === 'device' ? 'device-width' : Math.round(input.width)}, height=${input.height === 'device' ? 'device-height' : Math.round(input.height)}">
<title>${escapeHtml(input.label)}</title>
<style>${LAYER_ORDER}</style>
${links}
<style>${FIXED_PAGE_CSS}</style>
</head>
<body${rootAttributesHtml(input.root?.body)}>
<div id="${ROOT_ID}">
${input.html}
</div>
</body>
</html>`;
}
