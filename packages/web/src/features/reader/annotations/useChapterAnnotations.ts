/**
 * The annotations of the chapter on show (docs/decisions.md "Annotations in the reader"), composed of three parts:
 * the store (store.ts: loaded with the chapter's prefix, saved, changed, deleted; failures become the reader.md §8
 * notices, shown for 5 s), the drawing (drawing.ts: anchored and drawn in batches, those in view first) and the
 * selection (selection.ts: the reader's selection turned into the adder, taps on highlights into the viewer).
 * In a browser that cannot annotate (selection.ts annotatorSupported) none of it runs: the reader is told so once,
 * with §8's "Sorry your current browser does not support the Annotator".
 */
import { ANNOTATION_MESSAGES, ANNOTATION_TIMING, annotationLocator, annotationPaths, type Annotation, type Locator, type SharingChoices } from '@lectern/core';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { queryKeys } from '../../../api/queryKeys.ts';
import { track } from '../../../shared/analytics.ts';
import type { RangeDescription } from './anchoring.ts';
import { drawAnnotations, redrawAnnotation } from './drawing.ts';
import { indexText } from '../engine/textMarks.ts';
import { Highlighter } from './highlighter.ts';
import { annotatorSupported, boxOnPage, watchSelection, type Box, type PendingSelection } from './selection.ts';
import { annotationToken, chapterAnnotations, changeDraft, deleteAnnotation, failureNotice, newDraft, saveChange, saveNew, type NoteFields, type StoreAction } from './store.ts';
import type { AnnotationSurface } from './surface.ts';

export type { Box, PendingSelection } from './selection.ts';
export type { NoteFields, StoreAction } from './store.ts';
export { annotationToken };

/** New highlights and notes are private unless the editor's boxes say otherwise (decisions.md). */
export const PRIVATE: SharingChoices = { view: false, edit: false, admin: false };

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
  const { bookId, titleSafe, href, surface, enabled: allowed, prefetch: wanted = false, revealRef } = opts;
  // A browser that cannot annotate loads, draws and watches nothing (the notice below says why).
  const [supported] = useState(annotatorSupported);
  const enabled = allowed && supported;
  const prefetch = wanted && supported;
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

  const say = useCallback((message: string) => {
    setNotice(message);
    clearTimeout(noticeTimer.current);
    noticeTimer.current = setTimeout(() => setNotice(null), ANNOTATION_TIMING.noticeMs);
  }, []);
  const fail = useCallback((e: unknown, action: StoreAction) => say(failureNotice(e, action)), [say]);
  useEffect(() => () => clearTimeout(noticeTimer.current), []);
  // Told once, the first time the reader could have annotated here (as Annotator tells it when it starts).
  const toldUnsupported = useRef(false);
  useEffect(() => {
    if (!allowed || supported || toldUnsupported.current) return;
    toldUnsupported.current = true;
    say(ANNOTATION_MESSAGES.unsupportedBrowser);
  }, [allowed, supported, say]);

  /** Where a range of the surface is on the page. */
  const boxOf = useCallback((range: Range): Box | null => (surface ? boxOnPage(surface, range) : null), [surface]);

  // The chapter's annotations are asked for as soon as the chapter is known, while its text is still on the way
  // (the bench's 1,000: the search took most of the time to the first highlight when it waited for the paint).
  // A load takes the answer once; the next load asks again (a note made since is in it).
  const asked = useRef<{ prefix: string; rows: Promise<Annotation[]> } | null>(null);
  const loadRows = useCallback((): Promise<Annotation[]> => {
    if (asked.current?.prefix === prefix) return asked.current.rows;
    const rows = chapterAnnotations(prefix, href);
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
    let stopDrawing = () => {};
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
      stopDrawing = drawAnnotations({ surface, highlighter: hl, annotations: () => current.current, onOrphans: setOrphans, revealRef });
    })();
    return () => {
      abort.abort();
      stopDrawing();
      hl.clear();
      if (highlighter.current === hl) highlighter.current = null;
    };
  }, [enabled, surface, loadRows, fail, revealRef]);

  // The reader's selection (the adder) and taps on highlights (the viewer).
  useEffect(() => {
    if (!enabled || !surface) return;
    return watchSelection(surface, {
      onSelection: (pending, described) => {
        setSelection(pending);
        if (described) setViewing(null);
      },
      onTap: (e) => {
        const id = highlighter.current?.hitTest(e.clientX, e.clientY) ?? null;
        if (!id) return;
        const range = highlighter.current?.rangeOf(id);
        const box = range ? boxOf(range) : null;
        if (!box) return;
        // Ours: not a page turn or the immersive toggle.
        e.preventDefault();
        highlighter.current?.setActive(id);
        setViewing({ id, box });
      },
      // The chapter scrolled or turned a page: the viewer closes.
      onScroll: () => {
        setViewing(null);
        highlighter.current?.setActive(null);
      },
    });
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
      if (highlighter.current && surface) redrawAnnotation(surface, highlighter.current, a);
    },
    [surface],
  );

  /** Saves a new annotation from the pending selection: a highlight (no text) or a note. */
  const create = useCallback(
    async (description: RangeDescription, fields: NoteFields & { preview?: boolean }): Promise<Annotation | null> => {
      try {
        const saved = await saveNew(prefix, newDraft(description, fields, window.location.pathname));
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
    [prefix, redraw, clearSelection, fail, changed],
  );

  const update = useCallback(
    async (a: Annotation, fields: NoteFields): Promise<Annotation | null> => {
      try {
        const saved = await saveChange(titleSafe, bookId, a, changeDraft(a, fields));
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
        await deleteAnnotation(titleSafe, bookId, a);
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

  /**
   * An annotation's Locator (core annotationLocator): its progression counted over this chapter's text, as its
   * selectors were, when it is of the chapter on show; for another chapter the words alone find the place.
   */
  const locate = useCallback(
    (a: Annotation): Locator => {
      const root = surface && a.chapter_href === href && surface.keyOf(a) === '' ? surface.root('') : null;
      return annotationLocator(a, root ? indexText(root).text.length : undefined);
    },
    [surface, href],
  );

  const viewed = viewing ? (annotations.find((a) => a.id === viewing.id) ?? null) : null;
  return { annotations, orphans, reveal, locate, selection, clearSelection, viewing: viewed && viewing ? { annotation: viewed, box: viewing.box } : null, closeViewer, create, update, remove, notice, dismissNotice: () => setNotice(null) };
}
