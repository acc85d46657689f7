/**
 * Drawing a chapter's annotations on a surface (surface.ts): each root's annotations anchored against one index of
 * its text (anchoring.ts) and drawn (highlighter.ts) 10 at a time with 10 ms between batches (reader.md §9), those in
 * view first; the ones that no longer anchor are the orphans. A root drawn again (a PDF page rebuilt by a zoom)
 * stops the run drawing on its old text.
 */
import { ANNOTATION_TIMING, type Annotation } from '@lectern/core';
import { indexText } from '../engine/textMarks.ts';
import { anchorOffsets, rangeOf } from './anchoring.ts';
import { DrawingQueue, type Highlighter } from './highlighter.ts';
import type { AnnotationSurface } from './surface.ts';

export const isNote = (a: Pick<Annotation, 'text'>) => a.text.trim() !== '';

export interface DrawingOptions {
  surface: AnnotationSurface;
  highlighter: Highlighter;
  /** The annotations as they are now (what a rebuilt PDF page draws), not as loaded. */
  annotations(): Annotation[];
  /** Every root drawn so far: the annotations that anchored nowhere. */
  onOrphans(orphans: Annotation[]): void;
  /** An annotation to bring into view once drawn (chosen in the notes panel, in another chapter). */
  revealRef?: { current: string | null };
}

/** Draws on every root in place now and on each (re)built later, until the returned function is called. */
export function drawAnnotations(o: DrawingOptions): () => void {
  const { surface, highlighter: hl, revealRef } = o;
  let stopped = false;
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const lostByRoot = new Map<string, Annotation[]>();
  const runs = new Map<string, number>();
  const draw = (key: string, root: Element) => {
    const run = (runs.get(key) ?? 0) + 1;
    runs.set(key, run);
    const list = o.annotations().filter((a) => surface.keyOf(a) === key);
    const index = indexText(root);
    const queue = new DrawingQueue(list, surface.viewOf(index));
    const lost: Annotation[] = [];
    let viewMarked = false;
    const batch = () => {
      if (stopped || runs.get(key) !== run) return;
      const next = queue.take(ANNOTATION_TIMING.batchSize);
      // The reader moved while drawing: what was drawn out of view so far is painted now.
      if (queue.moved) hl.flush();
      for (const a of next) {
        const where = anchorOffsets(index, a);
        const range = where ? rangeOf(root, index, where.start, where.end) : null;
        // In view and near it: painted with the batch; the others together at the end (highlighter.ts `add`).
        if (range) hl.add(a.id, range, isNote(a) ? 'note' : 'highlight', queue.near(a) ? 'now' : 'later');
        else lost.push(a);
      }
      // The bench reads these: the highlights in view drawn, then all of them.
      if (!viewMarked && queue.viewDrawn) {
        viewMarked = true;
        performance.mark('reader:annotations-in-view');
      }
      if (queue.size) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          batch();
        }, ANNOTATION_TIMING.batchDelayMs);
        timers.add(timer);
      } else {
        hl.flush();
        performance.mark('reader:annotations-drawn');
        lostByRoot.set(key, lost);
        o.onOrphans([...lostByRoot.values()].flat());
        const wanted = revealRef?.current ? hl.rangeOf(revealRef.current) : null;
        if (wanted && revealRef) {
          revealRef.current = null;
          surface.reveal(wanted);
        }
      }
    };
    batch();
  };
  for (const { key, root } of surface.roots()) draw(key, root);
  // A PDF page drawn later (or again, at another zoom): its annotations drawn on its new text.
  const unsubscribe = surface.onRoot(draw);
  // The notes panel chose one on a page not drawn yet: to that page, drawn there once its text is in.
  const wanted = revealRef?.current ? o.annotations().find((a) => a.id === revealRef.current) : null;
  if (wanted && !surface.root(surface.keyOf(wanted))) surface.bringIntoView(surface.keyOf(wanted));
  return () => {
    stopped = true;
    for (const timer of timers) clearTimeout(timer);
    unsubscribe();
  };
}

/** Draws one annotation again (saved or changed): where it is drawn, else anchored afresh on its root. */
export function redrawAnnotation(surface: AnnotationSurface, hl: Highlighter, a: Annotation) {
  let r = hl.rangeOf(a.id);
  const root = surface.root(surface.keyOf(a));
  if (!r && root) {
    const index = indexText(root);
    const at = anchorOffsets(index, a);
    r = at ? rangeOf(root, index, at.start, at.end) : null;
  }
  if (r) hl.add(a.id, r, isNote(a) ? 'note' : 'highlight');
}
