/**
 * Turns a chapter's raw (X)HTML into what the reader serves: the sanitised inner HTML of <body>, with every link
 * and resource URL rewritten to the app's own URLs, plus the chapter's stylesheets, title and text length.
 * It runs once per chapter at import time, so serving a chapter is a database read.
 *
 * Two passes, no regular expressions over markup: htmlparser2 parses the document (finding <body>, <title> and
 * the <link rel="stylesheet">s, and counting the visible text), then sanitize-html filters the serialised body
 * against an allow-list of book markup and rewrites URLs in its transformTags hook.
 *
 * The reader shows each chapter in its own iframe with a Content-Security-Policy; sanitising is the layer
 * before that, so that a hostile book cannot run script or reach outside the book even if the frame is
 * misconfigured.
 */
import { SCRIPTS_CONSENT_MESSAGES, type RootAttributes, type RootElementAttributes } from '@lectern/core';
import sanitizeHtml from 'sanitize-html';
import { DomUtils } from 'htmlparser2';
import { type DefaultTreeAdapterTypes as P5, parse, parseFragment, serialize } from 'parse5';
import { attr, findFirst, parseHtml, textOf, visibleText, type DomElement } from './markup.ts';
import { isAbsoluteUrl, resolveHref } from './paths.ts';
import { bookCssRewriter, noCssUrls, sanitizeCssValue, sanitizeStyleAttribute, sanitizeStylesheet, servedCssRewriter, USER_STYLE_PROPERTIES, type CssUrlRewriter } from './css.ts';
import { MATHML_ATTRIBUTES, MATHML_NAMESPACE, MATHML_TAGS, SVG_ATTRIBUTES, SVG_FRAGMENT_HREF_TAGS, SVG_NAMESPACE, SVG_PAINT_ATTRIBUTES, SVG_TAGS } from './foreign.ts';
import { escapeNumeric, escapeText } from '../util/html-escape.ts';

export interface RenderOptions {
  /** The chapter being rendered. */
  chapterFullPath: string;
  allowScripts: boolean;
  /** Link target for another chapter of the same book (in-app reader page). */
  chapterUrl: (fullPath: string, fragment: string | null) => string;
  /** URL of an image / css / font / media resource of the book. */
  resourceUrl: (fullPath: string) => string;
  isChapter: (fullPath: string) => boolean;
  /** The book holds a (non-chapter) file at this path: url()s in its CSS may reach it. Default: anything not a chapter. */
  isResource?: (fullPath: string) => boolean;
  /** The address the n-th inline <style> of this chapter will be served at (the caller stores `inlineStyles[n]` there). */
  inlineStyleUrl?: (index: number) => string;
  /** A fixed-layout (pre-paginated) page: its styles keep absolute positioning (ingest/rendition.ts). */
  fixedLayout?: boolean;
  /**
   * A title allowed to run scripts: the book path, in the chapter's own folder, where the n-th inline `<script>`'s
   * code will be stored (the caller stores `inlineScripts[n]` there). Without it, inline scripts are dropped.
   */
  inlineScriptPath?: (index: number) => string;
  /**
   * The book holds an (X)HTML or SVG document at this path that is not a chapter (a manifest item outside the spine):
   * an `<iframe>` may show it (see embedFrames). Chapters count as documents whatever this says.
   */
  isDocument?: (fullPath: string) => boolean;
  /**
   * Where the frame document rendered from such a document is stored, in the document's own folder: its own path by
   * default (an (X)HTML page is stored in its place); an SVG drawing keeps its file, which images may show, and its
   * frame document goes beside it. Null: no frame document is stored for it (past the book's limit), so an iframe of
   * it keeps only the note.
   */
  frameDocumentPath?: (fullPath: string) => string | null;
}

export interface RenderedChapter {
  html: string;
  /** The chapter's stylesheets in document order: linked ones and its inline <style>s (see inlineStyles). */
  stylesheets: string[];
  /** The sanitised CSS of each inline <style>, to be stored at inlineStyleUrl(n). */
  inlineStyles: string[];
  /** The code of each inline <script> of a title allowed to run scripts, to be stored at inlineScriptPath(n). */
  inlineScripts: string[];
  /** The documents (not chapters) this chapter's kept iframes show, for the caller to render as frame documents. */
  frameDocuments: string[];
  title: string | null;
  textLength: number;
  /** The content document's dir and language (body's, else html's), kept on the chapter's wrapper element. */
  dir: string | null;
  lang: string | null;
  /**
   * The class, id and style of the content document's own `<html>` and `<body>` (null when neither has any): only
   * their content is stored, so the reader sets these on its frame's html and body, where the book's selectors
   * (`html.vrtl`, `body.p-text`, `body#cover`) expect them.
   */
  root: RootAttributes | null;
}

const ALLOWED_TAGS = [
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hgroup', 'header', 'footer', 'main', 'address',
  'p', 'div', 'span', 'section', 'article', 'aside', 'nav', 'figure', 'figcaption', 'img', 'a',
  'ul', 'ol', 'li', 'dl', 'dt', 'dd',
  'table', 'caption', 'colgroup', 'col', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td',
  'pre', 'code', 'kbd', 'samp', 'var', 'blockquote', 'em', 'strong', 'i', 'b', 'u', 's', 'sub', 'sup', 'small',
  'mark', 'del', 'ins', 'br', 'hr', 'wbr', 'abbr', 'cite', 'q', 'dfn', 'time', 'bdi', 'bdo',
  'ruby', 'rb', 'rp', 'rt', 'details', 'summary',
  'audio', 'video', 'source', 'track', 'picture',
  // Inline SVG and MathML, each through its own allow-list (foreign.ts); the last pass checks their namespaces.
  ...SVG_TAGS, ...MATHML_TAGS,
];

const ALLOWED_ATTRIBUTES: Record<string, string[]> = {
  // role and the aria-* naming attributes: accessible editions (DPUB-ARIA doc-noteref, doc-footnote, ...) need them;
  // hidden: what the book keeps out of the page (a navigation document's page list in the spine)
  '*': ['id', 'class', 'lang', 'dir', 'title', 'data-epub-type', 'style', 'role', 'aria-label', 'aria-labelledby', 'aria-describedby', 'aria-hidden', 'hidden'],
  a: ['href', 'name', 'rel', 'target'],
  img: ['src', 'srcset', 'sizes', 'alt', 'width', 'height'],
  ol: ['start', 'reversed', 'type'],
  li: ['value'],
  td: ['colspan', 'rowspan', 'headers'],
  th: ['colspan', 'rowspan', 'headers', 'scope'],
  col: ['span', 'width'],
  colgroup: ['span', 'width'],
  blockquote: ['cite'],
  q: ['cite'],
  time: ['datetime'],
  audio: ['src', 'controls', 'preload', 'loop'],
  video: ['src', 'controls', 'poster', 'width', 'height', 'preload', 'playsinline', 'loop'],
  source: ['src', 'srcset', 'sizes', 'media', 'type', 'width', 'height'],
  track: ['src', 'kind', 'srclang', 'label'],
  // htmlparser2 lower-cases attribute names; the browser's HTML parser restores SVG's camelCase (viewBox).
};

/**
 * What sanitize-html gets: it knows no namespaces, and it rebuilds its lookup of every tag's list on each call (per
 * chapter), so SVG's and MathML's attributes go once into '*' rather than into each of their ~90 tags. The exact
 * list per namespace and tag is enforced by the last pass (allowedAttributeNames).
 */
const SANITIZE_HTML_ATTRIBUTES: Record<string, string[]> = {
  ...ALLOWED_ATTRIBUTES,
  '*': [...new Set([...(ALLOWED_ATTRIBUTES['*'] ?? []), ...SVG_ATTRIBUTES('svg'), ...MATHML_ATTRIBUTES])],
  ...Object.fromEntries(['use', 'lineargradient', 'radialgradient', 'pattern', 'textpath', 'filter', 'image'].map((tag) => [tag, ['href', 'xlink:href']])),
  a: [...(ALLOWED_ATTRIBUTES.a ?? []), 'xlink:href'],
};

/**
 * Elements removed together with their content. Inline <style> is among them here: its CSS, sanitised, leaves the
 * markup for a stylesheet of its own (RenderedChapter.inlineStyles), so no book CSS is ever inside chapter HTML.
 * SVG's <foreignObject> and MathML's <annotation-xml> (where HTML re-enters foreign content), <mglyph> and
 * <malignmark> (the parser's namespace-confusion cases) and the animation elements (which can rewrite an href)
 * go with their content too.
 */
const NON_TEXT_TAGS = [
  'script', 'style', 'noscript', 'template', 'head', 'title', 'textarea', 'option', 'select',
  'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'noembed', 'noframes',
  'foreignobject', 'annotation-xml', 'mglyph', 'malignmark', 'animate', 'set', 'animatemotion', 'animatetransform',
  'animatecolor', 'discard', 'handler', 'listener', 'metadata', 'desc',
];

const URL_ATTRIBUTES = ['href', 'src', 'poster', 'xlink:href'];
const SRCSET = /^\d+(?:\.\d+)?[wx]$/;
const EXTERNAL_LINK_SCHEMES = new Set(['http', 'https', 'mailto']);
const DATA_IMAGE = /^data:image\//i;

type Attributes = Record<string, string>;
/** How style="" is read: the URL rule for url(), and (for HTML people write) the only properties allowed. */
interface StylePolicy {
  rewrite: CssUrlRewriter;
  properties?: ReadonlySet<string>;
  /** A fixed-layout page: absolute positioning stays (css.ts). */
  positioned?: boolean;
}
const BOOK_STYLES_SERVED: StylePolicy = { rewrite: servedCssRewriter };
const USER_STYLES: StylePolicy = { rewrite: noCssUrls, properties: USER_STYLE_PROPERTIES };
/** Maps a URL found in an attribute to what the output should carry; null drops the attribute. */
type UrlRewriter = (tag: string, attribute: string, url: string) => string | null;

function sanitizerOptions(rewrite: UrlRewriter, css: StylePolicy, allowScripts: boolean): sanitizeHtml.IOptions {
  return {
    allowedTags: allowScripts ? [...ALLOWED_TAGS, 'script'] : ALLOWED_TAGS,
    allowedAttributes: allowScripts ? { ...SANITIZE_HTML_ATTRIBUTES, script: ['src', 'type'] } : SANITIZE_HTML_ATTRIBUTES,
    // style="" is cleaned by css.ts in transformAttributes (parsed, allow-listed, url()s to the book's files).
    parseStyleAttributes: false,
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['http', 'https', 'data'] },
    allowedSchemesAppliedToAttributes: URL_ATTRIBUTES.concat('cite'),
    allowProtocolRelative: false,
    nonTextTags: allowScripts ? NON_TEXT_TAGS.filter((tag) => tag !== 'script') : NON_TEXT_TAGS,
    allowVulnerableTags: allowScripts,
    // Even with scripts allowed, only external book scripts survive (their src was rewritten); inline code
    // and event handler attributes are always dropped.
    exclusiveFilter: allowScripts
      ? (frame) => frame.tag === 'script' && (!frame.attribs.src || frame.text.trim() !== '')
      : undefined,
    transformTags: {
      '*': (tagName, attribs) => ({ tagName, attribs: transformAttributes(tagName, attribs, rewrite, css) }),
    },
  };
}

/** A srcset with each candidate's URL rewritten; candidates that fail are left out; null when none is left. */
function rewriteSrcset(value: string, rewriteUrl: (url: string) => string | null): string | null {
  const kept: string[] = [];
  for (const candidate of value.split(',')) {
    const [url, ...descriptors] = candidate.trim().split(/\s+/);
    if (!url || descriptors.length > 1 || (descriptors[0] && !SRCSET.test(descriptors[0]))) continue;
    const rewritten = rewriteUrl(url);
    if (rewritten && !rewritten.includes(',')) kept.push([rewritten, ...descriptors].join(' '));
  }
  return kept.length > 0 ? kept.join(', ') : null;
}

function transformAttributes(tag: string, attribs: Attributes, rewrite: UrlRewriter, css: StylePolicy): Attributes {
  const out: Attributes = {};
  for (const [name, value] of Object.entries(attribs)) {
    if (name === 'epub:type') out['data-epub-type'] = value;
    else if (name === 'xml:lang') out.lang ??= value;
    else if (name === 'target' || name === 'rel') continue; // set below for external links only
    // a bare `hidden` would be dropped as an empty value by the sanitiser: its keyword form means the same
    else if (name === 'hidden') out.hidden = value.trim().toLowerCase() === 'until-found' ? 'until-found' : 'hidden';
    else if (name === 'style') {
      const style = sanitizeStyleAttribute(value, css.rewrite, css.properties, { positioned: css.positioned });
      if (style) out.style = style;
    } else if (name === 'srcset') {
      const srcset = rewriteSrcset(value, (url) => rewrite(tag === 'source' ? 'img' : tag, 'src', url));
      if (srcset) out.srcset = srcset;
    } else if (SVG_PAINT_ATTRIBUTES.has(name) && SVG_TAG_SET.has(tag)) {
      // fill="url(#gradient)": only references inside the document.
      const paint = sanitizeCssValue(value, fragmentOnly);
      if (paint) out[name] = paint;
    } else if (URL_ATTRIBUTES.includes(name)) {
      const url = rewrite(tag, name, value);
      if (url !== null) out[name] = url;
    } else out[name] = value;
  }
  if (tag === 'a' && out.href && isAbsoluteUrl(out.href) && isExternalLink(out.href)) {
    out.rel = 'noopener noreferrer';
    out.target = '_blank';
  }
  // Sound and video in a book always show their controls (no script can give them any), and load only their
  // metadata until the reader presses play; a video plays in the page on phones rather than taking the screen.
  if (tag === 'audio' || tag === 'video') {
    out.controls = '';
    out.preload = 'metadata';
    if (tag === 'video') out.playsinline = '';
  }
  return out;
}

/**
 * A URL as the browser's URL parser will read it (WHATWG URL: tabs and newlines removed anywhere, leading and
 * trailing C0 controls and spaces stripped). Without this, "jav&#x09;ascript:…" has no scheme here and would be
 * kept as a path inside the book, while the browser reads the same characters as a javascript: URL.
 */
function asBrowsersRead(value: string): string {
  return value.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
}

function scheme(url: string): string {
  return url.slice(0, url.indexOf(':')).trim().toLowerCase();
}

function isExternalLink(url: string): boolean {
  return EXTERNAL_LINK_SCHEMES.has(scheme(url));
}

/** Absolute URLs: links to the web and mail stay; data:image only as an image source; everything else goes. */
function keepAbsolute(tag: string, attribute: string, url: string): string | null {
  if (tag === 'a' && attribute === 'href') return url.startsWith('//') || !isExternalLink(url) ? null : url;
  if (tag === 'img' && attribute === 'src' && DATA_IMAGE.test(url)) return url;
  return null;
}

const SVG_TAG_SET = new Set(SVG_TAGS);
const fragmentOnly: CssUrlRewriter = (url) => (asBrowsersRead(url).startsWith('#') ? asBrowsersRead(url) : null);

function bookRewriter(opts: RenderOptions): UrlRewriter {
  return (tag, attribute, value) => {
    const url = asBrowsersRead(value);
    if (!url) return null;
    // <use>, gradients, patterns, filters and text paths may only point inside the chapter (no external documents).
    if (SVG_FRAGMENT_HREF_TAGS.has(tag)) return url.startsWith('#') && url.length > 1 ? url : null;
    if (tag === 'image') tag = 'img';
    if (isAbsoluteUrl(url)) return keepAbsolute(tag, attribute, url);
    if (tag === 'a' && url.startsWith('#')) return url;
    const target = resolveHref(opts.chapterFullPath, url);
    if (!target) return null;
    if (tag === 'a') {
      if (target.path === opts.chapterFullPath && target.fragment) return `#${target.fragment}`;
      if (opts.isChapter(target.path)) return opts.chapterUrl(target.path, target.fragment);
    } else if (tag === 'script' && opts.isChapter(target.path)) {
      return null;
    }
    return opts.resourceUrl(target.path);
  };
}

/**
 * A class or id token the reader may put on its own html or body: no quotes, markup or spaces (written into an
 * attribute), and none of the reader's own names (`lectern-*`, the palettes), which a book could otherwise use to
 * switch on the reader's rules.
 */
const ROOT_TOKEN = /^[^\s"'<>&`=\\]{1,100}$/;
const READER_CLASS = /^(?:lectern|day-mode$|cloudy-mode$|night-mode$)/i;
const MAX_ROOT_CLASSES = 32;
const rootToken = (token: string) => ROOT_TOKEN.test(token) && !READER_CLASS.test(token);

/** The class, id and style of a content document's html or body element, as the reader may set them on its own. */
function rootElementAttributes(element: DomElement | null, css: StylePolicy): RootElementAttributes | undefined {
  if (!element) return undefined;
  const out: RootElementAttributes = {};
  const classes = [...new Set((attr(element, 'class') ?? '').split(/\s+/).filter(rootToken))].slice(0, MAX_ROOT_CLASSES);
  if (classes.length > 0) out.class = classes.join(' ');
  const id = attr(element, 'id')?.trim();
  if (id && rootToken(id)) out.id = id;
  const style = attr(element, 'style');
  const sanitized = style ? sanitizeStyleAttribute(style, css.rewrite, css.properties, { positioned: css.positioned }) : '';
  if (sanitized) out.style = sanitized;
  return Object.keys(out).length > 0 ? out : undefined;
}

function rootAttributes(html: DomElement | null, body: DomElement | null, css: StylePolicy): RootAttributes | null {
  const root: RootAttributes = {};
  const h = rootElementAttributes(html, css);
  const b = rootElementAttributes(body, css);
  if (h) root.html = h;
  if (b) root.body = b;
  return h || b ? root : null;
}

const DIRS = new Set(['ltr', 'rtl', 'auto']);
const LANGUAGE_TAG = /^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/;

/** dir and lang of a content document: the body's, else the html element's (xml:lang counts as lang). */
function documentDirection(html: DomElement | null, body: DomElement | null): { dir: string | null; lang: string | null } {
  const pick = (name: string) => [body, html].map((element) => (element ? attr(element, name)?.trim() : undefined)).find(Boolean);
  const dir = pick('dir')?.toLowerCase() ?? null;
  const lang = pick('lang') ?? null;
  return { dir: dir && DIRS.has(dir) ? dir : null, lang: lang && LANGUAGE_TAG.test(lang) ? lang : null };
}

/**
 * The CSS of a <style> element. Chapters are parsed as HTML, where <style> is raw text, but an XHTML book (and an
 * SVG's <style>, nearly always) may wrap its CSS in a CDATA section, which in XML is the text without its markers:
 * left in, "<![CDATA[" would join the first selector and drop that rule (W3C epub-tests cnt-svg-css, cnt-svg-support).
 */
function styleText(element: DomElement): string {
  return DomUtils.textContent(element).replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1');
}

export function renderChapter(rawHtml: string, opts: RenderOptions): RenderedChapter {
  const document = parseHtml(rawHtml);
  const body = findFirst(document, 'body');
  const nodes = body ? body.children : document.children;
  const frameDocuments = embedFrames(nodes, opts);
  const titleElement = findFirst(document, 'title');
  const isResource = opts.isResource ?? ((p: string) => !opts.isChapter(p));
  const css = bookCssRewriter(opts.chapterFullPath, isResource, opts.resourceUrl);

  // Linked stylesheets and inline <style>s, in document order (head and body): the cascade keeps their order.
  const stylesheets: string[] = [];
  const inlineStyles: string[] = [];
  const styleElements = DomUtils.findAll((element) => {
    const name = element.name.toLowerCase();
    return name === 'link' || name === 'style';
  }, document.children);
  for (const element of styleElements) {
    if (element.name.toLowerCase() === 'style') {
      const type = (attr(element, 'type') ?? 'text/css').trim().toLowerCase();
      if (type !== 'text/css' || !opts.inlineStyleUrl) continue;
      const sheet = sanitizeStylesheet(styleText(element), css, { positioned: opts.fixedLayout === true });
      if (!sheet.css) continue;
      stylesheets.push(opts.inlineStyleUrl(inlineStyles.length));
      inlineStyles.push(sheet.css);
      continue;
    }
    const rel = (attr(element, 'rel') ?? '').toLowerCase().split(/\s+/);
    const href = attr(element, 'href');
    const target = href && rel.includes('stylesheet') && !rel.includes('alternate') ? resolveHref(opts.chapterFullPath, href) : null;
    if (!target || opts.isChapter(target.path)) continue;
    const url = opts.resourceUrl(target.path);
    if (!stylesheets.includes(url)) stylesheets.push(url);
  }

  const htmlElement = findFirst(document, 'html');
  const { dir, lang } = documentDirection(htmlElement, body);
  const positioned = opts.fixedLayout === true;
  const root = rootAttributes(htmlElement, body, { rewrite: css, positioned });
  // A title allowed to run scripts keeps the external scripts of the chapter's head too, first, in their order (they
  // run only on the scripted origin: docs/decisions.md "Scripted titles"); the sanitiser checks them like the body's.
  const head = findFirst(document, 'head');
  const headScripts = opts.allowScripts && head ? DomUtils.findAll((element) => element.name.toLowerCase() === 'script', head.children) : [];
  const scripts = opts.allowScripts && opts.inlineScriptPath ? externalizeInlineScripts([...headScripts, ...nodes], opts.chapterFullPath, opts.inlineScriptPath) : { code: [], moved: [] };
  const inlineScripts = scripts.code;
  let html = sanitize(
    DomUtils.getOuterHTML([...headScripts, ...nodes, ...scripts.moved], { encodeEntities: 'utf8' }),
    sanitizerOptions(bookRewriter(opts), { rewrite: css, positioned }, opts.allowScripts),
    opts.allowScripts,
    positioned ? { ...BOOK_STYLES_SERVED, positioned } : BOOK_STYLES_SERVED,
  );
  // The content document's direction and language stay with its text (both values checked above).
  if (dir || lang) html = `<div${dir ? ` dir="${dir}"` : ''}${lang ? ` lang="${lang}"` : ''}>${html}</div>`;
  return {
    html,
    stylesheets,
    inlineStyles,
    inlineScripts,
    frameDocuments,
    title: (titleElement && textOf(titleElement)) || null,
    textLength: visibleText(nodes).length,
    dir,
    lang,
    root,
  };
}

// a scripted title's frame documents: their type and shape live apart, for the services that only read them
export { FRAME_DOCUMENT_TYPE, type FrameDocument } from './frame-document.ts';

/** The class of the mark left where a book's iframe was (docs/decisions.md "A book's iframes"). */
export const EMBED_CLASS = 'lectern-embed';
const LENGTH = /^\d{1,5}(?:\.\d+)?(%|px)?$/;

/**
 * A book's `<iframe>`s never reach a stored chapter (no frame is built in the reader's own chapter frame). One that
 * shows a document of the same publication (its src resolves inside the package to a chapter or another (X)HTML or
 * SVG item) leaves a mark in its place: a note that says so, visible wherever the chapter is read without its scripts,
 * and, for a title allowed to run scripts, a hidden link to the document (its width, height and style folded into
 * the link's style) from which the scripted origin builds the frame again on the publication's own origin
 * (scripted-origin.ts `withFrames`). The kept iframe's content goes (an XHTML book's iframe shows none of it). Any
 * other iframe (remote, data:, javascript:, a file that is not a page) is left to the sanitiser, which removes it
 * without a trace, as before. Returns the paths of the non-chapter documents kept, for the caller to render.
 */
function embedFrames(nodes: DomElement['children'], opts: RenderOptions): string[] {
  const kept: string[] = [];
  for (const frame of DomUtils.findAll((element) => element.name.toLowerCase() === 'iframe', nodes)) {
    const src = asBrowsersRead(attr(frame, 'src') ?? '');
    const target = src && !isAbsoluteUrl(src) ? resolveHref(opts.chapterFullPath, src) : null;
    const isDocument = target !== null && (opts.isChapter(target.path) || opts.isDocument?.(target.path) === true);
    // left to the sanitiser's passes, which read it as the browser does (its content raw text) and drop it
    if (!target || !isDocument) continue;
    const label = (attr(frame, 'title') ?? '').replace(/\s+/g, ' ').trim().slice(0, 200);
    let link = '';
    const stored = opts.isChapter(target.path) || !opts.frameDocumentPath ? target.path : opts.frameDocumentPath(target.path);
    const href = opts.isChapter(target.path) ? src : stored === null ? null : frameHref(src, target.path, stored);
    if (opts.allowScripts && href !== null) {
      const size = (['width', 'height'] as const)
        .map((side) => [side, (attr(frame, side) ?? '').trim()] as const)
        .filter(([, value]) => LENGTH.test(value))
        .map(([side, value]) => `${side}: ${/[%a-z]$/.test(value) ? value : `${value}px`}; `)
        .join('');
      const style = `${size}${attr(frame, 'style') ?? ''}`.trim();
      link = `<a hidden href="${escapeNumeric(href)}"${style ? ` style="${escapeNumeric(style)}"` : ''}></a>`;
      if (!opts.isChapter(target.path) && !kept.includes(target.path)) kept.push(target.path);
    }
    const mark = parseHtml(`<span class="${EMBED_CLASS}" role="note"${label ? ` title="${escapeNumeric(label)}"` : ''}>${link}${escapeNumeric(SCRIPTS_CONSENT_MESSAGES.embeddedPage(label))}</span>`).children;
    for (const node of mark) DomUtils.prepend(frame, node);
    DomUtils.removeElement(frame);
  }
  return kept;
}

/**
 * The iframe's `src` made to name the frame document stored for the document it resolves to (`document`): the same
 * `src` when it is stored in the document's place, else `src` with its last segment the stored file's name (always in
 * the document's folder; null otherwise).
 */
function frameHref(src: string, document: string, stored: string): string | null {
  if (stored === document) return src;
  const folder = document.slice(0, document.lastIndexOf('/') + 1);
  if (!stored.startsWith(folder) || stored.slice(folder.length).includes('/')) return null;
  const pathPart = src.slice(0, src.search(/[?#]|$/));
  return `${pathPart.slice(0, pathPart.lastIndexOf('/') + 1)}${encodeURIComponent(stored.slice(folder.length))}`;
}

const SCRIPT_TYPES = new Set(['', 'text/javascript', 'application/javascript', 'module', 'text/ecmascript', 'application/ecmascript', 'application/x-javascript']);

/**
 * A scripted title's inline scripts become files of their own beside the chapter (as inline styles do), each
 * `<script>` pointing at its file: the scripted origin's policy then stays `script-src 'self'` (no inline code runs
 * anywhere, on either origin), and an inline script can do nothing a book's external script could not. Event handler
 * attributes (`onclick`) are still dropped. A script inside SVG (an SVG spine item's, or inline SVG's; `href` or
 * `xlink:href` for an external one) moves out, after the chapter, as an HTML script: the stored chapter keeps SVG to
 * its allow-list, and the script still finds the drawing's elements by id once they are parsed. Returns the code, in
 * document order, and the scripts moved out; the elements are changed in place.
 */
function externalizeInlineScripts(nodes: DomElement['children'], chapterFullPath: string, pathOf: (index: number) => string): { code: string[]; moved: DomElement[] } {
  const code: string[] = [];
  const moved: DomElement[] = [];
  const scripts = DomUtils.findAll((element) => element.name.toLowerCase() === 'script', nodes);
  for (const script of scripts) {
    const type = (attr(script, 'type') ?? '').trim().toLowerCase();
    const text = DomUtils.textContent(script).replace(/^\s*<!\[CDATA\[([\s\S]*?)\]\]>\s*$/, '$1').replace(/^\s*\/\/\s*<!\[CDATA\[|\/\/\s*\]\]>\s*$/g, '');
    if (insideSvg(script)) {
      const href = attr(script, 'href') ?? attr(script, 'xlink:href');
      if (href !== undefined && attr(script, 'src') === undefined) script.attribs = { src: href, ...(type ? { type } : {}) };
      if (attr(script, 'src') !== undefined || (SCRIPT_TYPES.has(type) && text.trim())) {
        DomUtils.removeElement(script);
        moved.push(script);
      }
    }
    if (attr(script, 'src') !== undefined || !SCRIPT_TYPES.has(type) || !text.trim()) continue;
    const path = pathOf(code.length);
    const folder = chapterFullPath.slice(0, chapterFullPath.lastIndexOf('/') + 1);
    if (!path.startsWith(folder) || path.slice(folder.length).includes('/')) continue; // always beside the chapter
    code.push(text);
    script.attribs.src = encodeURIComponent(path.slice(folder.length));
    script.children = [];
  }
  return { code, moved };
}

function insideSvg(element: DomElement): boolean {
  for (let parent = element.parent; parent; parent = parent.parent) if ((parent as DomElement).name?.toLowerCase() === 'svg') return true;
  return false;
}

const servedRewrite: UrlRewriter = (tag, attribute, value) => {
  const url = asBrowsersRead(value);
  if (!url) return null;
  return isAbsoluteUrl(url) ? keepAbsolute(tag, attribute, url) : url;
};

/**
 * The same allow-list for HTML that users write (annotations); relative URLs are left as they are. Its style=""
 * keeps typography only (USER_STYLE_PROPERTIES, no url()): this HTML is shown in the app's own pages, where a
 * positioned or sized box could lay itself over the app. With `remoteImages: false` an image from another site is
 * dropped too (showing it would tell that site who read the note).
 */
export function sanitizeFragment(html: string, opts: { remoteImages?: boolean } = {}): string {
  const remoteImages = opts.remoteImages ?? true;
  const rewrite: UrlRewriter = (tag, attribute, value) => {
    const url = asBrowsersRead(value);
    if (!url) return null;
    if (!isAbsoluteUrl(url)) return url;
    if (!remoteImages && tag !== 'a' && !DATA_IMAGE.test(url)) return null;
    return keepAbsolute(tag, attribute, url);
  };
  return sanitize(html, sanitizerOptions(rewrite, USER_STYLES, false), false, USER_STYLES);
}

/** A rendered chapter's HTML through the chapter allow-list again, its URLs and CSS as served (a test of stability). */
export function recheckChapterHtml(html: string): string {
  return sanitize(html, sanitizerOptions(servedRewrite, BOOK_STYLES_SERVED, false), false, BOOK_STYLES_SERVED);
}

/*
 * sanitize-html parses with htmlparser2, whose idea of raw-text elements is not the browser's: it reads <xmp>'s
 * content as text and writes it back unescaped, so "<xmp><img src=x onerror=…></xmp>" came out as a live <img>.
 * So the allow-list runs between two passes of parse5, the HTML parser of the WHATWG specification (the rules
 * the reader frame's browser follows):
 * 1. before: parse as the browser will, drop the elements removed with their content (script, style, title,
 *    textarea, iframe, noembed, noframes, noscript, foreignObject, annotation-xml, …), turn <xmp> and <plaintext>
 *    into <pre> of the same text, replace MathML's <maction> by the one child it shows, and serialise by the
 *    specification's rules. What sanitize-html then reads has no raw-text element left, so its parser and the
 *    browser's agree on every tag.
 * 2. after: parse sanitize-html's output as the browser will and check it against the allow-list of each
 *    namespace (HTML, SVG, MathML: an element is checked as what the browser will make of it, not by its name
 *    alone), with attributes, URL schemes and CSS, serialising once more; this pass repeats until its output reads
 *    back the same (markup that changes as it is re-read, the mutation-XSS pattern, is left as plain text).
 */
const RAW_TEXT_SHOWN_AS_PRE = new Set(['xmp', 'plaintext', 'listing']);
const HTML_TAG_SET = new Set(ALLOWED_TAGS.filter((tag) => !MATHML_TAGS.includes(tag) && (!SVG_TAGS.includes(tag) || tag === 'a')));
const MATHML_TAG_SET = new Set(MATHML_TAGS);
const MATHML_ATTRIBUTE_SET = new Set([...(ALLOWED_ATTRIBUTES['*'] ?? []), ...MATHML_ATTRIBUTES]);
const SCHEMES = new Set(['http', 'https', 'mailto']);
const HTML_NAMESPACE = 'http://www.w3.org/1999/xhtml';

function sanitize(html: string, options: sanitizeHtml.IOptions, allowScripts: boolean, styles: StylePolicy): string {
  return checkedAsTheBrowserParses(sanitizeHtml(asTheBrowserParses(html, allowScripts), options), allowScripts, styles);
}

type P5Parent = P5.ParentNode;
const isP5Element = (node: P5.ChildNode): node is P5.Element => 'tagName' in node;

/**
 * The element the reader puts a chapter in: a <div> in the frame's <body> (web: chapterDocument.ts). Markup is
 * parsed in its context, as the frame's parser will read it. Parsed bare (a <template> context), table parts
 * outside a table (<tr>, <td>, <caption>, <col>) were kept and checked, while the browser drops those tags and
 * builds another tree: what was checked must be what the browser builds.
 */
const READER_CONTEXT = (() => {
  const html = parse('<!DOCTYPE html><body><div></div>').childNodes.find(isP5Element)!;
  const body = html.childNodes.filter(isP5Element)[1]!;
  return body.childNodes.find(isP5Element)!;
})();

/** Parses like the reader frame's browser, scripting off (the frame runs no script): <noscript> content is markup. */
function parseAsBrowser(html: string): P5.DocumentFragment {
  return parseFragment(READER_CONTEXT, html, { scriptingEnabled: false });
}

function removedWithContent(tag: string, allowScripts: boolean): boolean {
  const name = tag.toLowerCase();
  return NON_TEXT_TAGS.includes(name) && !(allowScripts && name === 'script');
}

/** <maction> shows one child (its selection, else the first): that child takes its place. */
function mactionChild(element: P5.Element): P5.ChildNode | null {
  const children = element.childNodes.filter(isP5Element);
  const selection = Number(element.attrs.find((a) => a.name === 'selection')?.value ?? '1');
  return children[Number.isInteger(selection) && selection >= 1 ? selection - 1 : 0] ?? children[0] ?? null;
}

function asTheBrowserParses(html: string, allowScripts: boolean): string {
  const fragment = parseAsBrowser(html);
  const walk = (parent: P5Parent): void => {
    parent.childNodes = parent.childNodes
      .filter((child) => !(isP5Element(child) && removedWithContent(child.tagName, allowScripts)))
      .flatMap((child) => {
        if (!isP5Element(child) || child.tagName.toLowerCase() !== 'maction') return [child];
        const shown = mactionChild(child);
        if (shown) shown.parentNode = parent;
        return shown ? [shown] : [];
      });
    for (const child of parent.childNodes) {
      if (!isP5Element(child)) continue;
      if (RAW_TEXT_SHOWN_AS_PRE.has(child.tagName)) {
        child.tagName = 'pre';
        child.nodeName = 'pre';
      }
      walk(child);
    }
  };
  walk(fragment);
  return serialize(fragment);
}

function attributeName(a: P5.Element['attrs'][number]): string {
  return (a.prefix ? `${a.prefix}:${a.name}` : a.name).toLowerCase();
}

function allowedUrl(tag: string, value: string): boolean {
  const url = asBrowsersRead(value);
  const match = /^([a-z][a-z0-9+.-]*):/i.exec(url);
  if (!match) return !url.startsWith('//');
  const s = match[1]!.toLowerCase();
  return SCHEMES.has(s) || ((tag === 'img' || tag === 'image') && s === 'data' && DATA_IMAGE.test(url));
}

const attributeNameSets = new Map<string, Set<string>>();

/** The attribute names an element of this namespace and tag may keep (built once per namespace and tag). */
function allowedAttributeNames(namespace: string, tag: string): Set<string> {
  if (namespace === MATHML_NAMESPACE) return MATHML_ATTRIBUTE_SET;
  const key = `${namespace} ${tag}`;
  let names = attributeNameSets.get(key);
  if (!names) {
    const own = namespace === SVG_NAMESPACE ? SVG_ATTRIBUTES(tag) : (ALLOWED_ATTRIBUTES[tag] ?? []);
    names = new Set([...(ALLOWED_ATTRIBUTES['*'] ?? []), ...own, ...(tag === 'script' ? ['src', 'type'] : [])]);
    attributeNameSets.set(key, names);
  }
  return names;
}

/** Checks one kept attribute's value (URLs, srcset, CSS); false drops it. May rewrite the value in place. */
function checkAttribute(namespace: string, tag: string, a: P5.Element['attrs'][number], name: string, styles: StylePolicy): boolean {
  if (name === 'style') {
    a.value = sanitizeStyleAttribute(a.value, styles.rewrite, styles.properties, { positioned: styles.positioned });
    return a.value !== '';
  }
  if (name === 'srcset') return a.value.split(',').every((candidate) => allowedUrl('img', candidate.trim().split(/\s+/)[0] ?? ''));
  if (namespace === SVG_NAMESPACE) {
    if (SVG_PAINT_ATTRIBUTES.has(name)) {
      a.value = sanitizeCssValue(a.value, fragmentOnly);
      return a.value !== '';
    }
    if (name === 'href' || name === 'xlink:href') {
      if (SVG_FRAGMENT_HREF_TAGS.has(tag)) return asBrowsersRead(a.value).startsWith('#');
      return allowedUrl(tag, a.value);
    }
  }
  return !URL_ATTRIBUTES.concat('cite').includes(name) || allowedUrl(tag, a.value);
}

function checkOnce(html: string, allowScripts: boolean, styles: StylePolicy): { html: string; foreign: boolean } {
  const fragment = parseAsBrowser(html);
  let keptForeign = false;
  const walk = (parent: P5Parent): void => {
    const kept: P5.ChildNode[] = [];
    for (const child of parent.childNodes) {
      if (!isP5Element(child)) {
        if (child.nodeName === '#text') kept.push(child);
        continue;
      }
      const tag = child.tagName.toLowerCase();
      const namespace = child.namespaceURI as string;
      const foreign = namespace === SVG_NAMESPACE || namespace === MATHML_NAMESPACE;
      const allowed =
        namespace === SVG_NAMESPACE ? SVG_TAG_SET.has(tag)
        : namespace === MATHML_NAMESPACE ? MATHML_TAG_SET.has(tag)
        : namespace === HTML_NAMESPACE && (HTML_TAG_SET.has(tag) || (allowScripts && tag === 'script'));
      if (!allowed) {
        // Unknown SVG or MathML goes with its content; anything else unexpected is unwrapped (its checked content stays).
        if (foreign || removedWithContent(tag, false) || RAW_TEXT_SHOWN_AS_PRE.has(tag)) continue;
        walk(child);
        for (const grandchild of child.childNodes) grandchild.parentNode = parent;
        kept.push(...child.childNodes);
        continue;
      }
      if (tag === 'script' && (child.childNodes.length > 0 || !child.attrs.some((a) => a.name === 'src'))) continue;
      const names = allowedAttributeNames(namespace, tag);
      child.attrs = child.attrs.filter((a) => {
        const name = attributeName(a);
        if (!names.has(name) && !(tag === 'a' && (name === 'rel' || name === 'target'))) return false;
        if (name.startsWith('on')) return false;
        return checkAttribute(namespace, tag, a, name, styles);
      });
      walk(child);
      kept.push(child);
      keptForeign ||= foreign;
    }
    parent.childNodes = kept;
  };
  walk(fragment);
  return { html: serialize(fragment), foreign: keptForeign };
}

/** The visible text of some markup, escaped: what is left of markup that will not hold still. */
function textOnly(html: string): string {
  const parts: string[] = [];
  const walk = (parent: P5Parent): void => {
    for (const child of parent.childNodes) {
      if (child.nodeName === '#text') parts.push((child as P5.TextNode).value);
      else if (isP5Element(child)) walk(child);
    }
  };
  walk(parseAsBrowser(html));
  return `<p>${escapeText(parts.join(' '))}</p>`;
}

function checkedAsTheBrowserParses(html: string, allowScripts: boolean, styles: StylePolicy): string {
  let out = checkOnce(html, allowScripts, styles);
  // HTML alone reads back as parse5 wrote it (the raw-text elements are gone); where SVG or MathML stayed, the
  // namespaces can shift on re-reading, so the check runs again until nothing changes.
  if (!out.foreign) return out.html;
  for (let round = 0; round < 3; round++) {
    const again = checkOnce(out.html, allowScripts, styles);
    if (again.html === out.html) return out.html;
    out = again;
  }
  return textOnly(out.html);
}
