/**
 * One chapter being read: where the reader is (percent and pages for the footer, the Locator stored in local
 * storage), the usage log of signed-in readers (reader.md §4 "Usage logging"), the initial position (reader.md §4
 * "Initial position priority") and the chapter controller once the chapter is on screen.
 */
import type { ArchiveItem, ReaderPreferences } from '@lectern/core';
import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import { browserStorage } from '../../shared/storage.ts';
import { warmChapterWorkerJit } from './engine/chapterWorker.ts';
import type { FrameController } from './engine/frameController.ts';
import { PositionStore, resolveInitialPosition, type Locator } from '../../shared/reading/position.ts';
import { useServerPositionUp } from '../../shared/reading/useServerPosition.ts';
import { useUsage } from '../../shared/reading/useUsage.ts';

/** reader.md §9: the scroll-save debounce. */
const POSITION_SAVE_DEBOUNCE_MS = 500;

export interface ReadingSessionInput {
  bookId: string;
  href: string;
  hash: string;
  /** Paging back from the next chapter: open this one at its end. */
  comingBack: boolean;
  /** A place to open the chapter at (an annotation's Locator), ahead of everything else. */
  target?: Locator | null;
  item: ArchiveItem | null;
  userId: string | null;
  prefs: ReaderPreferences;
  /** Changes whenever the space around the chapter changes (bars shown or hidden): the chapter is laid out again. */
  layoutKey: string;
  focusChapterOnReady: RefObject<boolean>;
}

export function useReadingSession({ bookId, href, hash, comingBack, target = null, item, userId, prefs, layoutKey, focusChapterOnReady }: ReadingSessionInput) {
  const tracker = useUsage(userId);
  // The account's copy of the position, kept up to date while reading (useServerPosition.ts).
  const serverUp = useServerPositionUp(bookId, userId);
  const positions = useMemo(() => new PositionStore(browserStorage()), []);
  const [percent, setPercent] = useState(0);
  const [pages, setPages] = useState<{ index: number; count: number } | null>(null);
  const controllerRef = useRef<FrameController | null>(null);
  const last = useRef<{ pct: number; locator: Locator | null }>({ pct: 0, locator: null });
  const saveTimer = useRef(0);
  const chapterPath = item?.chapter ?? null;

  const onProgress = useCallback(
    (pct: number, locator: Locator) => {
      last.current = { pct, locator };
      setPercent(pct);
      tracker?.reading(pct);
      serverUp.report(locator);
      window.clearTimeout(saveTimer.current);
      saveTimer.current = window.setTimeout(() => positions.set(bookId, locator), POSITION_SAVE_DEBOUNCE_MS);
    },
    [tracker, positions, bookId, serverUp],
  );

  const onPages = useCallback((index: number, count: number) => setPages({ index, count }), []);

  // Leaving the chapter (another chapter, another page): end = current position, log and post.
  useEffect(() => {
    if (!chapterPath) return;
    return () => {
      window.clearTimeout(saveTimer.current);
      if (last.current.locator) positions.set(bookId, last.current.locator);
      tracker?.leave(last.current.pct);
      tracker?.close();
    };
  }, [chapterPath, tracker, positions, bookId]);

  // The tab hidden or closed: what was read so far is logged and stored now (nothing lost across a reload).
  useEffect(() => {
    const onHide = () => {
      if (document.visibilityState === 'hidden' || !document.visibilityState) {
        if (last.current.locator) positions.set(bookId, last.current.locator);
        if (tracker?.currentChapter) tracker.leave(last.current.pct);
      }
    };
    document.addEventListener('visibilitychange', onHide);
    window.addEventListener('pagehide', onHide);
    return () => {
      document.removeEventListener('visibilitychange', onHide);
      window.removeEventListener('pagehide', onHide);
    };
  }, [tracker, positions, bookId]);

  const onReady = useCallback(
    (controller: FrameController | null) => {
      controllerRef.current = controller;
      if (!controller || !item) return;
      const pct = controller.percentage();
      last.current = { pct, locator: controller.locator() };
      tracker?.newChapter(item.chapter);
      tracker?.newStart(pct);
      const pages = controller.paged ? controller.pages() : null;
      const focus = focusChapterOnReady.current;
      focusChapterOnReady.current = false;
      requestAnimationFrame(() => {
        // The footer's figures render once this frame, the chapter's first, is on its way: a render of the page
        // here would hold that frame back.
        setPercent(pct);
        setPages(pages);
        requestAnimationFrame(() => {
          // The bench and the e2e tests read this mark: the chapter is on screen, decrypted and laid out.
          performance.mark('reader:chapter-painted', { detail: { href } });
          // Unless the reader has opened a panel meanwhile (a closed one may still hold the focus while it slides out).
          if (focus && !document.activeElement?.closest('.toc--open, .reader-settings--open')) controller.focus();
          const idle = window.requestIdleCallback ?? ((cb: () => void) => window.setTimeout(cb, 200));
          idle(() => warmChapterWorkerJit());
        });
      });
    },
    [item, tracker, focusChapterOnReady, href],
  );

  /**
   * A PDF document reports its position in pages (PdfView): stored, logged and sent to the account as a chapter's
   * is, under the document's chapter_href (where the account's position and the local store look for it).
   */
  const pdfHref = item?.chapter_href ?? href;
  const onPdfProgress = useCallback((pct: number) => onProgress(pct, { href: pdfHref, progression: pct / 100 }), [onProgress, pdfHref]);
  const onPdfReady = useCallback(() => {
    if (item) tracker?.newChapter(item.chapter);
    requestAnimationFrame(() => requestAnimationFrame(() => performance.mark('reader:chapter-painted', { detail: { href } })));
  }, [item, tracker, href]);

  const initial = useCallback(
    () =>
      resolveInitialPosition({
        target: target?.href === (item?.chapter_href ?? href) ? target : null,
        hash,
        comingBack,
        stored: positions.get(bookId, item?.chapter_href ?? href),
        topPercentage: item?.top_percentage ?? 0,
      }),
    [target, hash, comingBack, positions, bookId, href, item?.chapter_href, item?.top_percentage],
  );

  // A new hash on the same chapter (a TOC entry with an anchor) scrolls there.
  const firstHash = useRef(hash);
  useEffect(() => {
    if (hash === firstHash.current) return;
    firstHash.current = hash;
    if (hash) controllerRef.current?.goToAnchor(decodeURIComponent(hash.slice(1)));
  }, [hash]);

  // Hiding or showing a bar resizes the frame: lay the chapter out again around the same words.
  const firstLayout = useRef(layoutKey);
  useEffect(() => {
    if (layoutKey === firstLayout.current) return;
    firstLayout.current = layoutKey;
    controllerRef.current?.relayout();
  }, [layoutKey]);

  // Pages change with the mode: the controller reports them on its next layout.
  useEffect(() => {
    if (prefs.pagination !== 'page') setPages(null);
    else if (controllerRef.current) setPages(controllerRef.current.pages());
  }, [prefs.pagination, prefs.font_size, prefs.column_width]);

  return { percent, pages, controllerRef, onProgress, onPages, onReady, onPdfProgress, onPdfReady, initial };
}
