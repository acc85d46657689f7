/**
 * The reader's colour mode on the whole page while the reader is open: cloudy and night recolour the site header and
 * everything else drawn with the design tokens (tokens.css `:root[data-reader-theme]`), so night mode is not a dark
 * rectangle under a white header. Day mode, and leaving the reader, take the attribute away.
 */
import type { ReadingMode } from '@lectern/core';
import { useEffect } from 'react';

export function usePageTheme(mode: ReadingMode) {
  useEffect(() => {
    const root = document.documentElement;
    if (mode === 'day-mode') delete root.dataset.readerTheme;
    else root.dataset.readerTheme = mode;
    return () => {
      delete root.dataset.readerTheme;
    };
  }, [mode]);
}
