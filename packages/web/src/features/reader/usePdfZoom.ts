/**
 * A PDF's zoom: fitted to the width when the document opens, after "Fit width" and after Reset; the reader's own
 * zoom (the stored zoom_factor, reader.md §3) from the first zoom in or out. The fitted zoom is reported by the view
 * so the settings show it and step from it.
 */
import type { ReaderPreferences } from '@lectern/core';
import { useCallback, useState } from 'react';

export function usePdfZoom(prefs: ReaderPreferences, updatePrefs: (patch: Partial<ReaderPreferences>) => void, resetPrefs: () => void) {
  const [fit, setFit] = useState(true);
  const [fitZoom, setFitZoom] = useState<number | null>(null);
  const fitWidth = useCallback(() => setFit(true), []);
  /** Settings changes: a zoom ends the fitting. */
  const onChange = useCallback(
    (patch: Partial<ReaderPreferences>) => {
      if (patch.zoom_factor !== undefined) setFit(false);
      updatePrefs(patch);
    },
    [updatePrefs],
  );
  const onReset = useCallback(() => {
    resetPrefs();
    setFit(true);
  }, [resetPrefs]);
  return { fit, zoom: fit && fitZoom !== null ? fitZoom : prefs.zoom_factor, onFitZoom: setFitZoom, fitWidth, onChange, onReset };
}
