/**
 * The reader's panels and overlays: the contents (mounted on first show, reader.md §4 "fetched on first show"), the
 * display settings, the in-book search and the image lightbox. They close on route change (reader.md §4), and a panel that closes with
 * the focus inside gives it back to the button that opened it.
 */
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';

export interface Lightboxed {
  src: string;
  alt: string;
}

export function useReaderPanels(pathname: string, focusChapterOnReady: RefObject<boolean>) {
  const [tocOpen, setTocOpen] = useState(false);
  const [tocShown, setTocShown] = useState(false);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [searchOpen, setSearchOpen] = useState(false);
  const [notesOpen, setNotesOpen] = useState(false);
  const [lightbox, setLightbox] = useState<Lightboxed | null>(null);

  // Stable handlers: the panels are memoised.
  const closeToc = useCallback(() => setTocOpen(false), []);
  const closeSettings = useCallback(() => setSettingsOpen(false), []);
  const closeSearch = useCallback(() => setSearchOpen(false), []);
  const closeNotes = useCallback(() => setNotesOpen(false), []);
  const closePanels = useCallback(() => {
    setTocOpen(false);
    setSettingsOpen(false);
    setSearchOpen(false);
    setNotesOpen(false);
  }, []);
  const toggleNotes = useCallback(() => {
    setTocOpen(false);
    setSettingsOpen(false);
    setSearchOpen(false);
    setNotesOpen((o) => !o);
  }, []);
  const toggleToc = useCallback(() => {
    setNotesOpen(false);
    setTocShown(true);
    setSettingsOpen(false);
    setSearchOpen(false);
    setTocOpen((o) => !o);
  }, []);
  const toggleSettings = useCallback(() => {
    setNotesOpen(false);
    setTocOpen(false);
    setSearchOpen(false);
    setSettingsOpen((o) => !o);
  }, []);
  const toggleSearch = useCallback(() => {
    setNotesOpen(false);
    setTocOpen(false);
    setSettingsOpen(false);
    setSearchOpen((o) => !o);
  }, []);
  const openSearch = useCallback(() => {
    setNotesOpen(false);
    setTocOpen(false);
    setSettingsOpen(false);
    setSearchOpen(true);
  }, []);
  const showImage = useCallback((src: string, alt: string) => setLightbox({ src, alt }), []);
  const closeImage = useCallback(() => setLightbox(null), []);

  useEffect(() => {
    setTocOpen(false);
    setSettingsOpen(false);
    setSearchOpen(false);
    setNotesOpen(false);
    setLightbox(null);
  }, [pathname]);

  const tocButton = useRef<HTMLButtonElement>(null);
  const settingsButton = useRef<HTMLButtonElement>(null);
  const searchButton = useRef<HTMLButtonElement>(null);
  const notesButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!notesOpen && document.activeElement?.closest('.reader-notes') && !focusChapterOnReady.current) notesButton.current?.focus();
  }, [notesOpen, focusChapterOnReady]);
  useEffect(() => {
    const active = document.activeElement;
    // Not when a chapter chosen in the contents is about to take the focus (see useTocNavigation).
    if (!tocOpen && active?.closest('.toc') && !focusChapterOnReady.current) tocButton.current?.focus();
  }, [tocOpen, focusChapterOnReady]);
  useEffect(() => {
    const active = document.activeElement;
    if (!settingsOpen && active?.closest('.reader-settings')) settingsButton.current?.focus();
  }, [settingsOpen]);
  useEffect(() => {
    const active = document.activeElement;
    // Not when a chosen result's chapter is about to take the focus.
    if (!searchOpen && active?.closest('.reader-search') && !focusChapterOnReady.current) searchButton.current?.focus();
  }, [searchOpen, focusChapterOnReady]);

  return {
    tocOpen,
    tocShown,
    settingsOpen,
    searchOpen,
    notesOpen,
    lightbox,
    anyPanelOpen: tocOpen || settingsOpen || searchOpen || notesOpen,
    closeToc,
    closeSettings,
    closePanels,
    toggleToc,
    toggleSettings,
    toggleSearch,
    openSearch,
    closeSearch,
    toggleNotes,
    closeNotes,
    notesButton,
    showImage,
    closeImage,
    tocButton,
    settingsButton,
    searchButton,
  };
}

export type ReaderPanels = ReturnType<typeof useReaderPanels>;
