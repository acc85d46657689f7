/**
 * Hyphenation the book asks for where the browser has none (docs/decisions.md "Hyphenation where Chromium has no
 * patterns"): the elements the BOOK's own stylesheets or style attributes set to `hyphens: auto` (the importer turns
 * `-epub-hyphens`/`-webkit-hyphens` into `hyphens`), never those that have it only from the reader's default on the
 * body, get U+00AD inserted into their words when the probe (bookStyles.ts `hyphenates`) says this browser cannot
 * hyphenate the chapter's language, with the npm `hyphen` library's patterns for that language (each a chunk of its
 * own, loaded on demand). It is done while the chapter frame is still hidden, before its pages are counted, and on
 * each slice of a long chapter as it goes in (before the layout that counts it), so no page count changes under the
 * reader.
 *
 * The inserted soft hyphens are the frame's, not the book's: whatever reads the text leaves them out (`plainText`,
 * `plainOffset`, `rawOffset`: textMarks.ts `indexText` for annotations, search marks and positions; read aloud; the
 * footnote pop-up; copy, through the handler installed here). Which soft hyphens are the frame's is known per
 * element: an element with a text of its own holding U+00AD is left as the book hyphenated it (and its soft hyphens
 * stay in whatever reads it), the others the book asks to hyphenate get the frame's; a text node's nearest element
 * of either kind decides (a highlight's `<mark>` between them changes nothing).
 */
import { chapterLanguage, hyphenates } from './bookStyles.ts';

export const SOFT_HYPHEN = '\u00AD';

type Patterns = { default?: unknown } | unknown;

/**
 * The `hyphen` package's patterns by language tag (lower case), each its own chunk. Not Church Slavonic (`cu`): its
 * module is not valid JavaScript (a pattern key that is no identifier), and the build refuses it.
 */
const PATTERNS: Record<string, () => Promise<Patterns>> = {
  'af': () => import('hyphen/patterns/af.js'), 'as': () => import('hyphen/patterns/as.js'), 'be': () => import('hyphen/patterns/be.js'),
  'bg': () => import('hyphen/patterns/bg.js'), 'bn': () => import('hyphen/patterns/bn.js'), 'ca': () => import('hyphen/patterns/ca.js'),
  'cop': () => import('hyphen/patterns/cop.js'), 'cs': () => import('hyphen/patterns/cs.js'),
  'cy': () => import('hyphen/patterns/cy.js'), 'da': () => import('hyphen/patterns/da.js'), 'de-1901': () => import('hyphen/patterns/de-1901.js'),
  'de-1996': () => import('hyphen/patterns/de-1996.js'), 'de-ch-1901': () => import('hyphen/patterns/de-ch-1901.js'), 'el-monoton': () => import('hyphen/patterns/el-monoton.js'),
  'el-polyton': () => import('hyphen/patterns/el-polyton.js'), 'en-gb': () => import('hyphen/patterns/en-gb.js'), 'en-us': () => import('hyphen/patterns/en-us.js'),
  'es': () => import('hyphen/patterns/es.js'), 'et': () => import('hyphen/patterns/et.js'), 'eu': () => import('hyphen/patterns/eu.js'),
  'fi-x-school': () => import('hyphen/patterns/fi-x-school.js'), 'fi': () => import('hyphen/patterns/fi.js'), 'fr': () => import('hyphen/patterns/fr.js'),
  'fur': () => import('hyphen/patterns/fur.js'), 'ga': () => import('hyphen/patterns/ga.js'), 'gl': () => import('hyphen/patterns/gl.js'),
  'grc': () => import('hyphen/patterns/grc.js'), 'gu': () => import('hyphen/patterns/gu.js'), 'hi': () => import('hyphen/patterns/hi.js'),
  'hr': () => import('hyphen/patterns/hr.js'), 'hsb': () => import('hyphen/patterns/hsb.js'), 'hu': () => import('hyphen/patterns/hu.js'),
  'hy': () => import('hyphen/patterns/hy.js'), 'ia': () => import('hyphen/patterns/ia.js'), 'id': () => import('hyphen/patterns/id.js'),
  'is': () => import('hyphen/patterns/is.js'), 'it': () => import('hyphen/patterns/it.js'), 'ka': () => import('hyphen/patterns/ka.js'),
  'kmr': () => import('hyphen/patterns/kmr.js'), 'kn': () => import('hyphen/patterns/kn.js'), 'la-x-classic': () => import('hyphen/patterns/la-x-classic.js'),
  'la-x-liturgic': () => import('hyphen/patterns/la-x-liturgic.js'), 'la': () => import('hyphen/patterns/la.js'), 'lt': () => import('hyphen/patterns/lt.js'),
  'lv': () => import('hyphen/patterns/lv.js'), 'mk': () => import('hyphen/patterns/mk.js'), 'ml': () => import('hyphen/patterns/ml.js'),
  'mn-cyrl-x-lmc': () => import('hyphen/patterns/mn-cyrl-x-lmc.js'), 'mn-cyrl': () => import('hyphen/patterns/mn-cyrl.js'), 'mr': () => import('hyphen/patterns/mr.js'),
  'mul-ethi': () => import('hyphen/patterns/mul-ethi.js'), 'nb': () => import('hyphen/patterns/nb.js'), 'nl': () => import('hyphen/patterns/nl.js'),
  'nn': () => import('hyphen/patterns/nn.js'), 'no': () => import('hyphen/patterns/no.js'), 'oc': () => import('hyphen/patterns/oc.js'),
  'or': () => import('hyphen/patterns/or.js'), 'pa': () => import('hyphen/patterns/pa.js'), 'pi': () => import('hyphen/patterns/pi.js'),
  'pl': () => import('hyphen/patterns/pl.js'), 'pms': () => import('hyphen/patterns/pms.js'), 'pt': () => import('hyphen/patterns/pt.js'),
  'rm': () => import('hyphen/patterns/rm.js'), 'ro': () => import('hyphen/patterns/ro.js'), 'ru': () => import('hyphen/patterns/ru.js'),
  'sa': () => import('hyphen/patterns/sa.js'), 'sh-cyrl': () => import('hyphen/patterns/sh-cyrl.js'), 'sh-latn': () => import('hyphen/patterns/sh-latn.js'),
  'sk': () => import('hyphen/patterns/sk.js'), 'sl': () => import('hyphen/patterns/sl.js'), 'sq': () => import('hyphen/patterns/sq.js'),
  'sr-cyrl': () => import('hyphen/patterns/sr-cyrl.js'), 'sv': () => import('hyphen/patterns/sv.js'), 'ta': () => import('hyphen/patterns/ta.js'),
  'te': () => import('hyphen/patterns/te.js'), 'th': () => import('hyphen/patterns/th.js'), 'tk': () => import('hyphen/patterns/tk.js'),
  'tr': () => import('hyphen/patterns/tr.js'), 'uk': () => import('hyphen/patterns/uk.js'), 
};
/** The package's own names for a language's usual patterns. */
const ALIASES: Record<string, string> = { de: 'de-1996', el: 'el-monoton', en: 'en-us', ethi: 'mul-ethi', mn: 'mn-cyrl', sh: 'sh-cyrl', sr: 'sr-cyrl' };

/** The patterns' name for a language tag (`en-CA` -> `en-us`), or null when the library has none. */
export function patternsFor(lang: string): string | null {
  const tag = lang.trim().toLowerCase().replace(/_/g, '-');
  for (let t = tag; t; t = t.includes('-') ? t.slice(0, t.lastIndexOf('-')) : '') {
    const name = ALIASES[t] ?? t;
    if (PATTERNS[name]) return name;
  }
  return null;
}

type Hyphenate = (text: string) => string;
const hyphenators = new Map<string, Promise<Hyphenate>>();

/** The hyphenator of a patterns name, loaded once (the library and the language's patterns, two chunks). */
export function loadHyphenator(name: string): Promise<Hyphenate> {
  let known = hyphenators.get(name);
  if (!known) {
    known = Promise.all([import('hyphen'), PATTERNS[name]!()]).then(([lib, patterns]) => {
      const create = ((lib as { default?: unknown }).default ?? lib) as (p: unknown, o: object) => Hyphenate;
      const data = (patterns as { default?: unknown }).default ?? patterns;
      // html: false, the text of a text node is not markup ("a < b" stays prose)
      return create(data, { html: false, hyphenChar: SOFT_HYPHEN });
    });
    known.catch(() => hyphenators.delete(name));
    hyphenators.set(name, known);
  }
  return known;
}

/**
 * Documents whose soft hyphens were put in by the frame, by their root element (a frame's document is written again
 * for the next chapter: document.open keeps the Document, not its elements), with the hyphenator for later slices.
 */
const supplied = new WeakMap<Element, Hyphenate>();
/** Documents being hyphenated (the patterns loading), so a second call waits for the same work. */
const pending = new WeakMap<Element, Promise<void>>();
/** Elements whose own texts got the frame's soft hyphens, and those whose own texts had the book's (left alone). */
const framesElements = new WeakSet<Element>();
const booksElements = new WeakSet<Element>();

/** Whether the frame put soft hyphens anywhere in `doc` (else every U+00AD in it is the book's). */
export const suppliesHyphens = (doc: Document | null | undefined): boolean => !!doc?.documentElement && supplied.has(doc.documentElement);

/** Whether the soft hyphens in this text node are the frame's: its nearest element hyphenated here, or left alone, says. */
export function hyphensAreFrames(node: Text): boolean {
  if (!suppliesHyphens(node.ownerDocument)) return false;
  for (let el = node.parentElement; el; el = el.parentElement) {
    if (framesElements.has(el)) return true;
    if (booksElements.has(el)) return false;
  }
  return false;
}

/** A text node's text as the book has it: the soft hyphens the frame put in left out. */
export function plainText(node: Text): string {
  return hyphensAreFrames(node) ? node.data.replaceAll(SOFT_HYPHEN, '') : node.data;
}

/** The text under `root` as the book has it (textContent, the frame's soft hyphens left out). */
export function plainTextOf(root: Node): string {
  const doc = root.ownerDocument;
  if (!doc || !suppliesHyphens(doc)) return root.textContent ?? '';
  let text = '';
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) text += plainText(n as Text);
  return text;
}

/** Offset `raw` of a text node's data, counted in its text without the frame's soft hyphens. */
export function plainOffset(node: Text, raw: number): number {
  if (!hyphensAreFrames(node)) return raw;
  const data = node.data;
  let n = 0;
  for (let i = 0; i < raw && i < data.length; i++) if (data[i] !== SOFT_HYPHEN) n++;
  return n;
}

/** The reverse: the offset in the node's data of character `plain` of its text without the frame's soft hyphens. */
export function rawOffset(node: Text, plain: number): number {
  if (!hyphensAreFrames(node)) return plain;
  const data = node.data;
  let n = 0;
  let i = 0;
  for (; i < data.length && n < plain; i++) if (data[i] !== SOFT_HYPHEN) n++;
  return i;
}

/**
 * Soft hyphens taken out of the text nodes under `el`, a copy made for the footnote pop-up or a copy to the
 * clipboard, when the frame put some in this document: a copy's nodes are not the chapter's, so the book's own go
 * too there (they only mark where a word may break, and a pop-up or a pasted text breaks lines its own way).
 */
export function stripSupplied(doc: Document, el: Node): void {
  if (!suppliesHyphens(doc)) return;
  const walker = doc.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n as Text;
    if (text.data.includes(SOFT_HYPHEN)) text.data = text.data.replaceAll(SOFT_HYPHEN, '');
  }
}

/** Where hyphens go in `text` (offsets into it), as the hyphenator puts them. */
export function hyphenPoints(hyphenate: Hyphenate, text: string): number[] {
  const out = hyphenate(text);
  const points: number[] = [];
  if (out.length === text.length) return points;
  for (let i = 0, j = 0; j < out.length; j++) {
    if (out[j] === SOFT_HYPHEN && text[i] !== SOFT_HYPHEN) points.push(i);
    else i++;
  }
  return points;
}

/** Set on <html> while the book's own `hyphens` are read: the reader's default on the body is then `manual` (chapterDocument.ts). */
export const BOOK_HYPHENS_ATTR = 'data-lectern-book-hyphens';

const isAuto = (style: CSSStyleDeclaration) => (style.hyphens || style.getPropertyValue('-webkit-hyphens')) === 'auto';

function rulesAskHyphens(rules: CSSRuleList): boolean {
  for (const rule of Array.from(rules)) {
    const style = (rule as CSSStyleRule).style;
    if (style && isAuto(style)) return true;
    const nested = (rule as CSSGroupingRule).cssRules;
    if (nested && rulesAskHyphens(nested)) return true;
  }
  return false;
}

/** Whether the book's own styles (its linked sheets, its style attributes) say `hyphens: auto` anywhere: a rules walk, no cascade. */
export function bookAsksHyphens(doc: Document, root: Element): boolean {
  for (const sheet of Array.from(doc.styleSheets)) {
    // the reader's own style elements (no owner link) are not the book's
    if (!(sheet.ownerNode as Element | null)?.matches?.('link')) continue;
    try {
      if (rulesAskHyphens(sheet.cssRules)) return true;
    } catch {
      // a sheet the frame may not read
    }
  }
  return Array.from(root.querySelectorAll<HTMLElement>('[style]')).some((el) => isAuto(el.style));
}

/** Text that is not prose to break. */
const NOT_PROSE = 'pre, code, kbd, samp, var, tt, math, svg, textarea, script, style, noscript, template';

/**
 * Hyphenates the text nodes from `first` to `last` (siblings, with what they hold) whose element the book's own CSS
 * leaves at `hyphens: auto`: read with the reader's default on the body turned off (BOOK_HYPHENS_ATTR), a style
 * recalculation and no layout.
 */
function hyphenateNodes(doc: Document, first: Node, last: Node, hyphenate: Hyphenate): void {
  const win = doc.defaultView;
  if (!win) return;
  const html = doc.documentElement;
  html.setAttribute(BOOK_HYPHENS_ATTR, '');
  try {
    const autos = new Map<Element, boolean>();
    const asks = (el: Element): boolean => {
      let known = autos.get(el);
      if (known === undefined) {
        known = isAuto(win.getComputedStyle(el)) && !el.closest(NOT_PROSE);
        autos.set(el, known);
      }
      return known;
    };
    const texts: Text[] = [];
    for (let top: Node | null = first; top; top = top === last ? null : top.nextSibling) {
      const walker = doc.createTreeWalker(top, NodeFilter.SHOW_TEXT);
      for (let n = walker.currentNode.nodeType === Node.TEXT_NODE ? walker.currentNode : walker.nextNode(); n; n = walker.nextNode()) {
        const node = n as Text;
        // an element with a text of its own the book hyphenated is the book's, whatever its CSS
        if (node.parentElement && node.data.includes(SOFT_HYPHEN)) booksElements.add(node.parentElement);
        texts.push(node);
      }
    }
    const work: { node: Text; points: number[] }[] = [];
    for (const node of texts) {
      const parent = node.parentElement;
      // (a word of fewer than 5 letters is never broken: the library's minimum)
      if (!parent || node.data.length < 5 || booksElements.has(parent) || !asks(parent)) continue;
      const points = hyphenPoints(hyphenate, node.data);
      if (points.length) work.push({ node, points });
    }
    // put in after every style is read, so the reads do not recalculate the styles again and again
    for (const { node, points } of work) {
      framesElements.add(node.parentElement!);
      // from the end, so the earlier offsets stay
      let data = node.data;
      for (let i = points.length - 1; i >= 0; i--) data = data.slice(0, points[i]) + SOFT_HYPHEN + data.slice(points[i]);
      node.data = data;
    }
  } finally {
    html.removeAttribute(BOOK_HYPHENS_ATTR);
  }
}

/**
 * Supplies the hyphenation the book asks for in a written chapter document (its stylesheets in, not yet laid out
 * for the reader): null when there is nothing to do (the usual case, known at once: the book asks for no
 * `hyphens: auto`, the browser hyphenates the language, or the library has no patterns for it), else a promise
 * resolved once the hyphens are in (or the patterns could not be had). A long chapter's later slices are done by
 * `hyphenateInserted` as they go in.
 */
export function supplyBookHyphens(doc: Document, root: Element | null): Promise<void> | null {
  const top = doc.documentElement;
  if (!root || !top || supplied.has(top)) return null;
  const waiting = pending.get(top);
  if (waiting) return waiting;
  const lang = chapterLanguage(doc, root);
  const name = patternsFor(lang);
  if (!name || !bookAsksHyphens(doc, root) || hyphenates(lang)) return null;
  const work = loadHyphenator(name).then(
    (hyphenate) => {
      pending.delete(top);
      // (another chapter written meanwhile: its own call does its own)
      if (doc.documentElement !== top || !root.isConnected || !root.firstChild || !root.lastChild) return;
      hyphenateNodes(doc, root.firstChild, root.lastChild, hyphenate);
      supplied.set(top, hyphenate);
      doc.addEventListener('copy', onCopy);
    },
    // (the chunks could not be had, offline: the chapter stays as the browser lays it out)
    () => void pending.delete(top),
  );
  pending.set(top, work);
  return work;
}

/** A slice of a long chapter just put in (from `first` to `last`): hyphenated as the rest was, before it is laid out. */
export function hyphenateInserted(doc: Document, first: Node, last: Node): void {
  const hyphenate = doc.documentElement && supplied.get(doc.documentElement);
  if (hyphenate) hyphenateNodes(doc, first, last, hyphenate);
}

/** Copy leaves out the frame's soft hyphens (a pasted word would carry them). */
function onCopy(event: ClipboardEvent) {
  const doc = (event.currentTarget as Document | null) ?? null;
  const selection = doc?.getSelection();
  if (!doc || !selection || selection.isCollapsed || !event.clipboardData || !suppliesHyphens(doc)) return;
  const holder = doc.createElement('div');
  for (let i = 0; i < selection.rangeCount; i++) holder.append(selection.getRangeAt(i).cloneContents());
  stripSupplied(doc, holder);
  event.clipboardData.setData('text/plain', selection.toString().replaceAll(SOFT_HYPHEN, ''));
  event.clipboardData.setData('text/html', holder.innerHTML);
  event.preventDefault();
}
