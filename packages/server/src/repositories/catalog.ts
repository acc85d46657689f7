/**
 * The catalog: titles with their authors, publishers, topics, chapters, resources and table of contents.
 * Reads for the API and the one transactional write that an import makes.
 */
import { type Insertable, type Kysely, sql, type Transaction } from 'kysely';
import { nameKey } from '@lectern/core';
import type { ChapterRow, Database, Flag, MediaFilesTable, ResourceRow, TitleRow } from '../db/schema.ts';
import type { SearchDocument, SearchRepository } from './search.ts';
import { listingKeys, refreshListings } from './listings.ts';
import { IdCache } from '../util/cache.ts';
import { ReadingSummaryRepository, topicIdsOf } from './reading-summary.ts';
import { isUniqueViolation } from './conflicts.ts';

/**
 * A new title's book id was taken by another import between the importer's look and its insert (two servers
 * importing the same new book at once): the unique book id settles which one is in (docs/decisions.md "The same
 * new book imported twice at once").
 */
export class BookIdTaken extends Error {
  override name = 'BookIdTaken';
  constructor(readonly bookId: string) {
    super(`the book id ${bookId} was taken by another import at the same moment`);
  }
}

/** How long a title's row and names are kept for the reads every page repeats (util/cache.ts IdCache). */
const TITLE_CACHE_MS = 60_000;
/** Names and sort columns are small; a whole row holds its description too, so fewer of those are kept. */
const TITLE_CACHE_ENTRIES = 20_000;
const TITLE_ROW_CACHE_ENTRIES = 5_000;
/**
 * And what they may weigh (util/cache.ts IdCache valueBytes): about the entry counts above for the generated library's rows,
 * fewer where rows are heavy (a title of 300 chapters holds 300 chapter lengths: by this estimate 20,000 of those
 * would weigh ~500 MB under the entry bound alone).
 */
const TITLE_CACHE_BYTES = { rows: 16 * 1024 * 1024, names: 8 * 1024 * 1024, sortRows: 8 * 1024 * 1024, chapterLengths: 8 * 1024 * 1024 };

interface NamesOfTitle {
  authors: string[];
  publishers: { name: string; slug: string }[];
  topics: { name: string; slug: string }[];
}

export interface TitleFilter {
  topicSlug?: string;
  publisherSlug?: string;
  /** works that have a title in this content format */
  format?: string;
}

export type TitleOrder = 'title' | 'recent' | 'author';

type ListingColumn = 'l.sort_title' | 'l.title_id' | 'l.created_at' | 'l.author_last' | 'l.sort_author';
/** The listing columns each order sorts by, the id last; recent reads them newest first. */
const ORDER_COLUMNS: Record<TitleOrder, ListingColumn[]> = {
  title: ['l.sort_title', 'l.title_id'],
  recent: ['l.created_at', 'l.title_id'],
  author: ['l.author_last', 'l.sort_author', 'l.sort_title', 'l.title_id'],
};

/** A row's position in an order: the values of ORDER_COLUMNS[order] (keyset paging starts after or before it). */
export type OrderKey = (string | number)[];

export function orderKey(row: Pick<TitleRow, 'id' | 'sort_title' | 'sort_author' | 'created_at'>, order: TitleOrder): OrderKey {
  if (order === 'recent') return [row.created_at, row.id];
  if (order === 'author') return [row.sort_author === '' ? 1 : 0, row.sort_author, row.sort_title, row.id];
  return [row.sort_title, row.id];
}

export interface TitleExtras {
  authors: Map<number, string[]>;
  publishers: Map<number, { name: string; slug: string }[]>;
  topics: Map<number, { name: string; slug: string }[]>;
}

export type ChapterSummaryRow = Pick<
  ChapterRow,
  'id' | 'full_path' | 'label' | 'item_order' | 'media_type' | 'as_sample' | 'is_public' | 'text_length' | 'rendition_layout' | 'rendition_spread' | 'rendition_flow' | 'page_spread' | 'viewport_width' | 'viewport_height' | 'align_x_center'
>;

export interface ChapterWithNeighbours extends ChapterRow {
  previous_full_path: string | null;
  next_full_path: string | null;
}

type Optional<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

export interface NewTitleBundle {
  /** what search indexes of it, written in the same transaction (absent: not indexed) */
  search?: SearchDocument;
  /** work_title_id is found here, in the insert's transaction: see `work` */
  title: Optional<Omit<TitleRow, 'id' | 'work_title_id'>, 'duration_ms' | 'preview_path' | 'preview_mime' | 'version' | 'retired_at'>;
  /** How the title finds the work it belongs to: a title with the same ISBN as book id, else one with the same work key. */
  work: { isbn: string | null };
  authors: string[];
  /** dir and language of authors by name, where the package gives them */
  authorDirections?: Record<string, { dir: string | null; lang: string | null }>;
  publishers: { slug: string; name: string }[];
  topics: { slug: string; name: string }[];
  chapters: Optional<Omit<ChapterRow, 'id' | 'title_id'>, 'sample_content' | 'media_overlay' | 'root_attributes' | 'markup_error'>[];
  resources: Optional<Omit<ResourceRow, 'id' | 'title_id'>, 'sample_storage_path' | 'sample_size'>[];
  toc: { position: number; depth: number; label: string; full_path: string; fragment: string | null; kind?: 'toc' | 'page' | 'landmark'; landmark?: string | null }[];
  /** a video course's or audiobook's playable files, one per chapter named by its full_path (0029_media.ts) */
  media?: (Omit<Insertable<MediaFilesTable>, 'chapter_id' | 'title_id'> & { full_path: string })[];
}

/** What a book had before a new edition replaces it: the operator's chapter flags and topics. */
export interface EditionBefore {
  chapters: Pick<ChapterRow, 'full_path' | 'as_sample' | 'is_public'>[];
  topics: { slug: string; name: string }[];
}

/** A title's columns that search's grouping, filters and orders read. */
export type TitleSortRow = Pick<TitleRow, 'id' | 'work_title_id' | 'created_at' | 'sort_title' | 'content_format' | 'language'>;

/** A chapter's id and the length of its text (what reading progress is measured against). */
export interface ChapterLength {
  id: number;
  text_length: number;
}

export class CatalogRepository {
  constructor(
    private readonly db: Kysely<Database>,
    /** the search index written with each import (null: a read-only use that writes no titles) */
    private readonly search: SearchRepository | null = null,
  ) {}

  private readonly titleRows = new IdCache<TitleRow | null>(TITLE_ROW_CACHE_ENTRIES, TITLE_CACHE_MS, { maxBytes: TITLE_CACHE_BYTES.rows });
  private readonly titleNames = new IdCache<NamesOfTitle>(TITLE_CACHE_ENTRIES, TITLE_CACHE_MS, { maxBytes: TITLE_CACHE_BYTES.names });
  private readonly sortRows = new IdCache<TitleSortRow | null>(TITLE_CACHE_ENTRIES, TITLE_CACHE_MS, { maxBytes: TITLE_CACHE_BYTES.sortRows });
  private readonly chapterLength = new IdCache<ChapterLength[]>(TITLE_CACHE_ENTRIES, TITLE_CACHE_MS, { maxBytes: TITLE_CACHE_BYTES.chapterLengths });

  /**
   * The listing rows a filter reads (repositories/listings.ts): the topic's or publisher's listing, within a format
   * when one is asked for. Topic and publisher together read the topic's listing and keep those of the publisher
   * (`alsoPublisherId`; a rare combination, counted per request). Null when a slug names nothing: an empty list.
   */
  async listingOf(filter: TitleFilter): Promise<{ key: string; alsoPublisherId: number | null } | null> {
    const [topic, publisher] = await Promise.all([
      filter.topicSlug ? this.db.selectFrom('topics').select('id').where('slug', '=', filter.topicSlug).executeTakeFirst() : null,
      filter.publisherSlug ? this.db.selectFrom('publishers').select('id').where('slug', '=', filter.publisherSlug).executeTakeFirst() : null,
    ]);
    if (topic === undefined || publisher === undefined) return null;
    const f = filter.format;
    if (topic) return { key: f ? listingKeys.topicFormat(topic.id, f) : listingKeys.topic(topic.id), alsoPublisherId: publisher?.id ?? null };
    if (publisher) return { key: f ? listingKeys.publisherFormat(publisher.id, f) : listingKeys.publisher(publisher.id), alsoPublisherId: null };
    return { key: f ? listingKeys.format(f) : listingKeys.all(), alsoPublisherId: null };
  }

  /** How many titles a listing holds: the maintained count (a topic and publisher together are counted here). */
  async listingCount(listing: { key: string; alsoPublisherId: number | null }): Promise<number> {
    if (listing.alsoPublisherId !== null) {
      const row = await this.listingRows(listing)
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    }
    const row = await this.db.selectFrom('listing_counts').select('n').where('listing', '=', listing.key).executeTakeFirst();
    return row ? Number(row.n) : 0;
  }

  private listingRows(listing: { key: string; alsoPublisherId: number | null }) {
    let q = this.db.selectFrom('title_listings as l').where('l.listing', '=', listing.key);
    const publisherId = listing.alsoPublisherId;
    if (publisherId !== null) {
      q = q.where((eb) =>
        eb.exists(eb.selectFrom('title_publishers as tp').select('tp.title_id').whereRef('tp.title_id', '=', 'l.title_id').where('tp.publisher_id', '=', publisherId)),
      );
    }
    return q;
  }

  /**
   * Up to `limit` titles of a listing in `order`: from the start (or `offset` rows in), or by keyset after or
   * before a position (the sort key of a row and its id, `orderKey` of that row). Rows come back in the order's
   * direction even when read backwards. Each variant is one range read of the order's index.
   */
  async listPage(
    listing: { key: string; alsoPublisherId: number | null },
    order: TitleOrder,
    limit: number,
    at: { offset?: number; after?: OrderKey; before?: OrderKey } = {},
  ): Promise<TitleRow[]> {
    const cols = ORDER_COLUMNS[order];
    if (at.offset) {
      // Skip along the covering index alone (no title rows read for the rows skipped), then read by keyset.
      let skip = this.listingRows(listing).select(cols);
      for (const c of cols) skip = skip.orderBy(c, order === 'recent' ? 'desc' : 'asc');
      const before = (await skip.limit(1).offset(at.offset - 1).executeTakeFirst()) as Record<string, string | number> | undefined;
      if (!before) return [];
      return this.listPage(listing, order, limit, { after: cols.map((c) => before[c.slice(2)]!) });
    }
    const descending = order === 'recent';
    const backwards = at.before !== undefined;
    const direction = descending !== backwards ? 'desc' : 'asc';
    let q = this.listingRows(listing).innerJoin('titles', 'titles.id', 'l.title_id').selectAll('titles');
    const position = at.after ?? at.before;
    if (position) {
      if (position.length !== cols.length) throw new Error('order key of another order');
      // Row values: (a, b, id) > (x, y, z) reads the index from that point on, on both engines.
      q = q.where((eb) => eb(eb.refTuple(...(cols as [ListingColumn, ListingColumn])), direction === 'asc' ? '>' : '<', eb.tuple(...(position as [string | number, string | number]))));
    }
    for (const c of cols) q = q.orderBy(c, direction);
    const rows = await q.limit(limit).execute();
    return backwards ? rows.reverse() : rows;
  }

  /** Every title of a work (the one that stands for it first, then by id): the formats the title page offers. */
  formatsOf(title: Pick<TitleRow, 'id' | 'work_title_id'>): Promise<TitleRow[]> {
    const workId = title.work_title_id ?? title.id;
    return this.db
      .selectFrom('titles')
      .selectAll()
      .where((eb) => eb.or([eb('id', '=', workId), eb('work_title_id', '=', workId)]))
      .orderBy(sql`case when id = ${workId} then 0 else 1 end`)
      .orderBy('id')
      .execute();
  }

  findTitleByBookId(bookId: string): Promise<TitleRow | undefined> {
    return this.db.selectFrom('titles').selectAll().where('book_id', '=', bookId).executeTakeFirst();
  }

  findTitlesByBookIds(bookIds: string[]): Promise<TitleRow[]> {
    if (bookIds.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('titles').selectAll().where('book_id', 'in', bookIds).execute();
  }

  /** Chapter ids by (title id, path), for content addresses that name chapters. */
  findChapterIds(pairs: { titleId: number; fullPath: string }[]) {
    if (pairs.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('chapters')
      .select(['id', 'title_id', 'full_path', 'label'])
      .where((eb) => eb.or(pairs.map((p) => eb.and([eb('title_id', '=', p.titleId), eb('full_path', '=', p.fullPath)]))))
      .execute();
  }

  /** The titles of these ids that exist, in the order asked (kept a minute: util/cache.ts IdCache). */
  async findTitlesByIds(ids: number[]): Promise<TitleRow[]> {
    const found = await this.titleRows.getMany(
      ids,
      this.added,
      async (missing) => {
        const rows = new Map<number, TitleRow | null>();
        for (const batch of chunks(missing, 500)) for (const row of await this.db.selectFrom('titles').selectAll().where('id', 'in', batch).execute()) rows.set(row.id, row);
        return rows;
      },
      null,
    );
    return [...found.values()].filter((t): t is TitleRow => t !== null);
  }

  /** The few columns search groups, filters and sorts a match set on (whole rows are read for a page only). */
  async titleSortRows(ids: number[]): Promise<TitleSortRow[]> {
    // Kept by id like the whole rows (a search ranks up to some 400 candidates on every request).
    const found = await this.sortRows.getMany(
      ids,
      this.added,
      async (missing) => {
        const rows = new Map<number, TitleSortRow | null>();
        for (const batch of chunks(missing, 500)) {
          // a retired title has no sort row: search leaves it out, and a work whose standing title it is (as listings.ts)
          const got = await this.db
            .selectFrom('titles')
            .select(['id', 'work_title_id', 'created_at', 'sort_title', 'content_format', 'language'])
            .where('id', 'in', batch)
            .where('retired_at', 'is', null)
            .execute();
          for (const row of got) rows.set(row.id, row);
        }
        return rows;
      },
      null,
    );
    return [...found.values()].filter((t): t is TitleSortRow => t !== null);
  }


  /** Every chapter's rendered HTML of a title (search's backfill). */
  chapterContents(titleId: number): Promise<{ id: number; full_path: string; content: string }[]> {
    return this.db.selectFrom('chapters').select(['id', 'full_path', 'content']).where('title_id', '=', titleId).where('media_type', '!=', 'application/pdf').orderBy('item_order').execute();
  }

  findTitleByFileHash(sha256: string): Promise<TitleRow | undefined> {
    return this.db.selectFrom('titles').selectAll().where('file_sha256', '=', sha256).executeTakeFirst();
  }

  async countTitles(): Promise<number> {
    const row = await this.db.selectFrom('titles').select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Authors, publishers and topics of many titles in three queries, for list pages. */
  /** The authors, publishers and topics of these titles (kept a minute: util/cache.ts IdCache). */
  async extrasFor(titleIds: number[]): Promise<TitleExtras> {
    const extras: TitleExtras = { authors: new Map(), publishers: new Map(), topics: new Map() };
    if (titleIds.length === 0) return extras;
    const names = await this.titleNames.getMany(titleIds, this.added, (missing) => this.loadNames(missing), { authors: [], publishers: [], topics: [] });
    for (const [id, n] of names) {
      if (n.authors.length) extras.authors.set(id, n.authors);
      if (n.publishers.length) extras.publishers.set(id, n.publishers);
      if (n.topics.length) extras.topics.set(id, n.topics);
    }
    return extras;
  }

  private async loadNames(titleIds: number[]): Promise<Map<number, NamesOfTitle>> {
    const [authors, publishers, topics] = await Promise.all([
      this.db.selectFrom('title_authors').select(['title_id', 'name']).where('title_id', 'in', titleIds).orderBy('title_id').orderBy('position').execute(),
      this.db
        .selectFrom('title_publishers')
        .innerJoin('publishers', 'publishers.id', 'title_publishers.publisher_id')
        .select(['title_publishers.title_id', 'publishers.name', 'publishers.slug'])
        .where('title_publishers.title_id', 'in', titleIds)
        .orderBy('title_publishers.title_id')
        .orderBy('title_publishers.position')
        .execute(),
      this.db
        .selectFrom('title_topics')
        .innerJoin('topics', 'topics.id', 'title_topics.topic_id')
        .select(['title_topics.title_id', 'topics.name', 'topics.slug'])
        .where('title_topics.title_id', 'in', titleIds)
        .orderBy('topics.name')
        .execute(),
    ]);
    const out = new Map<number, NamesOfTitle>();
    const of = (id: number) => out.get(id) ?? out.set(id, { authors: [], publishers: [], topics: [] }).get(id)!;
    for (const a of authors) of(a.title_id).authors.push(a.name);
    for (const p of publishers) of(p.title_id).publishers.push({ name: p.name, slug: p.slug });
    for (const t of topics) of(t.title_id).topics.push({ name: t.name, slug: t.slug });
    return out;
  }

  /**
   * Each title's chapters with their text length, in no particular order (kept by id like the rows: an edition's
   * chapters change only with the edition). What a reader's progress in a title is measured against; a media part's
   * "length" is its duration.
   */
  async chapterLengths(titleIds: number[]): Promise<Map<number, ChapterLength[]>> {
    return this.chapterLength.getMany(
      titleIds,
      this.added,
      async (missing) => {
        const lengths = new Map<number, ChapterLength[]>();
        for (const batch of chunks(missing, 500)) {
          // a video's or audiobook's part weighs its length (0029), not its transcript's: what a listener spends on it
          const rows = await this.db
            .selectFrom('chapters as c')
            .leftJoin('media_files as m', 'm.chapter_id', 'c.id')
            .select(['c.id', 'c.title_id', sql<number | string>`coalesce(m.duration_ms, c.text_length)`.as('text_length')])
            .where('c.title_id', 'in', batch)
            .execute();
          for (const r of rows) (lengths.get(r.title_id) ?? lengths.set(r.title_id, []).get(r.title_id)!).push({ id: r.id, text_length: Number(r.text_length) });
        }
        return lengths;
      },
      [],
    );
  }

  /** How many chapters each title has. */
  async chapterCounts(titleIds: number[]): Promise<Map<number, number>> {
    return new Map([...(await this.chapterLengths(titleIds))].map(([id, chapters]) => [id, chapters.length]));
  }

  chaptersOf(titleId: number): Promise<ChapterSummaryRow[]> {
    return this.db
      .selectFrom('chapters')
      .select(['id', 'full_path', 'label', 'item_order', 'media_type', 'as_sample', 'is_public', 'text_length'])
      // how each spine item asks to be laid out (0022): the reader's spreads need the whole spine's
      .select(['rendition_layout', 'rendition_spread', 'rendition_flow', 'page_spread', 'viewport_width', 'viewport_height', 'align_x_center'])
      .where('title_id', '=', titleId)
      .orderBy('item_order')
      .execute();
  }

  /** A title's authors in order with the dir and language of each dc:creator (0011). */
  authorDirectionsOf(titleId: number) {
    return this.db.selectFrom('title_authors').select(['name', 'dir', 'lang']).where('title_id', '=', titleId).orderBy('position').execute();
  }

  tocOf(titleId: number) {
    return this.db
      .selectFrom('toc_entries')
      .select(['depth', 'label', 'full_path', 'fragment'])
      .where('title_id', '=', titleId)
      .where('kind', '=', 'toc')
      .orderBy('position')
      .execute();
  }

  /** The print pages and the landmarks of a title (EPUB page list and landmarks), in their order. */
  navigationOf(titleId: number) {
    return this.db
      .selectFrom('toc_entries')
      .select(['kind', 'landmark', 'label', 'full_path', 'fragment'])
      .where('title_id', '=', titleId)
      .where('kind', 'in', ['page', 'landmark'])
      .orderBy('position')
      .execute();
  }

  /** One chapter with the paths of the chapters before and after it in reading order. */
  findChapter(titleId: number, fullPath: string): Promise<ChapterWithNeighbours | undefined> {
    return this.db
      .selectFrom('chapters as c')
      .selectAll('c')
      .select((eb) => [
        eb
          .selectFrom('chapters as p')
          .select('p.full_path')
          .whereRef('p.title_id', '=', 'c.title_id')
          .whereRef('p.item_order', '<', 'c.item_order')
          .orderBy('p.item_order', 'desc')
          .limit(1)
          .as('previous_full_path'),
        eb
          .selectFrom('chapters as n')
          .select('n.full_path')
          .whereRef('n.title_id', '=', 'c.title_id')
          .whereRef('n.item_order', '>', 'c.item_order')
          .orderBy('n.item_order', 'asc')
          .limit(1)
          .as('next_full_path'),
      ])
      .where('c.title_id', '=', titleId)
      .where('c.full_path', '=', fullPath)
      .executeTakeFirst();
  }

  findResource(titleId: number, fullPath: string): Promise<ResourceRow | undefined> {
    return this.db.selectFrom('resources').selectAll().where('title_id', '=', titleId).where('full_path', '=', fullPath).executeTakeFirst();
  }

  async setChapterFlags(chapterId: number, flags: { as_sample?: Flag; is_public?: Flag }): Promise<void> {
    await this.db.updateTable('chapters').set(flags).where('id', '=', chapterId).execute();
  }

  /** Topics by name with the maintained count of their listing (the titles a topic page lists). */
  topicsWithCounts() {
    return this.db
      .selectFrom('topics')
      .leftJoin('listing_counts', (join) => join.on('listing_counts.listing', '=', sql<string>`'t:' || topics.id`))
      .select(['topics.name', 'topics.slug', (eb) => eb.fn.coalesce('listing_counts.n', eb.lit(0)).as('count')])
      .orderBy('topics.name')
      .execute();
  }

  findTopic(slug: string) {
    return this.db.selectFrom('topics').select(['name', 'slug']).where('slug', '=', slug).executeTakeFirst();
  }

  findPublisher(slug: string) {
    return this.db.selectFrom('publishers').select(['name', 'slug']).where('slug', '=', slug).executeTakeFirst();
  }

  /**
   * How many titles this process has added or replaced (a new edition): what caches of catalog listings key on, so
   * an import shows at once here (another process's import shows when the cache's time runs out).
   */
  get titlesAdded(): number {
    return this.added;
  }
  private added = 0;

  /** Another process gave a title a new edition (services/catalog-changes.ts): what is kept by id is read again. */
  forgetTitles(): void {
    this.added++;
  }

  /** Writes a whole imported title in one transaction: all of it lands, or none of it. */
  async insertTitle(bundle: NewTitleBundle): Promise<TitleRow> {
    const inserted = await this.insertTitleOnce(bundle).catch((err: unknown) => {
      // PostgreSQL names the index (titles_book_id_key), SQLite the column (titles.book_id)
      const e = err as { constraint?: unknown; message?: unknown };
      if (isUniqueViolation(err) && /titles[._]book_id/.test(`${String(e.constraint ?? '')} ${String(e.message ?? '')}`)) throw new BookIdTaken(bundle.title.book_id);
      throw err;
    });
    this.added++;
    return inserted;
  }

  /**
   * Replaces a title's content with a new edition in one transaction, keeping its row (id, book id, work, creation
   * time). Chapters are matched by path: one still in the book is updated in place, so its id — and the progress,
   * usage, positions and playlist items that reference it — survives; new ones are inserted; those gone are
   * deleted (with what cascades from them; annotations name chapters by path and are not touched). Authors,
   * publishers, topics, resources, the contents and the search rows are written again. Answers the storage paths
   * of the old edition's files, for the caller to remove once the new edition is in.
   */
  async replaceTitle(
    titleId: number,
    editionFor: (had: EditionBefore) => NewTitleBundle,
  ): Promise<{ title: TitleRow; kept: number; added: number; removed: string[]; oldFiles: string[]; bundle: NewTitleBundle }> {
    const done = await this.db.transaction().execute(async (trx) => {
      const before = await trx.selectFrom('titles').select(['id', 'work_title_id', 'cover_path', 'preview_path']).where('id', '=', titleId).executeTakeFirstOrThrow();
      // What the operator set on the old edition (chapter flags, topics), read here rather than before: a change made
      // while the worker ran is kept, and on PostgreSQL the chapter rows stay locked until the swap commits.
      const flagsQuery = trx.selectFrom('chapters').select(['full_path', 'as_sample', 'is_public']).where('title_id', '=', titleId);
      const [hadChapters, hadTopics] = await Promise.all([
        (this.search?.engine === 'postgres' ? flagsQuery.forUpdate() : flagsQuery).execute(),
        trx
          .selectFrom('title_topics')
          .innerJoin('topics', 'topics.id', 'title_topics.topic_id')
          .select(['topics.name', 'topics.slug'])
          .where('title_topics.title_id', '=', titleId)
          .orderBy('topics.name')
          .execute(),
      ]);
      const bundle = editionFor({ chapters: hadChapters, topics: hadTopics });
      const oldResources = await trx.selectFrom('resources').select(['storage_path', 'sample_storage_path']).where('title_id', '=', titleId).execute();
      // (a media title's parts and preview clip too)
      const oldMedia = await trx.selectFrom('media_files').select('storage_path').where('title_id', '=', titleId).execute();
      const oldFiles = [before.cover_path, before.preview_path, ...oldResources.flatMap((r) => [r.storage_path, r.sample_storage_path]), ...oldMedia.map((m) => m.storage_path)].filter(
        (f): f is string => !!f,
      );
      const { book_id: _bookId, ...columns } = bundle.title;
      // a new edition moves the version: a console save made against the old edition's fields is refused (409)
      const title = await trx
        .updateTable('titles')
        .set({ ...columns, version: sql`version + 1` })
        .where('id', '=', titleId)
        .returningAll()
        .executeTakeFirstOrThrow();

      await trx.deleteFrom('title_authors').where('title_id', '=', titleId).execute();
      await trx.deleteFrom('title_publishers').where('title_id', '=', titleId).execute();
      const topicsBefore = await topicIdsOf(trx, titleId);
      await trx.deleteFrom('title_topics').where('title_id', '=', titleId).execute();
      await this.linkNames(trx, titleId, bundle);
      // the dashboard's minutes by topic follow the title's topics (reading-summary.ts)
      await new ReadingSummaryRepository(trx).moveTopics(titleId, topicsBefore, await topicIdsOf(trx, titleId));

      // Search rows first: they reference chapters, and on SQLite leave the FTS tables only through removeTitle.
      if (this.search) await this.search.removeTitle(trx, titleId);
      const old = await trx.selectFrom('chapters').select(['id', 'full_path']).where('title_id', '=', titleId).execute();
      const oldByPath = new Map(old.map((c) => [c.full_path, c.id]));
      const newPaths = new Set(bundle.chapters.map((c) => c.full_path));
      const gone = old.filter((c) => !newPaths.has(c.full_path));
      // Playlists holding the title show its topics, and lose the items of chapters gone (a cascade): their owners'
      // lists get a new version, their ETag (services/collections.ts).
      await trx
        .updateTable('users')
        .set({ collections_version: sql<number>`collections_version + 1` })
        .where('id', 'in', (eb) => eb.selectFrom('collection_items as i').innerJoin('collections as c', 'c.id', 'i.collection_id').select('c.user_id').where('i.title_id', '=', titleId))
        .execute();
      for (const batch of chunks(gone.map((c) => c.id), 200)) await trx.deleteFrom('chapters').where('id', 'in', batch).execute();
      // A media title's parts are written again below, each on its chapter (kept, or new).
      await trx.deleteFrom('media_files').where('title_id', '=', titleId).execute();
      const fresh: typeof bundle.chapters = [];
      for (const c of bundle.chapters) {
        const id = oldByPath.get(c.full_path);
        if (id === undefined) fresh.push(c);
        else await trx.updateTable('chapters').set({ ...c, sample_content: c.sample_content ?? null, media_overlay: c.media_overlay ?? null, root_attributes: c.root_attributes ?? null, markup_error: c.markup_error ?? null }).where('id', '=', id).execute();
      }
      for (const batch of chunks(fresh, 50)) await trx.insertInto('chapters').values(batch.map((c) => ({ ...c, title_id: titleId }))).execute();

      await this.insertMedia(trx, titleId, bundle.media);
      await trx.deleteFrom('resources').where('title_id', '=', titleId).execute();
      for (const batch of chunks(bundle.resources, 100)) await trx.insertInto('resources').values(batch.map((r) => ({ ...r, title_id: titleId }))).execute();
      await trx.deleteFrom('toc_entries').where('title_id', '=', titleId).execute();
      for (const batch of chunks(bundle.toc, 100)) await trx.insertInto('toc_entries').values(batch.map((t) => ({ ...t, title_id: titleId }))).execute();
      if (bundle.search && this.search) {
        const ids = await trx.selectFrom('chapters').select(['id', 'full_path']).where('title_id', '=', titleId).execute();
        await this.search.write(trx, titleId, bundle.search, new Map(ids.map((c) => [c.full_path, c.id])));
      }
      // Sort keys, topics and publishers may have changed: the work's listing rows and counts follow.
      await refreshListings(trx, [before.work_title_id ?? titleId]);
      return { title, kept: bundle.chapters.length - fresh.length, added: fresh.length, removed: gone.map((c) => c.full_path), oldFiles, bundle };
    });
    this.added++;
    return done;
  }

  private async insertTitleOnce(bundle: NewTitleBundle): Promise<TitleRow> {
    return this.db.transaction().execute(async (trx) => {
      const workTitleId = await this.workTitleId(trx, bundle);
      const title = await trx.insertInto('titles').values({ ...bundle.title, work_title_id: workTitleId }).returningAll().executeTakeFirstOrThrow();
      await this.linkNames(trx, title.id, bundle);
      // Batches keep each statement under SQLite's bound-parameter limit.
      for (const batch of chunks(bundle.chapters, 50)) {
        await trx.insertInto('chapters').values(batch.map((c) => ({ ...c, title_id: title.id }))).execute();
      }
      for (const batch of chunks(bundle.resources, 100)) {
        await trx.insertInto('resources').values(batch.map((r) => ({ ...r, title_id: title.id }))).execute();
      }
      for (const batch of chunks(bundle.toc, 100)) {
        await trx.insertInto('toc_entries').values(batch.map((t) => ({ ...t, title_id: title.id }))).execute();
      }
      if (bundle.search && this.search) {
        const ids = await trx.selectFrom('chapters').select(['id', 'full_path']).where('title_id', '=', title.id).execute();
        await this.search.write(trx, title.id, bundle.search, new Map(ids.map((c) => [c.full_path, c.id])));
      }
      await this.insertMedia(trx, title.id, bundle.media);
      // The work's listing rows and counts change with it (a new format, or a new title standing for a work).
      await refreshListings(trx, [workTitleId ?? title.id]);
      return title;
    });
  }

  /** A media title's parts (media_files), each on its chapter by path; the chapters are written already. */
  private async insertMedia(trx: Transaction<Database>, titleId: number, media: NewTitleBundle['media']): Promise<void> {
    if (!media?.length) return;
    const ids = new Map((await trx.selectFrom('chapters').select(['id', 'full_path']).where('title_id', '=', titleId).execute()).map((c) => [c.full_path, c.id]));
    for (const batch of chunks(media, 50)) {
      await trx
        .insertInto('media_files')
        .values(batch.map(({ full_path, ...m }) => ({ ...m, chapter_id: ids.get(full_path)!, title_id: titleId })))
        .execute();
    }
  }

  /** A title's authors, publishers and topics (the named ones made when new). */
  private async linkNames(trx: Transaction<Database>, titleId: number, bundle: Pick<NewTitleBundle, 'authors' | 'authorDirections' | 'publishers' | 'topics'>): Promise<void> {
    if (bundle.authors.length) {
      await trx.insertInto('title_authors').values(bundle.authors.map((name, position) => ({ title_id: titleId, position, name, name_key: nameKey(name), dir: bundle.authorDirections?.[name]?.dir ?? null, lang: bundle.authorDirections?.[name]?.lang ?? null }))).execute();
    }
    let position = 0;
    for (const p of bundle.publishers) {
      const publisherId = await this.ensureNamed(trx, 'publishers', p);
      await trx.insertInto('title_publishers').values({ title_id: titleId, publisher_id: publisherId, position: position++ }).execute();
    }
    const topicIds = new Set<number>();
    for (const t of bundle.topics) topicIds.add(await this.ensureNamed(trx, 'topics', t));
    for (const topicId of topicIds) await trx.insertInto('title_topics').values({ title_id: titleId, topic_id: topicId }).execute();
  }

  /**
   * The title that stands for the new title's work, or null when the work is new. Two files are one work when they
   * share an ISBN (the new one's ISBN is a title's book id), or the same package identifier and work key (a revision
   * of one publication), or when they are the one book in two formats: the same work key (title and first author)
   * and exactly one work of that key has no file in the new one's format yet. Two EPUBs (or two PDFs) are never one
   * work because their titles match (docs/decisions.md "What makes two files one work").
   */
  private async workTitleId(trx: Transaction<Database>, bundle: NewTitleBundle): Promise<number | null> {
    const workOf = (t: { id: number; work_title_id: number | null }) => t.work_title_id ?? t.id;
    if (bundle.work.isbn) {
      const byIsbn = await trx.selectFrom('titles').select(['id', 'work_title_id']).where('book_id', '=', bundle.work.isbn).executeTakeFirst();
      if (byIsbn) return workOf(byIsbn);
    }
    const key = bundle.title.work_key;
    if (!key) return null;
    const sameKey = await trx.selectFrom('titles').select(['id', 'work_title_id', 'identifier']).where('work_key', '=', key).orderBy('id').execute();
    const identifier = bundle.title.identifier;
    const sameIdentifier = identifier ? sameKey.find((t) => t.identifier === identifier) : undefined;
    if (sameIdentifier) return workOf(sameIdentifier);
    const works = [...new Set(sameKey.map(workOf))];
    if (works.length === 0) return null;
    // the formats each of these works has (a work's titles need not all share its key: an ISBN joins a retitled edition)
    const members = await trx
      .selectFrom('titles')
      .select(['id', 'work_title_id', 'content_format'])
      .where((eb) => eb.or([eb('id', 'in', works), eb('work_title_id', 'in', works)]))
      .execute();
    const lacking = works.filter((work) => !members.some((m) => workOf(m) === work && m.content_format === bundle.title.content_format));
    return lacking.length === 1 ? lacking[0]! : null;
  }

  private async ensureNamed(trx: Transaction<Database>, table: 'topics' | 'publishers', entry: { slug: string; name: string }): Promise<number> {
    const found = await trx.selectFrom(table).select('id').where('slug', '=', entry.slug).executeTakeFirst();
    if (found) return found.id;
    // Another process's import may add the same name between the look and the insert (imports queue only within one
    // process): the unique slug settles it, and its row is the one (on PostgreSQL the insert waits for it to commit).
    const row = await trx.insertInto(table).values({ ...entry, name_key: nameKey(entry.name) }).onConflict((oc) => oc.column('slug').doNothing()).returning('id').executeTakeFirst();
    return row?.id ?? (await trx.selectFrom(table).select('id').where('slug', '=', entry.slug).executeTakeFirstOrThrow()).id;
  }
}

function* chunks<T>(items: T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}
