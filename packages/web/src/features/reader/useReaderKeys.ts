/**
 * The reader's keys (library-playlists-account.md §9 "Shortcuts": Esc, T contents, F/G font size, arrows and space;
 * and H for the immersive view, / for the search panel, E to escape the table or list being read aloud,
 * docs/decisions.md), in ONE handler: the page's keydown and the chapter frame's (forwarded by the FrameController) both come here, so
 * a key does the same thing wherever the focus is.
 */
import { useCallback, useEffect, useRef, type RefObject } from 'react';
import type { FrameController } from './engine/frameController.ts';
import type { ReaderPanels } from './useReaderPanels.ts';

export interface ReaderKeyActions {
  controllerRef: RefObject<FrameController | null>;
  panels: ReaderPanels;
  stepFont: (direction: 1 | -1) => void;
  immersive: boolean;
  toggleImmersive: () => void;
  /** Read aloud's escape (the bar's "Skip to after the table"): false when nothing is being read in such a structure. */
  readAloudEscape?: () => boolean;
}

const inField = (t: HTMLElement | null) => !!t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));

export function useReaderKeys(actions: ReaderKeyActions): (event: KeyboardEvent) => void {
  // The latest state for a handler that stays the same function (the frame keeps the one it was given).
  const latest = useRef(actions);
  latest.current = actions;

  const onKey = useCallback((e: KeyboardEvent) => {
    if (e.defaultPrevented) return;
    const { controllerRef, panels, stepFont, immersive, toggleImmersive, readAloudEscape } = latest.current;
    // Frame elements come from another window: duck-typed, not instanceof.
    const t = (e.target && 'tagName' in (e.target as object) ? e.target : null) as HTMLElement | null;
    if (e.key === 'Escape') {
      if (panels.lightbox) return; // the lightbox closes itself
      if (panels.anyPanelOpen) panels.closePanels();
      else if (immersive) toggleImmersive();
      return;
    }
    if (inField(t) || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === '/') {
      // library-playlists-account.md §9 "/ focus search": in the reader, the search of this book (from the PDF too).
      e.preventDefault();
      panels.openSearch();
      return;
    }
    // The panels and the PDF handle their own keys (lists, sliders, scrolling). Only the app's own elements: a book
    // may well have a class named "toc".
    if (t?.ownerDocument === document && t.closest('.toc, .reader-settings, .reader-search, .reader-pdf')) return;
    switch (e.key) {
      case 't':
      case 'T':
        panels.toggleToc();
        return;
      case 'f':
      case 'g':
        stepFont(e.key === 'g' ? 1 : -1);
        return;
      case 'h':
      case 'H':
        toggleImmersive();
        return;
      case 'e':
      case 'E':
        if (readAloudEscape?.()) e.preventDefault();
        return;

    }
    if (t?.tagName === 'BUTTON' && (e.key === ' ' || e.key === 'Enter')) return;
    controllerRef.current?.handleKey(e);
  }, []);

  useEffect(() => {
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onKey]);

  return onKey;
}
