/**
 * The reader's selection on an annotation surface (surface.ts), turned into what the adder offers: the selection
 * described on its root (anchoring.ts) and its box on the page, once it has settled (a touch selection's handles
 * move for a while). Also the other input the layer listens to there: clicks (a tap on a highlight opens the viewer)
 * and scrolling (the adder follows, the viewer closes).
 */
import { describeRange, type RangeDescription } from './anchoring.ts';
import type { AnnotationSurface } from './surface.ts';

/** A box on the page (viewport coordinates of the app's window). */
export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export interface PendingSelection {
  description: RangeDescription;
  box: Box;
}

/**
 * Whether this browser can annotate (reader.md §8 "Unsupported browser"): Annotator asks for `window.getSelection`;
 * the layer also finds the text under a tap (`caretPositionFromPoint`, or Chromium's older `caretRangeFromPoint`) to
 * open a highlight's viewer. Asked of the app's window: a browser lacking them lacks them in the chapter's frame too.
 */
export function annotatorSupported(win: Window = window): boolean {
  const doc = win.document as Partial<Record<'caretPositionFromPoint' | 'caretRangeFromPoint', unknown>>;
  return typeof win.getSelection === 'function' && (typeof doc.caretPositionFromPoint === 'function' || typeof doc.caretRangeFromPoint === 'function');
}

/** Touch selections settle while their handles move: wait this long after the last change before offering the adder. */
const TOUCH_SETTLE_MS = 600;
const POINTER_SETTLE_MS = 120;

/** Where a range of the surface is on the page. */
export function boxOnPage(surface: AnnotationSurface, range: Range): Box | null {
  const f = surface.origin();
  const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0 || r.height > 0);
  const r = rects[0] ?? range.getBoundingClientRect();
  const last = rects.at(-1) ?? r;
  return { left: f.left + r.left, top: f.top + r.top, right: f.left + Math.max(r.right, last.right), bottom: f.top + last.bottom };
}

/**
 * A selection described on its root, with the selectors naming the root (a PDF's page) added; the whole root when
 * highlights cover whole roots (a content creator's on a PDF, reader.md §6).
 */
export function describeOn(at: { root: Element; selectors: RangeDescription['selectors'] }, range: Range, whole: boolean): RangeDescription | null {
  let target = range;
  if (whole) {
    target = at.root.ownerDocument.createRange();
    target.selectNodeContents(at.root);
  }
  const d = describeRange(at.root, target);
  return d ? { ...d, selectors: [...d.selectors, ...at.selectors] } : null;
}

export interface SelectionHooks {
  /**
   * The selection settled: what the adder offers, or null (none, or nowhere annotatable). `described`: a selection
   * was described, so the viewer gives way, even when it has no box to show the adder at.
   */
  onSelection(selection: PendingSelection | null, described: boolean): void;
  /** A click on the surface with nothing selected (a tap on a highlight is the viewer's). */
  onTap(event: MouseEvent): void;
  /** The surface scrolled or turned a page. */
  onScroll(): void;
}

/** Listens to the surface's selection, clicks and scrolling until the returned function is called. */
export function watchSelection(surface: AnnotationSurface, hooks: SelectionHooks): () => void {
  const doc = surface.doc;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let touch = false;
  const check = () => {
    const sel = doc.getSelection();
    if (!sel || sel.isCollapsed || sel.rangeCount === 0) return hooks.onSelection(null, false);
    const range = sel.getRangeAt(0);
    const at = surface.rootAt(range.commonAncestorContainer);
    if (!at) return hooks.onSelection(null, false);
    const description = describeOn(at, range, surface.wholeRoots);
    const box = description ? boxOnPage(surface, range) : null;
    hooks.onSelection(description && box ? { description, box } : null, description !== null);
  };
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(check, touch ? TOUCH_SETTLE_MS : POINTER_SETTLE_MS);
  };
  const onTouch = () => {
    touch = true;
  };
  const onPointer = (e: PointerEvent) => {
    touch = e.pointerType === 'touch';
  };
  const onClick = (e: MouseEvent) => {
    if (doc.getSelection()?.toString()) return;
    hooks.onTap(e);
  };
  // The adder follows its selection as the page moves.
  const onScroll = () => {
    schedule();
    hooks.onScroll();
  };
  // A selection made before the layer listened (the chapter was still settling) is offered too.
  schedule();
  surface.scroller.addEventListener('scroll', onScroll, { passive: true });
  doc.addEventListener('selectionchange', schedule);
  doc.addEventListener('pointerdown', onPointer);
  doc.addEventListener('touchstart', onTouch, { passive: true });
  doc.addEventListener('click', onClick, { capture: true });
  return () => {
    clearTimeout(timer);
    surface.scroller.removeEventListener('scroll', onScroll);
    doc.removeEventListener('selectionchange', schedule);
    doc.removeEventListener('pointerdown', onPointer);
    doc.removeEventListener('touchstart', onTouch);
    doc.removeEventListener('click', onClick, { capture: true });
  };
}
