/** First-party analytics events (migration 0025): written in batches, counted for the operators' report, purged by age. */
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.ts';

export interface AnalyticsRow {
  category: string;
  action: string;
  label: string;
  value: number | null;
  path: string | null;
  user_id: number | null;
  created_at: string;
}

export interface AnalyticsCountRow {
  category: string;
  action: string;
  label: string;
  count: number;
  signed_in: number;
}

/** Rows deleted per statement by the purge, so a long-unpurged table does not hold one lock for minutes. */
const PURGE_CHUNK = 5_000;

export class AnalyticsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(rows: readonly AnalyticsRow[]): Promise<void> {
    if (rows.length) await this.db.insertInto('analytics_events').values([...rows]).execute();
  }

  /**
   * Counts by category, action and label of the events in [from, to), biggest first, at most `limit` rows (one more
   * is read to tell whether any were left out); `total` is every event of the span.
   */
  async counts(q: { from: string; to: string; category: string | null; limit: number }): Promise<{ rows: AnalyticsCountRow[]; total: number }> {
    let base = this.db.selectFrom('analytics_events').where('created_at', '>=', q.from).where('created_at', '<', q.to);
    if (q.category !== null) base = base.where('category', '=', q.category);
    const [rows, total] = await Promise.all([
      base
        .select([
          'category',
          'action',
          'label',
          sql<string | number>`count(*)`.as('count'),
          sql<string | number>`count(user_id)`.as('signed_in'),
        ])
        .groupBy(['category', 'action', 'label'])
        .orderBy(sql`count(*)`, 'desc')
        .orderBy('category')
        .orderBy('action')
        .orderBy('label')
        .limit(q.limit + 1)
        .execute(),
      base.select(sql<string | number>`count(*)`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return {
      rows: rows.map((r) => ({ category: r.category, action: r.action, label: r.label, count: Number(r.count), signed_in: Number(r.signed_in) })),
      total: Number(total.n),
    };
  }

  /** Deletes every event created before `cutoff`, a chunk at a time; returns how many went. */
  async deleteBefore(cutoff: string): Promise<number> {
    let deleted = 0;
    for (;;) {
      const chunk = this.db.selectFrom('analytics_events').select('id').where('created_at', '<', cutoff).orderBy('id').limit(PURGE_CHUNK);
      const result = await this.db.deleteFrom('analytics_events').where('id', 'in', chunk).executeTakeFirst();
      const n = Number(result.numDeletedRows);
      deleted += n;
      if (n < PURGE_CHUNK) return deleted;
    }
  }
}
