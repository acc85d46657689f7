/**
 * The book's CSS, sanitised: inline <style>, style="" attributes and the book's own stylesheet files all pass
 * through here at import time. postcss parses the sheet into rules, at-rules and declarations; each declaration's
 * value is read by a small tokenizer that follows CSS Syntax (strings, url tokens, functions), never by a
 * regular expression over the text. What survives:
 * - properties on an allow-list (what books use to lay out text, boxes, tables, lists and SVG paint, and the
 *   properties EPUB defines: writing-mode, text-orientation, text-combine-upright, text-emphasis*, hyphens,
 *   line-break, word-break, text-align-last, text-underline-position); their -epub-, -webkit-, -moz-, -ms- and
 *   -o- forms become the standard property (-epub-text-combine: horizontal and -epub-text-combine-horizontal: all
 *   become text-combine-upright: all; text-transform: -epub-fullwidth becomes full-width);
 * - functions on an allow-list (colours, calc, gradients, transforms, counters, local/format in @font-face);
 * - url() (and the strings of image-set()) only to the book's own resources, rewritten to their served address by
 *   the caller's rewriter, or an in-document fragment, or a data: image or font;
 * - @media, @supports, @container, @layer (recursed), @font-face (its descriptors), @import of the book's own
 *   stylesheets; every other at-rule (@namespace, @page, @keyframes, @charset, @document, …) goes;
 * - position: fixed and absolute become static (a book may not lay anything over the reading view), except in the
 *   sheets and styles of fixed-layout pages (`positioned`), where absolute stays and fixed becomes absolute;
 * - rules whose selector names the reader's own elements (#lectern-root, .lectern-*) go;
 * - selectors for EPUB's epub:type, which the importer renames data-epub-type: `[epub|type~='x']`, where the sheet's
 *   own @namespace binds `epub` (any prefix) to http://www.idpf.org/2007/ops, and `[epub\:type~='x']` become
 *   `[data-epub-type~='x']`; `[*|type~='x']` (type in any namespace) becomes `:is([type~='x'],[data-epub-type~='x'])`.
 *   A selector of a list that names any other namespace prefix goes (with @namespace gone it could match nothing, and
 *   would make the browser drop its whole rule).
 * A value with a backslash escape outside a string, a brace or semicolon inside a value, an unknown function,
 * expression(), javascript:, -moz-binding or behavior drops the declaration.
 *
 * Book stylesheets come out wrapped in `@layer book { … }`; the reader frame orders `@layer lectern, book`, so the
 * book's rules beat the reader's defaults while the reader's `!important` settings (theme, size, column, paging)
 * beat everything of the book (docs/decisions.md "Book styles").
 */
import postcss, { type AtRule, type ChildNode, type Container, type Declaration, type Root } from 'postcss';
import { resolveHref } from './paths.ts';

/** Maps a URL found in CSS to what the output carries; null drops the declaration (or the @import). */
export type CssUrlRewriter = (url: string, kind: 'image' | 'font' | 'stylesheet') => string | null;

export const BOOK_LAYER = 'book';

const PROPERTIES = new Set(
  `
color background background-color background-image background-repeat background-position background-position-x
background-position-y background-size background-clip background-origin background-blend-mode
font font-family font-size font-style font-weight font-variant font-variant-caps font-variant-numeric
font-variant-ligatures font-variant-east-asian font-variant-position font-variant-alternates font-stretch
font-feature-settings font-kerning font-size-adjust font-synthesis font-language-override font-optical-sizing
font-variation-settings line-height letter-spacing word-spacing text-align text-align-last text-indent
text-transform text-decoration text-decoration-line text-decoration-style text-decoration-color
text-decoration-thickness text-decoration-skip-ink text-underline-position text-underline-offset text-shadow
text-overflow text-emphasis text-emphasis-style text-emphasis-color text-emphasis-position text-orientation
text-combine-upright text-justify text-wrap text-rendering white-space word-break word-wrap overflow-wrap line-break
hyphens hyphenate-character hyphenate-limit-chars hanging-punctuation tab-size direction unicode-bidi writing-mode
vertical-align quotes content counter-reset counter-increment counter-set list-style list-style-type
list-style-position list-style-image ruby-position ruby-align initial-letter
display margin margin-top margin-right margin-bottom margin-left margin-block margin-block-start margin-block-end
margin-inline margin-inline-start margin-inline-end padding padding-top padding-right padding-bottom padding-left
padding-block padding-block-start padding-block-end padding-inline padding-inline-start padding-inline-end
border border-top border-right border-bottom border-left border-width border-style border-color
border-top-width border-right-width border-bottom-width border-left-width border-top-style border-right-style
border-bottom-style border-left-style border-top-color border-right-color border-bottom-color border-left-color
border-block border-block-start border-block-end border-inline border-inline-start border-inline-end
border-radius border-top-left-radius border-top-right-radius border-bottom-left-radius border-bottom-right-radius
border-image border-image-source border-image-slice border-image-width border-image-outset border-image-repeat
border-collapse border-spacing caption-side empty-cells table-layout
width height min-width min-height max-width max-height inline-size block-size min-inline-size max-inline-size
min-block-size max-block-size box-sizing aspect-ratio float clear overflow overflow-x overflow-y position top right
bottom left inset inset-block inset-inline z-index visibility opacity box-shadow outline outline-width outline-style
outline-color outline-offset box-decoration-break
columns column-count column-width column-gap column-rule column-rule-width column-rule-style column-rule-color
column-span column-fill page-break-before page-break-after page-break-inside break-before break-after break-inside
orphans widows
flex flex-direction flex-wrap flex-flow flex-grow flex-shrink flex-basis justify-content justify-items justify-self
align-items align-self align-content order gap row-gap grid grid-template grid-template-columns grid-template-rows
grid-template-areas grid-area grid-column grid-row grid-column-start grid-column-end grid-row-start grid-row-end
grid-auto-flow grid-auto-columns grid-auto-rows place-items place-content place-self
object-fit object-position image-rendering image-orientation transform transform-origin mix-blend-mode isolation
shape-outside shape-margin shape-image-threshold
fill fill-opacity fill-rule stroke stroke-width stroke-opacity stroke-linecap stroke-linejoin stroke-miterlimit
stroke-dasharray stroke-dashoffset stop-color stop-opacity marker marker-start marker-mid marker-end
text-anchor dominant-baseline alignment-baseline baseline-shift paint-order vector-effect shape-rendering
color-interpolation color-interpolation-filters flood-color flood-opacity lighting-color clip-path clip-rule
mask mask-type math-style math-depth math-shift
`.trim().split(/\s+/),
);

/** @font-face descriptors. */
const FONT_DESCRIPTORS = new Set([
  'font-family', 'src', 'font-style', 'font-weight', 'font-stretch', 'unicode-range', 'font-display', 'font-variant',
  'font-feature-settings', 'font-variation-settings', 'size-adjust', 'ascent-override', 'descent-override', 'line-gap-override',
]);

const FUNCTIONS = new Set(
  `
rgb rgba hsl hsla hwb lab lch oklab oklch color color-mix light-dark calc min max clamp round mod rem abs sign
var env attr counter counters local format tech
linear-gradient radial-gradient conic-gradient repeating-linear-gradient repeating-radial-gradient
repeating-conic-gradient image-set -webkit-image-set -webkit-linear-gradient -webkit-radial-gradient
translate translatex translatey translatez translate3d rotate rotatex rotatey rotatez rotate3d scale scalex scaley
scalez scale3d skew skewx skewy matrix matrix3d perspective cubic-bezier steps repeat minmax fit-content
drop-shadow blur brightness contrast grayscale hue-rotate invert saturate sepia inset circle ellipse polygon
`.trim().split(/\s+/),
);
/** Functions whose plain string arguments are URLs. */
const URL_STRING_FUNCTIONS = new Set(['image-set', '-webkit-image-set']);
const VENDOR = /^-(?:epub|webkit|moz|ms|o)-/;
/** Words that never belong in a book's CSS, whatever property they are found in. */
const FORBIDDEN_WORDS = ['expression', 'javascript:', 'vbscript:', '-moz-binding', 'behavior', 'livescript:'];
const DATA_OK = /^data:(?:image\/(?:png|jpeg|gif|webp|avif)|font\/[a-z0-9.+-]+|application\/(?:font-woff2?|x-font-[a-z]+|vnd\.ms-opentype|font-sfnt))[;,]/i;

type Token =
  | { kind: 'string'; raw: string; value: string }
  | { kind: 'url'; value: string }
  | { kind: 'function'; name: string }
  | { kind: 'open' }
  | { kind: 'close' }
  | { kind: 'text'; raw: string };

const IDENT_CHAR = /[A-Za-z0-9_\-\u0080-\uffff]/;

/** Decodes a CSS string's escapes (CSS Syntax 4.3.7): "\\41 " is "A", "\\\n" continues the line. */
function unescapeCss(text: string): string {
  return text.replace(/\\(?:([0-9a-fA-F]{1,6})[ \t\n]?|(\n)|([\s\S]))/g, (_m, hex: string | undefined, _nl, char: string | undefined) => {
    if (hex) {
      const code = parseInt(hex, 16);
      return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? '\ufffd' : String.fromCodePoint(code);
    }
    return char ?? '';
  });
}

/** The tokens of a declaration value or @import prelude; null when it holds something this module will not read. */
function tokenize(value: string): Token[] | null {
  const tokens: Token[] = [];
  let i = 0;
  let text = '';
  const flush = () => {
    if (text) tokens.push({ kind: 'text', raw: text });
    text = '';
  };
  const readString = (quote: string): string | null => {
    let j = i + 1;
    while (j < value.length) {
      const c = value[j]!;
      if (c === '\\') j += 2;
      else if (c === quote) break;
      else if (c === '\n') return null;
      else j++;
    }
    if (j >= value.length) return null;
    const raw = value.slice(i, j + 1);
    i = j + 1;
    return raw;
  };
  while (i < value.length) {
    const c = value[i]!;
    if (c === '"' || c === "'") {
      flush();
      const raw = readString(c);
      if (raw === null) return null;
      tokens.push({ kind: 'string', raw, value: unescapeCss(raw.slice(1, -1)) });
    } else if (c === '\\' || c === '{' || c === '}' || c === ';') {
      return null;
    } else if (IDENT_CHAR.test(c) && !IDENT_CHAR.test(value[i - 1] ?? ' ')) {
      let j = i;
      while (j < value.length && IDENT_CHAR.test(value[j]!)) j++;
      const name = value.slice(i, j);
      if (value[j] !== '(') {
        text += name;
        i = j;
        continue;
      }
      flush();
      i = j + 1;
      if (name.toLowerCase() === 'url') {
        while (/\s/.test(value[i] ?? '')) i++;
        const q = value[i];
        let url: string;
        if (q === '"' || q === "'") {
          const raw = readString(q);
          if (raw === null) return null;
          url = unescapeCss(raw.slice(1, -1));
        } else {
          let j2 = i;
          while (j2 < value.length && !/[)"'(\\\s]/.test(value[j2]!)) j2++;
          url = value.slice(i, j2);
          i = j2;
        }
        while (/\s/.test(value[i] ?? '')) i++;
        if (value[i] !== ')') return null;
        i++;
        tokens.push({ kind: 'url', value: url });
      } else {
        tokens.push({ kind: 'function', name: name.toLowerCase() });
      }
    } else if (c === '(') {
      flush();
      tokens.push({ kind: 'open' });
      i++;
    } else if (c === ')') {
      flush();
      tokens.push({ kind: 'close' });
      i++;
    } else {
      text += c;
      i++;
    }
  }
  flush();
  return tokens;
}

const cssString = (s: string) => `"${s.replace(/[\\"]/g, (m) => `\\${m}`).replace(/[\n\r\f]/g, ' ')}"`;

/** A declaration value checked and rewritten; null drops the declaration. */
function cleanValue(value: string, rewrite: CssUrlRewriter, kind: 'image' | 'font'): string | null {
  const tokens = tokenize(value);
  if (!tokens) return null;
  const stack: string[] = [];
  let out = '';
  for (const token of tokens) {
    switch (token.kind) {
      case 'text': {
        const lower = token.raw.toLowerCase();
        if (FORBIDDEN_WORDS.some((word) => lower.includes(word))) return null;
        out += token.raw;
        break;
      }
      case 'function':
        if (!FUNCTIONS.has(token.name) || FORBIDDEN_WORDS.some((word) => token.name.includes(word))) return null;
        stack.push(token.name);
        out += `${token.name}(`;
        break;
      case 'open':
        stack.push('');
        out += '(';
        break;
      case 'close':
        if (stack.length === 0) return null;
        stack.pop();
        out += ')';
        break;
      case 'url': {
        const url = rewrite(token.value, kind);
        if (url === null) return null;
        out += `url(${cssString(url)})`;
        break;
      }
      case 'string': {
        if (URL_STRING_FUNCTIONS.has(stack[stack.length - 1] ?? '')) {
          const url = rewrite(token.value, 'image');
          if (url === null) return null;
          out += cssString(url);
        } else out += token.raw;
        break;
      }
    }
  }
  if (stack.length > 0) return null;
  return out.trim();
}

/** One CSS value (an SVG presentation attribute), checked like a declaration's; '' when it must go. */
export function sanitizeCssValue(value: string, rewrite: CssUrlRewriter): string {
  return cleanValue(value, rewrite, 'image') ?? '';
}

/** The standard name of an allowed property (vendor forms mapped), or null. */
function standardProperty(prop: string): string | null {
  const lower = prop.toLowerCase();
  if (lower.startsWith('--')) return lower.startsWith('--lectern') ? null : prop;
  const name = lower.replace(VENDOR, '');
  // EPUB 3.0's -epub-text-combine and EPUB 3.3's -epub-text-combine-horizontal both become text-combine-upright
  if (name === 'text-combine' || name === 'text-combine-horizontal') return 'text-combine';
  return PROPERTIES.has(name) ? name : null;
}

const ABSOLUTE_SIZE = /^(\d*\.?\d+)(px|pt|pc|in|cm|mm|q)$/i;
const SIZE_KEYWORDS: Record<string, string> = { 'xx-small': '9px', 'x-small': '10px', small: '13px', medium: '16px', large: '18px', 'x-large': '24px', 'xx-large': '32px', 'xxx-large': '48px' };

/**
 * An absolute font size (12pt, 16px, large) follows the reader's size setting: it is multiplied by the frame's
 * --lectern-font-size (1 where that is not set, so the sheet means the same anywhere else).
 */
function scaledFontSize(value: string): string {
  const size = SIZE_KEYWORDS[value.toLowerCase()] ?? (ABSOLUTE_SIZE.test(value) ? value : null);
  return size ? `calc(${size} * var(--lectern-font-size, 1))` : value;
}

/** Cleans one declaration in place; false when it must go. */
function cleanDeclaration(decl: Declaration, rewrite: CssUrlRewriter, fontFace: boolean, keepImportant: boolean, positioned = false): boolean {
  let prop = fontFace ? (FONT_DESCRIPTORS.has(decl.prop.toLowerCase()) ? decl.prop.toLowerCase() : null) : standardProperty(decl.prop);
  if (!prop) return false;
  let value = cleanValue(decl.value, rewrite, fontFace ? 'font' : 'image');
  if (value === null || value === '') return false;
  const keyword = value.toLowerCase();
  if (prop === 'text-combine') {
    // EPUB 3's -epub-text-combine: horizontal and -epub-text-combine-horizontal: all are the standard
    // text-combine-upright: all.
    prop = 'text-combine-upright';
    value = keyword.startsWith('horizontal') || keyword === 'all' ? 'all' : keyword === 'none' ? 'none' : '';
    if (!value) return false;
  }
  // EPUB's text-transform: -epub-fullwidth is the standard full-width.
  if (prop === 'text-transform') value = value.replace(/(^|\s)-epub-fullwidth(?=\s|$)/gi, '$1full-width');
  if (prop === 'font-size' && !fontFace) value = scaledFontSize(value);
  if (prop === 'position') {
    // Fixed and absolute boxes could cover the page, and a link laid over it would take the reader's page-turn
    // taps; in reflowable chapters they stay in the flow. A fixed-layout page (`positioned`) is laid out by them:
    // absolute stays, and fixed becomes absolute (the page is its own viewport, which never scrolls).
    if (keyword === 'fixed' || keyword === 'absolute') value = positioned ? 'absolute' : 'static';
    else if (!['static', 'relative', 'absolute', 'sticky', 'inherit', 'initial', 'unset', 'revert'].includes(keyword)) return false;
  }
  decl.prop = prop;
  decl.value = value;
  if (!keepImportant) decl.important = false;
  decl.raws = { between: ': ' };
  if (decl.important) decl.raws.important = ' !important';
  return true;
}

const OPS_NAMESPACE = 'http://www.idpf.org/2007/ops';
const NAMESPACE_PREFIX = /^-?(?:[A-Za-z_\u0080-\uffff]|--)[A-Za-z0-9_\-\u0080-\uffff]*$/;

/**
 * The prefixes a sheet's @namespace rules bind to the EPUB ops namespace. Only the rules a browser honours count: those
 * before any style rule or block at-rule (after @charset, @import and @layer statements); a prefix declared twice
 * means what its last declaration says. Prefixes are case-sensitive (CSS Namespaces 3).
 */
function opsPrefixes(root: Root): Set<string> {
  const bound = new Map<string, string>();
  for (const node of root.nodes) {
    if (node.type === 'comment') continue;
    if (node.type !== 'atrule') break;
    const name = node.name.toLowerCase();
    if (name === 'charset' || name === 'import' || (name === 'layer' && !node.nodes)) continue;
    if (name !== 'namespace') break;
    // `@namespace prefix? (url(…) | "…")`; a prelude with an escape (the tokenizer's null) binds nothing
    const tokens = (tokenize(node.params) ?? []).filter((t) => t.kind !== 'text' || t.raw.trim() !== '');
    const [first, second] = tokens;
    if (tokens.length === 2 && first!.kind === 'text' && NAMESPACE_PREFIX.test(first!.raw.trim()) && (second!.kind === 'url' || second!.kind === 'string')) {
      bound.set(first!.raw.trim(), second!.value);
    }
  }
  return new Set([...bound].filter(([, uri]) => uri === OPS_NAMESPACE).map(([prefix]) => prefix));
}

const isIdentChar = (c: string | undefined) => c !== undefined && (/[A-Za-z0-9_-]/.test(c) || c.charCodeAt(0) >= 0x80);

/**
 * The end of the identifier that starts at `i` (its escapes included: `epub\|type` is one identifier); `i` itself
 * when there is none.
 */
function identEnd(text: string, i: number): number {
  let j = i;
  while (j < text.length) {
    if (text[j] === '\\' && j + 1 < text.length && text[j + 1] !== '\n') j = escapeEnd(text, j);
    else if (isIdentChar(text[j])) j++;
    else break;
  }
  return j;
}

/** The index just past the escape at `i` (CSS Syntax 4.3.7): `\\` and up to six hex digits and one white space
 * after them, or any one character. */
function escapeEnd(text: string, i: number): number {
  let j = i + 1;
  while (j < text.length && j < i + 7 && /[0-9a-fA-F]/.test(text[j]!)) j++;
  if (j === i + 1) return i + 2;
  return /[ \t\n]/.test(text[j] ?? '') ? j + 1 : j;
}

/** The index just past the string that opens at `i` (its quote), or -1 when it is not closed. */
function stringEnd(text: string, i: number): number {
  const quote = text[i];
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === quote) return j + 1;
    else if (text[j] === '\n') return -1;
  }
  return -1;
}

/**
 * An attribute selector's inside (between `[` and `]`) for this importer's HTML: `epub|type…` (`epub` an ops prefix
 * of the sheet) and `epub\:type…` become `data-epub-type…`, `*|type…` both; the operator, value and flags are kept
 * as written. 'foreign' for a namespace prefix the sheet's output cannot declare.
 */
function attributeSelector(inner: string, ops: ReadonlySet<string>): string | 'foreign' {
  let j = 0;
  while (/\s/.test(inner[j] ?? '')) j++;
  let prefix: string | null = null;
  let nameStart = j;
  if (inner[j] === '*' && inner[j + 1] === '|' && inner[j + 2] !== '=') {
    prefix = '*';
    nameStart = j + 2;
  } else if (inner[j] === '|' && inner[j + 1] !== '=') {
    prefix = '';
    nameStart = j + 1;
  } else {
    const end = identEnd(inner, j);
    if (end > j && inner[end] === '|' && inner[end + 1] !== '=') {
      prefix = unescapeCss(inner.slice(j, end));
      nameStart = end + 1;
    }
  }
  const nameEnd = identEnd(inner, nameStart);
  const name = unescapeCss(inner.slice(nameStart, nameEnd));
  const rest = inner.slice(nameEnd);
  if (prefix === null) return name.toLowerCase() === 'epub:type' ? `[data-epub-type${rest}]` : `[${inner}]`;
  if (prefix === '*') return name === 'type' ? `:is([${inner}],[data-epub-type${rest}])` : `[${inner}]`;
  if (prefix === '') return `[${inner}]`;
  return ops.has(prefix) && name === 'type' ? `[data-epub-type${rest}]` : 'foreign';
}

/**
 * One complex selector (an item of a selector list) for this importer's HTML (attributeSelector); null when it names
 * a namespace prefix other than an ops one on `type`, or cannot be read (an unclosed string or bracket: left as it is).
 * Walked character by character: strings, escapes and brackets are read as what they are, never matched as text.
 */
function selectorItem(item: string, ops: ReadonlySet<string>): string | null {
  let out = '';
  let i = 0;
  while (i < item.length) {
    const c = item[i]!;
    if (c === '"' || c === "'") {
      const end = stringEnd(item, i);
      if (end < 0) return item;
      out += item.slice(i, end);
      i = end;
    } else if (c === '[') {
      let end = i + 1;
      while (end < item.length && item[end] !== ']') {
        if (item[end] === '"' || item[end] === "'") {
          end = stringEnd(item, end);
          if (end < 0) return item;
        } else if (item[end] === '\\') end += 2;
        else end++;
      }
      if (end >= item.length) return item;
      const attribute = attributeSelector(item.slice(i + 1, end), ops);
      if (attribute === 'foreign') return null;
      out += attribute;
      i = end + 1;
    } else if (c === '|' && item[i + 1] === '|') {
      out += '||'; // the column combinator
      i += 2;
    } else if (c === '\\' || isIdentChar(c)) {
      const end = identEnd(item, i);
      // an identifier directly before a single `|` is a namespace prefix (`svg|rect`); `*|p` and `|p` need none
      if (item[end] === '|' && item[end + 1] !== '|') return null;
      out += item.slice(i, Math.max(end, i + 1));
      i = Math.max(end, i + 1);
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/**
 * A rule's selector list for this importer's HTML (selectorItem on each item); null when no item is left. Items are
 * split at the commas outside brackets, parentheses and strings.
 */
export function bookSelector(selector: string, ops: ReadonlySet<string>): string | null {
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i]!;
    if (c === '\\') i++;
    else if (c === '"' || c === "'") {
      const end = stringEnd(selector, i);
      if (end < 0) return selector;
      i = end - 1;
    } else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      items.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  items.push(selector.slice(start));
  const kept = items.flatMap((item) => {
    const rewritten = selectorItem(item, ops);
    return rewritten === null ? [] : [rewritten];
  });
  if (kept.length === 0) return null;
  return kept.join(',');
}

/** A selector that reaches for the reader's own elements. */
const touchesReader = (selector: string) => selector.toLowerCase().includes('lectern');

const RECURSED_AT_RULES = new Set(['media', 'supports', 'container', 'layer']);

function cleanContainer(container: Container, rewrite: CssUrlRewriter, imports: string[], topLevel: boolean, positioned: boolean, ops: ReadonlySet<string>): void {
  for (const node of [...(container.nodes ?? [])] as ChildNode[]) {
    if (node.type === 'comment') node.remove();
    else if (node.type === 'decl') {
      // Declarations directly in a sheet or an at-rule block are not valid; inside a (nested) rule they are.
      if (container.type !== 'rule' || !cleanDeclaration(node, rewrite, false, true, positioned)) node.remove();
    } else if (node.type === 'rule') {
      const selector = bookSelector(node.selector, ops);
      if (selector === null || touchesReader(selector)) node.remove();
      else {
        if (selector !== node.selector) node.selector = selector;
        cleanContainer(node, rewrite, imports, false, positioned, ops);
        if ((node.nodes ?? []).length === 0) node.remove();
      }
    } else if (node.type === 'atrule') cleanAtRule(node, rewrite, imports, topLevel, positioned, ops);
  }
}

function cleanAtRule(rule: AtRule, rewrite: CssUrlRewriter, imports: string[], topLevel: boolean, positioned: boolean, ops: ReadonlySet<string>): void {
  const name = rule.name.toLowerCase().replace(VENDOR, '');
  if (name === 'import' && topLevel) {
    const tokens = tokenize(rule.params);
    const first = tokens?.find((t) => t.kind !== 'text' || t.raw.trim() !== '');
    const href = first?.kind === 'url' || first?.kind === 'string' ? first.value : null;
    const url = href === null ? null : rewrite(href, 'stylesheet');
    // Media queries and layer() of the import are left out: the imported sheet is the book's, sanitised and layered.
    if (url) imports.push(`@import url(${cssString(url)});`);
    rule.remove();
  } else if (name === 'font-face') {
    for (const node of [...(rule.nodes ?? [])]) {
      if (node.type !== 'decl' || !cleanDeclaration(node, rewrite, true, false)) node.remove();
    }
    const hasSource = (rule.nodes ?? []).some((n) => n.type === 'decl' && n.prop === 'src');
    if (!hasSource) rule.remove();
    else rule.params = '';
  } else if (RECURSED_AT_RULES.has(name) && (name === 'layer' || (rule.nodes && !rule.params.includes('\\')))) {
    // A prelude is a media query or condition: its url()s and functions are checked like a value.
    const prelude = cleanValue(rule.params, () => null, 'image');
    if (prelude === null) {
      rule.remove();
      return;
    }
    rule.name = name;
    rule.params = prelude;
    if (rule.nodes) {
      cleanContainer(rule, rewrite, imports, false, positioned, ops);
      if (rule.nodes.length === 0) rule.remove();
    } else if (name !== 'layer') rule.remove();
  } else {
    rule.remove();
  }
}

function parse(css: string): Root | null {
  try {
    return postcss.parse(css);
  } catch {
    return null;
  }
}

export interface SanitizedSheet {
  css: string;
  /** The sheet could not be parsed at all: nothing of it is kept. */
  unreadable: boolean;
}

/** How a sheet is read: `positioned` keeps absolute positioning (the sheets and styles of fixed-layout pages). */
export interface CssOptions {
  positioned?: boolean;
}

/** A whole stylesheet (a .css file or an inline <style>), wrapped in the book's cascade layer. */
export function sanitizeStylesheet(css: string, rewrite: CssUrlRewriter, opts: CssOptions = {}): SanitizedSheet {
  const root = parse(css);
  if (!root) return { css: '', unreadable: true };
  const imports: string[] = [];
  cleanContainer(root, rewrite, imports, true, opts.positioned === true, opsPrefixes(root));
  root.raws = {};
  const body = root.nodes.length > 0 ? `@layer ${BOOK_LAYER} {\n${root.toString()}\n}\n` : '';
  return { css: `${imports.join('\n')}${imports.length ? '\n' : ''}${body}`, unreadable: false };
}

/**
 * What people may style in HTML they write themselves (annotations), shown in the app's own pages: typography only,
 * nothing that positions, hides, sizes or overlays, and no url().
 */
export const USER_STYLE_PROPERTIES: ReadonlySet<string> = new Set([
  'text-align', 'font-style', 'font-weight', 'font-variant', 'text-decoration', 'vertical-align', 'text-indent', 'margin-left', 'padding-left',
]);

/** No url() at all (HTML that people write). */
export const noCssUrls: CssUrlRewriter = () => null;

/**
 * A style="" attribute: its declarations, cleaned (and, with `properties`, only those); '' when none is left. `!important` is dropped: a style
 * attribute already beats every rule of the book, and its importance would beat the reader's settings too.
 */
export function sanitizeStyleAttribute(value: string, rewrite: CssUrlRewriter, properties?: ReadonlySet<string>, opts: CssOptions = {}): string {
  const root = parse(value);
  if (!root) return '';
  const kept: string[] = [];
  for (const node of root.nodes) {
    if (node.type !== 'decl') continue;
    if (cleanDeclaration(node, rewrite, false, false, opts.positioned === true) && (!properties || properties.has(node.prop))) kept.push(`${node.prop}: ${node.value}`);
  }
  return kept.join('; ');
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
/** What a browser's URL parser ignores: tabs and newlines anywhere, C0 controls and spaces around. */
const asRead = (url: string) => url.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');

/**
 * URLs in a book's CSS at import: fragments stay (SVG paint servers), data: images and fonts stay, relative URLs
 * resolve against the file that holds the CSS and must name one of the book's resources (then its served address);
 * everything else (http:, file:, javascript:, data:text/html, a chapter) is refused.
 */
export function bookCssRewriter(basePath: string, isResource: (fullPath: string) => boolean, resourceUrl: (fullPath: string) => string): CssUrlRewriter {
  return (raw, kind) => {
    const url = asRead(raw);
    if (!url) return null;
    if (url.startsWith('#')) return kind === 'image' ? url : null;
    if (SCHEME.test(url) || url.startsWith('//')) return kind !== 'stylesheet' && DATA_OK.test(url) ? url : null;
    const target = resolveHref(basePath, url);
    if (!target || !isResource(target.path)) return null;
    if (kind === 'stylesheet' && !/\.css$/i.test(target.path)) return null;
    return resourceUrl(target.path) + (target.fragment && kind === 'image' ? `#${encodeURIComponent(target.fragment)}` : '');
  };
}

/** URLs in CSS that was already sanitised (a second look): same-origin paths, fragments and data: images/fonts only. */
export const servedCssRewriter: CssUrlRewriter = (raw) => {
  const url = asRead(raw);
  if (!url || url.startsWith('//')) return null;
  if (SCHEME.test(url)) return DATA_OK.test(url) ? url : null;
  return url;
};
