/**
 * Finding words in a rendered chapter (the chapter frame's DOM, or a PDF page's text layer) for the search jump
 * (reader.md §4 "Search panel"): a passage found by its first words, whitespace-normalised, and the query's words
 * marked with `<mark>` elements wrapped around the text. Marks change no text, only the nodes that hold it, so a
 * character offset into the element's text means the same place before and after marking.
 *
 * Matching ignores case and accents and every whitespace difference: the server takes a chapter's text out of its
 * HTML with block boundaries as spaces, where the DOM may have none between two paragraphs.
 */

import { type FoldedText, foldText, foldWithOffsets, hasCjk, jumpPhrases, LOCATOR_LIMITS, type Locator } from '@lectern/core';
import { plainOffset, plainText, rawOffset } from './hyphenation.ts';

export const SEARCH_MARK_CLASS = 'lectern-search-hit';
export const SEARCH_MARK_CURRENT_CLASS = 'lectern-search-hit--current';
/** A chapter with a very common word is not turned into thousands of elements. */
export const MAX_MARKS = 400;

/**
 * A root's text: the soft hyphens the frame put in where the browser has no hyphenation (engine/hyphenation.ts) are
 * left out of `text` and of every offset into it (the book's own stay), so annotations, search marks and positions
 * count the same characters with and without them. An offset inside a node is turned into one of its data by `locate`.
 */
export interface TextIndex {
  nodes: Text[];
  /** where each node starts in `text` */
  starts: number[];
  text: string;
}

/** A node's length in the index's text (without the frame's soft hyphens). */
export const textLength = (node: Text): number => plainOffset(node, node.length);

// and ruby's readings (furigana), as the server's search passages leave them out: "猫である" is found across <ruby>猫<rt>ねこ</rt></ruby>
const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'RT', 'RP']);

/** The text of `root` and where each of its text nodes starts in it; `skip`: the elements whose text is left out. */
export function indexText(root: Element, skip: ReadonlySet<string> = SKIP): TextIndex {
  const doc = root.ownerDocument;
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => (n.parentElement && skip.has(n.parentElement.tagName.toUpperCase()) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  const nodes: Text[] = [];
  const starts: number[] = [];
  let text = '';
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    nodes.push(n as Text);
    starts.push(text.length);
    text += plainText(n as Text);
  }
  return { nodes, starts, text };
}

/** The node holding character `offset` of the index, and the offset inside it. */
export function locate(index: TextIndex, offset: number): { node: Text; offset: number } | null {
  const { nodes, starts } = index;
  if (!nodes.length) return null;
  let lo = 0;
  let hi = nodes.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  const node = nodes[lo]!;
  return { node, offset: rawOffset(node, Math.min(textLength(node), Math.max(0, offset - starts[lo]!))) };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Where a phrase starts and ends in the text `folded` was folded from (character offsets), comparing without
 * whitespace, case or accents as the server does (core's foldText); the first occurrence, or null. A regular
 * expression with optional whitespace between every character: no copy of the text without its spaces, fast on an
 * 800,000-character chapter.
 */
function findFolded(folded: FoldedText, phrase: string): { start: number; end: number } | null {
  const chars = Array.from(foldText(phrase.replace(/\s+/g, '')));
  if (!chars.length) return null;
  const m = new RegExp(chars.map(escapeRegExp).join('\\s*'), 'u').exec(folded.text);
  return m ? folded.original(m.index, m.index + m[0].length) : null;
}

/** Where a phrase starts and ends in `text`, as findFolded. */
export const findPhrase = (text: string, phrase: string) => findFolded(foldWithOffsets(text), phrase);

/** The first of `phrases` (most specific first) found under `root`: its character offsets in root's text. */
export function findPassage(root: Element, phrases: readonly string[]): { start: number; end: number } | null {
  if (!phrases.length) return null;
  const folded = foldWithOffsets(indexText(root).text);
  for (const phrase of phrases) {
    const hit = findFolded(folded, phrase);
    if (hit) return hit;
  }
  return null;
}


/**
 * The start a word's other forms share, for marking only (the server's engine stems properly; this makes the marks
 * agree with it for the common English endings): "martians" marks "Martian" too, "running" "run…".
 */
export function markStem(word: string): string {
  const w = foldText(word);
  if (w.length <= 4) return w;
  for (const [ending, keep] of [['ies', 1], ['ing', 0], ['es', 0], ['ed', 0], ['s', 0]] as const) {
    if (w.endsWith(ending) && w.length - ending.length >= 3) return w.slice(0, w.length - ending.length + keep);
  }
  return w;
}

/**
 * Every word of root's text that starts with the stem of one of `words` (so a query's "whale" marks "whales" too),
 * as character offsets, in order; at most MAX_MARKS.
 */
export function wordHits(text: string, words: readonly string[], folded: FoldedText = foldWithOffsets(text)): { start: number; end: number }[] {
  const stems = [...new Set(words.map((w) => markStem(w.trim())).filter(Boolean))].sort((a, b) => b.length - a.length);
  if (!stems.length) return [];
  // Chinese and Japanese have no spaces between words: such a word is marked where its characters stand, as they are.
  const alternatives = stems.map((w) => (hasCjk(w) ? `(?:${escapeRegExp(w)})` : `(?<![\\p{L}\\p{N}])(?:${escapeRegExp(w)})[\\p{L}\\p{N}]*`));
  const re = new RegExp(alternatives.join('|'), 'gu');
  const hits: { start: number; end: number }[] = [];
  for (const m of folded.text.matchAll(re)) {
    hits.push(folded.original(m.index, m.index + m[0].length));
    if (hits.length >= MAX_MARKS) break;
  }
  return hits;
}

/** Takes away the marks of an earlier search (their text stays where it was). */
export function clearMarks(root: Element) {
  const parents = new Set<Node>();
  for (const mark of Array.from(root.querySelectorAll(`mark.${SEARCH_MARK_CLASS}`))) {
    const parent = mark.parentNode;
    if (!parent) continue;
    while (mark.firstChild) parent.insertBefore(mark.firstChild, mark);
    parent.removeChild(mark);
    parents.add(parent);
  }
  for (const p of parents) p.normalize();
}

/**
 * Marks every word of root's text starting with one of `words`; a word that runs across elements gets a mark per
 * piece. The marks inside [passage.start, passage.end) get the "current" class. Returns the marks in text order.
 */
export function markWords(root: Element, words: readonly string[], passage?: { start: number; end: number } | null, folded?: FoldedText): HTMLElement[] {
  clearMarks(root);
  const index = indexText(root);
  const hits = wordHits(index.text, words, folded);
  const doc = root.ownerDocument;
  const made: { el: HTMLElement; at: number }[] = [];
  // Per text node, the pieces to wrap; wrapped from the last one back, so earlier offsets in a node stay valid.
  const pieces = new Map<number, { start: number; end: number; current: boolean; at: number }[]>();
  for (const hit of hits) {
    const current = !!passage && hit.start < passage.end && hit.end > passage.start;
    for (let i = 0; i < index.nodes.length; i++) {
      const s = index.starts[i]!;
      const e = s + textLength(index.nodes[i]!);
      if (e <= hit.start || s >= hit.end) continue;
      const list = pieces.get(i) ?? [];
      list.push({ start: Math.max(hit.start, s) - s, end: Math.min(hit.end, e) - s, current, at: hit.start });
      pieces.set(i, list);
    }
  }
  for (const [i, list] of pieces) {
    const node = index.nodes[i]!;
    for (const piece of list.sort((a, b) => b.start - a.start)) {
      const end = rawOffset(node, piece.end);
      const start = rawOffset(node, piece.start);
      if (end < node.length) node.splitText(end);
      const middle = start > 0 ? node.splitText(start) : node;
      const mark = doc.createElement('mark');
      mark.className = piece.current ? `${SEARCH_MARK_CLASS} ${SEARCH_MARK_CURRENT_CLASS}` : SEARCH_MARK_CLASS;
      middle.parentNode?.insertBefore(mark, middle);
      mark.appendChild(middle);
      made.push({ el: mark, at: piece.at + piece.start });
    }
  }
  return made.sort((a, b) => a.at - b.at).map((m) => m.el);
}

/** A collapsed Range at character `offset` of root's text (after any marking: offsets do not move). */
export function rangeAt(root: Element, offset: number): Range | null {
  const index = indexText(root);
  const at = locate(index, offset);
  if (!at) return null;
  const range = root.ownerDocument.createRange();
  range.setStart(at.node, at.offset);
  range.collapse(true);
  return range;
}

/**
 * A search hit as a Locator, the one type of a place in a book: its chapter, and the chosen result's passage as its
 * words, the passage's start the highlight and what passes the highlight's bound after it (so it keeps the bounds of
 * LOCATOR_LIMITS). Where the hit is in the chapter is not known from a search result (progression 0): its words find it.
 */
export function hitLocator(href: string, passage: string | null): Locator {
  if (!passage) return { href, progression: 0 };
  const highlight = passage.slice(0, LOCATOR_LIMITS.highlight);
  const after = passage.slice(LOCATOR_LIMITS.highlight, LOCATOR_LIMITS.highlight + LOCATOR_LIMITS.context);
  return { href, progression: 0, text: after ? { highlight, after } : { highlight } };
}

/** What the jump looks for of a hit: its passage's first 8 words, then 4 (reader.md §4), and the passage's length. */
export function hitPassage(hit: Locator): { phrases: string[]; extent: number } {
  const passage = (hit.text?.highlight ?? '') + (hit.text?.after ?? '');
  return { phrases: passage ? jumpPhrases(passage) : [], extent: passage.length };
}

/**
 * The jump: marks `words` under root and finds the passage by `phrases` (first 8 words, then 4; reader.md §4); the
 * marks within `extent` characters of its start (the snippet's length) are the current ones. Returns where to go:
 * the passage's start, else the first mark; null when neither is there.
 */
export function markAndFind(
  root: Element,
  phrases: readonly string[],
  words: readonly string[],
  extent = 0,
): { range: Range | null; marks: HTMLElement[] } {
  clearMarks(root);
  // One fold of the chapter's text for the passage and the words (marking changes nodes, not text).
  const folded = foldWithOffsets(indexText(root).text);
  let found: { start: number; end: number } | null = null;
  for (const phrase of phrases) if ((found = findFolded(folded, phrase))) break;
  const passage = found ? { start: found.start, end: Math.max(found.end, found.start + extent) } : null;
  const marks = markWords(root, words, passage, folded);
  if (passage) return { range: rangeAt(root, passage.start), marks };
  const first = marks[0];
  if (!first) return { range: null, marks };
  first.classList.add(SEARCH_MARK_CURRENT_CLASS);
  // In the mark's text (the controller measures a collapsed range by the character after it).
  const range = root.ownerDocument.createRange();
  range.setStart(first.firstChild ?? first, 0);
  range.collapse(true);
  return { range, marks };
}
