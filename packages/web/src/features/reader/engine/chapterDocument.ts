/**
 * The document a chapter is shown in (DESIGN.md "Reader engine"). Book HTML never enters the app's DOM: it goes
 * into its own iframe as `srcdoc`, with
 * - `<base href>` of the chapter's API path (relative images and links resolve as in the book),
 * - a Content-Security-Policy `<meta>` that forbids scripts (every title, even one flagged to allow scripts: see
 *   docs/decisions.md "Scripted titles") and loads only same-origin images, styles, fonts and media,
 * - the cascade layer order `lectern, book` first, then the book's stylesheets (the importer wrapped each in
 *   `@layer book`, inline <style>s included: ingest/css.ts), then our reading stylesheet in `@layer lectern`, then
 *   ONE style element of settings as CSS custom properties (font size, column width, colours, page size) that the
 *   reader rewrites in place. Layers decide, not order or specificity: the book's rules beat the reader's
 *   defaults (normal declarations of a later layer win), and the reader's `!important` rules (theme, size, column,
 *   paging) beat everything of the book, its own `!important` included (important declarations of an earlier
 *   layer win); the book's style="" attributes carry no `!important` (the importer drops it),
 * - the chapter inside one root element (`#lectern-root`) that carries the reading column in both modes.
 */
import type { ReaderPreferences, RootAttributes, RootElementAttributes } from '@lectern/core';
import { isVertical, verticalFlow, type VerticalFlow } from './paging.ts';

export const SETTINGS_STYLE_ID = 'lectern-settings';
export const ROOT_ID = 'lectern-root';

/**
 * The chapter's CSP: never scripts. The frame is same-origin with the app (the reader writes and lays out the
 * chapter), so a script running in it could lift its own sandbox and act as the reader.
 */
export const CHAPTER_CSP = [
  "default-src 'none'",
  "img-src 'self' data: blob:",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "media-src 'self' blob:",
  "script-src 'none'",
].join('; ');

/** The chapter frames' sandbox, whatever the title's flags: same origin for the app, no scripts (the page's frame's too). */
export { CHAPTER_FRAME_SANDBOX } from '@lectern/core';

export const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** The reader palettes (tokens.css: .palette-day / -cloudy / -night), as the frame needs them. */
export const PALETTES = {
  'day-mode': { bg: '#ffffff', text: '#1b1b1b', link: '#0c5b63', muted: '#5b6166', rule: '#d9dcda' },
  'cloudy-mode': { bg: '#f3efe6', text: '#2a2620', link: '#0a4f56', muted: '#5f574b', rule: '#d8cfbd' },
  'night-mode': { bg: '#15191c', text: '#d8dcdf', link: '#7cc8cf', muted: '#9aa3a9', rule: '#333b40' },
} as const;

export interface FrameLayout {
  pagination: 'scroll' | 'page';
  /** The frame's width in CSS px (paged mode: one page). */
  pageWidth: number;
  /**
   * The book's pages turn right to left: in paged mode its columns run right to left (`lectern-rtl`). Left out when
   * a document is first written (its text's own direction is read before the columns turn: keepTextDirection).
   */
  rtl?: boolean;
  /**
   * The chapter is in vertical writing (its body computes to writing-mode: vertical-rl, vertical-lr, sideways-rl or
   * sideways-lr): `lectern-vertical`, whose pages are one screen high and stack downwards (upwards for sideways-lr)
   * (paged) or which scrolls sideways (scroll mode); never
   * `lectern-rtl` (a right-to-left direction would turn its lines bottom to top). Read from the laid-out document
   * (verticalWriting), so left out when a document is first written.
   */
  vertical?: boolean;
  /** The frame's height in CSS px (a vertical chapter's page in paged mode); 100vh when left out. */
  pageHeight?: number;
}

/**
 * The settings rule: custom properties on :root. Column width is read as characters per line (`ch`), capped at the
 * frame: 65 gives the classic 65-character measure at any font size (docs/decisions.md).
 */
export function settingsCss(prefs: ReaderPreferences, layout: FrameLayout): string {
  const p = PALETTES[prefs.reading_mode];
  const font = prefs.font_name === 'Georgia' ? "Georgia, 'Times New Roman', serif" : `'${prefs.font_name}', Georgia, serif`;
  return `:root {
  --lectern-font-size: ${prefs.font_size};
  --lectern-column: ${prefs.column_width}ch;
  --lectern-font: ${font};
  --lectern-bg: ${p.bg};
  --lectern-text: ${p.text};
  --lectern-link: ${p.link};
  --lectern-muted: ${p.muted};
  --lectern-rule: ${p.rule};
  --lectern-page: ${Math.max(1, Math.floor(layout.pageWidth))}px;
  --lectern-page-height: ${layout.pageHeight ? `${Math.max(1, Math.floor(layout.pageHeight))}px` : '100vh'};
  color-scheme: ${prefs.reading_mode === 'night-mode' ? 'dark' : 'light'};
}`;
}

/** The cascade layers of a chapter document, in order (see the module comment). */
export const LAYER_ORDER = '@layer lectern, book;';

/**
 * The reader's stylesheet, all in `@layer lectern`: plain declarations are defaults the book may change; those
 * marked `!important` are what the reader's settings and the paging need, and no book can change them.
 */
export const READING_CSS = `@layer lectern {
/* The reader's typeface is a default on html: the book's own (its html or body rule, its @font-face) wins, as the
   reader has no typeface setting of their own; the size stays the reader's. */
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; background: var(--lectern-bg) !important; font-family: var(--lectern-font); }
html, body { margin: 0 !important; padding: 0; }
body {
  background: var(--lectern-bg) !important;
  color: var(--lectern-text) !important;
  font-size: calc(1.125rem * var(--lectern-font-size)) !important;
  line-height: 1.65;
  overflow-wrap: break-word;
  hyphens: auto;
  -webkit-font-smoothing: antialiased;
}
/* A book's stylesheet cannot hide the chapter wholesale (body { display: none } and the like). */
html body, #${ROOT_ID} { display: block !important; visibility: visible !important; opacity: 1 !important; }
#${ROOT_ID} {
  box-sizing: border-box !important;
  max-width: min(100%, calc(var(--lectern-column) + 3rem)) !important;
  margin: 0 auto !important;
  padding: 2rem 1.5rem 3rem !important;
  width: auto !important;
}
#${ROOT_ID} > :first-child { margin-top: 0; }
/* rendition:align-x-center (EPUB 3.3 Reading Systems §8.3.2): the spine item is centred horizontally. The column is
   centred already; its lines are too, as a default (a book's own text-align on an element still wins). */
html[data-lectern-align-x-center] body { text-align: center; }
img, svg, video, canvas, object { max-width: 100% !important; height: auto; }
/* A player keeps the height the browser gives it: an <audio> has no intrinsic height (Chromium's 54 px is a UA
   style), so height: auto laid it out 0 px high, its controls gone. A book's own height still applies. */
audio { max-width: 100% !important; }
html.lectern-paged audio, html.lectern-paged video { break-inside: avoid; }
img { image-rendering: auto; }
img.lectern-zoomable { cursor: zoom-in; }
img.lectern-image-failed { display: none; }
.lectern-image-error { display: block; margin: 1em 0; padding: .75em 1em; border: 1px dashed var(--lectern-rule); border-radius: 6px;
  color: var(--lectern-muted); font: 0.875rem/1.4 system-ui, sans-serif; }
/* Code keeps its lines: it scrolls sideways in its own box (in both modes) rather than wrapping. */
pre { box-sizing: border-box; max-width: 100%; overflow-x: auto; white-space: pre; overflow-wrap: normal; font-size: 0.88em; }
code, kbd, samp, pre, tt { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
table { max-width: 100%; border-collapse: collapse; }
hr { border: 0; border-top: 1px solid var(--lectern-rule); }
a { color: var(--lectern-link) !important; }
a:focus-visible { outline: 3px solid #1a73e8; outline-offset: 2px; }
h1, h2, h3, h4, h5, h6 { line-height: 1.25; hyphens: manual; }
/* Set only while the book's own hyphens are read (engine/hyphenation.ts): the default above left out. */
html[data-lectern-book-hyphens] body { hyphens: manual; }
::selection { background: color-mix(in srgb, var(--lectern-link) 30%, transparent); }
:target { scroll-margin-top: 100px; }
/* Search hits (engine/textMarks.ts): above the tinted modes' reset, the passage's own words stronger. */
#${ROOT_ID} mark.lectern-search-hit.lectern-search-hit { background-color: rgb(255 214 0 / 0.45) !important; color: inherit !important; border-radius: 2px; }
#${ROOT_ID} mark.lectern-search-hit.lectern-search-hit--current { background-color: rgb(255 170 0 / 0.75) !important; box-shadow: 0 0 0 1px rgb(160 100 0 / 0.6); }
html.night-mode #${ROOT_ID} mark.lectern-search-hit.lectern-search-hit { background-color: rgb(255 200 0 / 0.35) !important; }
html.night-mode #${ROOT_ID} mark.lectern-search-hit.lectern-search-hit--current { background-color: rgb(255 170 0 / 0.55) !important; }

/* A footnote over the page (frame/links.ts openNote): a sheet at the foot of the frame, the page kept. */
.lectern-note {
  position: fixed !important; z-index: 2147483647 !important; display: block !important; visibility: visible !important;
  left: 50% !important; bottom: 1rem !important; transform: translateX(-50%) !important;
  box-sizing: border-box !important; width: min(36rem, calc(100vw - 2rem)) !important; max-height: 50vh !important; overflow: auto !important;
  margin: 0 !important; padding: 1rem 1.25rem .75rem !important;
  background: var(--lectern-bg) !important; color: var(--lectern-text) !important;
  border: 1px solid var(--lectern-rule) !important; border-radius: 10px !important;
  box-shadow: 0 8px 28px rgb(0 0 0 / .28) !important;
  font-family: var(--lectern-font) !important; font-size: calc(1rem * var(--lectern-font-size)) !important; line-height: 1.5 !important;
  column-width: auto !important; columns: auto !important;
}
.lectern-note:focus { outline: none; }
.lectern-note:focus-visible { outline: 3px solid #1a73e8 !important; }
.lectern-note__body > * { display: block !important; margin: 0 !important; }
.lectern-note__body > * > :first-child { margin-top: 0 !important; }
.lectern-note__body > * > :last-child { margin-bottom: 0 !important; }
.lectern-note__close {
  display: block !important; margin: .75rem 0 0 auto !important; padding: .4rem .9rem !important; min-height: 2.25rem;
  font: 600 .875rem/1 system-ui, sans-serif !important; color: var(--lectern-link) !important;
  background: transparent !important; border: 1px solid var(--lectern-rule) !important; border-radius: 6px !important; cursor: pointer;
}
.lectern-note__close:focus-visible { outline: 3px solid #1a73e8 !important; outline-offset: 2px; }

/* day/cloudy/night act on the book too: its own colours would fight the palette */
html.lectern-tinted #${ROOT_ID} *:not(a) { color: inherit !important; background-color: transparent !important; border-color: var(--lectern-rule) !important; }

/* scroll mode: the frame scrolls */
html.lectern-scroll { overflow-x: hidden !important; overflow-y: auto !important; scroll-behavior: auto; }
/* A finger's sideways swipe is the reader's (a chapter turned, or nothing before the first): the browser must not pan
   sideways, or it reads the swipe as Back or Forward (overscroll-behavior does not stop it). A wide code block or
   table still pans in its own box. */
html.lectern-scroll:not(.lectern-vertical) { touch-action: pan-y pinch-zoom; }

/* paged mode: the frame is the viewport; the body is laid out in columns one page wide */
html.lectern-paged { height: 100% !important; overflow: hidden !important; }
html.lectern-paged body {
  overflow: visible !important;
  box-sizing: border-box !important;
  height: 100vh !important;
  padding: 2rem 0 2.25rem !important;
  column-width: var(--lectern-page) !important;
  column-gap: 0 !important;
  column-fill: auto !important;
  columns: auto var(--lectern-page) !important;
}
html.lectern-paged #${ROOT_ID} { padding-top: 0 !important; padding-bottom: 0 !important; }
html.lectern-paged img, html.lectern-paged svg, html.lectern-paged video { max-height: calc(100vh - 5rem) !important; object-fit: contain; }
html.lectern-paged p, html.lectern-paged li { orphans: 2; widows: 2; }
html.lectern-paged h1, html.lectern-paged h2, html.lectern-paged h3, html.lectern-paged figure, html.lectern-paged img { break-inside: avoid; }
html.lectern-paged h1, html.lectern-paged h2, html.lectern-paged h3 { break-after: avoid; }
/* A right-to-left book in paged mode: the column strip runs right to left (page 1 at the right, the next page to
   its left); the body is the multi-column container and the viewport takes its direction. The words keep their own
   direction, pinned on the root before this applies (keepTextDirection). */
html.lectern-paged.lectern-rtl, html.lectern-paged.lectern-rtl body { direction: rtl !important; }
/* Vertical writing (the book's stylesheet puts the chapter's html or body in writing-mode: vertical-rl, vertical-lr,
   sideways-rl or sideways-lr): lines run top to bottom (bottom to top in sideways-lr) and follow each other right to
   left (-rl) or left to right (-lr). The reading column's measure is the frame's height; its width is not capped.
   Paged: the body is the multi-column container, one screen wide (its block size) and columns one screen high,
   which a vertical container stacks along its inline direction — downwards, page 1 at the top of the strip (upwards
   in sideways-lr, page 1 at its bottom), its first line at the right edge (-rl) or the left edge (-lr); the page
   margins are the body's right and left padding and the root's top and bottom padding. The first block's margin
   before it (its right in -rl, its left in -lr) goes as its top does in a horizontal chapter. */
html.lectern-vertical #${ROOT_ID} { max-width: none !important; width: auto !important; height: auto !important; margin: 0 !important; padding: 2rem 1.5rem 2.25rem !important; }
html.lectern-vertical #${ROOT_ID} > :first-child { margin-block-start: 0; }
html.lectern-paged.lectern-vertical body {
  width: 100vw !important;
  height: 100vh !important;
  padding: 0 1.5rem !important;
  column-width: var(--lectern-page-height) !important;
  columns: auto var(--lectern-page-height) !important;
}
html.lectern-paged.lectern-vertical #${ROOT_ID} { padding: 2rem 0 2.25rem !important; }
html.lectern-paged.lectern-vertical img, html.lectern-paged.lectern-vertical svg, html.lectern-paged.lectern-vertical video { max-height: calc(100vh - 5rem) !important; max-width: calc(100vw - 3rem) !important; }
/* Scroll mode: lines as high as the frame, the chapter scrolling sideways from its right end (-rl) or its left end (-lr). */
html.lectern-scroll.lectern-vertical { height: 100% !important; overflow-x: auto !important; overflow-y: hidden !important; }
html.lectern-scroll.lectern-vertical body { box-sizing: border-box !important; height: 100vh !important; }
/* A footnote's sheet is laid out across the foot of the frame whatever the chapter's writing. */
html.lectern-vertical .lectern-note { writing-mode: horizontal-tb !important; }
}
`;

export interface ChapterDocumentInput {
  html: string;
  label: string;
  stylesheets: readonly string[];
  baseHref: string;
  prefs: ReaderPreferences;
  layout: FrameLayout;
  lang?: string;
  /** The class, id and style of the content document's own html and body (importer-checked), set on the frame's. */
  root?: RootAttributes | null;
  /** rendition:align-x-center: the chapter's lines are centred (ALIGN_X_CENTER_ATTRIBUTE on its html). */
  alignXCenter?: boolean;
}

/**
 * The attribute on a chapter's html when its spine item asks to be centred horizontally (rendition:align-x-center):
 * an attribute, not a class, so the reader's class changes (setReaderClasses) leave it alone.
 */
export const ALIGN_X_CENTER_ATTRIBUTE = 'data-lectern-align-x-center';

export function htmlClasses(prefs: ReaderPreferences, layout: FrameLayout): string {
  const paged = layout.pagination === 'page';
  return [
    paged ? 'lectern-paged' : 'lectern-scroll',
    paged && layout.rtl && !layout.vertical ? 'lectern-rtl' : '',
    layout.vertical ? 'lectern-vertical' : '',
    prefs.reading_mode !== 'day-mode' ? 'lectern-tinted' : '', prefs.reading_mode]
    .filter(Boolean)
    .join(' ');
}

/** Whether a class on the frame's html is the reader's (set and replaced by setReaderClasses), not the book's. */
const isReaderClass = (name: string) => name.startsWith('lectern-') || name in PALETTES;

/**
 * Puts the reader's classes (htmlClasses) on the frame's html in place of the reader's previous ones, keeping the
 * book's own (its html element's class, kept at import) and those the read-aloud player sets there.
 */
export function setReaderClasses(html: HTMLElement, classes: string): void {
  const kept = Array.from(html.classList).filter((name) => !isReaderClass(name));
  html.className = [classes, ...kept].filter(Boolean).join(' ');
}

/** ` class="…" id="…" style="…"` of the book's html or body, escaped (the reader's classes first on html). */
export function rootAttributesHtml(element: RootElementAttributes | undefined, readerClasses?: string): string {
  const classes = [readerClasses, element?.class].filter(Boolean).join(' ');
  return [
    classes ? ` class="${escapeHtml(classes)}"` : '',
    element?.id ? ` id="${escapeHtml(element.id)}"` : '',
    element?.style ? ` style="${escapeHtml(element.style)}"` : '',
  ].join('');
}

/**
 * Pins the direction the chapter's words have from the book (its body's, from its own stylesheets or the `dir` the
 * importer kept) on the reading root, once, before a right-to-left column strip turns the body's direction round:
 * the pages run right to left, the lines keep the book's direction (an Arabic paragraph starts at the right, a
 * Japanese one at the left). Costs one style recalculation, no layout; running it again changes nothing.
 */
export function keepTextDirection(doc: Document): void {
  const root = doc.getElementById(ROOT_ID);
  const win = doc.defaultView;
  if (!root || !win || root.style.direction) return;
  if (doc.documentElement.classList.contains('lectern-rtl')) return; // too late to read the book's own
  root.style.direction = win.getComputedStyle(root).direction || 'ltr';
}

/**
 * How the chapter is laid out in vertical writing, or null when it is horizontal: from its body's computed
 * writing-mode (which a book sets on html or body, and the body inherits; vertical-rl, vertical-lr, sideways-rl or
 * sideways-lr) and direction, as laid out with the book's own stylesheets; the reader's never set them. Elements in
 * vertical writing inside a horizontal chapter do not count: the chapter is paged as a horizontal one.
 */
export function verticalFlowOf(doc: Document): VerticalFlow | null {
  const body = doc.body;
  const win = doc.defaultView;
  if (!body || !win) return null;
  const style = win.getComputedStyle(body);
  return verticalFlow(style.writingMode, style.direction);
}

/** Whether the chapter is in vertical writing of any kind (verticalFlowOf). */
export function verticalWriting(doc: Document): boolean {
  const body = doc.body;
  const win = doc.defaultView;
  return !!body && !!win && isVertical(win.getComputedStyle(body).writingMode);
}

export function buildChapterDocument(input: ChapterDocumentInput): string {
  const links = input.stylesheets.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join('\n');
  return `<!doctype html>
<html lang="${escapeHtml(input.lang ?? 'en')}"${rootAttributesHtml(input.root?.html, htmlClasses(input.prefs, input.layout))}${input.alignXCenter ? ` ${ALIGN_X_CENTER_ATTRIBUTE}` : ''}>
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CHAPTER_CSP}">
<base href="${escapeHtml(input.baseHref)}" target="_top">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.label)}</title>
<style>${LAYER_ORDER}</style>
${links}
<style>${READING_CSS}</style>
<style id="${SETTINGS_STYLE_ID}">${settingsCss(input.prefs, input.layout)}</style>
</head>
<body${rootAttributesHtml(input.root?.body)}>
<div id="${ROOT_ID}">
${input.html}
</div>
</body>
</html>`;
}
