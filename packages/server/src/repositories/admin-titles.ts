/**
 * The operators' view of titles (issue 23): every title (each file, not only those standing for their work), searched
 * by folded title prefix, an author's folded name prefix or the exact book id, in title order with keyset paging;
 * an edit of a title's descriptive fields under its version; retiring and restoring; its readers' figures.
 */
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database, TitleRow } from '../db/schema.ts';
import { refreshListings } from './listings.ts';

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
  minutes: number;
  /** sum over the reader's chapters of text length × furthest percentage (0-100) */
  weighted: number;
  /** sum of the furthest percentages (for titles without text) */
  plain: number;
  last_read_at: string | null;
}

/** Escapes LIKE's wildcards (the pattern's escape character is \). */
const likePrefix = (s: string) => `${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** One usage event's minutes: the share read of its chapter's length (a media part's duration, else its reading time at 250 words of 6 characters). */
const MINUTES = sql<number>`(case when ue.end_percentage > ue.start_percentage then ue.end_percentage - ue.start_percentage else 0 end) / 100.0 *
  coalesce(mf.duration_ms / 60000.0, c.text_length / 1500.0)`;

export class AdminTitlesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** `limit + 1` rows in (sort_title, id) order after `after`. */
  page(f: AdminTitleFilter): Promise<TitleRow[]> {
    let q = this.db.selectFrom('titles as t').selectAll('t');
    if (f.state === 'active') q = q.where('t.retired_at', 'is', null);
    if (f.state === 'retired') q = q.where('t.retired_at', 'is not', null);
    if (f.format !== undefined) q = q.where('t.content_format', '=', f.format);
    if (f.titlePrefix !== undefined || f.authorPrefix !== undefined || f.bookId !== undefined) {
      q = q.where((eb) =>
        eb.or([
          ...(f.titlePrefix ? [sql<boolean>`t.sort_title like ${likePrefix(f.titlePrefix)} escape '\\'`] : []),
          ...(f.authorPrefix
            ? [eb('t.id', 'in', eb.selectFrom('title_authors').select('title_id').where(sql<boolean>`name_key like ${likePrefix(f.authorPrefix)} escape '\\'`))]
            : []),
          ...(f.bookId ? [eb('t.book_id', '=', f.bookId)] : []),
        ]),
      );
    }
    if (f.after) q = q.where(sql<boolean>`(t.sort_title, t.id) > (${f.after.sortTitle}, ${f.after.id})`);
    return q.orderBy('t.sort_title').orderBy('t.id').limit(f.limit + 1).execute();
  }

  findByBookId(bookId: string): Promise<TitleRow | undefined> {
    return this.db.selectFrom('titles').selectAll().where('book_id', '=', bookId).executeTakeFirst();
  }

  /** Authors (in order), the first publisher and the topics of these titles. */
  async namesOf(ids: number[]): Promise<Map<number, TitleNames>> {
    const out = new Map<number, TitleNames>(ids.map((id) => [id, { authors: [], publisher: null, topics: [] }]));
    if (ids.length === 0) return out;
    const [authors, publishers, topics] = await Promise.all([
      this.db.selectFrom('title_authors').select(['title_id', 'name']).where('title_id', 'in', ids).orderBy('title_id').orderBy('position').execute(),
      this.db
        .selectFrom('title_publishers as tp')
        .innerJoin('publishers as p', 'p.id', 'tp.publisher_id')
        .select(['tp.title_id', 'p.name'])
        .where('tp.title_id', 'in', ids)
        .orderBy('tp.title_id')
        .orderBy('tp.position')
        .execute(),
      this.db
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

  async pickedIds(ids: number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.selectFrom('editors_picks').select('title_id').where('title_id', 'in', ids).execute();
    return new Set(rows.map((r) => r.title_id));
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
        await trx.deleteFrom('title_topics').where('title_id', '=', title.id).execute();
        const ids = new Set<number>();
        for (const t of e.topics) ids.add(await ensureNamed(trx, 'topics', t));
        if (ids.size) await trx.insertInto('title_topics').values([...ids].map((topic_id) => ({ title_id: title.id, topic_id }))).execute();
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
      return true;
    });
  }

  /** Sets or clears retired_at (and moves the version); the work's listing rows are derived again without it. */
  async setRetired(title: TitleRow, at: string | null): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('titles').set({ retired_at: at, version: sql`version + 1` }).where('id', '=', title.id).execute();
      await refreshListings(trx, [title.work_title_id ?? title.id]);
    });
  }

  /** Each reader's figures for one title: minutes from usage events, completion from chapter progress. */
  async readers(titleId: number): Promise<ReaderFigures[]> {
    const [usage, progress] = await Promise.all([
      this.db
        .selectFrom('usage_events as ue')
        .innerJoin('chapters as c', 'c.id', 'ue.chapter_id')
        .leftJoin('media_files as mf', 'mf.chapter_id', 'ue.chapter_id')
        .select(['ue.user_id', sql<number>`sum(${MINUTES})`.as('minutes'), sql<string>`max(ue.received_at)`.as('last')])
        .where('ue.title_id', '=', titleId)
        .groupBy('ue.user_id')
        .execute(),
      this.db
        .selectFrom('chapter_progress as cp')
        .innerJoin('chapters as c', 'c.id', 'cp.chapter_id')
        .select([
          'cp.user_id',
          sql<number>`sum(c.text_length * (case when cp.top_percentage > 100 then 100 else cp.top_percentage end))`.as('weighted'),
          sql<number>`sum(case when cp.top_percentage > 100 then 100 else cp.top_percentage end)`.as('plain'),
          sql<string>`max(cp.updated_at)`.as('last'),
        ])
        .where('cp.title_id', '=', titleId)
        .groupBy('cp.user_id')
        .execute(),
    ]);
    const out = new Map<number, ReaderFigures>();
    for (const u of usage) out.set(u.user_id, { user_id: u.user_id, minutes: Number(u.minutes) || 0, weighted: 0, plain: 0, last_read_at: u.last });
    for (const p of progress) {
      const r = out.get(p.user_id) ?? { user_id: p.user_id, minutes: 0, weighted: 0, plain: 0, last_read_at: null };
      r.weighted = Number(p.weighted) || 0;
      r.plain = Number(p.plain) || 0;
      if (!r.last_read_at || (p.last && p.last > r.last_read_at)) r.last_read_at = p.last;
      out.set(p.user_id, r);
    }
    return [...out.values()];
  }

  /** The title's total text length (the weights of completion) and its chapter count. */
  async lengthOf(titleId: number): Promise<{ text: number; chapters: number }> {
    const row = await this.db
      .selectFrom('chapters')
      .select([sql<number>`coalesce(sum(text_length), 0)`.as('text'), sql<number>`count(*)`.as('n')])
      .where('title_id', '=', titleId)
      .executeTakeFirstOrThrow();
    return { text: Number(row.text), chapters: Number(row.n) };
  }

  async emailsOf(userIds: number[]): Promise<Map<number, { uuid: string; email: string }>> {
    if (userIds.length === 0) return new Map();
    const rows = await this.db.selectFrom('users').select(['id', 'uuid', 'email']).where('id', 'in', userIds).execute();
    return new Map(rows.map((r) => [r.id, { uuid: r.uuid, email: r.email }]));
  }
}

async function ensureNamed(trx: Transaction<Database>, table: 'topics' | 'publishers', entry: { slug: string; name: string; name_key: string }): Promise<number> {
  const found = await trx.selectFrom(table).select('id').where('slug', '=', entry.slug).executeTakeFirst();
  if (found) return found.id;
  const row = await trx.insertInto(table).values(entry).onConflict((oc) => oc.column('slug').doNothing()).returning('id').executeTakeFirst();
  return row?.id ?? (await trx.selectFrom(table).select('id').where('slug', '=', entry.slug).executeTakeFirstOrThrow()).id;
}
