/**
 * The finding contract (docs/decisions.md "Finding"): catalog search, suggest, in-book search, search-selection
 * tracking, the home sections and recommendation actions. The spec names no paths for search, suggest and
 * search-selection; ours are below and recorded in docs/decisions.md. Snippets (`highlighted_content`, `snippet`) are
 * HTML-escaped text in which only `<mark>` and `</mark>` are markup: the web app splits on those two tokens and renders
 * text nodes, so nothing of a book is ever parsed as HTML by the client.
 */
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';
import { CONTENT_FORMATS, DEFAULT_SEARCH_QUERY } from './constants.ts';
import { contentMetadataSchema, topicSchema } from './schemas.ts';

export { SNIPPET_MARK_CLOSE, SNIPPET_MARK_OPEN, snippetMarkedWords, snippetParts, snippetText, unescapeSnippet, type SnippetPart } from './snippets.ts';

/** reader.md §9: in-book search page size 5 (the query cookie's 1 day: constants.ts). */
export const IN_BOOK_SEARCH_PAGE_SIZE = 5;
/** reader.md §4: the jump to a chosen result matches the snippet's first 8 words, then 4. */
export const SEARCH_JUMP_WORDS = [8, 4] as const;
/** §9: recently viewed titles, a cookie of 31 days holding at most 10. */
export const RECENTLY_VIEWED_COOKIE = 'recently_viewed';
export const RECENTLY_VIEWED_DAYS = 31;
export const RECENTLY_VIEWED_MAX = 10;
/** DESIGN.md: the dashboard's card rows hold 3 cards (library-playlists-account.md §2). */
export const HOME_ROW_SIZE = 3;
/** Popular counts the readers of the last 30 days; trending, those of the last 7. */
export const POPULAR_DAYS = 30;
export const TRENDING_DAYS = 7;
/** An operator's choices: at most this many editors' picks; an announcement's text at most this long. */
export const EDITORS_PICKS_MAX = 30;
export const ANNOUNCEMENT_MAX = 500;

/**
 * The recently viewed cookie's value (§3: "up to 10 entries of form id:extra, newest first, unique by the part
 * before the colon"): entries joined by '|', each part URI-encoded. `extra` says what was viewed ('title' page or
 * 'reader'). Anything malformed is dropped, never an error.
 */
export function parseRecentlyViewed(value: string | undefined | null): { id: string; extra: string }[] {
  const out: { id: string; extra: string }[] = [];
  const seen = new Set<string>();
  for (const entry of (value ?? '').split('|')) {
    const colon = entry.indexOf(':');
    let id: string;
    let extra: string;
    try {
      id = decodeURIComponent(colon < 0 ? entry : entry.slice(0, colon)).trim();
      extra = colon < 0 ? '' : decodeURIComponent(entry.slice(colon + 1));
    } catch {
      continue;
    }
    if (!id || id.length > 200 || seen.has(id)) continue;
    seen.add(id);
    out.push({ id, extra: extra.slice(0, 40) });
    if (out.length === RECENTLY_VIEWED_MAX) break;
  }
  return out;
}

/** The cookie's value with `id` viewed now: first, the older entry for it gone, at most RECENTLY_VIEWED_MAX. */
export function addRecentlyViewed(value: string | undefined | null, id: string, extra: string): string {
  const entries = [{ id, extra }, ...parseRecentlyViewed(value).filter((e) => e.id !== id)].slice(0, RECENTLY_VIEWED_MAX);
  return entries.map((e) => `${encodeURIComponent(e.id)}:${encodeURIComponent(e.extra)}`).join('|');
}
/** A query longer than this is cut, not refused (a pasted paragraph still finds its book). */
export const SEARCH_QUERY_MAX = 200;
export const SEARCH_PAGE_SIZE = 20;
export const SUGGEST_LIMIT = 8;

export const SEARCH_SORTS = ['relevance', 'newest', 'title'] as const;
export type SearchSort = (typeof SEARCH_SORTS)[number];

const queryText = lazySchema(() => z
  .string()
  .max(10_000)
  .transform((q) => q.trim().slice(0, SEARCH_QUERY_MAX)));

export const catalogSearchQuerySchema = lazySchema(() => z.object({
  q: queryText.default(DEFAULT_SEARCH_QUERY),
  format: z.enum(CONTENT_FORMATS).optional(),
  topic: z.string().max(100).optional(),
  publisher: z.string().max(100).optional(),
  language: z.string().max(35).optional(),
  sort: z.enum(SEARCH_SORTS).default('relevance'),
  page: z.coerce.number().int().min(1).max(500).default(1),
  page_size: z.coerce.number().int().min(1).max(50).default(SEARCH_PAGE_SIZE),
  /**
   * Where the page starts in a match set larger than one walk sees (the server's `next` carries it; its four
   * numbers mean nothing to a client). Without it a page is found from the start.
   */
  after: z
    .string()
    .regex(/^\d{1,15}\.\d{1,6}\.\d{1,3}\.\d{1,2}$/, 'after is not a page of this search')
    .optional(),
}));
export type CatalogSearchQuery = z.infer<typeof catalogSearchQuerySchema>;

/** A passage of a chapter that matched: where it is and the words around the hit. */
export const passageHitSchema = lazySchema(() => z.object({
  chapter_title: z.string(),
  full_path: z.string(),
  /** the reader address of the chapter, with `?q=` so the reader marks the words */
  web_url: z.string(),
  highlighted_content: z.string(),
}));
export type PassageHit = z.infer<typeof passageHitSchema>;

export const searchResultSchema = lazySchema(() => z.object({
  metadata: contentMetadataSchema,
  /** the title's own fields where they matched (title, authors, description), escaped with marks */
  snippet: z.string().nullable(),
  /** at most 3 best passages of the text; empty when only the metadata matched */
  passages: z.array(passageHitSchema),
  language: z.string().nullable(),
}));
export type SearchResult = z.infer<typeof searchResultSchema>;

const facetValue = lazySchema(() => z.object({ value: z.string(), label: z.string(), count: z.number().int() }));
export type FacetValue = z.infer<typeof facetValue>;

export const catalogSearchResponseSchema = lazySchema(() => z.object({
  query: z.string(),
  count: z.number().int(),
  /** false when a common query found more than search looks at: `count` is then "at least" (decisions.md) */
  count_exact: z.boolean(),
  page: z.number().int(),
  next: z.string().nullable(),
  previous: z.string().nullable(),
  results: z.array(searchResultSchema),
  facets: z.object({
    format: z.array(facetValue),
    topic: z.array(facetValue),
    publisher: z.array(facetValue),
    language: z.array(facetValue),
  }),
}));
export type CatalogSearchResponse = z.infer<typeof catalogSearchResponseSchema>;

export const SUGGESTION_KINDS = ['title', 'author', 'topic', 'publisher'] as const;
export const suggestQuerySchema = lazySchema(() => z.object({ q: queryText }));
export const suggestResponseSchema = lazySchema(() => z.object({
  suggestions: z.array(
    z.object({ kind: z.enum(SUGGESTION_KINDS), label: z.string(), url: z.string() }),
  ),
}));
export type Suggestion = z.infer<typeof suggestResponseSchema>['suggestions'][number];

/** reader.md §7 "In-book search GET | query, identifier, page". */
export const inBookSearchQuerySchema = lazySchema(() => z.object({
  query: queryText.pipe(z.string().min(1, 'query is required')),
  identifier: z.string().min(1, 'identifier is required').max(200),
  page: z.coerce.number().int().min(1).max(1000).default(1),
}));
/** reader.md §3 "In-book search result". */
export const inBookSearchResultSchema = lazySchema(() => z.object({
  archive_id: z.string(),
  full_path: z.string(),
  web_url: z.string(),
  highlighted_content: z.string(),
  chapter_title: z.string(),
  minutes_required: z.number(),
}));
export type InBookSearchResult = z.infer<typeof inBookSearchResultSchema>;
/** reader.md §3 "Search response". */
export const inBookSearchResponseSchema = lazySchema(() => z.object({
  results: z.array(inBookSearchResultSchema),
  total: z.number().int(),
  page: z.number().int(),
}));
export type InBookSearchResponse = z.infer<typeof inBookSearchResponseSchema>;

/** reader.md §3 "Search-selection tracking". */
export const searchSelectionSchema = lazySchema(() => z.object({
  rank: z.number().int().min(0).max(10_000),
  epubarchive_identifier: z.string().max(200),
  scope: z.enum(['book', 'site']),
  content_type: z.string().max(40),
  selection_type: z.enum(['passage', 'title', 'suggestion']),
  url: z.string().max(2000),
  query: z.string().max(10_000),
  session_id: z.string().max(100),
  user_identifier: z.string().max(200).nullable().optional(),
}));
export type SearchSelection = z.infer<typeof searchSelectionSchema>;

/** library-playlists-account.md §3 "Recommendation action payload" (csrfmiddlewaretoken also accepted as a header). */
export const recommendationActionSchema = lazySchema(() => z.object({
  csrfmiddlewaretoken: z.string().optional(),
  title_id: z.string().min(1, 'title_id is required').max(200),
  action: z.enum(['queue', 'view', 'reject']),
  client_type: z.enum(['web', 'ios', 'android']),
  context: z.enum(['homepage', 'recommendations']),
  recommender_system: z.string().max(100),
  recommendation_position: z.number().int().min(0).max(1000),
}));
export type RecommendationAction = z.infer<typeof recommendationActionSchema>;

/** The home dashboard (library-playlists-account.md §2 "Dense home dashboard sections"); empty sections are left out. */
export const HOME_SECTIONS = [
  'announcements',
  'continue_reading',
  'queue',
  'last_viewed',
  'new',
  'recommended',
  'editors_picks',
  'popular',
  'trending_in_your_topics',
  'popular_videos',
  'audio_books',
  'case_studies',
] as const;
export type HomeSectionKey = (typeof HOME_SECTIONS)[number];
/** An announcement's link: a path of this site or an http(s) address, never a script. */
const announcementUrl = lazySchema(() => z
  .string()
  .max(2000)
  .refine((u) => (u.startsWith('/') && !u.startsWith('//') && !u.startsWith('/\\')) || /^https?:\/\/[^\s]+$/i.test(u), 'url must be a path of this site (/…) or an http(s) address'));

/** Admin API: PUT /api/v2/admin/editors-picks/ */
export const editorsPicksRequestSchema = lazySchema(() => z.object({ book_ids: z.array(z.string().min(1).max(200)).max(EDITORS_PICKS_MAX) }));
/** Admin API: POST /api/v2/admin/announcements/ */
export const announcementRequestSchema = lazySchema(() => z.object({
  message: z.string().trim().min(1, 'message is required').max(ANNOUNCEMENT_MAX),
  url: announcementUrl.nullable().optional(),
  starts_at: z.iso.datetime({ offset: true }).optional(),
  ends_at: z.iso.datetime({ offset: true }).nullable().optional(),
}));
export type AnnouncementRequest = z.infer<typeof announcementRequestSchema>;

export const homeResponseSchema = lazySchema(() => z.object({
  announcements: z.array(z.object({ id: z.string(), message: z.string(), url: z.string().nullable() })),
  sections: z.array(
    z.object({
      key: z.enum(HOME_SECTIONS),
      heading: z.string(),
      titles: z.array(contentMetadataSchema),
      /** recommended only: which system chose them (sent back in the action payload) */
      recommender_system: z.string().optional(),
    }),
  ),
  topics: z.array(topicSchema.extend({ count: z.number().int() })),
}));
export type HomeResponse = z.infer<typeof homeResponseSchema>;

/**
 * reader.md §4: the phrases that find a chosen passage in its chapter, the snippet's first 8 words, then its
 * first 4. An elision mark at either end of the snippet (a passage cut out of its paragraph) is not a word.
 */
export function jumpPhrases(plainSnippet: string): string[] {
  const words = plainSnippet
    .replace(/^[\s.…]+|[\s.…]+$/g, '')
    .split(/\s+/)
    .filter(Boolean);
  const out: string[] = [];
  for (const n of SEARCH_JUMP_WORDS) {
    const phrase = words.slice(0, n).join(' ');
    if (phrase && !out.includes(phrase)) out.push(phrase);
  }
  return out;
}

/**
 * Han, hiragana and katakana: scripts written without spaces between words. Search takes each such character as a
 * word of its own, in the index and in a query (a run of them is a phrase), so "猫" finds "吾輩は猫である" on both
 * engines without a dictionary (docs/decisions.md, "Search in Chinese and Japanese"). The radicals' blocks
 * (U+2E80-2FDF, dictionary notation) stay part of their words: every character spaced lies in U+3000-9FFF or
 * U+F000 onwards, which migration 0027 relies on.
 */
export const CJK_CHARACTERS = /(?![\u2e80-\u2fdf])[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;
/** Where such characters can be at all (a plain class, quick to rule most text out; surrogates for U+10000 on). */
const MAYBE_CJK = /[\u3000-\u9fff\uf000-\uffff\ud800-\udbff]/;
export const hasCjk = (text: string) => MAYBE_CJK.test(text) && text.search(CJK_CHARACTERS) >= 0;

/**
 * The words of a search query to mark in the text: letters and digits only (quotes, `*`, operators and other
 * punctuation are query syntax), each once; single letters only when there is nothing else (a single Chinese or
 * Japanese character is a word).
 */
export function queryWords(query: string): string[] {
  const words = [...new Set((query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter(Boolean))];
  const long = words.filter((w) => w.length > 1 || hasCjk(w));
  return long.length ? long : words;
}
