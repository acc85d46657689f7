/**
 * Content state of library-playlists-account.md §3 and §4 for the playlist screens: metadata of the items by
 * api_url (kept in localStorage with a timestamp; entries older than 30 days are removed and fetched again),
 * the api_urls requested so far, the request flags, and reading progress. Only items whose metadata is neither
 * fetched nor requested are asked for (`urlsToRequest`).
 */
import { useEffect, useSyncExternalStore } from 'react';
import { isMetadataExpired, MESSAGES, normalizeContentUri, urlsToRequest, type ContentMetadata } from '@lectern/core';
import { api } from '../../api/client.ts';
import { reportError } from '../../shared/errorState.ts';
import { useSession } from '../../shared/useSession.ts';
import { browserStorage } from '../../shared/storage.ts';

export interface ContentState {
  contentMetadata: Readonly<Record<string, ContentMetadata>>;
  requestedContentUris: ReadonlySet<string>;
  /** Requested and answered without an entry: the title is gone. */
  missingContentUris: ReadonlySet<string>;
  isFetching: boolean;
  didError: boolean;
  progress: Readonly<Record<string, number>>;
  requestedProgressUris: ReadonlySet<string>;
}

let state: ContentState = {
  contentMetadata: {},
  requestedContentUris: new Set(),
  missingContentUris: new Set(),
  isFetching: false,
  didError: false,
  progress: {},
  requestedProgressUris: new Set(),
};
const listeners = new Set<() => void>();
let inFlight = 0;

function update(patch: Partial<ContentState> | ((s: ContentState) => Partial<ContentState>)) {
  state = { ...state, ...(typeof patch === 'function' ? patch(state) : patch) };
  for (const l of listeners) l();
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};
export const getContentState = () => state;

/** The browser storage entry of one item: its api_url as the key, `{timestamp, data}` as the value. */
interface StoredMetadata {
  timestamp: number;
  data: ContentMetadata;
}

const storage = browserStorage;

/** Fills in what a partial answer left out, so a title card can show it; null when it is not a usable title. */
export function toTitle(partial: Partial<ContentMetadata> & { api_url: string }): ContentMetadata | null {
  if (!partial.title) return null;
  const ref = normalizeContentUri(partial.api_url);
  return {
    api_url: partial.api_url,
    authors: partial.authors ?? [],
    content_format: partial.content_format ?? 'book',
    continue_url: partial.continue_url ?? partial.url ?? '/',
    cover_image_url: partial.cover_image_url ?? null,
    identifier: partial.identifier ?? '',
    issued: partial.issued ?? null,
    publishers: partial.publishers ?? [],
    title: partial.title,
    topics: partial.topics ?? [],
    url: partial.url ?? '/',
    book_id: partial.book_id ?? ref?.bookId ?? partial.api_url,
    title_safe: partial.title_safe ?? '',
    description: partial.description ?? null,
  };
}

/** Moves unexpired stored entries into memory; removes expired or unreadable ones. */
function loadStored(urls: readonly string[], now: number) {
  const store = storage();
  if (!store) return;
  const found: Record<string, ContentMetadata> = {};
  for (const url of urls) {
    if (state.contentMetadata[url]) continue;
    let raw: string | null = null;
    try {
      raw = store.getItem(url);
    } catch {
      continue;
    }
    if (!raw) continue;
    try {
      const entry = JSON.parse(raw) as StoredMetadata;
      const title = entry && typeof entry.timestamp === 'number' && entry.data ? toTitle(entry.data) : null;
      if (!title || isMetadataExpired(entry.timestamp, now)) store.removeItem(url);
      else found[url] = title;
    } catch {
      store.removeItem(url);
    }
  }
  if (Object.keys(found).length) update((s) => ({ contentMetadata: { ...s.contentMetadata, ...found } }));
}

function persist(entries: readonly ContentMetadata[], now: number) {
  const store = storage();
  if (!store) return;
  for (const data of entries) {
    try {
      store.setItem(data.api_url, JSON.stringify({ timestamp: now, data } satisfies StoredMetadata));
    } catch {
      return; // storage full: memory still has them
    }
  }
}

/** Asks for the metadata of the urls not yet fetched nor requested. */
export async function ensureMetadata(urls: readonly string[], now = Date.now()): Promise<void> {
  loadStored(urls, now);
  const wanted = urlsToRequest(urls, state.contentMetadata, state.requestedContentUris);
  if (!wanted.length) return;
  inFlight++;
  update((s) => ({ isFetching: true, requestedContentUris: new Set([...s.requestedContentUris, ...wanted]) }));
  try {
    const answer = await api.getMetadata(wanted);
    const titles = answer.map(toTitle).filter((t): t is ContentMetadata => t !== null);
    persist(titles, now);
    const got = new Set(titles.map((t) => t.api_url));
    update((s) => ({
      contentMetadata: { ...s.contentMetadata, ...Object.fromEntries(titles.map((t) => [t.api_url, t])) },
      missingContentUris: new Set([...s.missingContentUris, ...wanted.filter((u) => !got.has(u))]),
      didError: false,
    }));
  } catch (error) {
    // forget the request so that a later visit (or Retry) asks again
    update((s) => ({ didError: true, requestedContentUris: new Set([...s.requestedContentUris].filter((u) => !wanted.includes(u))) }));
    reportError('WARN', MESSAGES.contentRequestFailed, error);
  } finally {
    inFlight--;
    update({ isFetching: inFlight > 0 });
  }
}

/** Reading progress of the urls not yet asked for in this visit. */
export async function ensureProgress(urls: readonly string[]): Promise<void> {
  const wanted = [...new Set(urls)].filter((u) => !state.requestedProgressUris.has(u));
  if (!wanted.length) return;
  update((s) => ({ requestedProgressUris: new Set([...s.requestedProgressUris, ...wanted]) }));
  try {
    const answer = await api.getProgress(wanted);
    update((s) => ({ progress: { ...s.progress, ...Object.fromEntries(answer.map((p) => [p.api_url, p.progress])) } }));
  } catch (error) {
    update((s) => ({ didError: true, requestedProgressUris: new Set([...s.requestedProgressUris].filter((u) => !wanted.includes(u))) }));
    reportError('WARN', MESSAGES.contentRequestFailed, error);
  }
}

/** Clears the retry flag and asks again for what failed. */
export function retryContent(urls: readonly string[]) {
  update({ didError: false });
  void ensureMetadata(urls);
  void ensureProgress(urls);
}

/** Progress is per user: what was read for another account is forgotten. */
let progressOwner: number | null = null;
function progressFor(userId: number | null) {
  if (userId === progressOwner) return;
  progressOwner = userId;
  update({ progress: {}, requestedProgressUris: new Set() });
}

/** Metadata and progress of the given items, asked for as they come into view. */
export function useContent(urls: readonly string[]): ContentState {
  const userId = useSession().profile?.user_id ?? null;
  progressFor(userId);
  const snapshot = useSyncExternalStore(subscribe, getContentState, getContentState);
  const key = urls.join('\n');
  useEffect(() => {
    if (!urls.length) return;
    void ensureMetadata(urls);
    void ensureProgress(urls);
    // keyed by the joined list: a new array with the same urls asks for nothing new
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, userId]);
  return snapshot;
}
