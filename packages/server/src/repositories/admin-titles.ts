/**
 * The operators' view of titles (docs/decisions.md "The console's titles"): every title (each file, not only those
 * standing for their work), searched by folded title prefix, an author's folded name prefix or the exact book id, in
 * title order with keyset paging; an edit of a title's descriptive fields under its version; retiring and restoring;
 * its readers' figures.
 */
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database, TitleRow } from '../db/schema.ts';
import { onPostgres } from './conflicts.ts';
import { likePrefix } from './like.ts';
import { refreshListings } from './listings.ts';
import { MINUTES } from './reading-minutes.ts';
import { ReadingSummaryRepository, topicIdsOf } from './reading-summary.ts';
import type { SearchRepository } from './search.ts';
import { readersProgressSql } from './title-progress-sql.ts';

export interface AdminTitleFilter {
  /** folded title prefix (titleSortKey of the words) */
  titlePrefix?: string;
  /** folded author prefix (nameKey) */
  authorPrefix?: string;
  bookId?: string;
  state: 'active' | 'retired' | 'all';
  format?: string;
  after?: { sortTitle: string; id: number };
  limit: number;
}

export interface TitleNames {
  authors: string[];
  publisher: string | null;
  topics: { name: string; slug: string }[];
}

export interface TitleEdit {
  title?: string;
  sort_title?: string;
  sort_author?: string;
  description?: string | null;
  language?: string | null;
  authors?: { name: string; name_key: string }[];
  /** null: none */
  publisher?: { name: string; slug: string; name_key: string } | null;
  topics?: { name: string; slug: string; name_key: string }[];
  editors_pick?: boolean;
}

export interface ReaderFigures {
  user_id: number;
  /** the account's public id and email (the readers' list: operators only) */
  uuid: string;
  email: string;
  minutes: number;
  /** the reader's progress in the title, 0-100, as core's titleProgress (repositories/title-progress-sql.ts) */
  progress: number;
  last_read_at: string | null;
}

/** A title's readers' figures together (the detail's stats), read by one aggregate query. */
export interface ReaderTotals {
  readers: number;
  minutes: number;
  /** readers whose completion rounds to 100 % */
  completed: number;
  /** mean of the readers' progress (0-100, each as core's titleProgress) */
  meanPercent: number;
}

export class AdminTitlesRepository {
  constructor(
    private readonly db: Kysely<Database>,
    /** the search index: an edit of the title's metadata is indexed in the edit's transaction */
    private readonly search: SearchRepository,
  ) {}

  /**
   * `limit + 1` rows in (sort_title, id) order after `after`: byte order on both engines (SQLite's own; on
   * PostgreSQL COLLATE "C", the order of 0032's index of every title), so that every part reads its index in key order.
   */
  page(f: AdminTitleFilter): Promise<TitleRow[]> {
    const c = onPostgres(this.db) ? sql` collate "C"` : sql``;
    const n = f.limit + 1;
    /** the filters other than the words, on the titles aliased `alias` */
    const kept = (alias: string) => {
      const col = (name: string) => sql.ref(`${alias}.${name}`);
      return sql.join(
        [
          sql`true`,
          ...(f.state === 'active' ? [sql`${col('retired_at')} is null`] : f.state === 'retired' ? [sql`${col('retired_at')} is not null`] : []),
          ...(f.format !== undefined ? [sql`${col('content_format')} = ${f.format}`] : []),
          // the first term starts the index range at the cursor, the row comparison settles the ties
          ...(f.after ? [sql`${col('sort_title')}${c} >= ${f.after.sortTitle} and (${col('sort_title')}${c}, ${col('id')}) > (${f.after.sortTitle}, ${f.after.id})`] : []),
        ],
        sql` and `,
      );
    };
    const starts = (column: string, prefix: string) => sql<boolean>`${sql.ref(column)}${c} >= ${prefix} and ${sql.ref(column)}${c} < ${`${prefix}\uffff`}`;
    let q = this.db.selectFrom('titles as t').selectAll('t').where(sql<boolean>`${kept('t')}`);
    if (f.titlePrefix !== undefined || f.authorPrefix !== undefined || f.bookId !== undefined) {
      // Each part an index range, their union ordered. The titles' part reads the titles in key order and stops at
      // the page: a prefix 4,660 titles share (the bench's "net") sorted every one of them for 51 rows
      // (docs/performance.md, the console at 100,000 titles). An author's titles and the book id are few.
      const parts = [
        ...(f.titlePrefix
          ? [sql`select id from (select p.id from titles p where ${starts('p.sort_title', f.titlePrefix)} and ${kept('p')} order by p.sort_title${c}, p.id limit ${n}) as by_title`]
          : []),
        ...(f.authorPrefix ? [sql`select title_id from title_authors where ${starts('name_key', f.authorPrefix)}`] : []),
        ...(f.bookId ? [sql`select id from titles where book_id = ${f.bookId}`] : []),
      ];
      q = q.where(sql<boolean>`t.id in (${sql.join(parts, sql` union `)})`);
    }
    return q.orderBy(sql`t.sort_title${c}`).orderBy('t.id').limit(n).execute();
  }

  findByBookId(bookId: string): Promise<TitleRow | undefined> {
    return this.db.selectFrom('titles').selectAll().where('book_id', '=', bookId).executeTakeFirst();
  }

  /** Authors (in order), the first publisher and the topics of these titles. */
  namesOf(ids: number[]): Promise<Map<number, TitleNames>> {
    return namesIn(this.db, ids);
  }

  async pickedIds(ids: number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.selectFrom('editors_picks').select('title_id').where('title_id', 'in', ids).execute();
    return new Set(rows.map((r) => r.title_id));
  }

  /** The chapters shown recovered (0037 markup_error), in reading order. */
  async recoveredChapters(titleId: number): Promise<{ full_path: string; label: string; problem: string }[]> {
    const rows = await this.db
      .selectFrom('chapters')
      .select(['full_path', 'label', 'markup_error'])
      .where('title_id', '=', titleId)
      .where('markup_error', 'is not', null)
      .orderBy('item_order')
      .execute();
    return rows.map((r) => ({ full_path: r.full_path, label: r.label, problem: r.markup_error ?? '' }));
  }

  async chapterCount(titleId: number): Promise<number> {
    const row = await this.db.selectFrom('chapters').select((eb) => eb.fn.countAll<string | number>().as('n')).where('title_id', '=', titleId).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Applies an edit when the title is still at `version` (one UPDATE that checks and moves the version: two saves
   * of one version cannot both pass); answers false, changing nothing, when someone saved since.
   */
  async edit(title: TitleRow, version: number, e: TitleEdit): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const res = await trx
        .updateTable('titles')
        .set({
          version: sql`version + 1`,
          ...(e.title !== undefined ? { title: e.title } : {}),
          ...(e.sort_title !== undefined ? { sort_title: e.sort_title } : {}),
          ...(e.sort_author !== undefined ? { sort_author: e.sort_author } : {}),
          ...(e.description !== undefined ? { description: e.description } : {}),
          ...(e.language !== undefined ? { language: e.language } : {}),
        })
        .where('id', '=', title.id)
        .where('version', '=', version)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) return false;
      if (e.authors !== undefined) {
        await trx.deleteFrom('title_authors').where('title_id', '=', title.id).execute();
        if (e.authors.length) await trx.insertInto('title_authors').values(e.authors.map((a, position) => ({ title_id: title.id, position, name: a.name, name_key: a.name_key }))).execute();
      }
      if (e.publisher !== undefined) {
        await trx.deleteFrom('title_publishers').where('title_id', '=', title.id).execute();
        if (e.publisher) await trx.insertInto('title_publishers').values({ title_id: title.id, publisher_id: await ensureNamed(trx, 'publishers', e.publisher), position: 0 }).execute();
      }
      if (e.topics !== undefined) {
        const before = await topicIdsOf(trx, title.id);
        await trx.deleteFrom('title_topics').where('title_id', '=', title.id).execute();
        const ids = new Set<number>();
        for (const t of e.topics) ids.add(await ensureNamed(trx, 'topics', t));
        if (ids.size) await trx.insertInto('title_topics').values([...ids].map((topic_id) => ({ title_id: title.id, topic_id }))).execute();
        // the dashboard's minutes by topic follow the title's topics (reading-summary.ts)
        await new ReadingSummaryRepository(trx).moveTopics(title.id, before, [...ids]);
      }
      if (e.editors_pick !== undefined) {
        const picked = await trx.selectFrom('editors_picks').select('title_id').where('title_id', '=', title.id).executeTakeFirst();
        if (e.editors_pick && !picked) {
          const last = await trx.selectFrom('editors_picks').select((eb) => eb.fn.max('position').as('p')).executeTakeFirst();
          await trx.insertInto('editors_picks').values({ title_id: title.id, position: Number(last?.p ?? -1) + 1, picked_at: new Date().toISOString() }).execute();
        } else if (!e.editors_pick && picked) {
          await trx.deleteFrom('editors_picks').where('title_id', '=', title.id).execute();
        }
      }
      // sort keys, topics and the publisher are what the catalog's listings are made of
      await refreshListings(trx, [title.work_title_id ?? title.id]);
      // the search index's row for the title, with the fields as the import makes them (services/import.ts)
      const topicsOrPublisher = e.topics !== undefined || e.publisher !== undefined;
      if (e.title !== undefined || e.authors !== undefined || e.description !== undefined || topicsOrPublisher) {
        const n = (await namesIn(trx, [title.id])).get(title.id)!;
        const publishers = topicsOrPublisher
          ? await trx.selectFrom('title_publishers as tp').innerJoin('publishers as p', 'p.id', 'tp.publisher_id').select('p.name').where('tp.title_id', '=', title.id).orderBy('tp.position').execute()
          : [];
        await this.search.rewriteTitleRow(trx, title.id, {
          ...(e.title !== undefined ? { title: e.title } : {}),
          ...(e.authors !== undefined ? { people: n.authors.join(' ') } : {}),
          ...(topicsOrPublisher ? { subjects: [...n.topics.map((t) => t.name), ...publishers.map((p) => p.name)].join(' ') } : {}),
          ...(e.description !== undefined ? { description: e.description ?? '' } : {}),
        });
      }
      return true;
    });
  }

  /**
   * Sets retired_at (`at`) on a title not retired, or clears it on a retired one (and moves the version); the work's
   * listing rows are derived again. One conditional UPDATE: false, nothing changed, when the title was already so
   * (two retires at once: one passes).
   */
  async setRetired(title: TitleRow, at: string | null): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const res = await trx
        .updateTable('titles')
        .set({ retired_at: at, version: sql`version + 1` })
        .where('id', '=', title.id)
        .where('retired_at', at === null ? 'is not' : 'is', null)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) return false;
      await refreshListings(trx, [title.work_title_id ?? title.id]);
      return true;
    });
  }

  /**
   * Points the title at a new cover file (and moves the version); answers the cover it had, for the caller to remove
   * when it was an upload's. The listing rows are derived again (a card knows whether there is a cover).
   */
  async setCover(title: TitleRow, coverPath: string, mediaType: string): Promise<{ before: string | null }> {
    return this.db.transaction().execute(async (trx) => {
      const had = await trx.selectFrom('titles').select('cover_path').where('id', '=', title.id).executeTakeFirstOrThrow();
      await trx.updateTable('titles').set({ cover_path: coverPath, cover_media_type: mediaType, version: sql`version + 1` }).where('id', '=', title.id).execute();
      await refreshListings(trx, [title.work_title_id ?? title.id]);
      return { before: had.cover_path };
    });
  }

  /**
   * Topic or publisher names starting with `prefix` (a name key) that at least one title in the catalog carries: a
   * name only retired titles carry is not suggested. By name, at most `limit`.
   */
  async namesInUse(kind: 'topic' | 'publisher', prefix: string, limit: number): Promise<string[]> {
    const starts = (prefix ? [sql<boolean>`n.name_key like ${likePrefix(prefix)} escape '\\'`] : []);
    const rows =
      kind === 'topic'
        ? await this.db
            .selectFrom('topics as n')
            .select('n.name')
            .where((eb) =>
              eb.and([
                ...starts,
                eb('n.id', 'in', eb.selectFrom('title_topics as l').innerJoin('titles as t', 't.id', 'l.title_id').select('l.topic_id').where('t.retired_at', 'is', null)),
              ]),
            )
            .orderBy('n.name')
            .limit(limit)
            .execute()
        : await this.db
            .selectFrom('publishers as n')
            .select('n.name')
            .where((eb) =>
              eb.and([
                ...starts,
                eb('n.id', 'in', eb.selectFrom('title_publishers as l').innerJoin('titles as t', 't.id', 'l.title_id').select('l.publisher_id').where('t.retired_at', 'is', null)),
              ]),
            )
            .orderBy('n.name')
            .limit(limit)
            .execute();
    return rows.map((r) => r.name);
  }

  /** The title's allow_scripts flag (and its version): false when it already was so. */
  async setAllowScripts(title: TitleRow, allow: boolean): Promise<boolean> {
    const res = await this.db
      .updateTable('titles')
      .set({ allow_scripts: allow ? 1 : 0, version: sql`version + 1` })
      .where('id', '=', title.id)
      .where('allow_scripts', '=', allow ? 0 : 1)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /**
   * Each reader's figures for one title, one row per reader: minutes from usage events, progress from chapter
   * progress (a reader may have either), their latest time.
   */
  private perReader(titleId: number) {
    return sql`select x.user_id, sum(x.minutes) as minutes, max(x.progress) as progress, max(x.last) as last from (
        select ue.user_id, ${MINUTES} as minutes, 0 as progress, ue.received_at as last
        from usage_events ue join chapters c on c.id = ue.chapter_id left join media_files mf on mf.chapter_id = ue.chapter_id
        where ue.title_id = ${titleId}
        union all
        select p.user_id, 0, p.progress, p.updated_at from (${readersProgressSql(this.db, titleId)}) p
      ) x group by x.user_id`;
  }

  /** One page of the title's readers, most minutes first (then account id), paged in SQL; readers whose account is gone are not listed. */
  async readersPage(titleId: number, offset: number, limit: number): Promise<ReaderFigures[]> {
    const { rows } = await sql<{ user_id: number; uuid: string; email: string; minutes: number | string | null; progress: number | string | null; last: string | null }>`
      select r.user_id, u.uuid, u.email, r.minutes, r.progress, r.last
      from (${this.perReader(titleId)}) r join users u on u.id = r.user_id
      order by r.minutes desc, r.user_id
      limit ${limit} offset ${offset}`.execute(this.db);
    return rows.map((r) => ({
      user_id: Number(r.user_id),
      uuid: r.uuid,
      email: r.email,
      minutes: Number(r.minutes) || 0,
      progress: Number(r.progress) || 0,
      last_read_at: r.last,
    }));
  }

  /** The readers' totals in one aggregate query (each reader's progress from the one SQL form of titleProgress). */
  async readerTotals(titleId: number): Promise<ReaderTotals> {
    const { rows } = await sql<{ readers: number | string; minutes: number | string | null; completed: number | string | null; mean: number | string | null }>`
      select count(*) as readers, sum(r.minutes) as minutes, sum(case when r.progress >= 100 then 1 else 0 end) as completed, avg(r.progress) as mean
      from (${this.perReader(titleId)}) r`.execute(this.db);
    const row = rows[0];
    return { readers: Number(row?.readers ?? 0), minutes: Number(row?.minutes) || 0, completed: Number(row?.completed) || 0, meanPercent: Number(row?.mean) || 0 };
  }
}

/** Authors (in order), the first publisher and the topics of these titles (`db`: the pool or an edit's transaction). */
async function namesIn(db: Kysely<Database>, ids: number[]): Promise<Map<number, TitleNames>> {
  const out = new Map<number, TitleNames>(ids.map((id) => [id, { authors: [], publisher: null, topics: [] }]));
  if (ids.length === 0) return out;
  const [authors, publishers, topics] = await Promise.all([
    db.selectFrom('title_authors').select(['title_id', 'name']).where('title_id', 'in', ids).orderBy('title_id').orderBy('position').execute(),
    db
      .selectFrom('title_publishers as tp')
      .innerJoin('publishers as p', 'p.id', 'tp.publisher_id')
      .select(['tp.title_id', 'p.name'])
      .where('tp.title_id', 'in', ids)
      .orderBy('tp.title_id')
      .orderBy('tp.position')
      .execute(),
    db
      .selectFrom('title_topics as tt')
      .innerJoin('topics as tp', 'tp.id', 'tt.topic_id')
      .select(['tt.title_id', 'tp.name', 'tp.slug'])
      .where('tt.title_id', 'in', ids)
      .orderBy('tp.name')
      .execute(),
  ]);
  for (const a of authors) out.get(a.title_id)!.authors.push(a.name);
  for (const p of publishers) out.get(p.title_id)!.publisher ??= p.name;
  for (const t of topics) out.get(t.title_id)!.topics.push({ name: t.name, slug: t.slug });
  return out;
}

async function ensureNamed(trx: Transaction<Database>, table: 'topics' | 'publishers', entry: { slug: string; name: string; name_key: string }): Promise<number> {
  const found = await trx.selectFrom(table).select('id').where('slug', '=', entry.slug).executeTakeFirst();
  if (found) return found.id;
  const row = await trx.insertInto(table).values(entry).onConflict((oc) => oc.column('slug').doNothing()).returning('id').executeTakeFirst();
  return row?.id ?? (await trx.selectFrom(table).select('id').where('slug', '=', entry.slug).executeTakeFirstOrThrow()).id;
}
