/**
 * Finding (docs/decisions.md "Finding"): the catalog search with facets and passage hits, the header's suggestions,
 * search inside one book (reader.md §3, §7), the search-selection record, and the backfill of titles imported before
 * search existed. The catalog search lists what the catalog lists (one result per work); passages come only from
 * chapters the caller may read whole (a visitor sees the samples' passages), so search never shows text the reader
 * would not.
 */
import {
  type CatalogSearchQuery,
  type CatalogSearchResponse,
  IN_BOOK_SEARCH_PAGE_SIZE,
  type InBookSearchResponse,
  paths,
  type PassageHit,
  type SearchSelection,
  type Suggestion,
  SEARCH_PAGE_SIZE,
  SUGGEST_LIMIT,
  searchPaths,
  APP_MESSAGES,
  MEDIA_TIME_PARAM,
  minutesForText,
  nameKey,
  titleSortKey,
} from '@lectern/core';
import type { TitleRow } from '../db/schema.ts';
import { notFound } from '../errors.ts';
import { chapterAccess, hasLiveSubscription, type Viewer } from '../policies/reading.ts';
import type { CatalogRepository, TitleExtras, TitleSortRow } from '../repositories/catalog.ts';
import type { Candidate, SearchKind, SearchRepository } from '../repositories/search.ts';
import type { CatalogService } from './catalog.ts';
import { ReadCache, stringBytes } from '../util/cache.ts';
import { cueSecondOf, fieldSnippet, isEmptyQuery, metadataScore, type ParsedQuery, parseQuery, passagesOf, snippetOf } from '../util/search-text.ts';

/**
 * How many rows of each kind a catalog search considers: the newest matches of the title itself, of a title's own
 * row, and of the text (repositories/search.ts `newest`). A word found in fewer passages than the window has them
 * ranked by the engine instead. Bounded windows make a common word cost the same in any size of library; `count`
 * is then the works found among them.
 */
const WINDOWS = { names: 50, titles: 150, passages: 200 };
/**
 * A phrase or several words find fewer passages, so the newest 200 lie further back: the walk costs what it skips.
 * Fewer of them (they are precise hits) keep it short.
 */
const NARROW_PASSAGE_WINDOW = 50;
/** How many passages of one book an in-book search can page through. */
const IN_BOOK_WINDOW = 1000;
const PASSAGES_PER_RESULT = 3;
/**
 * Paging a large match set: each later part walks up to MAX_SCALE times the first part's windows (four times more
 * after a part that held less than a page), and one request walks at most PARTS_PER_REQUEST parts.
 */
const MAX_SCALE = 16;
const PARTS_PER_REQUEST = 8;
const KINDS: readonly SearchKind[] = ['names', 'titles', 'passages'];

/** A work found: its lead title, rank (smaller is better), best passages, and the titles of it that matched. */
interface SearchWork {
  row: TitleSortRow;
  rank: number;
  passageIds: number[];
  members: TitleSortRow[];
}

/**
 * Where a page of a large match set starts: the part (`before`: the doc id its walk starts below, null for the
 * first part), how many of the part's works come before the page, the part's window scale, and which kinds the
 * first part saw whole (a bit each, in KINDS order). Written in the `after` parameter as four numbers.
 */
interface Cursor {
  before: number | null;
  skip: number;
  scale: number;
  whole: number;
  /** the search is of the last word's beginning (the words as written found less than a page) */
  typed: boolean;
}
const TYPED_BIT = 8;
const formatCursor = (c: Cursor) => `${c.before ?? 0}.${c.skip}.${c.scale}.${c.whole | (c.typed ? TYPED_BIT : 0)}`;
function parseCursor(text: string): Cursor {
  const [before, skip, scale, bits] = text.split('.').map(Number) as [number, number, number, number];
  return { before: before > 0 ? before : null, skip, scale: Math.min(Math.max(scale, 1), MAX_SCALE), whole: bits & 7, typed: (bits & TYPED_BIT) !== 0 };
}


/** A PDF's passages are its pages (passage_no is the page's index): its hits open on their page. */
const pageOf = (p: { media_type: string; passage_no: number }) => (p.media_type === 'application/pdf' ? p.passage_no + 1 : undefined);
/** A video or audio part's passages are its transcript's: its hits open at the second the words are said. */
const isMediaPart = (p: { media_type: string }) => p.media_type.startsWith('video/') || p.media_type.startsWith('audio/');

/**
 * A part of a match set is the same for every reader (passages are chosen for the reader after it): the same query's
 * part is kept this long, and shared by the searches asking for it at once (single flight). A second, as every server
 * is current on the others' changes within a second (docs/decisions.md "Several servers: current on all within a
 * second"); a change made in this process, or a new edition announced by another, moves the catalog's count
 * (`titlesAdded`), which is in the key, so it shows at once.
 */
const PART_CACHE_MS = 1_000;
const PART_CACHE_ENTRIES = 500;
const PART_CACHE_BYTES = 16 * 1024 * 1024;

type Part = { list: SearchWork[]; facetRows: TitleSortRow[]; names: TitleExtras; next: number | null; nextScale: number; whole: number };

/**
 * The marked snippets of passages and titles for a query, the same for every reader: kept by the catalog's change
 * count (as PART_CACHE_MS says), the passage or title, and the query. Making them was 7.5% of the event loop's
 * samples under the 200-connection mix on SQLite.
 */
const SNIPPET_CACHE_ENTRIES = 20_000;
const SNIPPET_CACHE_MS = 60_000;
const SNIPPET_CACHE_BYTES = 8 * 1024 * 1024;

/** What a part holds, roughly: the rows are the catalog's own (kept by id there), the part adds lists and maps. */
const partBytes = (p: Part) => 1024 + 200 * (p.list.length + p.facetRows.length) + 100 * (p.names.authors.size + p.names.topics.size + p.names.publishers.size);

/** How many topics and publishers a facet lists (the most frequent first). */
const FACET_VALUES_SHOWN = 20;

export class SearchService {
  private readonly parts = new ReadCache<string, Part>(PART_CACHE_ENTRIES, PART_CACHE_MS, { maxBytes: PART_CACHE_BYTES, sizeOf: partBytes });
  private readonly snippets = new ReadCache<string, string | null>(SNIPPET_CACHE_ENTRIES, SNIPPET_CACHE_MS, {
    maxBytes: SNIPPET_CACHE_BYTES,
    sizeOf: (v) => 300 + (v === null ? 0 : stringBytes(v)),
  });

  /** `make`'s snippet, kept under `key` (which names the catalog's change count read before the text was). */
  private snippet(key: string, make: () => string | null): string | null {
    const kept = this.snippets.get(key);
    if (kept !== undefined) return kept;
    const made = make();
    this.snippets.set(key, made);
    return made;
  }

  constructor(
    private readonly index: SearchRepository,
    private readonly catalog: CatalogRepository,
    private readonly cards: CatalogService,
  ) {}

  /** May this viewer read this chapter whole? (a bounded sample's passages would quote past the sample) */
  private readable(viewer: Viewer, chapter: { as_sample: number; is_public: number }, bounded: boolean): boolean {
    try {
      return chapterAccess(viewer, { as_sample: chapter.as_sample as 0 | 1, is_public: chapter.is_public as 0 | 1 }, bounded) === 'full';
    } catch {
      return false;
    }
  }

  async catalogSearch(query: CatalogSearchQuery, viewer: Viewer): Promise<CatalogSearchResponse> {
    // read before any text is: a change made after it keys its snippets apart (SNIPPET_CACHE_MS)
    const changes = this.catalog.titlesAdded;
    const exact = parseQuery(query.q);
    const base = { query: query.q, page: query.page };
    if (isEmptyQuery(exact)) {
      // The spec's default search '*' (or nothing): everything, newest first, through the catalog's own listing.
      const list = await this.cards.list(
        { page: query.page, page_size: query.page_size, sort: 'recent', format: query.format, topic: query.topic, publisher: query.publisher },
        searchPaths.catalog(),
        viewer,
      );
      return {
        ...base,
        count: list.count,
        count_exact: true,
        next: list.next,
        previous: list.previous,
        results: list.results.map((metadata) => ({ metadata, snippet: null, passages: [], language: null })),
        facets: { format: [], topic: [], publisher: [], language: [] },
      };
    }

    // The page's works, walking the parts of the match set from the cursor (or from the start, skipping the pages
    // before this one) until the page is full, the match set ends, or the request has walked its share.
    const cursor = query.after ? parseCursor(query.after) : null;
    let at: Cursor = cursor ?? { before: null, skip: (query.page - 1) * query.page_size, scale: 1, whole: 0, typed: false };
    // The last word is the one being typed ("mart" for "Martians", a search box's habit) when the words as written
    // find less than a page: SQLite's FTS5 has no prefix index, and a prefix query reads every match of every word
    // it begins (3x a common word's cost at 1,000 titles, growing with the library), so it is not asked first.
    const typed = parseQuery(query.q, true);
    let q = exact;
    let probe: Awaited<ReturnType<SearchService['part']>> | null = null;
    if (cursor) q = cursor.typed ? typed : exact;
    // (the two parse alike word for word; typed differs only where the last word became a prefix)
    else if (typed.words.some((w, i) => w.prefix && !exact.words[i]?.prefix)) {
      probe = await this.part(exact, { ...at, skip: 0 }, query);
      if (probe.next === null && probe.list.length < query.page_size) {
        q = typed;
        probe = null;
        at = { ...at, typed: true };
      }
    }
    const taken: SearchWork[] = [];
    // The facets count every work of the parts this request walked (the parts hold disjoint works): a page that
    // walks the match set to its end counts it whole; one that stops sooner counts what it walked.
    const facetRows: TitleSortRow[] = [];
    const facetNames: TitleExtras = { authors: new Map(), publishers: new Map(), topics: new Map() };
    let next: Cursor | null = null;
    let after = 0;
    for (let walked = 0; ; walked++) {
      const part = walked === 0 && probe ? probe : await this.part(q, at, query);
      facetRows.push(...part.facetRows);
      for (const key of ['authors', 'publishers', 'topics'] as const) for (const [id, v] of part.names[key]) facetNames[key].set(id, v as never);
      const fromHere = part.list.slice(at.skip);
      const take = fromHere.slice(0, query.page_size - taken.length);
      taken.push(...take);
      const left = fromHere.length - take.length;
      const following: Cursor | null =
        part.next === null ? null : { before: part.next, skip: Math.max(0, at.skip - part.list.length), scale: part.nextScale, whole: part.whole, typed: at.typed };
      if (taken.length >= query.page_size || following === null || walked + 1 >= PARTS_PER_REQUEST) {
        next = left > 0 ? { ...at, skip: at.skip + take.length, whole: part.whole } : following;
        after = left;
        break;
      }
      at = following;
    }

    const page = taken;
    // The passages shown: the walk's, and for titles it brought too few (all titles, for a visitor) their first ones.
    const hitIds = await this.passageIds(q, page, viewer);
    const passages = await this.index.passages([...new Set([...hitIds.values()].flat())]);
    const full = await this.catalog.findTitlesByIds([...new Set([...page.map((w) => w.row.id), ...passages.map((p) => p.title_id)])]);
    const titleById = new Map(full.map((t) => [t.id, t]));
    const passageById = new Map(passages.map((p) => [p.id, p]));
    const secondOf = await this.secondsOf(passages, q);
    const pageRows = page.map((w) => titleById.get(w.row.id)!);
    const [metadata, extras, chapterCounts] = await Promise.all([
      this.cards.cards(pageRows, viewer),
      this.catalog.extrasFor(pageRows.map((r) => r.id)),
      this.catalog.chapterCounts([...new Set(passages.map((p) => p.title_id))]),
    ]);
    const snippetKey = `${changes}\u0000${JSON.stringify(q)}`;
    const results = page.map((w, i) => {
      const row = pageRows[i]!;
      const hits: PassageHit[] = [];
      for (const id of new Set(hitIds.get(w) ?? [])) {
        const p = passageById.get(id);
        const title = p && titleById.get(p.title_id);
        if (!p || !title || hits.length >= PASSAGES_PER_RESULT) continue;
        if (!this.readable(viewer, p, (chapterCounts.get(p.title_id) ?? 0) <= 1)) continue;
        const highlighted = this.snippet(`${snippetKey}\u0000p${p.id}`, () => snippetOf(p.body, q));
        if (!highlighted) continue;
        hits.push({ chapter_title: p.label, full_path: p.full_path, web_url: this.webUrl(title, p.full_path, query.q, pageOf(p), secondOf.get(p.id)), highlighted_content: highlighted });
      }
      const authors = extras.authors.get(row.id) ?? [];
      return { metadata: metadata[i]!, snippet: this.snippet(`${snippetKey}\u0000t${row.id}`, () => fieldSnippet([row.title, authors.join(', '), row.description ?? ''], q)), passages: hits, language: row.language };
    });
    const pageUrl = (n: number, from: Cursor | null) => {
      const params = new URLSearchParams({ q: query.q, page: String(n), page_size: String(query.page_size) });
      if (query.sort !== 'relevance') params.set('sort', query.sort);
      for (const key of ['format', 'topic', 'publisher', 'language'] as const) if (query[key]) params.set(key, query[key]);
      if (from) params.set('after', formatCursor(from));
      return `${searchPaths.catalog()}?${params}`;
    };
    const start = (query.page - 1) * query.page_size;
    return {
      ...base,
      // the works before this page, on it, and known to follow it; "at least" while the match set goes on
      count: start + page.length + after,
      count_exact: next === null,
      next: next ? pageUrl(query.page + 1, next) : null,
      // a page before is found again from the start (a cursor leads only forward)
      previous: query.page > 1 ? pageUrl(query.page - 1, null) : null,
      results,
      facets: facetsOf(facetRows, facetNames),
    };
  }

  /**
   * One part of the match set (docs/decisions.md "Search pages to its end"): the works whose search rows lie below
   * the cursor's doc id and above the part's floor, grouped, filtered and sorted. The first part is what one
   * bounded walk of each kind sees (the newest matches; a kind it saw whole is wholly in it, so a title named by the
   * word is always on the first pages, however old); each later part walks on below the one before, without the
   * kinds the first part saw whole and without their works. A part ends at a title's first row (a title's rows are
   * one range of ids), so every title is in exactly one part.
   */
  private part(q: ParsedQuery, at: Cursor, query: CatalogSearchQuery): Promise<Part> {
    // everything the part is made from (the reader is not: see PART_CACHE_MS)
    const key = JSON.stringify([this.catalog.titlesAdded, q, at.before, at.scale, at.whole, query.format, query.topic, query.publisher, query.language, query.sort]);
    return this.parts.getOrLoad(key, () => this.walkPart(q, at, query));
  }

  private async walkPart(q: ParsedQuery, at: Cursor, query: CatalogSearchQuery): Promise<Part> {
    const narrow = q.phrases.length > 0 || q.words.length > 1;
    const windows = (scale: number) => ({ names: WINDOWS.names * scale, titles: WINDOWS.titles * scale, passages: (narrow ? NARROW_PASSAGE_WINDOW : WINDOWS.passages) * scale });
    const first = at.before === null;
    const kinds = KINDS.filter((k, i) => first || !(at.whole & (1 << i)));
    const found = await this.index.newestOfEach(q, windows(at.scale), { before: at.before, kinds });
    // the lowest doc id seen whole by every kind still walking; null: the match set ends here
    const floors = kinds.filter((k) => !found[k].complete).map((k) => ({ kind: k, floor: found[k].floor! }));
    const lowest = floors.length ? floors.reduce((a, b) => (b.floor > a.floor ? b : a)) : null;
    let next: number | null = null;
    if (lowest) {
      const owner = found[lowest.kind].floorTitle!;
      next = (await this.index.firstRowOf(owner)) ?? lowest.floor;
    }
    const whole = first ? KINDS.reduce((bits, k, i) => (found[k].complete ? bits | (1 << i) : bits), 0) : at.whole;
    // In the first part a kind seen whole keeps all its rows; everything else stops at the part's end.
    const keep = (kind: SearchKind) => (r: Candidate) => next === null || r.id >= next || (first && found[kind].complete);
    const names = found.names.rows.filter(keep('names'));
    const own = found.titles.rows.filter(keep('titles'));
    let text = found.passages.rows.filter(keep('passages'));
    // A word found in fewer passages than the window has them ranked by the engine instead.
    if (first && found.passages.complete && kinds.includes('passages')) text = await this.index.rankedPassages(q, windows(1).passages);

    // A later part leaves out the works of the kinds the first part saw whole (they were listed there).
    const excluded = new Set<number>();
    if (!first && at.whole) {
      const again = await this.index.newestOfEach(q, windows(1), { kinds: KINDS.filter((k, i) => at.whole & (1 << i)) });
      const ids = [...new Set(KINDS.flatMap((k) => again[k].rows.map((r) => r.title_id)))];
      for (const t of await this.catalog.titleSortRows(ids)) excluded.add(t.work_title_id ?? t.id);
    }

    const byTitle = new Map<number, { rank: number; passageIds: number[] }>();
    const entry = (titleId: number) => byTitle.get(titleId) ?? byTitle.set(titleId, { rank: 0, passageIds: [] }).get(titleId)!;
    for (const doc of [...names, ...own]) {
      const e = entry(doc.title_id);
      e.rank = Math.min(e.rank, -metadataScore(doc as Required<typeof doc>, q));
    }
    // A hit in the text alone scores below 1, the best passage (engine-ranked, or the newest) nearest it.
    text.forEach((p, i) => {
      const e = entry(p.title_id);
      e.rank = Math.min(e.rank, -(1 - (i + 1) / (text.length + 1)));
      if (e.passageIds.length < PASSAGES_PER_RESULT * 3) e.passageIds.push(p.id);
    });

    // The match set is grouped, filtered and sorted on a few columns per title; whole rows only for the page.
    const titles = await this.catalog.titleSortRows([...byTitle.keys()]);
    // One result per work: a title stands for its work; its other formats lend it their hits.
    const works = new Map<number, { row: TitleSortRow | null; rank: number; passageIds: number[]; members: TitleSortRow[] }>();
    for (const t of titles) {
      const workId = t.work_title_id ?? t.id;
      if (excluded.has(workId)) continue;
      const hit = byTitle.get(t.id)!;
      const w = works.get(workId) ?? { row: null, rank: hit.rank, passageIds: [], members: [] };
      if (t.work_title_id === null) w.row = t;
      w.rank = Math.min(w.rank, hit.rank);
      w.passageIds.push(...hit.passageIds);
      w.members.push(t);
      works.set(workId, w);
    }
    // A later part leaves out a work another of whose titles (its other format, imported earlier or later) matched
    // at or above the part's start: an earlier part listed it (one result per work across the pages), unless a
    // format filter left it out there (it judged the work by its lead and the formats it found).
    if (!first && works.size) {
      const earlier = await this.catalog.titleSortRows(await this.index.titlesMatchingFrom(q, [...works.keys()], at.before!));
      const workOf = (t: TitleSortRow) => t.work_title_id ?? t.id;
      const leads = query.format ? await this.catalog.titleSortRows([...new Set(earlier.map(workOf))]) : [];
      for (const t of earlier) {
        const listed = !query.format || [...earlier.filter((e) => workOf(e) === workOf(t)), ...leads.filter((l) => l.id === workOf(t))].some((e) => e.content_format === query.format);
        if (listed) works.delete(workOf(t));
      }
    }
    const missingLeads = [...works].filter(([, w]) => !w.row).map(([id]) => id);
    for (const lead of await this.catalog.titleSortRows(missingLeads)) works.get(lead.id)!.row = lead;
    let list = [...works.values()].filter((w): w is SearchWork => w.row !== null);
    // How large the next part's windows are: a part that held less than a page walks four times as far next.
    const nextScale = list.length < SEARCH_PAGE_SIZE ? Math.min(at.scale * 4, MAX_SCALE) : at.scale;

    // The names of every work in the part (kept by id in the catalog: no statement once warm) give the facets and
    // the filters. Filters apply after the facets are counted (so each facet shows what choosing it gives).
    const extras = await this.catalog.extrasFor(list.map((w) => w.row.id));
    const facetRows = list.map((w) => w.row);
    if (query.format || query.topic || query.publisher || query.language) {
      list = list.filter(
        (w) =>
          (!query.format || w.members.some((m) => m.content_format === query.format) || w.row.content_format === query.format) &&
          (!query.language || w.row.language === query.language) &&
          (!query.topic || (extras.topics.get(w.row.id) ?? []).some((t) => t.slug === query.topic)) &&
          (!query.publisher || (extras.publishers.get(w.row.id) ?? []).some((p) => p.slug === query.publisher)),
      );
    }
    if (query.sort === 'newest') list.sort((a, b) => b.row.created_at.localeCompare(a.row.created_at) || a.row.id - b.row.id);
    else if (query.sort === 'title') list.sort((a, b) => a.row.sort_title.localeCompare(b.row.sort_title) || a.row.id - b.row.id);
    else list.sort((a, b) => a.rank - b.rank || a.row.id - b.row.id);
    return { list, facetRows, names: extras, next, nextScale, whole };
  }

  /**
   * The passages each work of the page shows (ids, best first): a subscriber's are the walk's; a reader without a
   * live subscription (a visitor) gets the first ones in reading order among the chapters everyone may read, asked of
   * the index title by title (the walk's newest hits are mostly in locked chapters), so a visitor has passages to
   * jump into a sample from and never sees locked text.
   */
  private async passageIds(q: ParsedQuery, page: readonly SearchWork[], viewer: Viewer): Promise<Map<SearchWork, number[]>> {
    const openOnly = !(viewer && hasLiveSubscription(viewer));
    const out = new Map<SearchWork, number[]>(page.map((w) => [w, openOnly ? [] : [...w.passageIds]]));
    // A subscriber's page shows the walk's passages (asking each title for more doubled a common word's cost).
    const wanted = openOnly ? page.flatMap((w) => w.members.map((m) => m.id)) : [];
    if (wanted.length === 0) return out;
    const more = await this.index.passagesOfTitles(q, wanted, PASSAGES_PER_RESULT, openOnly);
    for (const w of page) {
      const mine = new Set(w.members.map((m) => m.id));
      out.get(w)!.push(...more.filter((p) => mine.has(p.title_id)).map((p) => p.id));
    }
    return out;
  }

  /**
   * The second each media passage's words are said (by passage id), found in its part's transcript; other passages
   * have none. Only the transcripts of the passages shown are read.
   */
  private async secondsOf(passages: readonly { id: number; chapter_id: number; media_type: string; passage_no: number; body: string }[], q: ParsedQuery): Promise<Map<number, number>> {
    const media = passages.filter(isMediaPart);
    const out = new Map<number, number>();
    if (media.length === 0) return out;
    const contents = await this.index.chapterContents([...new Set(media.map((p) => p.chapter_id))]);
    for (const p of media) {
      const second = cueSecondOf(contents.get(p.chapter_id) ?? '', p.passage_no, p.body, q);
      if (second !== null) out.set(p.id, second);
    }
    return out;
  }

  private webUrl(title: Pick<TitleRow, 'title_safe' | 'book_id'>, fullPath: string, q: string, page?: number, second?: number): string {
    const params = new URLSearchParams({ q });
    if (page !== undefined) params.set('page', String(page));
    if (second !== undefined) params.set(MEDIA_TIME_PARAM, String(second));
    return `${paths.reader(title.title_safe, title.book_id, fullPath)}?${params}`;
  }

  /** reader.md §7: `{results, total, page}`, 5 a page, only passages of chapters the caller may read. */
  async inBook(input: { query: string; identifier: string; page: number }, viewer: Viewer): Promise<InBookSearchResponse> {
    const title = await this.catalog.findTitleByBookId(input.identifier);
    if (!title) throw notFound(APP_MESSAGES.bookNotFound);
    const q = parseQuery(input.query);
    if (isEmptyQuery(q)) return { results: [], total: 0, page: input.page };
    // a caller without a live subscription pages through the chapters open to everyone, not the book's first 1000 hits
    const ids = await this.index.passagesOfTitle(q, title.id, IN_BOOK_WINDOW, !(viewer && hasLiveSubscription(viewer)));
    const passages = await this.index.passages(ids);
    const bounded = ((await this.catalog.chapterCounts([title.id])).get(title.id) ?? 0) <= 1;
    const byId = new Map(passages.map((p) => [p.id, p]));
    const secondOf = await this.secondsOf(passages, q);
    // In reading order (chapter, then passage), as a reader pages through a book's hits.
    const readable = ids
      .map((id) => byId.get(id)!)
      .filter((p) => p && this.readable(viewer, p, bounded))
      .sort((a, b) => a.item_order - b.item_order || a.passage_no - b.passage_no);
    const start = (input.page - 1) * IN_BOOK_SEARCH_PAGE_SIZE;
    const results = readable.slice(start, start + IN_BOOK_SEARCH_PAGE_SIZE).map((p) => ({
      archive_id: title.book_id,
      full_path: p.full_path,
      web_url: this.webUrl(title, p.full_path, input.query, pageOf(p), secondOf.get(p.id)),
      highlighted_content: snippetOf(p.body, q) ?? '',
      chapter_title: p.label,
      minutes_required: minutesForText(p.text_length),
    }));
    return { results, total: readable.length, page: input.page };
  }

  /** The header's suggestions: titles, authors, topics and publishers whose names start with what was typed. */
  async suggest(raw: string): Promise<{ suggestions: Suggestion[] }> {
    const name = nameKey(raw);
    if (name.length < 2) return { suggestions: [] };
    const found = await this.index.suggest({ title: [name, titleSortKey(raw)], name }, SUGGEST_LIMIT);
    const out: Suggestion[] = [
      ...found.titles.map((t) => ({ kind: 'title' as const, label: t.title, url: paths.titlePage(t.book_id) })),
      ...found.authors.map((a) => ({ kind: 'author' as const, label: a.name, url: searchPaths.searchPage(a.name) })),
      ...found.topics.map((t) => ({ kind: 'topic' as const, label: t.name, url: paths.topic(t.slug) })),
      ...found.publishers.map((p) => ({ kind: 'publisher' as const, label: p.name, url: paths.publisher(p.slug) })),
    ];
    return { suggestions: out.slice(0, SUGGEST_LIMIT * 2) };
  }

  async recordSelection(selection: SearchSelection, viewer: Viewer, now: Date = new Date()): Promise<void> {
    await this.index.recordSelection({
      user_id: viewer?.id ?? null,
      rank: selection.rank,
      book_id: selection.epubarchive_identifier,
      scope: selection.scope,
      content_type: selection.content_type,
      selection_type: selection.selection_type,
      url: selection.url,
      query: selection.query,
      session_id: selection.session_id,
      created_at: now.toISOString(),
    });
  }

  /** Indexes the titles imported before search existed (at start; idempotent: only titles with no rows). */
  async backfill(): Promise<number> {
    let done = 0;
    for (;;) {
      const ids = await this.index.unindexedTitleIds(20);
      if (ids.length === 0) return done;
      for (const id of ids) {
        const [title] = await this.catalog.findTitlesByIds([id]);
        if (!title) continue;
        const extras = await this.catalog.extrasFor([id]);
        const chapters = await this.catalog.chapterContents(id);
        const passages = chapters.flatMap((c) => passagesOf(c.content).map((body, passage_no) => ({ full_path: c.full_path, passage_no, body })));
        await this.index.writeAlone(id, {
          title: title.title,
          people: (extras.authors.get(id) ?? []).join(' '),
          subjects: [...(extras.topics.get(id) ?? []).map((t) => t.name), ...(extras.publishers.get(id) ?? []).map((p) => p.name)].join(' '),
          description: title.description ?? '',
          passages,
        }, new Map(chapters.map((c) => [c.full_path, c.id])));
        done++;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }
}

/** The facets of a match set: each format, language, topic and publisher with how many of its works have it. */
export function facetsOf(titles: readonly { id: number; content_format: string; language: string | null }[], names: TitleExtras): CatalogSearchResponse['facets'] {
  const format = new Map<string, number>();
  const language = new Map<string, number>();
  const topic = new Map<string, { label: string; count: number }>();
  const publisher = new Map<string, { label: string; count: number }>();
  const add = (m: Map<string, { label: string; count: number }>, slug: string, label: string) => m.set(slug, { label, count: (m.get(slug)?.count ?? 0) + 1 });
  for (const t of titles) {
    format.set(t.content_format, (format.get(t.content_format) ?? 0) + 1);
    if (t.language) language.set(t.language, (language.get(t.language) ?? 0) + 1);
    for (const x of names.topics.get(t.id) ?? []) add(topic, x.slug, x.name);
    for (const x of names.publishers.get(t.id) ?? []) add(publisher, x.slug, x.name);
  }
  const sorted = (m: Map<string, { label: string; count: number }>) =>
    [...m].map(([value, v]) => ({ value, label: v.label, count: v.count })).sort((a, b) => b.count - a.count || a.label.localeCompare(b.label));
  const counted = (m: Map<string, number>) => [...m].map(([value, count]) => ({ value, label: value, count })).sort((a, b) => b.count - a.count);
  return { format: counted(format), topic: sorted(topic).slice(0, FACET_VALUES_SHOWN), publisher: sorted(publisher).slice(0, FACET_VALUES_SHOWN), language: counted(language) };
}
