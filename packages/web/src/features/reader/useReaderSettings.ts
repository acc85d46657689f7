/**
 * The reader's display settings as React state: the spec's preferences (reader.md §3, stored by
 * engine/preferences.ts) and the top and chapter bar toggles, each change stored at once.
 */
import { DEFAULT_PREFERENCES, type ReaderPreferences } from '@lectern/core';
import { useCallback, useState } from 'react';
import { loadChrome, loadPaginationChosen, loadPreferences, saveChrome, savePaginationChosen, savePreferences, type ReaderChrome } from './engine/preferences.ts';

/** The F and G keys' font step (the other reading of reader.md §5; docs/decisions.md "Font size reading"). */
const FONT_KEY_STEP = 0.1;

export function useReaderSettings() {
  const [prefs, setPrefs] = useState<ReaderPreferences>(() => loadPreferences());
  const [chrome, setChrome] = useState<ReaderChrome>(() => loadChrome());
  // Scroll or pages chosen by the reader (not left to the book's rendition:flow; bookFlow.ts).
  const [paginationChosen, setPaginationChosen] = useState(() => loadPaginationChosen());
  // Stable handlers: the panels are memoised and must not re-render on every progress report while reading.
  const updatePrefs = useCallback((patch: Partial<ReaderPreferences>) => {
    if (patch.pagination) setPaginationChosen(savePaginationChosen(true));
    setPrefs((p) => savePreferences({ ...p, ...patch }));
  }, []);
  const resetPrefs = useCallback(() => {
    setPaginationChosen(savePaginationChosen(false));
    setPrefs(savePreferences({ ...DEFAULT_PREFERENCES }));
  }, []);
  const updateChrome = useCallback((patch: Partial<ReaderChrome>) => setChrome((c) => saveChrome({ ...c, ...patch })), []);
  /** One F (smaller) or G (larger) press; clamped to the limits when stored. */
  const stepFont = useCallback((direction: 1 | -1) => setPrefs((p) => savePreferences({ ...p, font_size: p.font_size + direction * FONT_KEY_STEP })), []);
  return { prefs, chrome, paginationChosen, updatePrefs, resetPrefs, updateChrome, stepFont };
}
