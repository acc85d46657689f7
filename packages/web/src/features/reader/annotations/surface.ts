/**
 * Where annotations are made and drawn (docs/decisions.md "Annotations in the reader"): a chapter's frame (one text
 * root, the chapter) or a PDF's pages (a text root per page: the text layer pdf.js lays over the page's canvas). The
 * annotation hook works the same on both: it asks the surface which root a selection is in, which root an annotation
 * belongs to, and is told when a root's text is (re)built — a PDF page is drawn when it comes near the view, and again
 * at another zoom.
 *
 * On a PDF the selectors count the text of the page's text layer and a FragmentSelector names the page
 * (core `pdfPageSelector`), so an annotation is anchored when its page is drawn, and only against that page.
 */
import { pdfPageOf, pdfPageSelector, type AnnotationSelector } from '@lectern/core';
import type { FrameController } from '../engine/frameController.ts';
import type { TextIndex } from '../engine/textMarks.ts';
import { frameView, type TextSpan } from './highlighter.ts';

/** A PDF page's text layer says it has been (re)built with this event (PdfView), bubbling to the document's root. */
export const TEXT_LAYER_EVENT = 'lectern-textlayer';
/** …and carries this attribute while its text is in place. */
export const TEXT_LAYER_READY = 'data-text-ready';

export interface AnnotationSurface {
  /** The document holding the text: its selection, clicks and highlight registry are the reader's. */
  readonly doc: Document;
  /** What scrolls when the reader moves on (the viewer closes, the adder follows). */
  readonly scroller: EventTarget;
  /** Where the document's client coordinates start in the app's window (a frame's place; 0, 0 for the app's own). */
  origin(): { left: number; top: number };
  /** The text root holding a node, with the selectors that name that root (a PDF's page); null: not annotatable. */
  rootAt(node: Node): { root: Element; key: string; selectors: AnnotationSelector[] } | null;
  /** The key of the root an annotation belongs to (its page on a PDF; '' for a chapter). */
  keyOf(annotation: { selectors: readonly AnnotationSelector[] }): string;
  /** The root of a key when its text is in place now. */
  root(key: string): Element | null;
  /** Every root whose text is in place now. */
  roots(): { key: string; root: Element }[];
  /** Calls back when a root's text has been (re)built; returns the unsubscribe. */
  onRoot(callback: (key: string, root: Element) => void): () => void;
  /** The text in view of a root, for drawing what the reader sees first (null: not known). */
  viewOf(index: TextIndex): () => TextSpan | null;
  /** Brings a range into view. */
  reveal(range: Range): void;
  /** Brings a root not drawn yet into view, so that it gets drawn (a PDF page); false when there is no such root. */
  bringIntoView(key: string): boolean;
  /** Highlights cover whole roots (a content creator's on a PDF: reader.md §6). */
  readonly wholeRoots: boolean;
}

/** A chapter in its frame: one root, the chapter's reading root. */
export function frameSurface(controller: FrameController): AnnotationSurface | null {
  const root = controller.readingRoot;
  if (!root) return null;
  const doc = controller.frameDocument;
  return {
    doc,
    // (a stacked chapter moves with the stack's scroller: frame/stack.ts)
    scroller: controller.scrollEvents,
    origin: () => {
      const f = controller.frameElement.getBoundingClientRect();
      return { left: f.left, top: f.top };
    },
    rootAt: (node) => (root.contains(node) ? { root, key: '', selectors: [] } : null),
    keyOf: () => '',
    root: (key) => (key === '' ? root : null),
    roots: () => [{ key: '', root }],
    onRoot: () => () => undefined,
    viewOf: (index) => frameView(index, controller),
    reveal: (range) => controller.reveal(range),
    bringIntoView: () => false,
    wholeRoots: false,
  };
}

/** A PDF's pages (the `.reader-pdf` element of PdfView): a root per page whose text layer is in place. */
export function pdfSurface(container: HTMLElement, opts: { wholePages: boolean }): AnnotationSurface {
  const doc = container.ownerDocument;
  const pageOf = (key: string) => container.querySelector<HTMLElement>(`.reader-pdf__page[data-page="${Number(key)}"]`);
  const textOf = (page: Element | null) => page?.querySelector(`.reader-pdf__text[${TEXT_LAYER_READY}]`) ?? null;
  return {
    doc,
    scroller: container,
    origin: () => ({ left: 0, top: 0 }),
    rootAt: (node) => {
      const el = node.nodeType === Node.ELEMENT_NODE ? (node as Element) : node.parentElement;
      const root = el?.closest(`.reader-pdf__text[${TEXT_LAYER_READY}]`);
      const page = root?.closest<HTMLElement>('.reader-pdf__page');
      if (!root || !page || !container.contains(page)) return null;
      const n = Number(page.dataset.page);
      return { root, key: String(n), selectors: [pdfPageSelector(n)] };
    },
    keyOf: (a) => String(pdfPageOf(a) ?? 1),
    root: (key) => textOf(pageOf(key)),
    roots: () =>
      Array.from(container.querySelectorAll<HTMLElement>('.reader-pdf__page'))
        .map((page) => ({ key: page.dataset.page ?? '', root: textOf(page) }))
        .filter((r): r is { key: string; root: Element } => !!r.root),
    onRoot: (callback) => {
      const on = (e: Event) => {
        const root = e.target as Element;
        const page = root.closest<HTMLElement>('.reader-pdf__page');
        if (page?.dataset.page && root.hasAttribute(TEXT_LAYER_READY)) callback(page.dataset.page, root);
      };
      container.addEventListener(TEXT_LAYER_EVENT, on);
      return () => container.removeEventListener(TEXT_LAYER_EVENT, on);
    },
    // A page is short: everything on it is drawn in its first batches anyway.
    viewOf: () => () => null,
    reveal: (range) => {
      const box = range.getBoundingClientRect();
      const view = container.getBoundingClientRect();
      container.scrollTop += box.top - view.top - container.clientHeight / 3;
    },
    bringIntoView: (key) => {
      const page = pageOf(key);
      if (!page) return false;
      container.scrollTop = page.offsetTop;
      return true;
    },
    wholeRoots: opts.wholePages,
  };
}
