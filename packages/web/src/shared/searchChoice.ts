/**
 * The search result a reader chose (reader.md §4 "Search panel"): its snippet and the query kept in cookies for a
 * day, so the reader, once at the hit's address (`?q=`), finds the passage by the snippet's first words
 * (features/reader/useSearchJump.ts). The in-book search panel writes them; the site search page can too, for a
 * passage hit, so the reader lands on that passage rather than the first occurrence of the words. And the
 * search-selection POST both send.
 */
import {
  SEARCH_QUERY_COOKIE,
  SEARCH_QUERY_COOKIE_DAYS,
  SEARCH_SNIPPET_COOKIE,
  SEARCH_SNIPPET_COOKIE_MAX,
  snippetMarkedWords,
  SEARCH_SELECT_TIMEOUT_MS,
  snippetText,
  type SearchSelection,
} from '@lectern/core';
import { api, isApiError } from '../api/client.ts';
import { readCookie } from '../api/cookies.ts';

/** What the snippet cookie holds: the chapter, the snippet's text and the words the engine marked in it. */
export interface ChosenSnippet {
  href: string;
  text: string;
  words: string[];
}

function writeCookie(name: string, value: string, days: number) {
  document.cookie = `${name}=${encodeURIComponent(value)}; Max-Age=${Math.round(days * 86_400)}; Path=/; SameSite=Lax${location.protocol === 'https:' ? '; Secure' : ''}`;
}

/** Keeps a chosen hit (an in-book result or a site search passage: its chapter and escaped snippet). */
export function rememberChoice(result: { full_path: string; highlighted_content: string }, query: string) {
  const chosen: ChosenSnippet = {
    href: result.full_path,
    text: snippetText(result.highlighted_content).slice(0, SEARCH_SNIPPET_COOKIE_MAX),
    words: snippetMarkedWords(result.highlighted_content).slice(0, 10),
  };
  writeCookie(SEARCH_SNIPPET_COOKIE, JSON.stringify(chosen), SEARCH_QUERY_COOKIE_DAYS);
  writeCookie(SEARCH_QUERY_COOKIE, query, SEARCH_QUERY_COOKIE_DAYS);
}

/** The snippet chosen last (within the day), if the cookie holds one. */
export function chosenSnippet(): ChosenSnippet | null {
  const raw = readCookie(SEARCH_SNIPPET_COOKIE);
  if (!raw) return null;
  try {
    const v = JSON.parse(raw) as Partial<ChosenSnippet>;
    if (typeof v.href !== 'string' || typeof v.text !== 'string') return null;
    return { href: v.href, text: v.text, words: Array.isArray(v.words) ? v.words.filter((w): w is string => typeof w === 'string') : [] };
  } catch {
    return null;
  }
}

export const lastQuery = () => readCookie(SEARCH_QUERY_COOKIE) ?? '';

/** reader.md §8: a tracking failure is logged with the status and the response text, and changes nothing else. */
export function trackSelection(selection: SearchSelection): Promise<void> {
  return api.searchSelection(selection, AbortSignal.timeout(SEARCH_SELECT_TIMEOUT_MS)).catch((e: unknown) => {
    if (isApiError(e)) console.warn('Search selection tracking failed:', e.status, e.statusText || e.detail);
    else console.warn('Search selection tracking failed:', e instanceof Error ? e.message : e);
  });
}
