/**
 * The reading settings as a book asks to be read (EPUB 3.3 rendition:flow, rendition:layout; docs/decisions.md
 * "Fixed layout"): a reflowable chapter whose flow is scrolled-doc or scrolled-continuous opens in scroll mode and one
 * whose flow is paginated in pages, until the reader picks a mode in the settings (their choice then wins for every
 * book); a fixed-layout page is always a page (the footer counts spreads).
 */
import type { ArchiveItem, ReaderPreferences } from '@lectern/core';

export function prefsForBook(prefs: ReaderPreferences, rendition: ArchiveItem['rendition'] | undefined, paginationChosen: boolean): ReaderPreferences {
  if (!rendition) return prefs;
  if (rendition.layout === 'pre-paginated') return prefs.pagination === 'page' ? prefs : { ...prefs, pagination: 'page' };
  if (paginationChosen) return prefs;
  const wanted = rendition.flow === 'paginated' ? 'page' : rendition.flow === 'scrolled-doc' || rendition.flow === 'scrolled-continuous' ? 'scroll' : null;
  return wanted && wanted !== prefs.pagination ? { ...prefs, pagination: wanted } : prefs;
}
