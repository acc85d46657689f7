/**
 * Hyphenation where the browser has none for the chapter's language (docs/decisions.md "Hyphenation where Chromium
 * has no patterns"): a chapter frame whose language the browser cannot hyphenate (bookStyles.ts `hyphenates`) gets
 * U+00AD inserted into the words of every text whose element computes `hyphens: auto` (the book's CSS or the
 * reader's default on the body), with the npm `hyphen` library's patterns (Liang's algorithm, TeX's patterns) for
 * that language, each language a chunk of its own loaded on demand. It runs after the chapter's first screen is
 * shown, the words worked out in idle slices, then put in a batch per idle slice, the reader's place kept.
 *
 * The inserted soft hyphens are the frame's, not the book's: everything that reads the text leaves them out
 * (`plainText`, `plainOffset`, `rawOffset`: textMarks.ts `indexText` for annotations, search marks and the
 * position's words; read aloud; copy, through the handler installed here). A chapter that has soft hyphens of its own
 * is left as the book hyphenated it, so every U+00AD of a chapter hyphenated here is one the frame put in.
 */

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
 * Documents whose soft hyphens were put in by the frame (none of the book's own: see above), by their root element:
 * a frame's document is written again for the next chapter (document.open keeps the Document, not its elements).
 */
const supplied = new WeakSet<Element>();

/** Whether the soft hyphens in `doc` are the frame's, to be left out of whatever reads the text. */
export const suppliesHyphens = (doc: Document | null | undefined): boolean => !!doc?.documentElement && supplied.has(doc.documentElement);

/** A text as the book has it: the soft hyphens the frame put into `doc` left out. */
export function plainText(doc: Document | null | undefined, text: string): string {
  return suppliesHyphens(doc) ? text.replaceAll(SOFT_HYPHEN, '') : text;
}

/** Offset `raw` of a text node's data, counted in its text without the frame's soft hyphens. */
export function plainOffset(node: Text, raw: number): number {
  if (!suppliesHyphens(node.ownerDocument)) return raw;
  const data = node.data;
  let n = 0;
  for (let i = 0; i < raw && i < data.length; i++) if (data[i] !== SOFT_HYPHEN) n++;
  return n;
}

/** The reverse: the offset in the node's data of character `plain` of its text without the frame's soft hyphens. */
export function rawOffset(node: Text, plain: number): number {
  if (!suppliesHyphens(node.ownerDocument)) return plain;
  const data = node.data;
  let n = 0;
  let i = 0;
  for (; i < data.length && n < plain; i++) if (data[i] !== SOFT_HYPHEN) n++;
  return i;
}

/** Elements whose text is not prose to break, or not the reader's (search marks are the page's own). */
const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'PRE', 'CODE', 'KBD', 'SAMP', 'VAR', 'TT', 'MATH', 'SVG', 'TEXTAREA']);

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

export interface SupplyOptions {
  /** The idle callback (requestIdleCallback, or a stand-in) the words are worked out in. */
  idle?: (work: (deadline: { timeRemaining(): number }) => void) => number;
  cancelIdle?: (handle: number) => void;
  /** Called just before each batch of hyphens goes in and just after (the controller keeps the reader's place across). */
  before?(): void;
  after?(): void;
}

/**
 * Hyphenates the text under `root` when the browser cannot hyphenate `lang` and the library has its patterns:
 * resolves true once the hyphens are in, false when there was nothing to do. `cancel` stops it (the chapter went).
 */
export function supplyHyphenation(
  doc: Document,
  root: Element,
  lang: string,
  browserHyphenates: boolean,
  options: SupplyOptions = {},
): { done: Promise<boolean>; cancel(): void } {
  let cancelled = false;
  let handle: number | undefined;
  const win = doc.defaultView;
  const idle = options.idle ?? ((work) => (win?.requestIdleCallback ? win.requestIdleCallback(work, { timeout: 2000 }) : window.setTimeout(() => work({ timeRemaining: () => 8 }), 16)));
  const cancelIdle = options.cancelIdle ?? ((h) => (win?.cancelIdleCallback ? win.cancelIdleCallback(h) : window.clearTimeout(h)));
  const name = patternsFor(lang);
  const cancel = () => {
    cancelled = true;
    if (handle !== undefined) cancelIdle(handle);
  };
  if (browserHyphenates || !name || suppliesHyphens(doc)) return { done: Promise.resolve(false), cancel };
  const done = loadHyphenator(name).then(
    (hyphenate) =>
      new Promise<boolean>((resolve) => {
        // (the book's own soft hyphens: its chapter stays as the book hyphenated it)
        if (cancelled || !win || !root.isConnected || root.textContent?.includes(SOFT_HYPHEN)) return resolve(false);
        const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        const autos = new Map<Element, boolean>();
        const hyphenatesHere = (el: Element): boolean => {
          let known = autos.get(el);
          if (known === undefined) {
            const style = win.getComputedStyle(el);
            known = !SKIP.has(el.tagName.toUpperCase()) && (style.hyphens || style.getPropertyValue('-webkit-hyphens')) === 'auto' && !el.closest('pre, code, svg, math');
            autos.set(el, known);
          }
          return known;
        };
        const work: { node: Text; data: string; points: number[] }[] = [];
        let next = walker.nextNode() as Text | null;
        const slice = (deadline: { timeRemaining(): number }) => {
          handle = undefined;
          if (cancelled) return resolve(false);
          while (next) {
            const node = next;
            next = walker.nextNode() as Text | null;
            const parent = node.parentElement;
            // (a word of fewer than 5 letters is never broken: the library's minimum)
            if (parent && node.data.length >= 5 && hyphenatesHere(parent)) {
              const points = hyphenPoints(hyphenate, node.data);
              if (points.length) work.push({ node, data: node.data, points });
            }
            if (deadline.timeRemaining() <= 1) break;
          }
          if (next) handle = idle(slice);
          else handle = idle(apply);
        };
        // Put in a batch per idle period too: all at once was a task of about a second on an 800,000-character
        // chapter (docs/performance.md "Hyphenation in the frame").
        let applied = 0;
        const apply = (deadline: { timeRemaining(): number }) => {
          handle = undefined;
          if (cancelled) return resolve(false);
          options.before?.();
          if (applied === 0) {
            supplied.add(doc.documentElement);
            doc.addEventListener('copy', onCopy);
          }
          while (applied < work.length) {
            const { node, data, points: worked } = work[applied++]!;
            if (!node.isConnected) continue;
            // split or changed meanwhile (a search mark, a highlight): worked out again on what it holds now
            const points = node.data === data ? worked : hyphenPoints(hyphenate, node.data);
            // from the end, so the earlier offsets stay; insertData moves live ranges past the point (DOM §5.5)
            for (let i = points.length - 1; i >= 0; i--) node.insertData(points[i]!, SOFT_HYPHEN);
            if (deadline.timeRemaining() <= 1) break;
          }
          options.after?.();
          if (applied < work.length) handle = idle(apply);
          else resolve(true);
        };
        handle = idle(slice);
      }),
    // (the chunks could not be had, offline: the chapter stays as the browser lays it out)
    () => false,
  );
  return { done, cancel };
}

/** Copy leaves out the frame's soft hyphens (a pasted word would carry them). */
function onCopy(event: ClipboardEvent) {
  const doc = (event.currentTarget as Document | null) ?? null;
  const selection = doc?.getSelection();
  if (!doc || !selection || selection.isCollapsed || !event.clipboardData || !suppliesHyphens(doc)) return;
  const holder = doc.createElement('div');
  for (let i = 0; i < selection.rangeCount; i++) holder.append(selection.getRangeAt(i).cloneContents());
  const walker = doc.createTreeWalker(holder, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) (n as Text).data = plainText(doc, (n as Text).data);
  event.clipboardData.setData('text/plain', plainText(doc, selection.toString()));
  event.clipboardData.setData('text/html', holder.innerHTML);
  event.preventDefault();
}
