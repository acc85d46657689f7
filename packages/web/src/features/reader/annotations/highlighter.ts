/**
 * Drawing annotations in the chapter frame (docs/decisions.md "Annotations in the reader"): with the CSS Custom
 * Highlight API the ranges are painted without touching the chapter's DOM (a thousand highlights cost no layout, and
 * page positions, search marks and the text offsets anchoring counts stay as they were); where the API is missing, each
 * text node part is wrapped in a `<mark class="lectern-annotation">` (text unchanged). Notes and plain highlights
 * differ in colour; the one being viewed is outlined.
 *
 * The drawing order (docs/performance.md "1,000 highlights in one chapter"): the spec's batches of 10 every 10 ms
 * (reader.md §9) take a second for a thousand highlights, so the queue starts with the ones in view and goes outwards
 * from there (`DrawingQueue`): what the reader can see is drawn in the first batches, the rest follows as the spec
 * says, and what is drawn far out of view is painted in one change at the end (`add(…, 'later')`, `flush()`).
 */
import type { AnnotationSelector } from '@lectern/core';
import type { TextIndex } from '../engine/textMarks.ts';

export const HIGHLIGHT_NAMES = { highlight: 'lectern-highlight', note: 'lectern-note', active: 'lectern-annotation-active' } as const;
const STYLE_ID = 'lectern-annotation-style';
const WRAP_CLASS = 'lectern-annotation';

type Kind = 'highlight' | 'note';

interface HighlightRegistry {
  set(name: string, value: unknown): void;
  delete(name: string): void;
}
type HighlightCtor = new (...ranges: Range[]) => { add(range: Range): void; delete(range: Range): boolean };

/** The frame's own Highlight registry and constructor, when its browser has them. */
function highlightApi(win: Window): { registry: HighlightRegistry; Highlight: HighlightCtor } | null {
  const w = win as unknown as { CSS?: { highlights?: HighlightRegistry }; Highlight?: HighlightCtor };
  return w.CSS?.highlights && w.Highlight ? { registry: w.CSS.highlights, Highlight: w.Highlight } : null;
}

const STYLES = `
::highlight(${HIGHLIGHT_NAMES.highlight}) { background-color: rgb(255 214 10 / 45%); color: inherit; }
::highlight(${HIGHLIGHT_NAMES.note}) { background-color: rgb(120 200 255 / 45%); color: inherit; text-decoration: underline dotted rgb(0 90 160); }
::highlight(${HIGHLIGHT_NAMES.active}) { background-color: rgb(255 170 0 / 60%); }
mark.${WRAP_CLASS} { background-color: rgb(255 214 10 / 45%); color: inherit; }
mark.${WRAP_CLASS}--note { background-color: rgb(120 200 255 / 45%); }
mark.${WRAP_CLASS}--active { background-color: rgb(255 170 0 / 60%); }
`;

export class Highlighter {
  private readonly api: ReturnType<typeof highlightApi>;
  private readonly sets: Record<Kind, InstanceType<HighlightCtor> | null>;
  private readonly wrapped = new Map<string, HTMLElement[]>();
  private readonly ranges = new Map<string, { range: Range; kind: Kind; painted: Range[] }>();
  /** drawn out of view, painted at the next flush() */
  private readonly waiting = new Set<string>();
  private active: string | null = null;

  constructor(private readonly doc: Document) {
    const win = doc.defaultView!;
    this.api = highlightApi(win);
    if (!doc.getElementById(STYLE_ID)) {
      const style = doc.createElement('style');
      style.id = STYLE_ID;
      style.textContent = STYLES;
      doc.head.appendChild(style);
    }
    if (this.api) {
      const { registry, Highlight } = this.api;
      this.sets = { highlight: new Highlight(), note: new Highlight() };
      registry.set(HIGHLIGHT_NAMES.highlight, this.sets.highlight);
      registry.set(HIGHLIGHT_NAMES.note, this.sets.note);
    } else {
      this.sets = { highlight: null, note: null };
    }
  }

  /**
   * Paints one annotation's range (again: an earlier drawing of the same id is taken away first). `later`: one out of
   * view, kept (for hit tests, `rangeOf`) but handed to the browser's highlights at the next `flush()` — in Chromium
   * every change to any highlight re-validates all of them in the next frame (its highlight markers are removed and
   * added again, and their text repainted), so a thousand added ten at a time cost a hundred frames of growing
   * work, where one flush costs one. The `<mark>` fallback paints at once.
   */
  add(id: string, range: Range, kind: Kind, when: 'now' | 'later' = 'now') {
    this.remove(id);
    const set = this.sets[kind];
    const painted = set ? paintedRanges(this.doc, range) : [];
    this.ranges.set(id, { range, kind, painted });
    if (set && when === 'later') this.waiting.add(id);
    else if (set) for (const r of painted) set.add(r);
    else this.wrapped.set(id, wrap(this.doc, range, kind));
    if (this.active === id) this.setActive(id);
  }

  /** Paints every range waiting (`add(…, 'later')`) in one change. */
  flush() {
    for (const id of this.waiting) {
      const entry = this.ranges.get(id);
      if (entry) for (const r of entry.painted) this.sets[entry.kind]?.add(r);
    }
    this.waiting.clear();
  }

  remove(id: string) {
    const entry = this.ranges.get(id);
    if (!entry) return;
    this.ranges.delete(id);
    this.waiting.delete(id);
    for (const r of entry.painted) this.sets[entry.kind]?.delete(r);
    for (const mark of this.wrapped.get(id) ?? []) unwrap(mark);
    this.wrapped.delete(id);
    if (this.active === id) this.setActive(null);
  }

  /** The annotation whose range holds the point (the frame's viewport coordinates), last drawn first. */
  hitTest(x: number, y: number): string | null {
    const doc = this.doc as Document & { caretRangeFromPoint?(x: number, y: number): Range | null; caretPositionFromPoint?(x: number, y: number): { offsetNode: Node; offset: number } | null };
    let node: Node | null = null;
    let offset = 0;
    const pos = doc.caretPositionFromPoint?.(x, y);
    if (pos) {
      node = pos.offsetNode;
      offset = pos.offset;
    } else {
      const r = doc.caretRangeFromPoint?.(x, y);
      if (r) {
        node = r.startContainer;
        offset = r.startOffset;
      }
    }
    if (!node) return null;
    for (const [id, { range }] of [...this.ranges].reverse()) {
      try {
        if (range.isPointInRange(node, offset) && !(range.comparePoint(node, offset) === 0 && isAtEnd(range, node, offset))) return id;
      } catch {
        /* a node of another document: not ours */
      }
    }
    return null;
  }

  rangeOf(id: string): Range | null {
    return this.ranges.get(id)?.range ?? null;
  }

  /** Outlines the annotation being viewed (null: none). */
  setActive(id: string | null) {
    const api = this.api;
    if (api) {
      if (id && this.ranges.get(id)) api.registry.set(HIGHLIGHT_NAMES.active, new api.Highlight(...this.ranges.get(id)!.painted));
      else api.registry.delete(HIGHLIGHT_NAMES.active);
    } else {
      for (const [key, marks] of this.wrapped) for (const m of marks) m.classList.toggle(`${WRAP_CLASS}--active`, key === id);
    }
    this.active = id;
  }

  clear() {
    for (const id of [...this.ranges.keys()]) this.remove(id);
    this.setActive(null);
  }
}

function isAtEnd(range: Range, node: Node, offset: number) {
  return node === range.endContainer && offset === range.endOffset;
}

/** The fallback: each text node part of the range inside a mark (the text itself unchanged). */
/** The text nodes a range covers, each with the part of it inside the range (empty parts left out). */
function textParts(doc: Document, range: Range): { text: Text; start: number; end: number }[] {
  const root = range.commonAncestorContainer;
  if (root.nodeType === Node.TEXT_NODE) return range.endOffset > range.startOffset ? [{ text: root as Text, start: range.startOffset, end: range.endOffset }] : [];
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const parts: { text: Text; start: number; end: number }[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!range.intersectsNode(n)) continue;
    const text = n as Text;
    const start = text === range.startContainer ? range.startOffset : 0;
    const end = text === range.endContainer ? range.endOffset : text.length;
    if (end > start) parts.push({ text, start, end });
  }
  return parts;
}

const blank = (p: { text: Text; start: number; end: number }) => !/\S/.test(p.text.data.slice(p.start, p.end));

/**
 * What of a range is painted: reader.md §4 "whitespace-only text nodes are not highlighted" (as Annotator's
 * highlighter skips them), so a range over such a node (the space between two words in their own elements, a
 * `<pre>`'s line breaks) is painted as the ranges of its other text; a range without one stays one range.
 */
export function paintedRanges(doc: Document, range: Range): Range[] {
  const parts = textParts(doc, range);
  if (!parts.some(blank)) return [range];
  return parts
    .filter((p) => !blank(p))
    .map((p) => {
      const r = doc.createRange();
      r.setStart(p.text, p.start);
      r.setEnd(p.text, p.end);
      return r;
    });
}

function wrap(doc: Document, range: Range, kind: Kind): HTMLElement[] {
  const marks: HTMLElement[] = [];
  for (const { text, start, end } of textParts(doc, range).filter((p) => !blank(p))) {
    let part = text;
    if (start > 0) part = part.splitText(start);
    if (end - start < part.length) part.splitText(end - start);
    const mark = doc.createElement('mark');
    mark.className = kind === 'note' ? `${WRAP_CLASS} ${WRAP_CLASS}--note` : WRAP_CLASS;
    part.parentNode!.insertBefore(mark, part);
    mark.appendChild(part);
    marks.push(mark);
  }
  return marks;
}

function unwrap(mark: HTMLElement) {
  const parent = mark.parentNode;
  if (!parent) return;
  while (mark.firstChild) parent.insertBefore(mark.firstChild, mark);
  parent.removeChild(mark);
  parent.normalize();
}

// ---- the drawing order ----

/** A stretch of the chapter's text, in the character offsets anchoring counts (engine/textMarks.ts `indexText`). */
export interface TextSpan {
  start: number;
  end: number;
}

/** Where an annotation was when it was made: its TextPositionSelector (null: none, e.g. an Annotator client's). */
export function storedSpan(annotation: { selectors: readonly AnnotationSelector[] }): TextSpan | null {
  const s = annotation.selectors.find((x) => x.type === 'TextPositionSelector');
  return s ? { start: s.start, end: s.end } : null;
}

/** How far a stored span is from the text in view, in characters (0: it overlaps the view). */
export function distanceFromView(span: TextSpan, view: TextSpan): number {
  return Math.max(0, view.start - span.end, span.start - view.end);
}

/**
 * The order to anchor and draw in: those overlapping the view first, in reading order (so the top of the page comes
 * first), then outwards by distance (the next and the previous pages, where the reader goes next), and those with
 * no stored position last, as they were. Without a view (nothing known of it yet) the stored order is kept.
 */
export function drawingOrder<T extends { selectors: readonly AnnotationSelector[] }>(items: readonly T[], view: TextSpan | null): T[] {
  if (!view) return [...items];
  const keyed = items.map((item, i) => {
    const span = storedSpan(item);
    return { item, i, distance: span ? distanceFromView(span, view) : Infinity, start: span?.start ?? 0 };
  });
  keyed.sort((a, b) => a.distance - b.distance || (a.distance === Infinity ? 0 : a.start - b.start) || a.i - b.i);
  return keyed.map((k) => k.item);
}

/**
 * The text in view from the first character on screen (`first`, e.g. FrameController.captureRange) over one screen's
 * share of the chapter's text (the text divided by the screens or pages it fills); from the progression (0-100) when
 * no character is found there. An estimate — a page with a picture holds less text — used only to order the queue.
 */
export function textInView(index: TextIndex, first: Range | null, progression: number, scroller: Element): TextSpan {
  const length = index.text.length;
  const screens = Math.max(1, scroller.scrollWidth / (scroller.clientWidth || 1), scroller.scrollHeight / (scroller.clientHeight || 1));
  let start = -1;
  if (first && first.startContainer.nodeType === Node.TEXT_NODE) {
    const i = index.nodes.indexOf(first.startContainer as Text);
    if (i >= 0) start = index.starts[i]! + first.startOffset;
  }
  if (start < 0) start = Math.round((Math.min(100, Math.max(0, progression)) / 100) * length);
  return { start, end: Math.min(length, start + Math.ceil(length / screens)) };
}

/**
 * The text in view in a chapter frame, looked for again only when the frame has scrolled or changed size (a page
 * turn moves the frame's scroll offset too).
 */
export function frameView(index: TextIndex, frame: { captureRange(): Range | null; percentage(): number; frameDocument: Document }): () => TextSpan {
  let key = '';
  let view: TextSpan | null = null;
  return () => {
    const doc = frame.frameDocument;
    const scroller = doc.scrollingElement ?? doc.documentElement;
    const now = `${scroller.scrollLeft} ${scroller.scrollTop} ${scroller.clientWidth} ${scroller.clientHeight} ${scroller.scrollWidth} ${scroller.scrollHeight}`;
    if (!view || now !== key) {
      key = now;
      view = textInView(index, frame.captureRange(), frame.percentage(), scroller);
    }
    return view;
  };
}

/**
 * The annotations still to draw, in drawing order around the view. `view` is asked again before every batch and,
 * when the reader has moved (another page, a scroll), what is left is ordered again around the new view.
 */
export class DrawingQueue<T extends { selectors: readonly AnnotationSelector[] }> {
  private left: T[];
  private view: TextSpan | null;
  private inViewTaken: boolean;

  constructor(
    items: readonly T[],
    private readonly viewOf: () => TextSpan | null,
  ) {
    this.view = viewOf();
    this.left = drawingOrder(items, this.view);
    this.inViewTaken = !this.nextInView();
  }

  get size() {
    return this.left.length;
  }

  /** Whether every annotation in view (as last seen) has been taken: the first time, the reader sees them all. */
  get viewDrawn() {
    return this.inViewTaken;
  }

  /** Whether the view moved before the last `take` (the reader turned a page or scrolled while drawing). */
  moved = false;

  /** The next `n` to draw, ordered again first when the view has moved. */
  take(n: number): T[] {
    const view = this.viewOf();
    this.moved = !!view && (!this.view || view.start !== this.view.start || view.end !== this.view.end);
    if (this.moved) {
      this.view = view;
      this.left = drawingOrder(this.left, view);
    }
    const out = this.left.splice(0, n);
    this.inViewTaken = !this.nextInView();
    return out;
  }

  /**
   * Whether an annotation is in view or within a view's length of it (the pages either side), or nothing is known of
   * the view: painted with its batch rather than at the end.
   */
  near(item: T): boolean {
    if (!this.view) return true;
    const span = storedSpan(item);
    return !!span && distanceFromView(span, this.view) <= Math.max(1, this.view.end - this.view.start);
  }

  private nextInView(): boolean {
    const next = this.left[0];
    const span = next ? storedSpan(next) : null;
    return !!(span && this.view && distanceFromView(span, this.view) === 0);
  }
}
