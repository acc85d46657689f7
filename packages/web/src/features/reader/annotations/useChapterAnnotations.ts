/**
 * The annotations of the chapter on show (issue 9): loaded from the store with the chapter's prefix, anchored in
 * the frame (anchoring.ts) in batches of 10 every 10 ms (reader.md §9), those in view first, drawn
 * (highlighter.ts), and the reader's selection and taps on highlights turned into the adder and the viewer. Store
 * failures become the §8 notices, shown for 5 s.
 */
import {
  ANNOTATION_LIMITS,
  ANNOTATION_TIMING,
  ANNOTATION_TYPE_NOTE,
  annotationPaths,
  storeErrorNotice,
  withSharing,
  type Annotation,
  type SharingChoices,
} from '@lectern/core';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api, isApiError, type AnnotationDraft } from '../../../api/client.ts';
import { queryKeys } from '../../../api/queryKeys.ts';
import { track } from '../../../shared/analytics.ts';
import { anchorOffsets, describeRange, rangeOf, type RangeDescription } from './anchoring.ts';
import { DrawingQueue, Highlighter } from './highlighter.ts';
import type { AnnotationSurface } from './surface.ts';
import { indexText } from '../engine/textMarks.ts';
import { TokenKeeper } from './tokenKeeper.ts';

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

/** What the editor (or the adder's Add Highlight) saves. */
export interface NoteFields {
  text: string;
  tags: string[];
  sharing: SharingChoices;
}

/** New highlights and notes are private unless the editor's boxes say otherwise (decisions.md). */
export const PRIVATE: SharingChoices = { view: false, edit: false, admin: false };

export type StoreAction = 'create' | 'update' | 'delete' | 'read' | 'search';

/** Touch selections settle while their handles move: wait this long after the last change before offering the adder. */
const TOUCH_SETTLE_MS = 600;
const POINTER_SETTLE_MS = 120;

const isNote = (a: Pick<Annotation, 'text'>) => a.text.trim() !== '';

/** One token keeper for the page: every chapter's store calls share it. */
const tokens = new TokenKeeper(() => api.annotationToken());
export const annotationToken = () => tokens.get();

/**
 * A selection described on its root, with the selectors naming the root (a PDF's page) added; the whole root when
 * highlights cover whole roots (a content creator's on a PDF, reader.md §6).
 */
function describeOn(at: { root: Element; selectors: RangeDescription['selectors'] }, range: Range, whole: boolean): RangeDescription | null {
  let target = range;
  if (whole) {
    target = at.root.ownerDocument.createRange();
    target.selectNodeContents(at.root);
  }
  const d = describeRange(at.root, target);
  return d ? { ...d, selectors: [...d.selectors, ...at.selectors] } : null;
}

export function useChapterAnnotations(opts: {
  bookId: string;
  titleSafe: string;
  href: string;
  /** the chapter's frame or a PDF's pages (surface.ts); null while there is none */
  surface: AnnotationSurface | null;
  enabled: boolean;
  /** ask for the chapter's annotations already (a signed-in reader's chapter on its way, its kind not known yet) */
  prefetch?: boolean;
  /** an annotation to bring into view once drawn (chosen in the notes panel, in another chapter) */
  revealRef?: { current: string | null };
}) {
  const { bookId, titleSafe, href, surface, enabled, prefetch = false, revealRef } = opts;
  const queryClient = useQueryClient();
  // The notes panel lists the book's annotations: a change here makes it ask again.
  const changed = useCallback(() => void queryClient.invalidateQueries({ queryKey: queryKeys.annotations(bookId) }), [queryClient, bookId]);
  const prefix = useMemo(() => annotationPaths.prefix(titleSafe || 'book', bookId, href), [titleSafe, bookId, href]);
  const [annotations, setAnnotations] = useState<Annotation[]>([]);
  const [orphans, setOrphans] = useState<Annotation[]>([]);
  const [selection, setSelection] = useState<PendingSelection | null>(null);
  const [viewing, setViewing] = useState<{ id: string; box: Box } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const highlighter = useRef<Highlighter | null>(null);
  // What is drawn when a PDF page's text is built again (a zoom): the annotations as they are now, not as loaded.
  const current = useRef<Annotation[]>([]);
  current.current = annotations;
  const noticeTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const fail = useCallback((e: unknown, action: StoreAction) => {
    if (isApiError(e) && e.status === 401) tokens.invalidate();
    const status = isApiError(e) ? e.status : 0;
    setNotice(storeErrorNotice(status === 0 ? 404 : status, action));
    clearTimeout(noticeTimer.current);
    noticeTimer.current = setTimeout(() => setNotice(null), ANNOTATION_TIMING.noticeMs);
  }, []);
  useEffect(() => () => clearTimeout(noticeTimer.current), []);

  /** Where a range of the surface is on the page. */
  const boxOf = useCallback(
    (range: Range): Box | null => {
      if (!surface) return null;
      const f = surface.origin();
      const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0 || r.height > 0);
      const r = rects[0] ?? range.getBoundingClientRect();
      const last = rects.at(-1) ?? r;
      return { left: f.left + r.left, top: f.top + r.top, right: f.left + Math.max(r.right, last.right), bottom: f.top + last.bottom };
    },
    [surface],
  );

  // The chapter's annotations are asked for as soon as the chapter is known, while its text is still on the way
  // (the bench's 1,000: the search took most of the time to the first highlight when it waited for the paint).
  // A load takes the answer once; the next load asks again (a note made since is in it).
  const asked = useRef<{ prefix: string; rows: Promise<Annotation[]> } | null>(null);
  const loadRows = useCallback((): Promise<Annotation[]> => {
    if (asked.current?.prefix === prefix) return asked.current.rows;
    const rows = (async () => {
      const token = await tokens.get();
      return (await api.searchAnnotations(prefix, token, { limit: ANNOTATION_LIMITS.searchLimitMax })).rows.filter((a) => a.chapter_href === href);
    })();
    rows.catch(() => undefined);
    asked.current = { prefix, rows };
    return rows;
  }, [prefix, href]);
  useEffect(() => {
    if ((enabled || prefetch) && href) void loadRows();
  }, [enabled, prefetch, href, loadRows]);

  // Load and draw the annotations whenever a surface is ready; on a PDF each page's when its text layer is built.
  useEffect(() => {
    setAnnotations([]);
    setOrphans([]);
    setSelection(null);
    setViewing(null);
    if (!enabled || !surface) return;
    const hl = new Highlighter(surface.doc);
    highlighter.current = hl;
    const abort = new AbortController();
    const timers = new Set<ReturnType<typeof setTimeout>>();
    const lostByRoot = new Map<string, Annotation[]>();
    let unsubscribe = () => {};
    void (async () => {
      let rows: Annotation[];
      try {
        rows = await loadRows();
      } catch (e) {
        if (!abort.signal.aborted) fail(e, 'read');
        return;
      } finally {
        asked.current = null;
      }
      if (abort.signal.aborted) return;
      setAnnotations(rows);
      current.current = rows;
      performance.mark('reader:annotations-loaded');
      // A root's annotations are anchored against one index of its text, drawn 10 at a time with 10 ms between
      // batches (§9), those in view first and outwards from there (highlighter.ts DrawingQueue).
      // A root drawn again (a PDF page rebuilt by a zoom) stops the run drawing on its old text.
      const runs = new Map<string, number>();
      const draw = (key: string, root: Element) => {
        const run = (runs.get(key) ?? 0) + 1;
        runs.set(key, run);
        const list = current.current.filter((a) => surface.keyOf(a) === key);
        const index = indexText(root);
        const queue = new DrawingQueue(list, surface.viewOf(index));
        const lost: Annotation[] = [];
        let viewMarked = false;
        const batch = () => {
          if (abort.signal.aborted || runs.get(key) !== run) return;
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
            setOrphans([...lostByRoot.values()].flat());
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
      unsubscribe = surface.onRoot(draw);
      // The notes panel chose one on a page not drawn yet: to that page, drawn there once its text is in.
      const wanted = revealRef?.current ? rows.find((a) => a.id === revealRef.current) : null;
      if (wanted && !surface.root(surface.keyOf(wanted))) surface.bringIntoView(surface.keyOf(wanted));
    })();
    return () => {
      abort.abort();
      for (const timer of timers) clearTimeout(timer);
      unsubscribe();
      hl.clear();
      if (highlighter.current === hl) highlighter.current = null;
    };
  }, [enabled, surface, loadRows, fail, revealRef]);

  // The reader's selection (the adder) and taps on highlights (the viewer).
  useEffect(() => {
    if (!enabled || !surface) return;
    const doc = surface.doc;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let touch = false;
    const check = () => {
      const sel = doc.getSelection();
      if (!sel || sel.isCollapsed || sel.rangeCount === 0) return setSelection(null);
      const range = sel.getRangeAt(0);
      const at = surface.rootAt(range.commonAncestorContainer);
      if (!at) return setSelection(null);
      const description = describeOn(at, range, surface.wholeRoots);
      const box = description ? boxOf(range) : null;
      setSelection(description && box ? { description, box } : null);
      if (description) setViewing(null);
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
      const id = highlighter.current?.hitTest(e.clientX, e.clientY) ?? null;
      if (!id) return;
      const range = highlighter.current?.rangeOf(id);
      const box = range ? boxOf(range) : null;
      if (!box) return;
      // Ours: not a page turn or the immersive toggle.
      e.preventDefault();
      highlighter.current?.setActive(id);
      setViewing({ id, box });
    };
    // The chapter scrolled or turned a page: the adder follows its selection, the viewer closes.
    const onScroll = () => {
      schedule();
      setViewing(null);
      highlighter.current?.setActive(null);
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
  }, [enabled, surface, boxOf]);

  const clearSelection = useCallback(() => {
    surface?.doc.getSelection()?.removeAllRanges();
    setSelection(null);
  }, [surface]);

  const closeViewer = useCallback(() => {
    highlighter.current?.setActive(null);
    setViewing(null);
  }, []);

  const redraw = useCallback(
    (a: Annotation) => {
      const hl = highlighter.current;
      if (!hl || !surface) return;
      let r = hl.rangeOf(a.id);
      const root = surface.root(surface.keyOf(a));
      if (!r && root) {
        const index = indexText(root);
        const at = anchorOffsets(index, a);
        r = at ? rangeOf(root, index, at.start, at.end) : null;
      }
      if (r) hl.add(a.id, r, isNote(a) ? 'note' : 'highlight');
    },
    [surface],
  );

  /** Saves a new annotation from the pending selection: a highlight (no text) or a note. */
  const create = useCallback(
    async (description: RangeDescription, fields: NoteFields & { preview?: boolean }): Promise<Annotation | null> => {
      const draft: AnnotationDraft = {
        quote: description.quote,
        ranges: description.ranges,
        selectors: description.selectors,
        text: fields.text,
        tags: fields.tags,
        uri: window.location.pathname,
        is_public: fields.sharing.view,
        permissions: withSharing({ read: [], update: [], delete: [], admin: [] }, fields.sharing),
        annotation_type: fields.preview ? 'preview_annotation' : ANNOTATION_TYPE_NOTE,
      };
      try {
        const saved = await api.createAnnotation(prefix, await tokens.get(), draft);
        setAnnotations((list) => [...list, saved]);
        track('reader', 'annotation-create', String(saved.annotation_type ?? 'annotation'));
        // Anchored from what was saved: on a PDF the editor has taken the document's selection by now.
        redraw(saved);
        clearSelection();
        changed();
        return saved;
      } catch (e) {
        fail(e, 'create');
        return null;
      }
    },
    [surface, prefix, redraw, clearSelection, fail, changed],
  );

  const update = useCallback(
    async (a: Annotation, fields: NoteFields): Promise<Annotation | null> => {
      const draft: AnnotationDraft = {
        text: fields.text,
        tags: fields.tags,
        is_public: fields.sharing.view,
        permissions: withSharing(a.permissions, fields.sharing),
      };
      try {
        const saved = await api.updateAnnotation(annotationPaths.prefix(titleSafe || 'book', bookId, a.chapter_href), await tokens.get(), a.id, draft);
        setAnnotations((list) => list.map((x) => (x.id === a.id ? saved : x)));
        redraw(saved);
        changed();
        return saved;
      } catch (e) {
        fail(e, 'update');
        return null;
      }
    },
    [titleSafe, bookId, redraw, fail, changed],
  );

  const remove = useCallback(
    async (a: Annotation): Promise<boolean> => {
      try {
        await api.deleteAnnotation(annotationPaths.prefix(titleSafe || 'book', bookId, a.chapter_href), await tokens.get(), a.id);
        setAnnotations((list) => list.filter((x) => x.id !== a.id));
        setOrphans((list) => list.filter((x) => x.id !== a.id));
        highlighter.current?.remove(a.id);
        changed();
        return true;
      } catch (e) {
        fail(e, 'delete');
        return false;
      }
    },
    [titleSafe, bookId, fail, changed],
  );

  /** Brings an annotation of this chapter into view; false when it is not drawn here. */
  const reveal = useCallback(
    (id: string) => {
      const range = highlighter.current?.rangeOf(id);
      if (range && surface) {
        surface.reveal(range);
        return true;
      }
      // A PDF page not drawn yet: to the page; the annotation is brought into view once drawn there.
      const a = annotations.find((x) => x.id === id);
      if (!a || !surface?.bringIntoView(surface.keyOf(a))) return false;
      if (revealRef) revealRef.current = id;
      return true;
    },
    [surface, annotations, revealRef],
  );

  const viewed = viewing ? (annotations.find((a) => a.id === viewing.id) ?? null) : null;
  return { annotations, orphans, reveal, selection, clearSelection, viewing: viewed && viewing ? { annotation: viewed, box: viewing.box } : null, closeViewer, create, update, remove, notice, dismissNotice: () => setNotice(null) };
}
