/**
 * Playlist (collection) rules of library-playlists-account.md §4, §5 and §9, shared by the server (validation)
 * and the web app (list state, paging, topics, dropdown). Pure functions over plain data.
 */
import { LIMITS } from './constants.ts';
import { formatLabel } from './format.ts';
import { PLAYLIST_MESSAGES } from './messages.ts';
import { paths } from './paths.ts';

export const PLAYLIST_TIMINGS = {
  updateDelayMs: 1350,
  queueRefreshDelayMs: 1500,
  queueOverlayMs: 800,
  queueFeedbackMs: 1200,
  errorBarMs: 5000,
  metadataExpiryMs: 2_592_000_000,
} as const;

export const DEFAULT_TOPIC = { name: 'All', slug: 'all' } as const;

export interface PlaylistItemLike {
  api_url: string;
  metadata?: { topics?: readonly { name: string; slug: string }[] };
}
export interface PlaylistLike {
  id: string;
  name: string;
  description: string;
  is_default: boolean;
  is_owned?: boolean;
  content: PlaylistItemLike[];
}

// ---- validation (spec §5) ----

export interface PlaylistFieldErrors {
  name?: string;
  description?: string;
}

/** Name and description rules; `others` are the user's playlists, `selfId` the one being edited (excluded). */
export function validatePlaylist(
  input: { name: string; description?: string | null },
  others: readonly Pick<PlaylistLike, 'id' | 'name'>[],
  selfId?: string,
): PlaylistFieldErrors {
  const errors: PlaylistFieldErrors = {};
  const name = input.name.trim();
  if (!name) errors.name = PLAYLIST_MESSAGES.nameEmpty;
  else if (name.length > LIMITS.playlistNameMax) errors.name = selfId === undefined ? PLAYLIST_MESSAGES.createNameTooLong : PLAYLIST_MESSAGES.nameTooLong;
  else if (others.some((o) => o.id !== selfId && o.name.trim().toLowerCase() === name.toLowerCase())) errors.name = PLAYLIST_MESSAGES.nameTaken;
  if ((input.description ?? '').length > LIMITS.playlistDescriptionMax) errors.description = PLAYLIST_MESSAGES.descriptionTooLong;
  return errors;
}

// ---- ordering (spec §4 "Playlist list") ----

/** Display order: the default playlist first, then by name ignoring case; playlists marked not owned are dropped. */
export function sortPlaylists<T extends Pick<PlaylistLike, 'name' | 'is_default' | 'is_owned'>>(playlists: readonly T[]): T[] {
  return playlists
    .filter((p) => p.is_owned !== false)
    .slice()
    .sort((a, b) => {
      if (a.is_default !== b.is_default) return a.is_default ? -1 : 1;
      const an = a.name.toLowerCase();
      const bn = b.name.toLowerCase();
      return an < bn ? -1 : an > bn ? 1 : 0;
    });
}

/** The playlist /c/ shows: the default one, else the first in display order. */
export function defaultPlaylist<T extends PlaylistLike>(playlists: readonly T[]): T | undefined {
  return playlists.find((p) => p.is_default) ?? sortPlaylists(playlists)[0];
}

export type PlaylistListAction<T extends PlaylistLike> =
  | { type: 'created'; playlist: T }
  | { type: 'updated'; playlist: T }
  | { type: 'deleted'; id: string }
  | { type: 'contentAdded'; id: string; items: T['content'] }
  | { type: 'contentRemoved'; id: string; apiUrls: readonly string[] }
  /** The reader put the items in a new order (the whole list of api_urls, first shown first). */
  | { type: 'reordered'; id: string; apiUrls: readonly string[] };

/** State transitions of the list: the playlist a change touches moves to the front. */
export function reducePlaylists<T extends PlaylistLike>(state: readonly T[], action: PlaylistListAction<T>): T[] {
  switch (action.type) {
    case 'created':
      return [action.playlist, ...state.filter((p) => p.id !== action.playlist.id)];
    case 'updated':
      return [action.playlist, ...state.filter((p) => p.id !== action.playlist.id)];
    case 'deleted':
      return state.filter((p) => p.id !== action.id);
    case 'contentAdded': {
      const target = state.find((p) => p.id === action.id);
      if (!target) return [...state];
      // New items go to the front; one already there keeps the place the reader gave it (as on the server).
      const present = new Set(target.content.map((i) => i.api_url));
      const content = [...action.items.filter((i) => !present.has(i.api_url)), ...target.content];
      return [{ ...target, content }, ...state.filter((p) => p.id !== action.id)];
    }
    case 'contentRemoved': {
      const target = state.find((p) => p.id === action.id);
      if (!target) return [...state];
      const removed = new Set(action.apiUrls);
      return [{ ...target, content: target.content.filter((i) => !removed.has(i.api_url)) }, ...state.filter((p) => p.id !== action.id)];
    }
    case 'reordered': {
      const target = state.find((p) => p.id === action.id);
      if (!target) return [...state];
      const byUrl = new Map(target.content.map((i) => [i.api_url, i]));
      const content = action.apiUrls.map((u) => byUrl.get(u)).filter((i): i is T['content'][number] => !!i);
      // Items the order does not name (none, when it came from this list) stay, after the rest.
      const named = new Set(action.apiUrls);
      content.push(...target.content.filter((i) => !named.has(i.api_url)));
      return [{ ...target, content }, ...state.filter((p) => p.id !== action.id)];
    }
  }
}

// ---- topics and paging ----

export interface TopicChoice {
  name: string;
  slug: string;
  count: number;
}

/**
 * The topics filter bar: All first, then the playlist's topics ranked by item count (desc) then name; `shown`
 * holds up to 5 of them unless expanded; `hasMore` when there are more than 5; the selected slug falls back to
 * 'all' when it is not among the shown ones.
 */
export function topicBar(
  items: readonly PlaylistItemLike[],
  selectedSlug: string | null | undefined,
  expanded = false,
): { shown: TopicChoice[]; hasMore: boolean; selected: string } {
  const counts = new Map<string, TopicChoice>();
  for (const item of items) {
    for (const t of item.metadata?.topics ?? []) {
      const c = counts.get(t.slug);
      if (c) c.count++;
      else counts.set(t.slug, { name: t.name, slug: t.slug, count: 1 });
    }
  }
  const ranked = [...counts.values()].sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
  const limit = LIMITS.topicsShownBeforeMore;
  const topics = expanded ? ranked : ranked.slice(0, limit);
  const shown = [{ ...DEFAULT_TOPIC, count: items.length }, ...topics];
  const selected = selectedSlug && shown.some((t) => t.slug === selectedSlug) ? selectedSlug : DEFAULT_TOPIC.slug;
  return { shown, hasMore: ranked.length > limit, selected };
}

export function filterByTopic<T extends PlaylistItemLike>(items: readonly T[], topicSlug: string): T[] {
  if (topicSlug === DEFAULT_TOPIC.slug) return [...items];
  return items.filter((i) => i.metadata?.topics?.some((t) => t.slug === topicSlug));
}

/** Paging: the first `pageSize` of the filtered items; more exist when the filtered list is longer. */
export function pageOf<T>(filtered: readonly T[], pageSize: number): { items: T[]; hasMore: boolean } {
  return { items: filtered.slice(0, pageSize), hasMore: filtered.length > pageSize };
}
export const nextPageSize = (pageSize: number) => pageSize + LIMITS.itemsPerPage;

// ---- metadata requests and cache ----

/** Items whose metadata is neither fetched nor requested: the ones to request now. */
export function urlsToRequest(apiUrls: readonly string[], fetched: ReadonlySet<string> | Record<string, unknown>, requested: ReadonlySet<string>): string[] {
  const has = (u: string) => (fetched instanceof Set ? fetched.has(u) : Object.prototype.hasOwnProperty.call(fetched, u));
  return [...new Set(apiUrls)].filter((u) => !has(u) && !requested.has(u));
}

export const isMetadataExpired = (storedAt: number, now: number) => now - storedAt > PLAYLIST_TIMINGS.metadataExpiryMs;

// ---- the title card's playlist dropdown (spec §2, §9) ----

/**
 * Up to 3 playlists, those holding the title first; 'add to another' at index 4 when there are more than 3;
 * 'add to new' at index 5 when there are 3 or more, else at count + 1.
 */
export function dropdownLayout<T extends Pick<PlaylistLike, 'id'>>(
  playlists: readonly T[],
  apiUrl: string,
  /** whether a playlist holds the title; by default read from its items (a light list has none: docs/decisions.md) */
  contains: (p: T) => boolean = (p) => ((p as Partial<PlaylistLike>).content ?? []).some((i) => i.api_url === apiUrl),
) {
  const holds = contains;
  const ordered = [...playlists.filter(holds), ...playlists.filter((p) => !holds(p))];
  const count = playlists.length;
  return {
    shown: ordered.slice(0, 3).map((p) => ({ playlist: p, contains: holds(p) })),
    addToAnotherIndex: count > 3 ? 4 : null,
    addToNewIndex: count >= 3 ? 5 : count + 1,
  };
}

// ---- content addresses ----

const BOOK_URI = /^(?:https?:\/\/[^/]+)?(?:\/nest\/api)?\/?api\/v1\/book\/([A-Za-z0-9._-]+)\/?(?:chapter\/(.+?))?\/?$/;

/**
 * Normalises a content address to the form the server stores: '/api/v1/book/{book_id}/' for a title or
 * '/api/v1/book/{book_id}/chapter/{path}' for a chapter. Accepts absolute URLs, the /nest/api prefix, the
 * reader's slash-less 'api/v1/book/...' form (reader.md §3) and a missing trailing slash. Returns null for anything else.
 */
export function normalizeContentUri(uri: string): { apiUrl: string; bookId: string; chapterPath: string | null } | null {
  const m = BOOK_URI.exec(uri.trim().split(/[?#]/)[0] ?? '');
  if (!m || /^\.+$/.test(m[1]!)) return null;
  const bookId = m[1]!;
  let chapterPath: string | null = null;
  if (m[2]) {
    try {
      chapterPath = m[2].split('/').map(decodeURIComponent).join('/');
    } catch {
      return null;
    }
  }
  // bookId is [A-Za-z0-9._-] only, so the builders' encoding leaves it as it is.
  return { apiUrl: chapterPath === null ? paths.bookApi(bookId) : paths.chapterApi(bookId, chapterPath), bookId, chapterPath };
}

// ---- rules the web app needs (library-playlists-account.md §2, §4, §8) ----

/**
 * Name of a duplicated playlist: 'Copy of ' + name (spec §4 "Duplicate"). Two cases the spec leaves open are
 * decided here so the copy is always valid: the result is cut to the 65-character limit, and when the user
 * already has a playlist of that name (ignoring case), ' (2)', ' (3)', ... is appended, the name being cut
 * further so the suffix fits.
 */
export function duplicateName(name: string, others: readonly Pick<PlaylistLike, 'name'>[]): string {
  const max = LIMITS.playlistNameMax;
  const taken = new Set(others.map((o) => o.name.trim().toLowerCase()));
  const base = `${PLAYLIST_MESSAGES.copyPrefix}${name.trim()}`;
  const fit = (text: string, suffix = '') => `${text.slice(0, max - suffix.length).trimEnd()}${suffix}`;
  let candidate = fit(base);
  for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = fit(base, ` (${n})`);
  return candidate;
}

/** 'Add to another playlist' search: case-insensitive substring of the name; an empty query keeps them all. */
export function searchPlaylists<T extends Pick<PlaylistLike, 'name'>>(playlists: readonly T[], query: string): T[] {
  const q = query.trim().toLowerCase();
  return q ? playlists.filter((p) => p.name.toLowerCase().includes(q)) : [...playlists];
}

/** The global error bar shows an error only within 5 s of its timestamp (spec §8). */
export const errorBarVisible = (timestamp: number, now: number) => now >= timestamp && now - timestamp < PLAYLIST_TIMINGS.errorBarMs;

/**
 * The {content format} of 'New playlist created with your {content format}. ': the title's type label in lower
 * case ('book', 'book section', 'video', 'audiobook', 'document').
 */
export const contentFormatName = (contentFormat: string | null | undefined) => formatLabel(contentFormat).toLowerCase();

/** The name the item count line uses: the selected topic's name, or the playlist's when All is selected. */
export function itemCountSubject(playlistName: string, topics: readonly TopicChoice[], selectedSlug: string): string {
  if (selectedSlug === DEFAULT_TOPIC.slug) return playlistName;
  return topics.find((t) => t.slug === selectedSlug)?.name ?? playlistName;
}

/** True when the topic is ranked past the first 5 (the bar must start expanded to show it). */
export function topicNeedsExpansion(items: readonly PlaylistItemLike[], slug: string | null | undefined): boolean {
  if (!slug || slug === DEFAULT_TOPIC.slug) return false;
  const collapsed = topicBar(items, slug, false);
  return collapsed.selected !== slug && topicBar(items, slug, true).selected === slug;
}
