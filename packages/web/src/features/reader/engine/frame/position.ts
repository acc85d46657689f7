/**
 * A chapter frame's position (DESIGN.md): the Range the reader is at, kept across every re-layout (font, width,
 * mode, rotation, images arriving) and put back in view after it; replaced only when the reader moves. Captured as
 * the first character in view, and given out as a Locator (its words and its progression) that finds it again.
 */
import { READER_CONSTANTS } from '@lectern/core';
import type { InitialPosition, Locator } from '../../../../shared/reading/position.ts';
import { ROOT_ID } from '../chapterDocument.ts';
import type { VerticalFlow } from '../paging.ts';
import { plainOffset, plainText } from '../hyphenation.ts';
import { indexText, locate } from '../textMarks.ts';
import type { FrameLayout } from './layout.ts';

const SNIPPET = 32;
const EVERY_TEXT: ReadonlySet<string> = new Set();

type CaretAt = (x: number, y: number) => Range | null;

export interface ProgressHooks {
  /** The reader moved (scrolled, turned a page, re-laid out): percentage 0-100 and where exactly. */
  onProgress(percentage: number, locator: Locator): void;
  /** Pages changed (paged mode): the current one and how many there are. */
  onPages?(index: number, count: number): void;
}

export class FramePosition {
  /** The place kept across re-layouts; null once the reader scrolls (the place is then what is in view). */
  private kept: Range | null = null;
  private restoring = 0;
  private progressTimer = 0;
  private destroyed = false;

  constructor(
    private readonly layout: FrameLayout,
    private readonly href: string,
    private readonly hooks: ProgressHooks,
    /** Called before the view is put somewhere: a running page slide must not carry on over it. */
    private readonly stopMoving: () => void,
  ) {}

  /** The range kept across re-layouts, if any. */
  get anchor(): Range | null {
    return this.kept;
  }

  /** The reader's place: the range kept across re-layouts, else the first character in view. */
  place(): Range | null {
    return this.kept ?? this.capture();
  }

  /** The first character in view, as a collapsed Range. */
  capture(): Range | null {
    return captureRange(this.layout);
  }

  /** Scrolls or pages so that `range` is at the top of the view; `pct` when there is no range. */
  restore(range: Range | null, pct: number) {
    if (this.layout.fixed) {
      if (range) this.kept = range;
      this.report();
      return;
    }
    this.stopMoving();
    this.restoring++;
    this.layout.show(range && range.startContainer.isConnected ? rectOf(range) : null, pct);
    if (range) this.kept = range;
    this.layout.win.requestAnimationFrame(() => {
      this.restoring = Math.max(0, this.restoring - 1);
      this.report();
    });
  }

  /** reader.md §4 "Initial position priority" applied (the layout already written). */
  goToInitial(position: InitialPosition) {
    switch (position.kind) {
      case 'anchor':
        if (this.goToAnchor(position.id)) return;
        this.restore(null, 0);
        return;
      case 'end':
        this.restore(null, 100);
        this.kept = null;
        return;
      case 'stored': {
        const range = findLocator(this.layout.doc, position.locator);
        this.restore(range, position.locator.progression * 100);
        return;
      }
      case 'percentage':
        this.restore(null, position.value);
        this.kept = null;
        return;
    }
  }

  /** Hash links and URL anchors: to the element, with the 100 px correction after 50 ms in scroll mode. */
  goToAnchor(id: string): boolean {
    const { doc, win, scroller } = this.layout;
    const target = doc.getElementById(id) ?? doc.getElementsByName(id)[0];
    if (!target) return false;
    const range = doc.createRange();
    range.selectNodeContents(target);
    range.collapse(true);
    if (this.layout.paged || this.layout.vertical) {
      this.restore(range, this.layout.percentage());
      return true;
    }
    this.restoring++;
    scroller.scrollTop = Math.max(0, scroller.scrollTop + this.layout.toView(target.getBoundingClientRect().top));
    win.setTimeout(() => {
      scroller.scrollTop = Math.max(0, scroller.scrollTop - READER_CONSTANTS.hashScrollOffsetPx);
      this.kept = range;
      this.restoring = Math.max(0, this.restoring - 1);
      this.report();
    }, READER_CONSTANTS.hashScrollDelayMs);
    return true;
  }

  goToPercentage(pct: number) {
    this.kept = null;
    this.restore(null, pct);
  }

  /** The view scrolled: by the reader (the place is now what is in view), or by a restore (ignored). */
  scrolled() {
    if (this.restoring) return;
    this.kept = null;
    this.report();
  }

  /** A page turn landed: the place is the first character of the new page. */
  settled() {
    this.kept = this.capture();
    this.report();
  }

  locator(): Locator {
    return this.locatorOf(this.kept ?? this.capture());
  }

  /** The Locator of a place in this chapter (the reader's, or another's such as the phrase read aloud). */
  locatorOf(range: Range | null): Locator {
    return locatorAt(this.href, this.layout.percentage() / 100, range, () => !this.layout.fixed && this.layout.seenWhole());
  }

  /** Tells the app where the reader is, once things have settled (60 ms after the last move). */
  report() {
    if (this.destroyed) return;
    window.clearTimeout(this.progressTimer);
    this.progressTimer = window.setTimeout(() => {
      if (this.destroyed) return;
      this.hooks.onProgress(this.layout.percentage(), this.locator());
      if (this.layout.paged) {
        const { index, count } = this.layout.pages();
        this.hooks.onPages?.(index, count);
      }
    }, 60);
  }

  destroy() {
    this.destroyed = true;
    window.clearTimeout(this.progressTimer);
  }
}

/**
 * The Locator of a place: its words (32 characters either side) and its progression (0 to 1). Without words to find
 * the place by (a chapter of pictures) the progression alone is the place; a chapter seen whole (`seenWhole`) counts
 * as read (100 %), but its place is its start: on a smaller screen it is longer, and 1 would open it at its end.
 */
export function locatorAt(href: string, progression: number, range: Range | null, seenWhole: () => boolean): Locator {
  const node = range?.startContainer;
  if (!range || !node || node.nodeType !== Node.TEXT_NODE) return { href, progression: seenWhole() ? 0 : progression };
  // (the words as the book has them: without the soft hyphens the frame put in, engine/hyphenation.ts)
  const data = plainText(node as Text);
  const off = plainOffset(node as Text, range.startOffset);
  return {
    href,
    progression,
    text: { before: data.slice(Math.max(0, off - SNIPPET), off), highlight: data.slice(off, off + SNIPPET), after: data.slice(off + SNIPPET, off + 2 * SNIPPET) },
  };
}

/** The words of a Locator found again: the snippet nearest its progression, or null. */
export function findLocator(doc: Document, locator: Locator): Range | null {
  const before = locator.text?.before ?? '';
  // the words before and at the place (a Locator with words after it only, as another client may send, finds none)
  const needle = before + (locator.text?.highlight ?? '');
  const root = doc.getElementById(ROOT_ID);
  if (!needle || !root) return null;
  // every text node, as the locator's words were taken from whichever node the caret was in
  const index = indexText(root, EVERY_TEXT);
  const all = index.text;
  const expected = locator.progression * all.length;
  let best = -1;
  for (let at = all.indexOf(needle); at >= 0; at = all.indexOf(needle, at + 1)) {
    if (best < 0 || Math.abs(at - expected) < Math.abs(best - expected)) best = at;
  }
  if (best < 0) return null;
  const found = locate(index, best + before.length);
  if (!found) return null;
  const range = doc.createRange();
  range.setStart(found.node, found.offset);
  range.collapse(true);
  return range;
}

function caretOf(doc: Document): CaretAt | undefined {
  return (doc as Document & { caretRangeFromPoint?: CaretAt }).caretRangeFromPoint;
}

/** The first character in view of the chapter as laid out, as a collapsed Range (null: no text in view). */
export function captureRange(layout: FrameLayout): Range | null {
  const { doc, win, paged } = layout;
  const root = doc.getElementById(ROOT_ID);
  if (!root) return null;
  const caret = caretOf(doc);
  if (!caret) return null;
  const flow = layout.flow;
  if (flow) return captureVertical(layout, root, caret, flow);
  const rootRect = root.getBoundingClientRect();
  const pad = parseFloat(win.getComputedStyle(root).paddingLeft) || 0;
  const bodyPad = paged ? parseFloat(win.getComputedStyle(doc.body).paddingTop) || 0 : 0;
  const pageWidth = layout.pageWidth;
  // In paged mode the root is cut into one fragment per page, so its bounding box spans every page: the width of
  // the text column is the first fragment's. The column in view starts at x = 0 of the viewport; in scroll mode
  // at the root's content box.
  const columnWidth = paged ? (root.getClientRects()[0]?.width ?? rootRect.width) : rootRect.width;
  const left = paged ? (pageWidth - Math.min(pageWidth, columnWidth)) / 2 + pad : rootRect.left + pad;
  // A stacked chapter (frame/stack.ts) is laid out whole in its frame: the view starts this far down it.
  const top = layout.stack ? layout.stack.viewTop : 0;
  for (let y = top + bodyPad + 2; y < Math.min(win.innerHeight, top + bodyPad + 160); y += 6) {
    for (const dx of [1, 20, 60]) {
      const r = caret.call(doc, left + dx, y);
      if (!r || r.startContainer.nodeType !== Node.TEXT_NODE || !root.contains(r.startContainer)) continue;
      // A line whose box reaches into the view but whose letters are above it (only its descenders show) is not
      // the first line the reader sees: restoring it would bring the line above back into view.
      const glyph = rectOf(r);
      if (glyph && glyph.height && glyph.top - top < bodyPad - 1) continue;
      return (paged && lineStart(layout, r, left + Math.min(pageWidth, columnWidth) - 2 * pad, y)) || r;
    }
  }
  return null;
}

/**
 * The first character in view of a chapter in vertical writing: the start of the first line wholly in view — the
 * rightmost one in vertical-rl and sideways-rl, the leftmost in vertical-lr and sideways-lr (`flow.lr`). Its lines
 * start at the root's top padding (at its bottom padding when they run upwards: sideways-lr), on every page (the
 * root's inline padding is not fragmented) and in scroll mode.
 */
function captureVertical(layout: FrameLayout, root: Element, caret: CaretAt, flow: VerticalFlow): Range | null {
  const { doc, win, paged } = layout;
  const width = doc.documentElement.clientWidth || win.innerWidth;
  const height = doc.documentElement.clientHeight || win.innerHeight;
  const rootStyle = win.getComputedStyle(root);
  const rootRect = paged ? null : root.getBoundingClientRect();
  const start = flow.upward
    ? (rootRect ? rootRect.bottom : height) - (parseFloat(rootStyle.paddingBottom) || 0)
    : (rootRect ? rootRect.top : 0) + (parseFloat(rootStyle.paddingTop) || 0);
  const inward = flow.upward ? -1 : 1;
  // (a point in the body's margin would give the caret nearest to it anywhere in the chapter: from inside it)
  const bodyStyle = paged ? win.getComputedStyle(doc.body) : null;
  const edge = flow.lr ? parseFloat(bodyStyle?.paddingLeft ?? '0') || 0 : width - (parseFloat(bodyStyle?.paddingRight ?? '0') || 0);
  const across = flow.lr ? 1 : -1;
  for (let dx = 2; dx < Math.min(width, 240); dx += 6) {
    const x = edge + across * dx;
    if (x <= 0 || x >= width) break;
    for (const dy of [1, 20, 60]) {
      const r = caret.call(doc, x, start + inward * dy);
      if (!r || r.startContainer.nodeType !== Node.TEXT_NODE || !root.contains(r.startContainer)) continue;
      // Only a glyph on screen: a line cut by the frame's edge (half of it on the previous screen) is not the first
      // line the reader sees, and a caret on another page is not in view at all.
      const glyph = rectOf(r);
      if (glyph && (glyph.width || glyph.height) && (glyph.right > width + 1 || glyph.left < -1 || glyph.top < -1 || glyph.bottom > height + 1)) continue;
      return r;
    }
  }
  return null;
}

/**
 * A right-to-left line starts at its right: the caret found at the left of the first line in view is its last
 * word, so the first is looked for at the right of the same line (paged mode; null when the text there is not
 * right to left or nothing is found).
 */
function lineStart(layout: FrameLayout, found: Range, right: number, y: number): Range | null {
  const { doc, win } = layout;
  const parent = found.startContainer.parentElement;
  if (!parent || win.getComputedStyle(parent).direction !== 'rtl') return null;
  const root = doc.getElementById(ROOT_ID);
  const caret = caretOf(doc);
  for (const dx of [1, 20, 60]) {
    const r = caret?.call(doc, right - dx, y);
    if (r && r.startContainer.nodeType === Node.TEXT_NODE && root?.contains(r.startContainer)) return r;
  }
  return null;
}

/** The box of a range's first character (its last when it is at a text's end), or null. */
export function rectOf(range: Range): DOMRect | null {
  try {
    const r = range.cloneRange();
    const node = r.startContainer;
    if (node.nodeType === Node.TEXT_NODE) {
      const len = (node as Text).length;
      if (r.startOffset < len) r.setEnd(node, r.startOffset + 1);
      else if (r.startOffset > 0) r.setStart(node, r.startOffset - 1);
    }
    const rects = r.getClientRects();
    return rects[0] ?? r.getBoundingClientRect();
  } catch {
    return null;
  }
}
