/**
 * The catalog as the API shows it: content metadata (library-playlists-account.md §3), book details with the
 * reading order, chapters with the reading policy applied, resources and covers.
 */
import {
  type BookDetail,
  type BookListQuery,
  type ChapterContent,
  type ContentMetadata,
  type ChapterMedia,
  isMediaFormat,
  APP_MESSAGES,
  CATALOG_MESSAGES,
  CATALOG_OFFSET_MAX,
  minutesForText,
  type Paged,
  type RootAttributes,
  paths,
  READING_MESSAGES,
  titleProgress,
} from '@lectern/core';
import type { Flag, TitleRow, UserRow } from '../db/schema.ts';
import { AppError, fieldError, notFound } from '../errors.ts';
import { readerOverlay } from '../ingest/media-overlays.ts';
import { SAMPLE_END_HTML, openingPart } from '../ingest/sample.ts';
import { renditionOf } from './rendition.ts';
import { chapterAccess, refuseChapter, type Viewer } from '../policies/reading.ts';
import type { AccountEntryRepository } from '../repositories/account-entry.ts';
import { type CatalogRepository, orderKey, type TitleExtras } from '../repositories/catalog.ts';
import { decodeCursor, encodeCursor } from './listing-cursor.ts';
import type { EntryChapters, PositionsRepository } from '../repositories/positions.ts';
import type { ProgressRepository } from '../repositories/progress.ts';
import type { MediaPart, MediaRepository } from '../repositories/media.ts';
import { type ContentStore, readStored } from '../storage/content-store.ts';
import { coverVariant, type CoverVariantHeight } from '../storage/cover-variants.ts';
import { continueTarget } from './positions.ts';
import { ReadCache, stringBytes } from '../util/cache.ts';
import { CompressedBytes } from '../util/compressed-bytes.ts';

/** Who asks for a list or a title: their continue_url and progress depend on it. */

export type ChapterOrResource =
  /** `json` is `chapter` serialised to bytes once per cache lifetime: chapter fetches are the hottest read there is */
  | { kind: 'chapter'; chapter: ChapterContent; json: CompressedBytes }
  | { kind: 'resource'; file: string; mediaType: string; size: number; allowScripts: boolean; partial?: boolean };

interface CachedChapter {
  chapter: ChapterContent;
  json: CompressedBytes;
  flags: { as_sample: Flag; is_public: Flag };
  /** The title's only chapter (a one-chapter book, a PDF): never free in full. */
  bounded: boolean;
  /** What those who may only sample a bounded chapter get (its opening part); null when there is none. */
  sample: { chapter: ChapterContent; json: CompressedBytes } | null;
}

/**
 * Titles and rendered chapters kept in memory for a minute. Whoever changes a title or a chapter here
 * (ChapterFlagsService) invalidates it through the same object. Each cache is bounded in bytes as well as in
 * entries (CACHE_BYTES); the estimates count a string at two bytes a character.
 */
export const CACHE_BYTES = {
  chapters: 64 * 1024 * 1024,
  titles: 8 * 1024 * 1024,
  chapterRefs: 8 * 1024 * 1024,
  metadataJson: 16 * 1024 * 1024,
  metadata: 8 * 1024 * 1024,
  entryChapters: 4 * 1024 * 1024,
  mediaParts: 4 * 1024 * 1024,
};
/** a row's strings and some room for the object itself */
const rowBytes = (row: object) => 200 + Object.values(row).reduce<number>((n, v) => n + (typeof v === 'string' ? stringBytes(v) : 8), 0);

export class CatalogCache {
  readonly titles = new ReadCache<string, TitleRow>(5_000, 60_000, { maxBytes: CACHE_BYTES.titles, sizeOf: rowBytes });
  readonly chapters = new ReadCache<string, CachedChapter>(2_000, 60_000, {
    maxBytes: CACHE_BYTES.chapters,
    // the parsed chapter's content, the same chapter serialised and room for its compressed forms (made on demand)
    sizeOf: (c) => stringBytes(c.chapter.content) + Math.ceil(c.json.raw.byteLength * 1.6) + 1024,
  });
  /** chapter id and label by book id + path, for content addresses */
  readonly chapterRefs = new ReadCache<string, { id: number; title_id: number; full_path: string; label: string }>(50_000, 60_000, {
    maxBytes: CACHE_BYTES.chapterRefs,
    sizeOf: rowBytes,
  });
  /** serialised metadata entries by "fields\u0000address as sent": a repeated batch is string joins only */
  readonly metadataJson = new ReadCache<string, Buffer>(50_000, 60_000, { maxBytes: CACHE_BYTES.metadataJson, sizeOf: (b) => b.byteLength + 100 });
  /** content metadata by title id (metadata only changes by re-import) */
  readonly metadata = new ReadCache<number, ContentMetadata>(10_000, 60_000, {
    maxBytes: CACHE_BYTES.metadata,
    sizeOf: (m) => 200 + stringBytes(JSON.stringify(m)),
  });
  /**
   * media parts by book id + path (services/media.ts): every range request of a player asks for its part, so its row
   * is kept like a chapter's; chapter flags and new editions forget it with the chapter
   */
  readonly mediaParts = new ReadCache<string, MediaPart>(10_000, 60_000, { maxBytes: CACHE_BYTES.mediaParts, sizeOf: rowBytes });
  /** where reading starts in each title (first, sample, public chapter) by title id; chapter flags invalidate it */
  readonly entryChapters = new ReadCache<number, EntryChapters>(10_000, 60_000, { maxBytes: CACHE_BYTES.entryChapters, sizeOf: (e) => 200 + stringBytes(JSON.stringify(e)) });

  static chapterKey(bookId: string, fullPath: string): string {
    return `${bookId}\u0000${fullPath}`;
  }

  /**
   * Moves on whenever a title gets a new edition: a title or chapter read from the database before that must not be
   * kept after it (loads compare it before they store what they read).
   */
  get generation(): number {
    return this.forgotten;
  }
  private forgotten = 0;

  /** Forgets everything kept of one title (a new edition replaced its content, services/import.ts). */
  forgetTitle(bookId: string, titleId: number): void {
    this.forgotten++;
    const prefix = `${bookId}\u0000`;
    this.titles.delete(bookId);
    this.chapters.deleteWhere((key) => key.startsWith(prefix));
    this.chapterRefs.deleteWhere((key) => key.startsWith(prefix));
    this.mediaParts.deleteWhere((key) => key.startsWith(prefix));
    // keyed by the addresses as sent (any form of them): cheap to build again, so all of it goes
    this.metadataJson.clear();
    this.metadata.delete(titleId);
    this.entryChapters.delete(titleId);
  }
}

export class CatalogService {
  constructor(
    private readonly catalog: CatalogRepository,
    private readonly store: ContentStore,
    private readonly cache: CatalogCache,
    /** `history` says why a chapter is refused to someone who has left a team (tests may leave it out) */
    private readonly reading: { positions: PositionsRepository; progress: ProgressRepository; history?: Pick<AccountEntryRepository, 'teamLeftSince'> },
    /** a video course's or audiobook's parts (null: media titles' chapters are served without their `media`) */
    private readonly media: Pick<MediaRepository, 'partOf' | 'durationsOf'> | null = null,
  ) {}

  /** How many titles the library holds (the first start fills an empty one with the sample library). */
  countTitles(): Promise<number> {
    return this.catalog.countTitles();
  }

  /**
   * What depends on the viewer for a page of titles: continue_url (services/positions.ts, continueTarget) and, for
   * signed-in readers, progress and whether Continue resumes a stored position. A fixed number of queries per page.
   */
  private async viewerFields(viewer: Viewer, titles: TitleRow[]): Promise<Map<number, Pick<ContentMetadata, 'continue_url' | 'progress' | 'resumes'>>> {
    const ids = titles.map((t) => t.id);
    // The reader's own state is one statement; where reading starts and the chapters' lengths are kept by title.
    const [entry, state, lengths] = await Promise.all([
      this.entryChaptersOf(ids),
      viewer ? this.reading.progress.readingState(viewer.id, ids) : null,
      viewer ? this.catalog.chapterLengths(ids) : null,
    ]);
    const out = new Map<number, Pick<ContentMetadata, 'continue_url' | 'progress' | 'resumes'>>();
    for (const t of titles) {
      const target = continueTarget(t, viewer, state?.positions.get(t.id), entry.get(t.id));
      const progress = () => titleProgress((lengths?.get(t.id) ?? []).map((c) => ({ textLength: c.text_length, furthest: state?.furthest.get(c.id) ?? 0 })));
      out.set(t.id, { continue_url: target.url, ...(viewer ? { progress: progress(), resumes: target.resumes } : {}) });
    }
    return out;
  }

  private async entryChaptersOf(ids: number[]): Promise<Map<number, EntryChapters>> {
    const found = new Map<number, EntryChapters>();
    const missing: number[] = [];
    for (const id of ids) {
      const hit = this.cache.entryChapters.get(id);
      if (hit) found.set(id, hit);
      else missing.push(id);
    }
    for (const [id, entry] of await this.reading.positions.entryChapters(missing)) {
      this.cache.entryChapters.set(id, entry);
      found.set(id, entry);
    }
    return found;
  }

  /**
   * A page of a listing (the catalog, a topic, a publisher; within a format) in one of the catalog orders. Pages
   * continue by keyset: `next` and `previous` carry a cursor (the sort key and id of the row they continue from),
   * so the last page costs what the first does; `page` still reaches the first CATALOG_OFFSET_MAX rows by number
   * for older clients. `count` is the listing's maintained count (repositories/listings.ts).
   */
  async list(query: BookListQuery, listUrl: string, viewer: Viewer = null): Promise<Paged<ContentMetadata>> {
    const size = query.page_size;
    const cursor = query.cursor ? decodeCursor(query.cursor, query.sort) : null;
    const offset = (query.page - 1) * size;
    if (!cursor && offset > CATALOG_OFFSET_MAX) throw fieldError('page', CATALOG_MESSAGES.pageTooDeep(Math.floor(CATALOG_OFFSET_MAX / size) + 1));
    const listing = await this.catalog.listingOf({ topicSlug: query.topic, publisherSlug: query.publisher, format: query.format });
    if (!listing) return { count: 0, next: null, previous: null, results: [] };

    // One row more than a page says whether there is another page in the direction read.
    const read = (at: Parameters<CatalogRepository['listPage']>[3]) => this.catalog.listPage(listing, query.sort, size + 1, at);
    const [count, page] = await Promise.all([
      this.catalog.listingCount(listing),
      (async () => {
        if (cursor?.direction === 'before') {
          const got = await read({ before: cursor.key });
          // Back at the start: the first page in full, as a visitor arriving there sees it.
          if (got.length <= size) return { ...cut(await read({}), size), hasPrevious: false };
          return { rows: got.slice(1), hasNext: true, hasPrevious: true };
        }
        if (cursor) return { ...cut(await read({ after: cursor.key }), size), hasPrevious: true };
        return { ...cut(await read({ offset }), size), hasPrevious: query.page > 1 };
      })(),
    ]);
    const { rows } = page;
    const [extras, perViewer] = await Promise.all([this.catalog.extrasFor(rows.map((r) => r.id)), this.viewerFields(viewer, rows)]);
    // `page` rides along for clients that read it; the cursor is what places the page.
    const pageNumber = cursor ? query.page : Math.max(1, query.page);
    const link = (page: number, row: TitleRow | undefined, direction: 'after' | 'before') => {
      const params = new URLSearchParams();
      params.set('page', String(Math.max(1, page)));
      if (row) params.set('cursor', encodeCursor({ sort: query.sort, direction, key: orderKey(row, query.sort) }));
      params.set('page_size', String(size));
      if (query.topic) params.set('topic', query.topic);
      if (query.publisher) params.set('publisher', query.publisher);
      if (query.sort !== 'title') params.set('sort', query.sort);
      if (query.format) params.set('format', query.format);
      return `${listUrl}?${params}`;
    };
    const first = rows[0];
    const last = rows.at(-1);
    return {
      count,
      next: page.hasNext && last ? link(pageNumber + 1, last, 'after') : null,
      // An empty page past the end (its rows went away) still links back by number.
      previous: page.hasPrevious ? link(pageNumber - 1, first, 'before') : null,
      results: rows.map((row) => ({ ...toMetadata(row, extras), ...perViewer.get(row.id) })),
    };
  }

  /** Title cards for these rows, in their order, with the viewer's continue_url and progress (search, home). */
  async cards(rows: TitleRow[], viewer: Viewer = null): Promise<ContentMetadata[]> {
    if (rows.length === 0) return [];
    const [extras, perViewer] = await Promise.all([this.catalog.extrasFor(rows.map((r) => r.id)), this.viewerFields(viewer, rows)]);
    return rows.map((row) => ({ ...toMetadata(row, extras), ...perViewer.get(row.id) }));
  }

  async detail(bookId: string, viewer: Viewer = null): Promise<BookDetail> {
    const title = await this.requireTitle(bookId);
    const [extras, chapters, toc, formats, perViewer, authorDirections, durations] = await Promise.all([
      this.catalog.extrasFor([title.id]),
      this.catalog.chaptersOf(title.id),
      this.catalog.tocOf(title.id),
      this.catalog.formatsOf(title),
      this.viewerFields(viewer, [title]),
      this.catalog.authorDirectionsOf(title.id),
      this.durationsOf(title),
    ]);
    // a media part's minutes are its length, not its transcript's reading time
    const minutesOf = (c: { full_path: string; text_length: number }) => {
      const ms = durations.get(c.full_path);
      return ms === undefined ? minutesForText(c.text_length) : minutesForDuration(ms);
    };
    return {
      ...toMetadata(title, extras),
      ...perViewer.get(title.id),
      language: title.language,
      title_dir: directionOf(title.title_dir),
      title_lang: title.title_lang,
      author_entries: authorDirections.map((a) => ({ name: a.name, dir: directionOf(a.dir), lang: a.lang })),
      source: title.source,
      page_count: title.page_count,
      publisher_entries: extras.publishers.get(title.id) ?? [],
      chapters: chapters.map((c) => ({
        label: c.label,
        full_path: c.full_path,
        url: paths.chapterApi(title.book_id, c.full_path),
        web_url: paths.reader(title.title_safe, title.book_id, c.full_path),
        as_sample: c.as_sample === 1,
        is_public: c.is_public === 1,
        minutes_required: minutesOf(c),
        ...(durations.has(c.full_path) ? { duration_ms: durations.get(c.full_path)! } : {}),
      })),
      minutes_required: durations.size
        ? minutesForDuration([...durations.values()].reduce((sum, ms) => sum + ms, 0))
        : minutesForText(chapters.reduce((sum, c) => sum + c.text_length, 0)),
      formats: formats.map((f) => ({
        book_id: f.book_id,
        content_format: f.content_format,
        source: f.source,
        page_count: f.page_count,
        url: paths.titlePage(f.book_id),
        continue_url: paths.reader(f.title_safe, f.book_id),
      })),
      toc: toc.map((t) => ({
        label: t.label,
        href: t.fragment ? `${t.full_path}#${t.fragment}` : t.full_path,
        full_path: t.full_path,
        depth: t.depth,
      })),
    };
  }

  /**
   * A path below /chapter/ names either a chapter (JSON, reading policy applies) or a resource (a file). A PDF
   * document's one chapter and its file share a path: `asFile` (the `?download=1` of `file_url`) asks for the file.
   */
  async chapterOrResource(bookId: string, fullPath: string, user: UserRow | null, asFile = false): Promise<ChapterOrResource> {
    try {
      return await this.findChapterOrResource(bookId, fullPath, user, asFile);
    } catch (err) {
      throw await this.refusalFor(user, err);
    }
  }

  /**
   * The cached chapter the caller may read (or its sample), without a promise; undefined when it is not cached or
   * is refused: the caller then goes the way of chapterOrResource, which loads it and words the refusal. For the
   * reader's block request, where each await is a turn of the microtask queue.
   */
  cachedChapter(bookId: string, fullPath: string, user: UserRow | null): ChapterContent | undefined {
    const cached = this.cache.chapters.get(CatalogCache.chapterKey(bookId, fullPath));
    if (!cached) return undefined;
    let access: 'full' | 'sample';
    try {
      access = chapterAccess(user, cached.flags, cached.bounded);
    } catch {
      return undefined;
    }
    return access === 'full' ? cached.chapter : cached.sample?.chapter;
  }

  /** The cached title, without a promise; undefined when it is not cached (then requireTitle). */
  cachedTitle(bookId: string): TitleRow | undefined {
    return this.cache.titles.get(bookId);
  }

  /**
   * The reading policy's refusal, in words that fit the reader: one removed from (or who left) a team is told so and
   * how to subscribe themselves, not that "your subscription has ended" (they never had one).
   */
  async refusalFor(user: UserRow | null, err: unknown): Promise<unknown> {
    if (!user || !this.reading.history || !(err instanceof AppError) || err.status !== 403 || err.detail !== READING_MESSAGES.subscriptionEnded) return err;
    const team = await this.reading.history.teamLeftSince(user.id);
    return team === null ? err : new AppError(403, READING_MESSAGES.noLongerOnTeam(team));
  }

  private async findChapterOrResource(bookId: string, fullPath: string, user: UserRow | null, asFile: boolean): Promise<ChapterOrResource> {
    const key = CatalogCache.chapterKey(bookId, fullPath);
    const cached = asFile ? null : (this.cache.chapters.get(key) ?? (await this.loadChapter(bookId, fullPath, key)));
    if (cached) {
      if (chapterAccess(user, cached.flags, cached.bounded) === 'full') return { kind: 'chapter', chapter: cached.chapter, json: cached.json };
      if (!cached.sample) refuseChapter(user);
      return { kind: 'chapter', chapter: cached.sample.chapter, json: cached.sample.json };
    }
    const title = await this.requireTitle(bookId);
    const resource = await this.catalog.findResource(title.id, fullPath);
    if (!resource) throw notFound(APP_MESSAGES.chapterNotFound);
    if (resource.media_type === 'application/pdf') {
      // The PDF of a document is its one chapter: the same reading policy guards the file, and those who may
      // only sample it get the small PDF of its first pages instead; the whole file never reaches them.
      const asChapter = await this.catalog.findChapter(title.id, resource.full_path);
      if (asChapter && chapterAccess(user, asChapter, true) === 'sample') {
        if (!resource.sample_storage_path) refuseChapter(user);
        return { kind: 'resource', file: resource.sample_storage_path, mediaType: resource.media_type, size: resource.sample_size ?? 0, allowScripts: false, partial: true };
      }
    }
    return {
      kind: 'resource',
      file: resource.storage_path,
      mediaType: resource.media_type,
      size: resource.size,
      allowScripts: title.allow_scripts === 1,
    };
  }

  private async loadChapter(bookId: string, fullPath: string, key: string): Promise<CachedChapter | null> {
    const generation = this.cache.generation;
    const title = await this.requireTitle(bookId);
    const row = await this.catalog.findChapter(title.id, fullPath);
    if (!row) return null;
    const pdfFile = row.media_type === 'application/pdf' ? await this.catalog.findResource(title.id, row.full_path) : undefined;
    const chapter: ChapterContent = {
      book_id: title.book_id,
      chapter_href: row.full_path,
      full_path: row.full_path,
      title: title.title,
      title_safe: title.title_safe,
      label: row.label,
      content_type: row.media_type,
      content: row.content,
      stylesheets: JSON.parse(row.stylesheets) as string[],
      rendition: renditionOf(row),
      item_order: row.item_order,
      as_sample: row.as_sample === 1,
      is_public: row.is_public === 1,
      allow_scripts: title.allow_scripts === 1,
      format: title.content_format,
      source: title.source,
      next_chapter_uri: row.next_full_path,
      previous_chapter_uri: row.previous_full_path,
      file_url: pdfFile ? paths.chapterApi(title.book_id, pdfFile.full_path) + '?download=1' : null,
      media_overlay: readerOverlay(row.media_overlay, (p) => paths.chapterApi(title.book_id, p)),
      root_attributes: row.root_attributes ? (JSON.parse(row.root_attributes) as RootAttributes) : null,
      ...(row.markup_error ? { markup_recovered: true } : {}),
    };
    if (this.media && isMediaFormat(title.content_format)) {
      const part = await this.media.partOf(title.id, row.full_path);
      chapter.media = part ? chapterMedia(title, part) : null;
    }
    // The title's only chapter (both neighbours missing) is bounded: an EPUB's keeps its opening part (made at
    // import; cut here for titles imported before that), a PDF's sample is the small PDF of its first pages.
    const bounded = row.previous_full_path === null && row.next_full_path === null;
    let sample: CachedChapter['sample'] = null;
    if (bounded && pdfFile) {
      if (pdfFile.sample_storage_path) sample = withJson({ ...chapter, partial: true });
    } else if (bounded) {
      const part = row.sample_content ?? openingPart(row.content, row.text_length);
      // the opening part has no overlay: its phrases would read on past the part into the whole chapter
      sample = withJson({ ...chapter, content: part + SAMPLE_END_HTML, partial: true, media_overlay: null });
    }
    const entry: CachedChapter = {
      ...withJson(chapter),
      flags: { as_sample: row.as_sample, is_public: row.is_public },
      bounded,
      sample,
    };
    if (this.cache.generation === generation) this.cache.chapters.set(key, entry);
    return entry;
  }

  /** Each media part's length by path (empty for a book). */
  durationsOf(title: TitleRow): Promise<Map<string, number>> {
    if (!this.media || !isMediaFormat(title.content_format)) return Promise.resolve(new Map());
    return this.media.durationsOf(title.id);
  }

  /** A stored file read whole (a frame document, services/scripted-frames.ts), refused past `maxBytes`. */
  readStoredFile(storagePath: string, maxBytes: number): Promise<Buffer> {
    return readStored(this.store, storagePath, maxBytes);
  }

  /** The cover, or its variant `height` pixels high when asked for one (the original when it cannot be scaled). */
  async cover(bookId: string, height?: CoverVariantHeight): Promise<{ file: string; mediaType: string }> {
    const title = await this.requireTitle(bookId);
    if (!title.cover_path || !title.cover_media_type) throw notFound('This title has no cover.');
    const file = title.cover_path;
    const variant = height ? await coverVariant(this.store, file, title.cover_media_type, height) : null;
    return variant ? { file: variant, mediaType: 'image/webp' } : { file, mediaType: title.cover_media_type };
  }

  async topics() {
    const rows = await this.catalog.topicsWithCounts();
    return { results: rows.map((r) => ({ name: r.name, slug: r.slug, count: Number(r.count) })) };
  }

  async requireTitle(bookId: string): Promise<TitleRow> {
    const cached = this.cache.titles.get(bookId);
    if (cached) return cached;
    const generation = this.cache.generation;
    const title = await this.catalog.findTitleByBookId(bookId);
    if (!title) throw notFound(APP_MESSAGES.bookNotFound);
    if (this.cache.generation === generation) this.cache.titles.set(bookId, title);
    return title;
  }
}

/** A media part's minutes (a chapter's minutes_required). */
export const minutesForDuration = (ms: number) => Math.round((ms / 60_000) * 100) / 100;

/** What the players need of a part (core's ChapterMedia): addresses without a session; the player adds `?ks=`. */
export function chapterMedia(title: Pick<TitleRow, 'book_id' | 'cover_path' | 'preview_path'>, part: MediaPart): ChapterMedia {
  return {
    mime: part.mime,
    duration_ms: part.duration_ms,
    width: part.width,
    height: part.height,
    description: part.description,
    captions_url: part.has_captions ? paths.mediaCaptions(title.book_id, part.full_path) : null,
    poster_url: title.cover_path ? paths.cover(title.book_id) : null,
    src_path: paths.mediaStream(title.book_id, part.full_path),
    preview_url: title.preview_path ? paths.mediaPreview(title.book_id) : null,
  };
}

function cut(rows: TitleRow[], size: number): { rows: TitleRow[]; hasNext: boolean } {
  return { rows: rows.slice(0, size), hasNext: rows.length > size };
}

function withJson(chapter: ChapterContent): { chapter: ChapterContent; json: CompressedBytes } {
  return { chapter, json: new CompressedBytes(Buffer.from(JSON.stringify(chapter))) };
}

export function toMetadata(row: TitleRow, extras: TitleExtras): ContentMetadata {
  return {
    api_url: paths.bookApi(row.book_id),
    authors: extras.authors.get(row.id) ?? [],
    content_format: row.content_format,
    continue_url: paths.reader(row.title_safe, row.book_id),
    cover_image_url: row.cover_path ? paths.cover(row.book_id) : null,
    identifier: row.book_id,
    issued: row.issued,
    publishers: (extras.publishers.get(row.id) ?? []).map((p) => p.name),
    title: row.title,
    topics: extras.topics.get(row.id) ?? [],
    url: paths.titlePage(row.book_id),
    book_id: row.book_id,
    title_safe: row.title_safe,
    description: row.description,
  };
}

export class TaxonomyLookups {
  constructor(private readonly catalog: CatalogRepository) {}

  async topic(slug: string) {
    const topic = await this.catalog.findTopic(slug);
    if (!topic) throw notFound('We could not find that topic.');
    return topic;
  }

  async publisher(slug: string) {
    const publisher = await this.catalog.findPublisher(slug);
    if (!publisher) throw notFound('We could not find that publisher.');
    return publisher;
  }
}

/** A stored direction as the API gives it: ltr, rtl or auto (values were checked at import; anything else is none). */
function directionOf(dir: string | null): 'ltr' | 'rtl' | 'auto' | null {
  return dir === 'ltr' || dir === 'rtl' || dir === 'auto' ? dir : null;
}
