/**
 * A long chapter shown in slices (docs/decisions.md "Long chapters in slices"): the document is written with one
 * slice of the chapter, the one holding the reader's place, and the rest is inserted in slices of bounded size
 * when the page is idle, so the first screen paints without waiting for the whole chapter to be parsed and laid out
 * and no task parses or lays out more than a slice.
 *
 * The chapter's HTML is the importer's (parse5's serialisation: every element closed, attribute values in double
 * quotes, `<` and `&` escaped in text), so its element boundaries can be found by a small scanner. A slice is a run
 * of whole sibling nodes of one container: the reading root, or the element most of the chapter is wrapped in
 * (a `<div class="chapter">`, a `<section>`), descended into. Markup the scanner does not recognise as balanced is
 * written whole, as every chapter was before.
 */
import { LONG_CHAPTER_CHARS, type Locator } from '@lectern/core';

/** Chapters with less HTML than this are written whole (their layout fits in a short task). */
export const SLICE_MIN_CHARS = LONG_CHAPTER_CHARS;
/** About this much HTML per slice (more when one element alone is longer): a few milliseconds to parse and lay out. */
export const SLICE_CHARS = 24_000;

/** A place to open the chapter at (reader.md §4 "Initial position priority"): the shape of position.ts's InitialPosition. */
export type SlicePosition =
  | { kind: 'anchor'; id: string }
  | { kind: 'end' }
  | { kind: 'stored'; locator: Locator }
  | { kind: 'percentage'; value: number };

export interface SlicedChapter {
  /** each slice's [start, end) in the chapter's HTML, in document order; together they are the container's content */
  slices: { start: number; end: number }[];
  /** the container's content in the HTML */
  innerStart: number;
  innerEnd: number;
  /** the `>` ending the container's start tag, or -1 when the container is the reading root */
  containerTagEnd: number;
}

/** The attribute the written document's container carries until the controller of its slices finds it. */
export const SLICE_CONTAINER_ATTR = 'data-lectern-slices';

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr', 'basefont', 'bgsound', 'frame', 'keygen']);
/** Elements whose content is not markup (parse5 writes it as is), up to their end tag. */
const RAW = new Set(['script', 'style', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript', 'textarea', 'title', 'plaintext']);
/** Wrappers whose children may be inserted a run at a time (a table's rows, a list's items are not cut). */
const DESCEND = new Set(['div', 'section', 'article', 'main', 'blockquote', 'aside']);

interface Child {
  tag: string;
  start: number;
  end: number;
  innerStart: number;
  innerEnd: number;
}

const isNameChar = (c: string) => /[A-Za-z0-9:_-]/.test(c);

/** The end of a start tag beginning at `i` (the index of its `>`), skipping quoted attribute values; -1 if none. */
function startTagEnd(html: string, i: number, to: number): number {
  let j = i + 1;
  while (j < to) {
    const c = html[j];
    if (c === '>') return j;
    if (c === '"' || c === "'") {
      const close = html.indexOf(c, j + 1);
      if (close < 0 || close >= to) return -1;
      j = close + 1;
      continue;
    }
    j++;
  }
  return -1;
}

/**
 * The element children of html[from, to) (text and comments between them are not listed: a slice boundary falls
 * only after an element's end), or null when the markup is not balanced as the importer writes it.
 */
function elementChildren(html: string, from: number, to: number): Child[] | null {
  const out: Child[] = [];
  const stack: string[] = [];
  let open: { tag: string; start: number; innerStart: number } | null = null;
  let i = from;
  while (i < to) {
    const lt = html.indexOf('<', i);
    if (lt < 0 || lt >= to) break;
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      if (end < 0 || end + 3 > to) return null;
      i = end + 3;
      continue;
    }
    const next = html[lt + 1] ?? '';
    if (next === '!' || next === '?') {
      const end = html.indexOf('>', lt);
      if (end < 0 || end >= to) return null;
      i = end + 1;
      continue;
    }
    if (next === '/') {
      let k = lt + 2;
      while (k < to && isNameChar(html[k]!)) k++;
      const name = html.slice(lt + 2, k).toLowerCase();
      const end = html.indexOf('>', k);
      if (!name || end < 0 || end >= to || stack.pop() !== name) return null;
      if (stack.length === 0 && open) {
        out.push({ tag: open.tag, start: open.start, end: end + 1, innerStart: open.innerStart, innerEnd: lt });
        open = null;
      }
      i = end + 1;
      continue;
    }
    if (!/[A-Za-z]/.test(next)) {
      i = lt + 1; // a lone '<' in text (the importer escapes them; tolerated)
      continue;
    }
    let k = lt + 1;
    while (k < to && isNameChar(html[k]!)) k++;
    const name = html.slice(lt + 1, k).toLowerCase();
    const end = startTagEnd(html, k - 1, to);
    if (end < 0) return null;
    const foreign = stack.includes('svg') || stack.includes('math') || name === 'svg' || name === 'math';
    const selfClosed = html[end - 1] === '/' && foreign;
    if (VOID.has(name) || selfClosed) {
      if (stack.length === 0) out.push({ tag: name, start: lt, end: end + 1, innerStart: end + 1, innerEnd: end + 1 });
      i = end + 1;
      continue;
    }
    if (RAW.has(name) && !foreign) {
      const lower = html.slice(end + 1, to).toLowerCase();
      const rel = lower.indexOf(`</${name}`);
      if (rel < 0) return null;
      const closeAt = end + 1 + rel;
      const closeEnd = html.indexOf('>', closeAt);
      if (closeEnd < 0 || closeEnd >= to) return null;
      if (stack.length === 0) out.push({ tag: name, start: lt, end: closeEnd + 1, innerStart: end + 1, innerEnd: closeAt });
      i = closeEnd + 1;
      continue;
    }
    if (stack.length === 0) open = { tag: name, start: lt, innerStart: end + 1 };
    stack.push(name);
    i = end + 1;
  }
  return stack.length === 0 ? out : null;
}

/**
 * How a chapter's HTML is cut into slices of about `sliceChars`, or null when it is written whole: shorter than
 * `minChars`, markup the scanner does not take for balanced, or nothing to cut (one element holding everything that
 * is not a plain wrapper).
 */
export function sliceChapter(html: string, sliceChars = SLICE_CHARS, minChars = SLICE_MIN_CHARS): SlicedChapter | null {
  if (html.length < minChars) return null;
  let innerStart = 0;
  let innerEnd = html.length;
  let containerTagEnd = -1;
  let children = elementChildren(html, innerStart, innerEnd);
  // Into the element most of the chapter is wrapped in, while there is one.
  for (let depth = 0; children && depth < 6; depth++) {
    const span = innerEnd - innerStart;
    const big = children.find((c) => c.end - c.start > span / 2);
    if (!big || !DESCEND.has(big.tag)) break;
    const inner = elementChildren(html, big.innerStart, big.innerEnd);
    if (!inner) return null;
    innerStart = big.innerStart;
    innerEnd = big.innerEnd;
    containerTagEnd = big.innerStart - 1;
    children = inner;
  }
  if (!children) return null;
  const slices: { start: number; end: number }[] = [];
  let start = innerStart;
  for (const c of children) {
    if (c.end - start >= sliceChars && c.end < innerEnd) {
      slices.push({ start, end: c.end });
      start = c.end;
    }
  }
  if (start < innerEnd) slices.push({ start, end: innerEnd });
  if (slices.length < 2) return null;
  return { slices, innerStart, innerEnd, containerTagEnd };
}

/** How the last chapter the worker decrypted was cut (primeSlices), so the page need not scan it again. */
let primed: { html: string; sliced: SlicedChapter | null } | null = null;

/** Keeps the slicing of `html` worked out elsewhere (the chapter worker), for {@link slicesOf}. */
export function primeSlices(html: string, sliced: SlicedChapter | null): void {
  primed = { html, sliced };
}

/** {@link sliceChapter} of `html` with the defaults, taken from {@link primeSlices} when it was given this chapter. */
export function slicesOf(html: string): SlicedChapter | null {
  if (primed && primed.html === html) return primed.sliced;
  return sliceChapter(html);
}

/** The chapter's HTML with only slice `index` in its container, the container marked (SLICE_CONTAINER_ATTR). */
export function chapterShell(html: string, sliced: SlicedChapter, index: number): string {
  const s = sliced.slices[index]!;
  const body = html.slice(s.start, s.end);
  if (sliced.containerTagEnd < 0) return html.slice(0, sliced.innerStart) + body + html.slice(sliced.innerEnd);
  const tagEnd = sliced.containerTagEnd;
  return `${html.slice(0, tagEnd)} ${SLICE_CONTAINER_ATTR}${html.slice(tagEnd, sliced.innerStart)}${body}${html.slice(sliced.innerEnd)}`;
}

/** Text as parse5 writes it in HTML (what a Locator's words look like in the chapter's markup). */
export const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/\u00a0/g, '&nbsp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/\u00a0/g, '&nbsp;').replace(/"/g, '&quot;');

/** Where `needle` occurs in `text` nearest to offset `expected`; -1 when it does not (or is empty). */
export function nearestOccurrence(text: string, needle: string, expected: number): number {
  let best = -1;
  if (needle) {
    for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
      if (best < 0 || Math.abs(at - expected) < Math.abs(best - expected)) best = at;
    }
  }
  return best;
}

const sliceAt = (sliced: SlicedChapter, offset: number) => {
  const i = sliced.slices.findIndex((s) => offset < s.end);
  return i < 0 ? sliced.slices.length - 1 : i;
};

const clamp = (x: number) => Math.min(100, Math.max(0, x));

/**
 * Which slice goes first, the one holding the place the chapter opens at, and that place within the slice alone
 * (a percentage of the chapter is a percentage of that slice until the rest is in):
 * - an anchor: the slice holding the element with that id (or name);
 * - the end (paging back from the next chapter): the last slice;
 * - a stored position: the slice holding its words, the occurrence nearest its progression;
 * - a percentage: the slice at that share of the chapter's HTML.
 */
export function firstSlice<P extends SlicePosition>(html: string, sliced: SlicedChapter, position: P): { index: number; position: P | SlicePosition } {
  const total = html.length;
  const local = (pct: number, index: number) => {
    const s = sliced.slices[index]!;
    return clamp((((pct / 100) * total - s.start) / Math.max(1, s.end - s.start)) * 100);
  };
  switch (position.kind) {
    case 'anchor': {
      const value = escapeAttr(position.id);
      let at = html.indexOf(` id="${value}"`);
      if (at < 0) at = html.indexOf(` name="${value}"`);
      return { index: at < 0 ? 0 : sliceAt(sliced, at), position };
    }
    case 'end':
      return { index: sliced.slices.length - 1, position };
    case 'stored': {
      const { locator } = position;
      const expected = (clamp(locator.progression * 100) / 100) * total;
      const best = nearestOccurrence(html, escapeText((locator.text?.before ?? '') + (locator.text?.highlight ?? '')), expected);
      const index = sliceAt(sliced, best >= 0 ? best : expected);
      return { index, position: { kind: 'stored', locator: { ...locator, progression: local(locator.progression * 100, index) / 100 } } };
    }
    case 'percentage': {
      const index = position.value <= 0 ? 0 : sliceAt(sliced, (clamp(position.value) / 100) * total);
      return { index, position: index === 0 && position.value <= 0 ? position : { kind: 'percentage', value: local(position.value, index) } };
    }
  }
}

/**
 * The slices of a written chapter not yet in its document: which comes next (those after the first one in order,
 * then those before it, nearest first) and their insertion in their place.
 */
export class SliceFiller {
  private readonly placed: ({ first: Node; last: Node } | null)[];
  private readonly order: number[];

  constructor(
    private readonly doc: Document,
    private readonly container: Element,
    private readonly html: string,
    private readonly sliced: SlicedChapter,
    first: number,
  ) {
    const n = sliced.slices.length;
    this.placed = Array.from({ length: n }, () => null);
    if (container.firstChild && container.lastChild) this.placed[first] = { first: container.firstChild, last: container.lastChild };
    this.order = [];
    for (let i = first + 1; i < n; i++) this.order.push(i);
    for (let i = first - 1; i >= 0; i--) this.order.push(i);
  }

  /** The container the written document marked (removing the mark), or the reading root. */
  static container(doc: Document, rootId: string): Element | null {
    const marked = doc.querySelector(`[${SLICE_CONTAINER_ATTR}]`);
    marked?.removeAttribute(SLICE_CONTAINER_ATTR);
    return marked ?? doc.getElementById(rootId);
  }

  get done(): boolean {
    return this.order.length === 0;
  }

  /** Whether the next slice goes before what is on screen (then the place in view must be kept). */
  get nextIsBefore(): boolean {
    const next = this.order[0];
    return next !== undefined && this.placed.some((p, i) => p !== null && i > next);
  }

  /** Parses the next slice in the container's context and puts it in its place; false when none is left. */
  /** Called with each slice put in, before anything lays it out (the frame hyphenates it: engine/hyphenation.ts). */
  onInsert: ((first: Node, last: Node) => void) | null = null;

  insertNext(): boolean {
    const index = this.order.shift();
    if (index === undefined) return false;
    const s = this.sliced.slices[index]!;
    const range = this.doc.createRange();
    range.selectNodeContents(this.container);
    const fragment = range.createContextualFragment(this.html.slice(s.start, s.end));
    const first = fragment.firstChild;
    const last = fragment.lastChild;
    const after = this.placed.find((p, i) => p !== null && i > index && p.first.parentNode === this.container);
    this.container.insertBefore(fragment, after ? after.first : null);
    if (first && last) {
      this.placed[index] = { first, last };
      this.onInsert?.(first, last);
    }
    return true;
  }
}
