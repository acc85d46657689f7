/**
 * Drawing annotations in the chapter frame (issue 9 "Rendering"): with the CSS Custom Highlight API the ranges are
 * painted without touching the chapter's DOM (a thousand highlights cost no layout, and page positions, search
 * marks and the text offsets anchoring counts stay as they were); where the API is missing, each text node part is
 * wrapped in a `<mark class="lectern-annotation">` (text unchanged). Notes and plain highlights differ in colour;
 * the one being viewed is outlined.
 */

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
  private readonly ranges = new Map<string, { range: Range; kind: Kind }>();
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

  /** Paints one annotation's range (again: an earlier drawing of the same id is taken away first). */
  add(id: string, range: Range, kind: Kind) {
    this.remove(id);
    this.ranges.set(id, { range, kind });
    const set = this.sets[kind];
    if (set) set.add(range);
    else this.wrapped.set(id, wrap(this.doc, range, kind));
    if (this.active === id) this.setActive(id);
  }

  remove(id: string) {
    const entry = this.ranges.get(id);
    if (!entry) return;
    this.ranges.delete(id);
    this.sets[entry.kind]?.delete(entry.range);
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
      if (id && this.ranges.get(id)) api.registry.set(HIGHLIGHT_NAMES.active, new api.Highlight(this.ranges.get(id)!.range));
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
function wrap(doc: Document, range: Range, kind: Kind): HTMLElement[] {
  const marks: HTMLElement[] = [];
  const root = range.commonAncestorContainer;
  const walker = doc.createTreeWalker(root.nodeType === Node.TEXT_NODE ? root.parentNode! : root, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) if (range.intersectsNode(n)) texts.push(n as Text);
  for (const text of texts) {
    const start = text === range.startContainer ? range.startOffset : 0;
    const end = text === range.endContainer ? range.endOffset : text.length;
    if (end <= start) continue;
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
