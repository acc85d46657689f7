/**
 * The annotations of the chapter on show (issue 9): loaded from the store with the chapter's prefix, anchored in
 * the frame (anchoring.ts) in batches of 10 every 10 ms (reader.md §9), drawn (highlighter.ts), and the reader's
 * selection and taps on highlights turned into the adder and the viewer. Store failures become the §8 notices,
 * shown for 5 s.
 */
import {
  ANNOTATION_GROUPS,
  ANNOTATION_LIMITS,
  ANNOTATION_TIMING,
  ANNOTATION_TYPE_NOTE,
  annotationPaths,
  storeErrorNotice,
  type Annotation,
} from '@lectern/core';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api, isApiError, type AnnotationDraft } from '../../../api/client.ts';
import { queryKeys } from '../../../api/queryKeys.ts';
import type { FrameController } from '../engine/frameController.ts';
import { anchorOffsets, describeRange, rangeOf, type RangeDescription } from './anchoring.ts';
import { Highlighter } from './highlighter.ts';
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

export type StoreAction = 'create' | 'update' | 'delete' | 'read' | 'search';

/** Touch selections settle while their handles move: wait this long after the last change before offering the adder. */
const TOUCH_SETTLE_MS = 600;
const POINTER_SETTLE_MS = 120;

const isNote = (a: Pick<Annotation, 'text'>) => a.text.trim() !== '';

/** One token keeper for the page: every chapter's store calls share it. */
const tokens = new TokenKeeper(() => api.annotationToken());
export const annotationToken = () => tokens.get();

export function useChapterAnnotations(opts: {
  bookId: string;
  titleSafe: string;
  href: string;
  controller: FrameController | null;
  enabled: boolean;
  /** an annotation to bring into view once drawn (chosen in the notes panel, in another chapter) */
  revealRef?: { current: string | null };
}) {
  const { bookId, titleSafe, href, controller, enabled, revealRef } = opts;
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
  const noticeTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const fail = useCallback((e: unknown, action: StoreAction) => {
    if (isApiError(e) && e.status === 401) tokens.invalidate();
    const status = isApiError(e) ? e.status : 0;
    setNotice(storeErrorNotice(status === 0 ? 404 : status, action));
    clearTimeout(noticeTimer.current);
    noticeTimer.current = setTimeout(() => setNotice(null), ANNOTATION_TIMING.noticeMs);
  }, []);
  useEffect(() => () => clearTimeout(noticeTimer.current), []);

  /** Where a range of the frame is on the page. */
  const boxOf = useCallback(
    (range: Range): Box | null => {
      if (!controller) return null;
      const f = controller.frameElement.getBoundingClientRect();
      const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0 || r.height > 0);
      const r = rects[0] ?? range.getBoundingClientRect();
      const last = rects.at(-1) ?? r;
      return { left: f.left + r.left, top: f.top + r.top, right: f.left + Math.max(r.right, last.right), bottom: f.top + last.bottom };
    },
    [controller],
  );

  // Load and draw the chapter's annotations whenever a chapter frame is ready.
  useEffect(() => {
    setAnnotations([]);
    setOrphans([]);
    setSelection(null);
    setViewing(null);
    if (!enabled || !controller) return;
    const root = controller.readingRoot;
    if (!root) return;
    const hl = new Highlighter(controller.frameDocument);
    highlighter.current = hl;
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    void (async () => {
      let rows: Annotation[];
      try {
        const token = await tokens.get();
        rows = (await api.searchAnnotations(prefix, token, { limit: ANNOTATION_LIMITS.searchLimitMax }, abort.signal)).rows.filter((a) => a.chapter_href === href);
      } catch (e) {
        if (!abort.signal.aborted) fail(e, 'read');
        return;
      }
      if (abort.signal.aborted) return;
      setAnnotations(rows);
      // Anchored against one index of the chapter's text, drawn 10 at a time with 10 ms between batches (§9).
      const index = indexText(root);
      const lost: Annotation[] = [];
      let at = 0;
      const batch = () => {
        if (abort.signal.aborted) return;
        for (const a of rows.slice(at, at + ANNOTATION_TIMING.batchSize)) {
          const where = anchorOffsets(index, a);
          const range = where ? rangeOf(root, index, where.start, where.end) : null;
          if (range) hl.add(a.id, range, isNote(a) ? 'note' : 'highlight');
          else lost.push(a);
        }
        at += ANNOTATION_TIMING.batchSize;
        if (at < rows.length) timer = setTimeout(batch, ANNOTATION_TIMING.batchDelayMs);
        else {
          setOrphans(lost);
          const wanted = revealRef?.current ? hl.rangeOf(revealRef.current) : null;
          if (wanted && revealRef) {
            revealRef.current = null;
            controller.reveal(wanted);
          }
        }
      };
      batch();
    })();
    return () => {
      abort.abort();
      clearTimeout(timer);
      hl.clear();
      if (highlighter.current === hl) highlighter.current = null;
    };
  }, [enabled, controller, prefix, href, fail, revealRef]);

  // The reader's selection (the adder) and taps on highlights (the viewer).
  useEffect(() => {
    if (!enabled || !controller) return;
    const doc = controller.frameDocument;
    const root = controller.readingRoot;
    if (!root) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let touch = false;
    const check = () => {
      const sel = doc.getSelection();
      if (!sel || sel.isCollapsed || sel.rangeCount === 0) return setSelection(null);
      const range = sel.getRangeAt(0);
      const description = describeRange(root, range);
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
    const win = doc.defaultView;
    // A selection made before the layer listened (the chapter was still settling) is offered too.
    schedule();
    win?.addEventListener('scroll', onScroll, { passive: true });
    doc.addEventListener('selectionchange', schedule);
    doc.addEventListener('pointerdown', onPointer);
    doc.addEventListener('touchstart', onTouch, { passive: true });
    doc.addEventListener('click', onClick, { capture: true });
    return () => {
      clearTimeout(timer);
      win?.removeEventListener('scroll', onScroll);
      doc.removeEventListener('selectionchange', schedule);
      doc.removeEventListener('pointerdown', onPointer);
      doc.removeEventListener('touchstart', onTouch);
      doc.removeEventListener('click', onClick, { capture: true });
    };
  }, [enabled, controller, boxOf]);

  const clearSelection = useCallback(() => {
    controller?.frameDocument.getSelection()?.removeAllRanges();
    setSelection(null);
  }, [controller]);

  const closeViewer = useCallback(() => {
    highlighter.current?.setActive(null);
    setViewing(null);
  }, []);

  const redraw = useCallback(
    (a: Annotation, range?: Range | null) => {
      const hl = highlighter.current;
      const root = controller?.readingRoot;
      if (!hl) return;
      let r = range ?? hl.rangeOf(a.id);
      if (!r && root) {
        const index = indexText(root);
        const at = anchorOffsets(index, a);
        r = at ? rangeOf(root, index, at.start, at.end) : null;
      }
      if (r) hl.add(a.id, r, isNote(a) ? 'note' : 'highlight');
    },
    [controller],
  );

  /** Saves a new annotation from the pending selection: a highlight (no text) or a note. */
  const create = useCallback(
    async (description: RangeDescription, fields: { text: string; tags: string[]; isPublic: boolean; preview?: boolean }): Promise<Annotation | null> => {
      const range = controller?.frameDocument.getSelection()?.rangeCount ? controller.frameDocument.getSelection()!.getRangeAt(0).cloneRange() : null;
      const draft: AnnotationDraft = {
        quote: description.quote,
        ranges: description.ranges,
        selectors: description.selectors,
        text: fields.text,
        tags: fields.tags,
        uri: window.location.pathname,
        is_public: fields.isPublic,
        permissions: { read: fields.isPublic ? [ANNOTATION_GROUPS.world] : [], update: [], delete: [], admin: [] },
        annotation_type: fields.preview ? 'preview_annotation' : ANNOTATION_TYPE_NOTE,
      };
      try {
        const saved = await api.createAnnotation(prefix, await tokens.get(), draft);
        setAnnotations((list) => [...list, saved]);
        redraw(saved, range);
        clearSelection();
        changed();
        return saved;
      } catch (e) {
        fail(e, 'create');
        return null;
      }
    },
    [controller, prefix, redraw, clearSelection, fail, changed],
  );

  const update = useCallback(
    async (a: Annotation, fields: { text: string; tags: string[]; isPublic: boolean }): Promise<Annotation | null> => {
      const draft: AnnotationDraft = {
        text: fields.text,
        tags: fields.tags,
        is_public: fields.isPublic,
        permissions: { ...a.permissions, read: fields.isPublic ? [ANNOTATION_GROUPS.world] : a.permissions.read.filter((p) => p !== ANNOTATION_GROUPS.world) },
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
      if (!range || !controller) return false;
      controller.reveal(range);
      return true;
    },
    [controller],
  );

  const viewed = viewing ? (annotations.find((a) => a.id === viewing.id) ?? null) : null;
  return { annotations, orphans, reveal, selection, clearSelection, viewing: viewed && viewing ? { annotation: viewed, box: viewing.box } : null, closeViewer, create, update, remove, notice, dismissNotice: () => setNotice(null) };
}
