/**
 * The marketing modules' rows (issue 24, migration 0038): the newsletter's subscribers and issues, the titles a
 * newsletter lists, and the home blocks a reader dismissed.
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
}
