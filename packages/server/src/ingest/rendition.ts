/**
 * How a publication asks to be laid out (EPUB 3.3 §8 "Layout rendering control", Reading Systems 3.3 §8): the
 * package's `rendition:layout`, `rendition:spread`, `rendition:flow` and (deprecated, still written by tools)
 * `rendition:viewport`, each spine item's overrides in its itemref `properties` (`rendition:layout-*`,
 * `rendition:spread-*`, `rendition:flow-*`, `page-spread-left/right`, `rendition:page-spread-*`,
 * `rendition:align-x-center`), and the size of a
 * fixed-layout page: the content document's `<meta name="viewport" content="width=…, height=…">` (an SVG
 * document's viewBox), else the image's own size for an image in the spine, else the package's rendition:viewport.
 * A side given as `device-width` / `device-height` is the device's (`'device'`): the page's initial containing block
 * is the reader's display on that axis (W3C epub-tests lay-fxl-xhtml-icb_device_sizes), and the reader sizes it to
 * the stage (docs/decisions.md "Fixed layout and flow").
 *
 * Pure functions over parsed markup and bytes; epub.ts calls them while it reads the spine, the worker asks which
 * stylesheets fixed-layout pages link (those keep absolute positioning, css.ts).
 */
import { DomUtils } from 'htmlparser2';
import { attr, findAll, findFirst, parseHtml, textOf, type DomDocument, type DomElement } from './markup.ts';
import { resolveHref } from './paths.ts';

export type Layout = 'reflowable' | 'pre-paginated';
export type Spread = 'none' | 'landscape' | 'both' | 'auto';
export type Flow = 'paginated' | 'scrolled-continuous' | 'scrolled-doc' | 'auto';
export type PageSpread = 'left' | 'right' | 'center';

/** One side of a page: CSS pixels, or `'device'` (device-width / device-height: the reader's display on that axis). */
export type ViewportSide = number | 'device';

export interface Viewport {
  width: ViewportSide;
  height: ViewportSide;
}

/** A size known in pixels on both sides (an image's, an SVG's). */
export interface PixelSize {
  width: number;
  height: number;
}

/** The stored form of a side (migration 0022's integer columns): 0 is the device's, which no real size can be. */
export const DEVICE_SIDE = 0;

/** What the package says for the whole publication (the defaults every spine item inherits). */
export interface TitleRendition {
  layout: Layout;
  spread: Spread;
  flow: Flow;
  /** rendition:viewport (deprecated in EPUB 3.1, still in books): the fixed-layout pages' size when they give none. */
  viewport: Viewport | null;
}

/** One spine item, with the package's defaults applied and its own overrides over them. */
export interface ChapterRendition {
  layout: Layout;
  spread: Spread;
  flow: Flow;
  /** Which side of a spread the page goes on (page-spread-left/right, rendition:page-spread-center); null: either. */
  pageSpread: PageSpread | null;
  /** A fixed-layout page's size in CSS pixels; null for reflowable items and pages whose size is unknown. */
  viewport: Viewport | null;
  /** rendition:align-x-center on its itemref: the item is centred horizontally in the viewport or spread. */
  alignXCenter: boolean;
}

export const REFLOWABLE: TitleRendition = { layout: 'reflowable', spread: 'auto', flow: 'auto', viewport: null };

const LAYOUTS = new Set<Layout>(['reflowable', 'pre-paginated']);
const FLOWS = new Set<Flow>(['paginated', 'scrolled-continuous', 'scrolled-doc', 'auto']);
/** A viewport side beyond this is not a page (and would make the reader's scale arithmetic meaningless). */
const MAX_SIDE = 20_000;

/** rendition:spread values; `portrait` (deprecated in EPUB 3.3) is read as `both`, as the specification says. */
function spreadOf(value: string | undefined): Spread | null {
  const v = value?.trim().toLowerCase();
  if (v === 'portrait') return 'both';
  return v === 'none' || v === 'landscape' || v === 'both' || v === 'auto' ? v : null;
}

/** The package's rendition metadata: `<meta property="rendition:…">value</meta>` without `refines`. */
export function readTitleRendition(pkg: DomElement, warn: (message: string) => void): TitleRendition {
  const metadata = findFirst(pkg, 'metadata');
  const values = new Map<string, string>();
  for (const meta of metadata ? findAll(metadata, 'meta') : []) {
    const property = attr(meta, 'property')?.trim().toLowerCase();
    if (!property?.startsWith('rendition:') || attr(meta, 'refines')) continue;
    if (!values.has(property)) values.set(property, textOf(meta).trim());
  }
  const rendition: TitleRendition = { ...REFLOWABLE };
  const layout = values.get('rendition:layout')?.toLowerCase();
  if (layout && LAYOUTS.has(layout as Layout)) rendition.layout = layout as Layout;
  else if (layout) warn(`rendition:layout "${layout}" is not reflowable or pre-paginated; read as reflowable`);
  const spread = values.get('rendition:spread');
  if (spread !== undefined) rendition.spread = spreadOf(spread) ?? 'auto';
  const flow = values.get('rendition:flow')?.toLowerCase();
  if (flow && FLOWS.has(flow as Flow)) rendition.flow = flow as Flow;
  const viewport = values.get('rendition:viewport');
  if (viewport) rendition.viewport = parseViewport(viewport);
  return rendition;
}

/**
 * A spine item's rendition: the package's, overridden by its itemref `properties`. When an itemref repeats an
 * override of the same kind ("rendition:layout-reflowable rendition:layout-pre-paginated"), the first one counts and
 * the others are ignored (EPUB 3.3 Reading Systems §4.4, confreq-rs-pkg-spine-override-first).
 */
export function itemRendition(title: TitleRendition, properties: readonly string[]): Omit<ChapterRendition, 'viewport'> {
  let layout: Layout | null = null;
  let spread: Spread | null = null;
  let flow: Flow | null = null;
  let pageSpread: PageSpread | null = null;
  let alignXCenter = false;
  for (const raw of properties) {
    const p = raw.toLowerCase();
    if (p === 'rendition:layout-pre-paginated') layout ??= 'pre-paginated';
    else if (p === 'rendition:layout-reflowable') layout ??= 'reflowable';
    else if (p.startsWith('rendition:spread-')) spread ??= spreadOf(p.slice('rendition:spread-'.length)) ?? null;
    else if (p.startsWith('rendition:flow-') && FLOWS.has(p.slice('rendition:flow-'.length) as Flow)) flow ??= p.slice('rendition:flow-'.length) as Flow;
    else if (p === 'page-spread-left' || p === 'rendition:page-spread-left') pageSpread ??= 'left';
    else if (p === 'page-spread-right' || p === 'rendition:page-spread-right') pageSpread ??= 'right';
    else if (p === 'rendition:page-spread-center' || p === 'page-spread-center') pageSpread ??= 'center';
    else if (p === 'rendition:align-x-center') alignXCenter = true;
  }
  return { layout: layout ?? title.layout, spread: spread ?? title.spread, flow: flow ?? title.flow, pageSpread, alignXCenter };
}

/**
 * "width=1200, height=1600" (commas, semicolons or spaces between); null unless both are positive whole sizes. A
 * property given twice counts once, the first time ("width=900, height=600, width=1000, height=1000" is 900x600),
 * and what is not a property (", something, foo") is ignored.
 *
 * `width=device-width` and `height=device-height` make that side the device's (`'device'`). When one side is the
 * device's and the other is missing or not a size ("width=device-width", "width=device-width, initial-scale=1"), the
 * other follows the device too, as a browser's layout viewport would; a device side beside a number
 * ("width=device-width, height=600") keeps the number. A lone number ("width=1200") is still no size.
 */
export function parseViewport(content: string): Viewport | null {
  const fields = new Map<string, string>();
  for (const part of content.split(/[,;]+|\s+(?=[a-z-]+\s*=)/i)) {
    const eq = part.indexOf('=');
    const name = part.slice(0, eq).trim().toLowerCase();
    if (eq > 0 && !fields.has(name)) fields.set(name, part.slice(eq + 1).trim());
  }
  const width = fields.get('width')?.trim().toLowerCase() === 'device-width' ? 'device' : parseSize(fields.get('width'));
  const height = fields.get('height')?.trim().toLowerCase() === 'device-height' ? 'device' : parseSize(fields.get('height'));
  if (width === 'device' || height === 'device') return { width: width ?? 'device', height: height ?? 'device' };
  return width !== null && height !== null ? { width, height } : null;
}

function pixelSizeOf(width: string | number | undefined, height: string | number | undefined): PixelSize | null {
  const w = typeof width === 'number' ? width : parseSize(width);
  const h = typeof height === 'number' ? height : parseSize(height);
  if (w === null || h === null) return null;
  return { width: w, height: h };
}

/** Whether a page's size is the device's on either side (the reader sizes that side to its stage). */
export const isDeviceSized = (v: Viewport | null | undefined): boolean => v?.width === 'device' || v?.height === 'device';

/** A viewport as stored in migration 0022's integer columns (DEVICE_SIDE for the device's side). */
export function storedSide(side: ViewportSide | undefined): number | null {
  return side === undefined ? null : side === 'device' ? DEVICE_SIDE : side;
}

/**
 * A size in CSS pixels as a viewport needs it ("1200", "1200.5"); a unit after the number is ignored and the number
 * read as pixels ("1200px", "600mm": EPUB 3.3 Reading Systems, confreq-fxl-rs-xhtml-icb-units); null for
 * device-width and the like.
 */
function parseSize(value: string | undefined): number | null {
  const m = value?.trim().match(/^(\d+(?:\.\d+)?)\s*(?:[a-z]+)?$/i);
  if (!m) return null;
  const n = Math.round(Number(m[1]));
  return n >= 1 && n <= MAX_SIDE ? n : null;
}

/** The viewport an XHTML content document declares in its head. */
export function documentViewport(document: DomDocument): Viewport | null {
  for (const meta of DomUtils.findAll((e) => e.name.toLowerCase() === 'meta', document.children)) {
    if (attr(meta, 'name')?.trim().toLowerCase() !== 'viewport') continue;
    const viewport = parseViewport(attr(meta, 'content') ?? '');
    if (viewport) return viewport;
  }
  return null;
}

/** An SVG document's size: its viewBox (EPUB 3.3 §8.2.2.2), else its width and height. */
export function svgViewport(document: DomDocument): PixelSize | null {
  const svg = findFirst(document, 'svg');
  if (!svg) return null;
  const box = (attr(svg, 'viewBox') ?? attr(svg, 'viewbox'))?.trim().split(/[\s,]+/).map(Number);
  if (box && box.length === 4 && box.every(Number.isFinite)) {
    const v = pixelSizeOf(Math.round(box[2]!), Math.round(box[3]!));
    if (v && v.width >= 1 && v.height >= 1 && v.width <= MAX_SIDE && v.height <= MAX_SIDE) return v;
  }
  return pixelSizeOf(attr(svg, 'width'), attr(svg, 'height'));
}

/** The pixel size of a PNG, GIF, JPEG or WebP image (read from its header), or an SVG image's; null when unknown. */
export function imageSize(bytes: Uint8Array, mediaType: string): PixelSize | null {
  if (mediaType === 'image/svg+xml') return svgViewport(parseHtml(new TextDecoder().decode(bytes.subarray(0, 64 * 1024))));
  const be16 = (i: number) => ((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0);
  const le16 = (i: number) => (bytes[i] ?? 0) | ((bytes[i + 1] ?? 0) << 8);
  const be32 = (i: number) => be16(i) * 65536 + be16(i + 2);
  const le24 = (i: number) => le16(i) | ((bytes[i + 2] ?? 0) << 16);
  const ascii = (i: number, n: number) => String.fromCharCode(...bytes.subarray(i, i + n));
  const sized = (w: number, h: number) => (w >= 1 && h >= 1 && w <= MAX_SIDE && h <= MAX_SIDE ? { width: w, height: h } : null);
  if (bytes.length >= 24 && bytes[0] === 0x89 && ascii(1, 3) === 'PNG') return sized(be32(16), be32(20));
  if (bytes.length >= 10 && ascii(0, 3) === 'GIF') return sized(le16(6), le16(8));
  if (bytes.length >= 30 && ascii(0, 4) === 'RIFF' && ascii(8, 4) === 'WEBP') {
    const chunk = ascii(12, 4);
    if (chunk === 'VP8 ') return sized(le16(26) & 0x3fff, le16(28) & 0x3fff);
    if (chunk === 'VP8L') {
      const b = bytes.subarray(21, 25);
      return sized(1 + (((b[1]! & 0x3f) << 8) | b[0]!), 1 + (((b[3]! & 0xf) << 10) | (b[2]! << 2) | ((b[1]! & 0xc0) >> 6)));
    }
    if (chunk === 'VP8X') return sized(1 + le24(24), 1 + le24(27));
    return null;
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    // JPEG: walk the segments to the first start-of-frame marker (SOF0-SOF15 but DHT, JPG and DAC).
    let i = 2;
    while (i + 9 < bytes.length) {
      if (bytes[i] !== 0xff) return null;
      const marker = bytes[i + 1]!;
      if (marker === 0xff) {
        i += 1;
        continue;
      }
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return sized(be16(i + 7), be16(i + 5));
      if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
        i += 2;
        continue;
      }
      i += 2 + be16(i + 2);
    }
  }
  return null;
}

/**
 * The size of a fixed-layout spine item: the content document's viewport meta (an SVG document's viewBox), else for
 * an image in the spine the image's size, else the package's rendition:viewport; null when none is known.
 */
export function pageViewport(
  source: { kind: 'document'; document: DomDocument; svg: boolean } | { kind: 'image'; bytes: Uint8Array; mediaType: string },
  title: TitleRendition,
): Viewport | null {
  const own = source.kind === 'image' ? imageSize(source.bytes, source.mediaType) : source.svg ? svgViewport(source.document) : documentViewport(source.document);
  return own ?? title.viewport;
}

/** The stylesheets (package paths) that fixed-layout chapters link: their absolute positioning is kept. */
export function fixedLayoutStylesheets(chapters: readonly { fullPath: string; rawHtml: string; rendition?: ChapterRendition }[]): Set<string> {
  const sheets = new Set<string>();
  for (const chapter of chapters) {
    if (chapter.rendition?.layout !== 'pre-paginated') continue;
    for (const link of DomUtils.findAll((e) => e.name.toLowerCase() === 'link', parseHtml(chapter.rawHtml).children)) {
      const rel = (attr(link, 'rel') ?? '').toLowerCase().split(/\s+/);
      const href = attr(link, 'href');
      const target = href && rel.includes('stylesheet') ? resolveHref(chapter.fullPath, href) : null;
      if (target) sheets.add(target.path);
    }
  }
  return sheets;
}
