/**
 * The catalog: titles with their authors, publishers, topics, chapters, resources and table of contents.
 * Reads for the API and the one transactional write that an import makes.
 */
import type { Kysely, Transaction } from 'kysely';
import type { ChapterRow, Database, Flag, ResourceRow, TitleRow } from '../db/schema.ts';

export interface TitleFilter {
  topicSlug?: string;
  publisherSlug?: string;
}

export interface TitleExtras {
  authors: Map<number, string[]>;
  publishers: Map<number, { name: string; slug: string }[]>;
  topics: Map<number, { name: string; slug: string }[]>;
}

export type ChapterSummaryRow = Pick<ChapterRow, 'id' | 'full_path' | 'label' | 'item_order' | 'media_type' | 'as_sample' | 'is_public' | 'text_length'>;

export interface ChapterWithNeighbours extends ChapterRow {
  previous_full_path: string | null;
  next_full_path: string | null;
}

export interface NewTitleBundle {
  title: Omit<TitleRow, 'id'>;
  authors: string[];
  publishers: { slug: string; name: string }[];
  topics: { slug: string; name: string }[];
  chapters: Omit<ChapterRow, 'id' | 'title_id'>[];
  resources: Omit<ResourceRow, 'id' | 'title_id'>[];
  toc: { position: number; depth: number; label: string; full_path: string; fragment: string | null }[];
}

export class CatalogRepository {
  constructor(private readonly db: Kysely<Database>) {}

  private filtered(filter: TitleFilter) {
    let q = this.db.selectFrom('titles');
    if (filter.topicSlug) {
      q = q.where('titles.id', 'in', (eb) =>
        eb.selectFrom('title_topics').innerJoin('topics', 'topics.id', 'title_topics.topic_id').select('title_topics.title_id').where('topics.slug', '=', filter.topicSlug!),
      );
    }
    if (filter.publisherSlug) {
      q = q.where('titles.id', 'in', (eb) =>
        eb
          .selectFrom('title_publishers')
          .innerJoin('publishers', 'publishers.id', 'title_publishers.publisher_id')
          .select('title_publishers.title_id')
          .where('publishers.slug', '=', filter.publisherSlug!),
      );
    }
    return q;
  }

  async listTitles(filter: TitleFilter, offset: number, limit: number): Promise<{ count: number; rows: TitleRow[] }> {
    const [countRow, rows] = await Promise.all([
      this.filtered(filter).select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow(),
      this.filtered(filter).selectAll('titles').orderBy('titles.title').orderBy('titles.id').offset(offset).limit(limit).execute(),
    ]);
    return { count: Number(countRow.n), rows };
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

  findTitleByFileHash(sha256: string): Promise<TitleRow | undefined> {
    return this.db.selectFrom('titles').selectAll().where('file_sha256', '=', sha256).executeTakeFirst();
  }

  async countTitles(): Promise<number> {
    const row = await this.db.selectFrom('titles').select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Authors, publishers and topics of many titles in three queries, for list pages. */
  async extrasFor(titleIds: number[]): Promise<TitleExtras> {
    const extras: TitleExtras = { authors: new Map(), publishers: new Map(), topics: new Map() };
    if (titleIds.length === 0) return extras;
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
    const push = <T>(map: Map<number, T[]>, key: number, value: T) => {
      const list = map.get(key);
      if (list) list.push(value);
      else map.set(key, [value]);
    };
    for (const a of authors) push(extras.authors, a.title_id, a.name);
    for (const p of publishers) push(extras.publishers, p.title_id, { name: p.name, slug: p.slug });
    for (const t of topics) push(extras.topics, t.title_id, { name: t.name, slug: t.slug });
    return extras;
  }

  chaptersOf(titleId: number): Promise<ChapterSummaryRow[]> {
    return this.db
      .selectFrom('chapters')
      .select(['id', 'full_path', 'label', 'item_order', 'media_type', 'as_sample', 'is_public', 'text_length'])
      .where('title_id', '=', titleId)
      .orderBy('item_order')
      .execute();
  }

  tocOf(titleId: number) {
    return this.db
      .selectFrom('toc_entries')
      .select(['depth', 'label', 'full_path', 'fragment'])
      .where('title_id', '=', titleId)
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
      .executeTakeFirst() as Promise<ChapterWithNeighbours | undefined>;
  }

  findResource(titleId: number, fullPath: string): Promise<ResourceRow | undefined> {
    return this.db.selectFrom('resources').selectAll().where('title_id', '=', titleId).where('full_path', '=', fullPath).executeTakeFirst();
  }

  async setChapterFlags(chapterId: number, flags: { as_sample?: Flag; is_public?: Flag }): Promise<void> {
    await this.db.updateTable('chapters').set(flags).where('id', '=', chapterId).execute();
  }

  topicsWithCounts() {
    return this.db
      .selectFrom('topics')
      .leftJoin('title_topics', 'title_topics.topic_id', 'topics.id')
      .select(['topics.name', 'topics.slug', (eb) => eb.fn.count<string | number>('title_topics.title_id').as('count')])
      .groupBy(['topics.id', 'topics.name', 'topics.slug'])
      .orderBy('topics.name')
      .execute();
  }

  findTopic(slug: string) {
    return this.db.selectFrom('topics').select(['name', 'slug']).where('slug', '=', slug).executeTakeFirst();
  }

  findPublisher(slug: string) {
    return this.db.selectFrom('publishers').select(['name', 'slug']).where('slug', '=', slug).executeTakeFirst();
  }

  /** Writes a whole imported title in one transaction: all of it lands, or none of it. */
  async insertTitle(bundle: NewTitleBundle): Promise<TitleRow> {
    return this.db.transaction().execute(async (trx) => {
      const title = await trx.insertInto('titles').values(bundle.title).returningAll().executeTakeFirstOrThrow();
      if (bundle.authors.length) {
        await trx.insertInto('title_authors').values(bundle.authors.map((name, position) => ({ title_id: title.id, position, name }))).execute();
      }
      let position = 0;
      for (const p of bundle.publishers) {
        const publisherId = await this.ensureNamed(trx, 'publishers', p);
        await trx.insertInto('title_publishers').values({ title_id: title.id, publisher_id: publisherId, position: position++ }).execute();
      }
      const topicIds = new Set<number>();
      for (const t of bundle.topics) topicIds.add(await this.ensureNamed(trx, 'topics', t));
      for (const topicId of topicIds) await trx.insertInto('title_topics').values({ title_id: title.id, topic_id: topicId }).execute();
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
      return title;
    });
  }

  private async ensureNamed(trx: Transaction<Database>, table: 'topics' | 'publishers', entry: { slug: string; name: string }): Promise<number> {
    const found = await trx.selectFrom(table).select('id').where('slug', '=', entry.slug).executeTakeFirst();
    if (found) return found.id;
    const row = await trx.insertInto(table).values(entry).returning('id').executeTakeFirstOrThrow();
    return row.id;
  }
}

function* chunks<T>(items: T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}
