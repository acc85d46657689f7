/**
 * Where an annotation sits in a chapter, and finding it again (docs/decisions.md "Annotations in the reader"; the
 * approach of Hypothesis's client): a selection is described three ways — Annotator `ranges` (an element path and
 * character offsets, what Annotator clients read), a W3C TextPositionSelector (start and end in the chapter's text) and
 * a TextQuoteSelector (the exact words with some text before and after). Anchoring tries the position first (the words
 * must still be there), then the quote, choosing among its occurrences by the context around it and the distance from
 * where it was; nothing found means the annotation is orphaned (listed, never dropped).
 *
 * Offsets count the characters of the root's text nodes in document order (engine/textMarks.ts `indexText`), which
 * search marks and highlight wrappers leave unchanged, as do the soft hyphens the frame supplies (indexText leaves
 * them out).
 */
import type { AnnotationRange, AnnotationSelector } from '@lectern/core';
import { indexText, locate, textLength, type TextIndex } from '../engine/textMarks.ts';
import { plainOffset } from '../engine/hyphenation.ts';

/** How much text before and after the quote is kept to tell its occurrences apart. */
export const QUOTE_CONTEXT = 32;

export interface RangeDescription {
  quote: string;
  ranges: AnnotationRange[];
  selectors: AnnotationSelector[];
}

/** The character offset in root's text of a DOM boundary point (node, offset). */
function offsetOf(index: TextIndex, root: Element, node: Node, offset: number): number {
  if (node.nodeType === Node.TEXT_NODE) {
    const i = index.nodes.indexOf(node as Text);
    if (i >= 0) return index.starts[i]! + plainOffset(node as Text, offset);
  }
  // An element boundary: the length of every text node that ends at or before it.
  const point = root.ownerDocument.createRange();
  try {
    point.setStart(node, offset);
  } catch {
    return 0;
  }
  let count = 0;
  for (let i = 0; i < index.nodes.length; i++) {
    const n = index.nodes[i]!;
    if (point.comparePoint(n, n.length) > 0) break;
    count = index.starts[i]! + textLength(n);
  }
  return count;
}

/** An element's path below root, in Annotator's form (`/p[3]/em[1]`; the root itself is ''). */
function elementPath(root: Element, el: Element): string {
  const parts: string[] = [];
  for (let e: Element | null = el; e && e !== root; e = e.parentElement) {
    const name = e.localName;
    let n = 1;
    for (let s = e.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === name) n++;
    parts.unshift(`${name}[${n}]`);
  }
  return parts.length ? `/${parts.join('/')}` : '';
}

/** The element holding a boundary and the character offset into that element's text. */
function elementPoint(index: TextIndex, root: Element, textOffset: number, node: Node): { path: string; offset: number } {
  const el = (node.nodeType === Node.ELEMENT_NODE ? (node as Element) : node.parentElement) ?? root;
  const container = root.contains(el) ? el : root;
  const first = indexText(container);
  const start = first.nodes.length ? index.starts[index.nodes.indexOf(first.nodes[0]!)] ?? 0 : textOffset;
  return { path: elementPath(root, container), offset: Math.max(0, textOffset - start) };
}

/** The three descriptions of a selection under root (null when it holds no text of root). */
export function describeRange(root: Element, range: Range): RangeDescription | null {
  if (!root.contains(range.commonAncestorContainer) && range.commonAncestorContainer !== root) return null;
  const index = indexText(root);
  const start = offsetOf(index, root, range.startContainer, range.startOffset);
  const end = offsetOf(index, root, range.endContainer, range.endOffset);
  if (end <= start) return null;
  const exact = index.text.slice(start, end);
  if (!exact.trim()) return null;
  const from = elementPoint(index, root, start, range.startContainer);
  const to = elementPoint(index, root, end, range.endContainer);
  return {
    quote: exact,
    ranges: [{ start: from.path, startOffset: from.offset, end: to.path, endOffset: to.offset }],
    selectors: [
      { type: 'TextQuoteSelector', exact, prefix: index.text.slice(Math.max(0, start - QUOTE_CONTEXT), start), suffix: index.text.slice(end, end + QUOTE_CONTEXT) },
      { type: 'TextPositionSelector', start, end },
    ],
  };
}

/** How many characters two strings share at their ends that touch the quote (prefix: at its end; suffix: at its start). */
function sharedEnd(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}
function sharedStart(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/** Where the annotation's words are now, in root's text offsets; null when they are gone (an orphan). */
export function anchorOffsets(index: TextIndex, annotation: { quote: string; selectors: readonly AnnotationSelector[] }): { start: number; end: number } | null {
  const quoteSel = annotation.selectors.find((s) => s.type === 'TextQuoteSelector');
  const posSel = annotation.selectors.find((s) => s.type === 'TextPositionSelector');
  const exact = quoteSel?.exact ?? annotation.quote;
  if (!exact) return null;
  const text = index.text;
  // 1. The position, when the same words are still there.
  if (posSel && text.slice(posSel.start, posSel.end) === exact) return { start: posSel.start, end: posSel.end };
  // 2. The quote: every occurrence scored by matching context, then by nearness to where it was.
  const prefix = quoteSel?.prefix ?? '';
  const suffix = quoteSel?.suffix ?? '';
  const expected = posSel?.start ?? 0;
  let best: { start: number; score: number; distance: number } | null = null;
  for (let at = text.indexOf(exact); at >= 0; at = text.indexOf(exact, at + 1)) {
    const score = sharedEnd(text.slice(Math.max(0, at - prefix.length), at), prefix) + sharedStart(text.slice(at + exact.length, at + exact.length + suffix.length), suffix);
    const distance = Math.abs(at - expected);
    if (!best || score > best.score || (score === best.score && distance < best.distance)) best = { start: at, score, distance };
  }
  return best ? { start: best.start, end: best.start + exact.length } : null;
}

/** A DOM range over root's text from `start` to `end`. */
export function rangeOf(root: Element, index: TextIndex, start: number, end: number): Range | null {
  const a = locate(index, start);
  const b = locate(index, end);
  if (!a || !b) return null;
  const range = root.ownerDocument.createRange();
  range.setStart(a.node, a.offset);
  range.setEnd(b.node, b.offset);
  return range;
}

/** Anchors many annotations against one index of root's text (built once: a chapter with a thousand stays fast). */
export function anchorAll<T extends { id: string; quote: string; selectors: readonly AnnotationSelector[] }>(
  root: Element,
  annotations: readonly T[],
): { anchored: { annotation: T; range: Range }[]; orphans: T[] } {
  const index = indexText(root);
  const anchored: { annotation: T; range: Range }[] = [];
  const orphans: T[] = [];
  for (const annotation of annotations) {
    const at = anchorOffsets(index, annotation);
    const range = at ? rangeOf(root, index, at.start, at.end) : null;
    if (range) anchored.push({ annotation, range });
    else orphans.push(annotation);
  }
  return { anchored, orphans };
}
