/**
 * What the home dashboard reads beyond the catalog's listings (issue 11): a reader's positions and queue as titles,
 * reading activity by title (popular, trending), topics, the operator's editors' picks and announcements, and the
 * recommendation actions readers took.
 */
import { type Kysely, sql } from 'kysely';
import type { AnnouncementRow, Database, RecommendationActionsTable, TitleRow } from '../db/schema.ts';

export class HomeRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** The titles a reader has a stored position in, the one read last first. */
  continueReading(userId: number, limit: number): Promise<TitleRow[]> {
    return this.db
      .selectFrom('reading_positions as rp')
      .innerJoin('titles', 'titles.id', 'rp.title_id')
      .selectAll('titles')
      .where('rp.user_id', '=', userId)
      .orderBy('rp.updated_at', 'desc')
      .orderBy('titles.id', 'desc')
      .limit(limit)
      .execute();
  }

  /** The first titles of a reader's queue (their default list), in the order they set. */
  queueTitles(userId: number, limit: number): Promise<TitleRow[]> {
    return this.db
      .selectFrom('collections as c')
      .innerJoin('collection_items as ci', 'ci.collection_id', 'c.id')
      .innerJoin('titles', 'titles.id', 'ci.title_id')
      .selectAll('titles')
      .where('c.user_id', '=', userId)
      .where('c.is_default', '=', 1)
      .orderBy('ci.position')
      .limit(limit)
      .execute();
  }

  /**
   * Titles by how many readers read in them since `since` (their progress moved), most read first; a work's
   * formats count as the work. One range of the chapter_progress(updated_at) index.
   */
  async mostRead(since: string, limit: number): Promise<{ titleId: number; readers: number }[]> {
    const rows = await this.db
      .selectFrom('chapter_progress as cp')
      .innerJoin('titles as t', 't.id', 'cp.title_id')
      .select([sql<number>`coalesce(t.work_title_id, t.id)`.as('title_id'), sql<string | number>`count(distinct cp.user_id)`.as('readers')])
      .where('cp.updated_at', '>=', since)
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

  /** The topics a reader chose after registering (the account's topics form). */
  async chosenTopicIds(userId: number): Promise<number[]> {
    const rows = await this.db.selectFrom('user_topics').select('topic_id').where('user_id', '=', userId).execute();
    return rows.map((r) => r.topic_id);
  }

  /** The topics of the titles a reader has read in lately: where recommendations start when none were chosen. */
  async readTopicIds(userId: number, limit: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('chapter_progress as cp')
      .innerJoin('title_topics as tt', 'tt.title_id', 'cp.title_id')
      .select('tt.topic_id')
      .where('cp.user_id', '=', userId)
      .groupBy('tt.topic_id')
      .orderBy(sql`max(cp.updated_at)`, 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => r.topic_id);
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
      .orderBy('ep.position')
      .limit(limit)
      .execute();
  }

  /** Replaces the picks with these titles, in this order (one transaction: the home never shows half a change). */
  async setEditorsPicks(titleIds: number[], at: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
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
