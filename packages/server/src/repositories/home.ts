/**
 * What the home dashboard reads beyond the catalog's listings (docs/decisions.md "The home dashboard"): a reader's
 * positions and queue as titles, reading activity by title (popular, trending), topics, the operator's editors' picks
 * and announcements, and the recommendation actions readers took.
 */
import { type Kysely, sql } from 'kysely';
import type { AnnouncementRow, Database, RecommendationActionsTable, TitleRow } from '../db/schema.ts';
import { lockForReplace } from './conflicts.ts';

/** How many titles a reader may have read, listed or rejected before the home asks about its candidates alone. */
const SEEN_MAX = 5000;

export interface ReaderFacts {
  /** titles holding the reader's position, read last first (at most a row) */
  positions: number[];
  /** the first titles of their queue, in its order (as the playlists page shows it) */
  queue: number[];
  chosenTopics: number[];
  /** topics of what they read lately, latest first */
  readTopics: number[];
  /** titles read in, holding a position, listed or rejected; null when there are too many to fetch whole */
  seen: Set<number> | null;
}

export class HomeRepository {
  constructor(
    private readonly db: Kysely<Database>,
    /** readers with more seen titles than this are asked about their candidates alone (tests set it low) */
    private readonly seenMax = SEEN_MAX,
    /**
     * Where the library-wide aggregate runs (mostRead: 170-290 ms at 100,000 titles, every 5 minutes): SQLite's reader
     * threads when there are any (Db.reads, db/sqlite-readers.ts), so it does not hold the event loop.
     */
    private readonly reads: Kysely<Database> = db,
  ) {}

  /**
   * Everything of one reader the home starts from, in one statement (each round trip cost more than its lookup on
   * PostgreSQL): the titles they hold a position in (read last first) and the first of their queue, as ids (the
   * rows are kept by id in the catalog), the topics they chose and the topics they read in lately, and the titles
   * they have no use for as a recommendation (read in, holding a position, listed, rejected). A reader with more
   * than SEEN_MAX of those gets `seen: null`, and seenOrRejected asks about the candidates alone.
   */
  async readerFacts(userId: number, rowSize: number, topicLimit: number): Promise<ReaderFacts> {
    const u = userId;
    const { rows } = await sql<{ kind: string; id: number; at: string | null; n: number | string | null }>`
      select * from (select 'position' as kind, title_id as id, updated_at as at, 0 as n from reading_positions
        where user_id = ${u} order by updated_at desc, title_id desc limit ${rowSize}) p
      union all
      select * from (select 'queue', ci.title_id, '', ci.position from collections c join collection_items ci on ci.collection_id = c.id
        where c.user_id = ${u} and c.is_default = 1 order by ci.position desc limit ${rowSize}) q
      union all
      select 'chosen', topic_id, '', 0 from user_topics where user_id = ${u}
      union all
      select * from (select 'read', tt.topic_id, max(cp.updated_at), 0 from chapter_progress cp join title_topics tt on tt.title_id = cp.title_id
        where cp.user_id = ${u} group by tt.topic_id order by max(cp.updated_at) desc limit ${topicLimit}) r
      union all
      select * from (select 'seen', title_id, '', 0 from (
        select title_id from chapter_progress where user_id = ${u}
        union select title_id from reading_positions where user_id = ${u}
        union select ci.title_id from collection_items ci join collections c on c.id = ci.collection_id where c.user_id = ${u}
        union select title_id from recommendation_actions where user_id = ${u} and action = 'reject'
      ) t limit ${this.seenMax + 1}) s`.execute(this.db);
    const of = (kind: string) => rows.filter((r) => r.kind === kind);
    const seen = of('seen').map((r) => r.id);
    return {
      positions: of('position')
        .sort((a, b) => (b.at ?? '').localeCompare(a.at ?? '') || b.id - a.id)
        .map((r) => r.id),
      // the queue's order is the playlist's: highest position first (CollectionsRepository.itemsOf)
      queue: of('queue')
        .sort((a, b) => Number(b.n) - Number(a.n))
        .map((r) => r.id),
      chosenTopics: of('chosen').map((r) => r.id),
      readTopics: of('read')
        .sort((a, b) => (b.at ?? '').localeCompare(a.at ?? ''))
        .map((r) => r.id),
      seen: seen.length > this.seenMax ? null : new Set(seen),
    };
  }

  /**
   * Titles by how many readers read in them since `since` (their progress moved), most read first; a work's
   * formats count as the work. One range of the chapter_progress(updated_at) index.
   */
  async mostRead(since: string, limit: number): Promise<{ titleId: number; readers: number }[]> {
    const rows = await this.reads
      .selectFrom('chapter_progress as cp')
      .innerJoin('titles as t', 't.id', 'cp.title_id')
      .select([sql<number>`coalesce(t.work_title_id, t.id)`.as('title_id'), sql<string | number>`count(distinct cp.user_id)`.as('readers')])
      .where('cp.updated_at', '>=', since)
      // retired titles, and works whose standing title is retired, are in no listing (repositories/listings.ts)
      .where('t.retired_at', 'is', null)
      .where(sql<boolean>`(select w.retired_at from titles w where w.id = coalesce(t.work_title_id, t.id)) is null`)
      .groupBy(sql`coalesce(t.work_title_id, t.id)`)
      .orderBy(sql`count(distinct cp.user_id)`, 'desc')
      .orderBy(sql`coalesce(t.work_title_id, t.id)`, 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ titleId: Number(r.title_id), readers: Number(r.readers) }));
  }

  /** The topics of these titles, as title id -> topic ids. */
  async topicIdsOf(titleIds: number[]): Promise<Map<number, number[]>> {
    const out = new Map<number, number[]>();
    if (titleIds.length === 0) return out;
    const rows = await this.db.selectFrom('title_topics').select(['title_id', 'topic_id']).where('title_id', 'in', titleIds).execute();
    for (const r of rows) out.set(r.title_id, [...(out.get(r.title_id) ?? []), r.topic_id]);
    return out;
  }

  /** The content format of each of these titles. */
  async formatsOf(titleIds: number[]): Promise<Map<number, string>> {
    if (titleIds.length === 0) return new Map();
    const rows = await this.db.selectFrom('titles').select(['id', 'content_format']).where('id', 'in', titleIds).execute();
    return new Map(rows.map((r) => [r.id, r.content_format]));
  }

  /**
   * Of `titleIds`, those a reader has no use for as a recommendation: read in, holding a position, in any of their
   * lists, or rejected. Bounded by the candidates asked about.
   */
  async seenOrRejected(userId: number, titleIds: number[]): Promise<Set<number>> {
    if (titleIds.length === 0) return new Set();
    // One statement (a UNION of the four): a round trip each cost more than the lookups on PostgreSQL.
    const rows = await this.db
      .selectFrom('chapter_progress')
      .select('title_id')
      .where('user_id', '=', userId)
      .where('title_id', 'in', titleIds)
      .union((db) => db.selectFrom('reading_positions').select('title_id').where('user_id', '=', userId).where('title_id', 'in', titleIds))
      .union((db) =>
        db
          .selectFrom('collection_items as ci')
          .innerJoin('collections as c', 'c.id', 'ci.collection_id')
          .select('ci.title_id')
          .where('c.user_id', '=', userId)
          .where('ci.title_id', 'in', titleIds),
      )
      .union((db) => db.selectFrom('recommendation_actions').select('title_id').where('user_id', '=', userId).where('action', '=', 'reject').where('title_id', 'in', titleIds))
      .execute();
    return new Set(rows.map((r) => r.title_id));
  }

  async recordAction(row: Omit<RecommendationActionsTable, 'id'>): Promise<void> {
    await this.db.insertInto('recommendation_actions').values(row).execute();
  }

  editorsPicks(limit: number): Promise<TitleRow[]> {
    return this.db
      .selectFrom('editors_picks as ep')
      .innerJoin('titles', 'titles.id', 'ep.title_id')
      .selectAll('titles')
      .where('titles.retired_at', 'is', null)
      .orderBy('ep.position')
      .limit(limit)
      .execute();
  }

  /** Replaces the picks with these titles, in this order (one transaction: the home never shows half a change). */
  async setEditorsPicks(titleIds: number[], at: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await lockForReplace(trx, 'editors_picks');
      await trx.deleteFrom('editors_picks').execute();
      if (titleIds.length) await trx.insertInto('editors_picks').values(titleIds.map((title_id, position) => ({ title_id, position, picked_at: at }))).execute();
    });
  }

  /** Announcements not over at `now`: those on now and those to come, the latest starts first. */
  announcementsNotOver(now: string, limit: number): Promise<AnnouncementRow[]> {
    return this.db
      .selectFrom('announcements')
      .selectAll()
      .where((eb) => eb.or([eb('ends_at', 'is', null), eb('ends_at', '>', now)]))
      .orderBy('starts_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  listAnnouncements(): Promise<AnnouncementRow[]> {
    return this.db.selectFrom('announcements').selectAll().orderBy('id', 'desc').execute();
  }

  addAnnouncement(row: { message: string; url: string | null; starts_at: string; ends_at: string | null; created_at: string }): Promise<AnnouncementRow> {
    return this.db.insertInto('announcements').values(row).returningAll().executeTakeFirstOrThrow();
  }

  async deleteAnnouncement(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('announcements').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
