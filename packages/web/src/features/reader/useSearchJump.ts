/**
 * The jump to a search hit (reader.md §4 "Search panel"; docs/decisions.md "In-book search in the reader"): an address
 * with `?q=` (a result chosen in the book's search panel, or a passage hit of the site search) marks the words of q in
 * the chapter and shows the passage. When the snippet cookie holds the chosen result of this chapter and query, the
 * passage is found by the snippet's first 8 words, then 4; otherwise the reader goes to the first marked word. A PDF
 * hit's `page=N` opens that page (PdfView marks the words in its text layer).
 *
 * Once taken, `q` and `page` leave the address (replace, not a new entry): a reload later resumes where the reader
 * has read to, not at the hit again. The jump's place becomes the reading position, as a scroll there would.
 */
import { type Locator, queryWords } from '@lectern/core';
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { useLocation, useNavigate } from 'react-router';
import type { FrameController } from './engine/frameController.ts';
import { hitLocator } from './engine/textMarks.ts';
import { chosenSnippet, lastQuery } from '../../shared/searchChoice.ts';

export interface SearchTarget {
  /** the location it came with (one jump per navigation) */
  id: string;
  /**
   * The hit, a Locator as every place in a book is: its chapter (the route's chapter path), and the chosen result's
   * passage as its words when it is known (engine/textMarks.ts hitLocator); the jump looks for the passage's first 8
   * words, then 4, and the marks within the passage are the hit's own.
   */
  hit: Locator;
  /** the words to mark */
  words: string[];
  /** a PDF page (1-based) */
  page: number | null;
}

/** What an address's `q` (with the chosen snippet when it belongs to this chapter and query) asks the reader to find. */
export function searchTargetOf(id: string, href: string, q: string, page: number | null): SearchTarget {
  const chosen = chosenSnippet();
  const same = !!chosen && chosen.href === href && lastQuery() === q;
  const words = [...new Set([...queryWords(q), ...(same ? chosen.words : [])])];
  return { id, hit: hitLocator(href, same ? chosen.text : null), words, page };
}

export function useSearchJump(
  routeHref: string,
  controllerRef: RefObject<FrameController | null>,
  /** Set when a result was chosen: the chapter takes the focus (useReadingSession does it for a new chapter). */
  focusChapterOnReady: RefObject<boolean>,
) {
  const location = useLocation();
  const navigate = useNavigate();
  const [target, setTarget] = useState<SearchTarget | null>(null);
  const latest = useRef<SearchTarget | null>(null);
  latest.current = target;

  const params = new URLSearchParams(location.search);
  const q = params.get('q')?.trim() ?? '';
  const pageParam = Number(params.get('page'));
  const page = Number.isInteger(pageParam) && pageParam > 0 ? pageParam : null;

  useEffect(() => {
    if (!q) return;
    setTarget(searchTargetOf(location.key, routeHref, q, page));
    const rest = new URLSearchParams(location.search);
    rest.delete('q');
    rest.delete('page');
    const search = rest.toString();
    void navigate({ pathname: location.pathname, search: search ? `?${search}` : '', hash: location.hash }, { replace: true, state: location.state });
    // Once per navigation that brings a query.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [location.key]);

  /** Jumps in the chapter frame when the target is for the chapter this controller shows. */
  const tryJump = useCallback((controller: FrameController | null) => {
    const t = latest.current;
    if (!t || !controller || controller.chapterHref !== t.hit.href) return;
    controller.searchJump(t.hit, t.words);
    latest.current = null;
    setTarget(null);
    if (focusChapterOnReady.current) {
      focusChapterOnReady.current = false;
      controller.focus();
    }
  }, [focusChapterOnReady]);

  // A hit in the chapter on show: at once. Another chapter: when it is ready (onReady below).
  useEffect(() => {
    if (target) tryJump(controllerRef.current);
  }, [target, tryJump, controllerRef]);

  /** The PDF has marked its page: the jump is done. */
  const pdfDone = useCallback(() => setTarget(null), []);

  return { target, onReady: tryJump, pdfDone };
}
