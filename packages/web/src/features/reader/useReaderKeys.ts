/**
 * The reader's keys (library-playlists-account.md §9 "Shortcuts": Esc, T contents, F/G font size, arrows and space;
 * and H for the immersive view, / for the book's search, E to escape the table or list being read aloud,
 * docs/decisions.md), bound to the one shortcut registry (shared/shortcuts/registry.ts): the page's keys reach it
 * through its window listener, the chapter frame's through the function returned here (the FrameController
 * forwards them), so a key does the same thing wherever the focus is. The registry keeps them from fields,
 * modifiers, the reader's setting and phones; the reader's `/` comes before the site header's.
 */
import { useRef, type RefObject } from 'react';
import type { FrameController } from './engine/frameController.ts';
import type { ReaderPanels } from './useReaderPanels.ts';
import { shortcuts, type KeyLike } from '../../shared/shortcuts/registry.ts';
import { useShortcuts } from '../../shared/shortcuts/useShortcut.ts';

export interface ReaderKeyActions {
  controllerRef: RefObject<FrameController | null>;
  panels: ReaderPanels;
  stepFont: (direction: 1 | -1) => void;
  immersive: boolean;
  toggleImmersive: () => void;
  /** Read aloud's escape (the bar's "Skip to after the table"): false when nothing is being read in such a structure. */
  readAloudEscape?: () => boolean;
}

/** The app's own element the key was pressed in (frame elements belong to the book: a book may have a class "toc"). */
const ownTarget = (e: KeyLike) => {
  const t = e.target && typeof e.target === 'object' && 'tagName' in e.target ? (e.target as HTMLElement) : null;
  return t?.ownerDocument === document ? t : null;
};
/** The panels and the PDF handle their own keys (lists, sliders, scrolling). */
const inOwnKeys = (e: KeyLike) => !!ownTarget(e)?.closest('.toc, .reader-settings, .reader-search, .reader-pdf');

export function useReaderKeys(actions: ReaderKeyActions): (event: KeyboardEvent) => void {
  // The latest state for handlers that stay the same functions.
  const latest = useRef(actions);
  latest.current = actions;
  const letter = (act: () => void) => (e: KeyLike) => {
    if (inOwnKeys(e)) return false;
    act();
  };
  useShortcuts({
    close: () => {
      const { panels, immersive, toggleImmersive } = latest.current;
      if (panels.lightbox) return false; // the lightbox closes itself
      if (panels.anyPanelOpen) panels.closePanels();
      else if (immersive) toggleImmersive();
      else return false;
    },
    // library-playlists-account.md §9 "/ focus search": in the reader, the search of this book (from the PDF too).
    'book-search': () => latest.current.panels.openSearch(),
    contents: letter(() => latest.current.panels.toggleToc()),
    'font-smaller': letter(() => latest.current.stepFont(-1)),
    'font-larger': letter(() => latest.current.stepFont(1)),
    immersive: letter(() => latest.current.toggleImmersive()),
    'skip-structure': (e) => (inOwnKeys(e) ? false : (latest.current.readAloudEscape?.() ?? false)),
    page: (e) => {
      if (inOwnKeys(e)) return false;
      const t = ownTarget(e);
      if (t?.tagName === 'BUTTON' && e.key === ' ') return false;
      // the controller takes the browser's default itself when it turns or scrolls
      return latest.current.controllerRef.current?.handleKey(e as KeyboardEvent) ?? false;
    },
  });
  return shortcuts.dispatch;
}
