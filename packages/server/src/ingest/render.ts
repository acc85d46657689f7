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
import sanitizeHtml from 'sanitize-html';
import { DomUtils } from 'htmlparser2';
import { type DefaultTreeAdapterTypes as P5, parseFragment, serialize } from 'parse5';
import { attr, findAll, findFirst, parseHtml, textOf, visibleText } from './markup.ts';
import { isAbsoluteUrl, resolveHref } from './paths.ts';

export interface RenderOptions {
  /** The chapter being rendered. */
  chapterFullPath: string;
  allowScripts: boolean;
  /** Link target for another chapter of the same book (in-app reader page). */
  chapterUrl: (fullPath: string, fragment: string | null) => string;
  /** URL of an image / css / font / media resource of the book. */
  resourceUrl: (fullPath: string) => string;
  isChapter: (fullPath: string) => boolean;
}

export interface RenderedChapter {
  html: string;
  stylesheets: string[];
  title: string | null;
  textLength: number;
}

const ALLOWED_TAGS = [
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hgroup', 'header', 'footer', 'main', 'address',
  'p', 'div', 'span', 'section', 'article', 'aside', 'nav', 'figure', 'figcaption', 'img', 'a',
  'ul', 'ol', 'li', 'dl', 'dt', 'dd',
  'table', 'caption', 'colgroup', 'col', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td',
  'pre', 'code', 'kbd', 'samp', 'var', 'blockquote', 'em', 'strong', 'i', 'b', 'u', 's', 'sub', 'sup', 'small',
  'mark', 'del', 'ins', 'br', 'hr', 'wbr', 'abbr', 'cite', 'q', 'dfn', 'time', 'bdi', 'bdo',
  'ruby', 'rb', 'rp', 'rt', 'details', 'summary',
  'audio', 'video', 'source', 'track',
  // SVG only as far as the usual full-page cover image: <svg><image xlink:href="cover.jpg"/></svg>.
  'svg', 'image',
];

const ALLOWED_ATTRIBUTES: Record<string, string[]> = {
  '*': ['id', 'class', 'lang', 'dir', 'title', 'data-epub-type', 'style'],
  a: ['href', 'name', 'rel', 'target'],
  img: ['src', 'alt', 'width', 'height'],
  ol: ['start', 'reversed', 'type'],
  li: ['value'],
  td: ['colspan', 'rowspan', 'headers'],
  th: ['colspan', 'rowspan', 'headers', 'scope'],
  col: ['span', 'width'],
  colgroup: ['span', 'width'],
  blockquote: ['cite'],
  q: ['cite'],
  time: ['datetime'],
  audio: ['src', 'controls'],
  video: ['src', 'controls', 'poster', 'width', 'height'],
  source: ['src', 'type'],
  track: ['src', 'kind', 'srclang', 'label'],
  // htmlparser2 lower-cases attribute names; the browser's HTML parser restores SVG's camelCase (viewBox).
  svg: ['viewbox', 'width', 'height', 'preserveaspectratio', 'version', 'xmlns', 'xmlns:xlink'],
  image: ['xlink:href', 'href', 'width', 'height', 'x', 'y', 'preserveaspectratio'],
};

/**
 * The style attribute is kept, filtered to properties that carry meaning in books (centred lines, poetry
 * indents, small caps) and cannot position, hide or overlay anything; everything else in it is dropped.
 */
const LENGTH = /^-?\d+(\.\d+)?(em|rem|ex|ch|%|px|pt)?$/;
const ALLOWED_STYLES = {
  '*': {
    'text-align': [/^(left|right|center|justify|start|end)$/],
    'font-style': [/^(normal|italic|oblique)$/],
    'font-weight': [/^(normal|bold|bolder|lighter|[1-9]00)$/],
    'font-variant': [/^(normal|small-caps)$/],
    'text-decoration': [/^(none|underline|overline|line-through)$/],
    'vertical-align': [/^(baseline|sub|super|top|middle|bottom|text-top|text-bottom)$/],
    'text-indent': [LENGTH],
    'margin-left': [LENGTH],
    'padding-left': [LENGTH],
  },
};

/**
 * Elements removed together with their content. Inline <style> is among them: book CSS written for a whole
 * page (body{display:none}, fixed positioning) would fight the reader's layout; the book's linked stylesheets
 * are kept (RenderedChapter.stylesheets) and the reader issue brings a scoped reader stylesheet.
 */
const NON_TEXT_TAGS = [
  'script', 'style', 'noscript', 'template', 'head', 'title', 'textarea', 'option', 'select',
  'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'noembed', 'noframes',
];

const URL_ATTRIBUTES = ['href', 'src', 'poster', 'xlink:href'];
const EXTERNAL_LINK_SCHEMES = new Set(['http', 'https', 'mailto']);
const DATA_IMAGE = /^data:image\//i;

type Attributes = Record<string, string>;
/** Maps a URL found in an attribute to what the output should carry; null drops the attribute. */
type UrlRewriter = (tag: string, attribute: string, url: string) => string | null;

function sanitizerOptions(rewrite: UrlRewriter, allowScripts: boolean): sanitizeHtml.IOptions {
  return {
    allowedTags: allowScripts ? [...ALLOWED_TAGS, 'script'] : ALLOWED_TAGS,
    allowedAttributes: allowScripts ? { ...ALLOWED_ATTRIBUTES, script: ['src', 'type'] } : ALLOWED_ATTRIBUTES,
    allowedStyles: ALLOWED_STYLES,
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
      '*': (tagName, attribs) => ({ tagName, attribs: transformAttributes(tagName, attribs, rewrite) }),
    },
  };
}

function transformAttributes(tag: string, attribs: Attributes, rewrite: UrlRewriter): Attributes {
  const out: Attributes = {};
  for (const [name, value] of Object.entries(attribs)) {
    if (name === 'epub:type') out['data-epub-type'] = value;
    else if (name === 'xml:lang') out.lang ??= value;
    else if (name === 'target' || name === 'rel') continue; // set below for external links only
    else if (URL_ATTRIBUTES.includes(name)) {
      const url = rewrite(tag, name, value);
      if (url !== null) out[name] = url;
    } else out[name] = value;
  }
  if (tag === 'a' && out.href && isAbsoluteUrl(out.href) && isExternalLink(out.href)) {
    out.rel = 'noopener noreferrer';
    out.target = '_blank';
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

function bookRewriter(opts: RenderOptions): UrlRewriter {
  return (tag, attribute, value) => {
    const url = asBrowsersRead(value);
    if (!url) return null;
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

export function renderChapter(rawHtml: string, opts: RenderOptions): RenderedChapter {
  const document = parseHtml(rawHtml);
  const body = findFirst(document, 'body');
  const nodes = body ? body.children : document.children;
  const titleElement = findFirst(document, 'title');

  const stylesheets: string[] = [];
  for (const link of findAll(document, 'link')) {
    const rel = (attr(link, 'rel') ?? '').toLowerCase().split(/\s+/);
    const href = attr(link, 'href');
    const target = href && rel.includes('stylesheet') ? resolveHref(opts.chapterFullPath, href) : null;
    if (!target || opts.isChapter(target.path)) continue;
    const url = opts.resourceUrl(target.path);
    if (!stylesheets.includes(url)) stylesheets.push(url);
  }

  const html = sanitize(DomUtils.getOuterHTML(nodes, { encodeEntities: 'utf8' }), sanitizerOptions(bookRewriter(opts), opts.allowScripts), opts.allowScripts);
  return {
    html,
    stylesheets,
    title: (titleElement && textOf(titleElement)) || null,
    textLength: visibleText(nodes).length,
  };
}

/** The same allow-list for HTML that users write (annotations); relative URLs are left as they are. */
export function sanitizeFragment(html: string): string {
  const rewrite: UrlRewriter = (tag, attribute, value) => {
    const url = asBrowsersRead(value);
    if (!url) return null;
    return isAbsoluteUrl(url) ? keepAbsolute(tag, attribute, url) : url;
  };
  return sanitize(html, sanitizerOptions(rewrite, false), false);
}

/*
 * sanitize-html parses with htmlparser2, whose idea of raw-text elements is not the browser's: it reads <xmp>'s
 * content as text and writes it back unescaped, so "<xmp><img src=x onerror=…></xmp>" came out as a live <img>.
 * So the allow-list runs between two passes of parse5, the HTML parser of the WHATWG specification (the rules
 * the reader frame's browser follows):
 * 1. before: parse as the browser will, drop the elements removed with their content (script, style, title,
 *    textarea, iframe, noembed, noframes, noscript, …), turn <xmp> and <plaintext> into <pre> of the same text,
 *    and serialise by the specification's rules. What sanitize-html then reads has no raw-text element left, so
 *    its parser and the browser's agree on every tag.
 * 2. after: parse sanitize-html's output as the browser will and check it against the same allow-list (tags,
 *    attributes, URL schemes), serialising once more: what is stored is exactly what the browser will build.
 */
const RAW_TEXT_SHOWN_AS_PRE = new Set(['xmp', 'plaintext', 'listing']);
const ALLOWED_TAG_SET = new Set(ALLOWED_TAGS);
const SCHEMES = new Set(['http', 'https', 'mailto']);

function sanitize(html: string, options: sanitizeHtml.IOptions, allowScripts: boolean): string {
  return checkedAsTheBrowserParses(sanitizeHtml(asTheBrowserParses(html, allowScripts), options), allowScripts);
}

type P5Parent = P5.ParentNode;
const isP5Element = (node: P5.ChildNode): node is P5.Element => 'tagName' in node;

/** Parses like a browser with scripting off (the reader frame runs no script): <noscript> content is markup. */
function parseAsBrowser(html: string): P5.DocumentFragment {
  return parseFragment(html, { scriptingEnabled: false });
}

function removedWithContent(tag: string, allowScripts: boolean): boolean {
  return NON_TEXT_TAGS.includes(tag) && !(allowScripts && tag === 'script');
}

function asTheBrowserParses(html: string, allowScripts: boolean): string {
  const fragment = parseAsBrowser(html);
  const walk = (parent: P5Parent): void => {
    parent.childNodes = parent.childNodes.filter((child) => !(isP5Element(child) && removedWithContent(child.tagName, allowScripts)));
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
  return SCHEMES.has(s) || (tag === 'img' && s === 'data' && DATA_IMAGE.test(url));
}

function checkedAsTheBrowserParses(html: string, allowScripts: boolean): string {
  const fragment = parseAsBrowser(html);
  const walk = (parent: P5Parent): void => {
    const kept: P5.ChildNode[] = [];
    for (const child of parent.childNodes) {
      if (!isP5Element(child)) {
        if (child.nodeName === '#text') kept.push(child);
        continue;
      }
      const tag = child.tagName.toLowerCase();
      const allowed = ALLOWED_TAG_SET.has(tag) || (allowScripts && tag === 'script');
      if (!allowed) {
        if (removedWithContent(tag, false) || RAW_TEXT_SHOWN_AS_PRE.has(tag)) continue;
        // Anything else unexpected is unwrapped: its (checked) content stays.
        walk(child);
        for (const grandchild of child.childNodes) grandchild.parentNode = parent;
        kept.push(...child.childNodes);
        continue;
      }
      if (tag === 'script' && (child.childNodes.length > 0 || !child.attrs.some((a) => a.name === 'src'))) continue;
      const names = new Set([...(ALLOWED_ATTRIBUTES['*'] ?? []), ...(ALLOWED_ATTRIBUTES[tag] ?? []), ...(tag === 'script' ? ['src', 'type'] : [])]);
      child.attrs = child.attrs.filter((a) => {
        const name = attributeName(a);
        if (!names.has(name) && !(tag === 'a' && (name === 'rel' || name === 'target'))) return false;
        return !URL_ATTRIBUTES.concat('cite').includes(name) || allowedUrl(tag, a.value);
      });
      walk(child);
      kept.push(child);
    }
    parent.childNodes = kept;
  };
  walk(fragment);
  return serialize(fragment);
}
