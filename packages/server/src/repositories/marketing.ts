/**
 * The marketing modules' rows (docs/decisions.md "The marketing modules", migration 0038): the newsletter's subscribers
 * and issues, the titles a newsletter lists, and the home blocks a reader dismissed.
 */
import type { Kysely } from 'kysely';
import type { Database, NewsletterIssuesTable, TitleRow } from '../db/schema.ts';
import type { Selectable } from 'kysely';
import { unlessTaken } from './conflicts.ts';

export type NewsletterIssueRow = Selectable<NewsletterIssuesTable>;

export class MarketingRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async isSubscribed(userId: number): Promise<boolean> {
    return (await this.db.selectFrom('newsletter_subscribers').select('user_id').where('user_id', '=', userId).executeTakeFirst()) !== undefined;
  }

  /** Opts in (idempotent: the first opt-in's time is kept). */
  async subscribe(userId: number, at: string): Promise<void> {
    await this.db.insertInto('newsletter_subscribers').values({ user_id: userId, subscribed_at: at }).onConflict((oc) => oc.column('user_id').doNothing()).execute();
  }

  /** Opts out (idempotent); true when the reader was subscribed. */
  async unsubscribe(userId: number): Promise<boolean> {
    const result = await this.db.deleteFrom('newsletter_subscribers').where('user_id', '=', userId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** The subscribers after `afterUserId`, by id (the job sends in batches). */
  subscribers(afterUserId: number, limit: number): Promise<{ id: number; uuid: string; email: string }[]> {
    return this.db
      .selectFrom('newsletter_subscribers as n')
      .innerJoin('users as u', 'u.id', 'n.user_id')
      .select(['u.id', 'u.uuid', 'u.email'])
      .where('u.id', '>', afterUserId)
      .orderBy('u.id')
      .limit(limit)
      .execute();
  }

  lastIssue(): Promise<NewsletterIssueRow | undefined> {
    return this.db.selectFrom('newsletter_issues').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirst();
  }

  /** Claims the issue that follows `followsIssueId`; undefined when another process claimed it first. */
  claimIssue(row: Omit<NewsletterIssueRow, 'id'>): Promise<NewsletterIssueRow | undefined> {
    return unlessTaken(this.db.insertInto('newsletter_issues').values(row).returningAll().executeTakeFirstOrThrow());
  }

  async setRecipients(issueId: number, count: number): Promise<void> {
    await this.db.updateTable('newsletter_issues').set({ recipient_count: count }).where('id', '=', issueId).execute();
  }

  /**
   * Titles added in (since, until], newest first, as the catalog lists them: one per work, not retired, no system
   * books; and how many there are.
   */
  async titlesAdded(since: string, until: string, limit: number): Promise<{ titles: TitleRow[]; total: number }> {
    const added = this.db
      .selectFrom('titles')
      .where('created_at', '>', since)
      .where('created_at', '<=', until)
      .where('work_title_id', 'is', null)
      .where('retired_at', 'is', null)
      .where('is_system_book', '=', 0);
    const [titles, count] = await Promise.all([
      added.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute(),
      added.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { titles, total: Number(count.n) };
  }

  async dismissed(userId: number): Promise<string[]> {
    return (await this.db.selectFrom('home_dismissals').select('module').where('user_id', '=', userId).orderBy('module').execute()).map((r) => r.module);
  }

  async dismiss(userId: number, module: string, at: string): Promise<void> {
    await this.db
      .insertInto('home_dismissals')
      .values({ user_id: userId, module, dismissed_at: at })
      .onConflict((oc) => oc.columns(['user_id', 'module']).doNothing())
      .execute();
  }

  // ---- editors' transformation playlists ----

  topicBySlug(slug: string): Promise<{ id: number; slug: string; name: string } | undefined> {
    return this.db.selectFrom('topics').select(['id', 'slug', 'name']).where('slug', '=', slug).executeTakeFirst();
  }

  ownCollection(userId: number, collectionId: string): Promise<{ id: string; is_default: number } | undefined> {
    return this.db.selectFrom('collections').select(['id', 'is_default']).where('id', '=', collectionId).where('user_id', '=', userId).executeTakeFirst();
  }

  async publishPlaylist(collectionId: string, topicId: number, at: string): Promise<void> {
    await this.db
      .insertInto('transformation_playlists')
      .values({ collection_id: collectionId, topic_id: topicId, published_at: at })
      .onConflict((oc) => oc.column('collection_id').doUpdateSet({ topic_id: topicId }))
      .execute();
  }

  async unpublishPlaylist(collectionId: string): Promise<boolean> {
    const result = await this.db.deleteFrom('transformation_playlists').where('collection_id', '=', collectionId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** An editor's own playlists but the default one, by name, with the topic each is published under and its size. */
  ownPlaylists(userId: number) {
    return this.db
      .selectFrom('collections as c')
      .leftJoin('transformation_playlists as tp', 'tp.collection_id', 'c.id')
      .leftJoin('topics as t', 't.id', 'tp.topic_id')
      .select((eb) => [
        'c.id',
        'c.name',
        't.name as topic_name',
        't.slug as topic_slug',
        eb.selectFrom('collection_items as ci').whereRef('ci.collection_id', '=', 'c.id').select((e) => e.fn.countAll<string | number>().as('n')).as('count'),
      ])
      .where('c.user_id', '=', userId)
      .where('c.is_default', '=', 0)
      .orderBy('c.name')
      .orderBy('c.id')
      .execute();
  }

  /** The published playlists (of one topic when given), the newest published first, with their topic and curator. */
  transformationPlaylists(topicId: number | null, limit: number) {
    let q = this.db
      .selectFrom('transformation_playlists as tp')
      .innerJoin('collections as c', 'c.id', 'tp.collection_id')
      .innerJoin('topics as t', 't.id', 'tp.topic_id')
      .innerJoin('users as u', 'u.id', 'c.user_id')
      .select(['c.id', 'c.name', 'c.description', 't.name as topic_name', 't.slug as topic_slug', 'u.username as curator', 'tp.published_at']);
    if (topicId !== null) q = q.where('tp.topic_id', '=', topicId);
    return q.orderBy('tp.published_at', 'desc').orderBy('c.id').limit(limit).execute();
  }

  /** The listed titles of these playlists in each one's order (retired ones left out). */
  playlistTitles(collectionIds: string[]): Promise<(TitleRow & { collection_id: string })[]> {
    if (collectionIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('collection_items as i')
      .innerJoin('titles', 'titles.id', 'i.title_id')
      .selectAll('titles')
      .select('i.collection_id')
      .where('i.collection_id', 'in', collectionIds)
      .where('titles.retired_at', 'is', null)
      .orderBy('i.collection_id')
      // a playlist's first item has the highest position (repositories/collections.ts)
      .orderBy('i.position', 'desc')
      .execute();
  }
}
