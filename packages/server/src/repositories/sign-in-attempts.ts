/** Sign-in attempt counters: one row per key and fixed window, counted in one atomic statement on both engines. */
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.ts';

export class SignInAttemptsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Counts one attempt under `key` and returns the count in the current window (which began at `windowStart`):
   * a window that began at or before `cutoff` is over, and the count starts again at 1. One upsert, so
   * concurrent attempts on PostgreSQL cannot both read the same old count.
   */
  async hit(key: string, now: string, cutoff: string): Promise<{ count: number; windowStart: string }> {
    const row = await this.db
      .insertInto('sign_in_attempts')
      .values({ key, window_start: now, count: 1 })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          count: sql<number>`case when sign_in_attempts.window_start <= ${cutoff} then 1 else sign_in_attempts.count + 1 end`,
          window_start: sql<string>`case when sign_in_attempts.window_start <= ${cutoff} then excluded.window_start else sign_in_attempts.window_start end`,
        }),
      )
      .returning(['count', 'window_start'])
      .executeTakeFirstOrThrow();
    return { count: Number(row.count), windowStart: row.window_start };
  }

  /** Forgets counters whose window is over (the hourly clean-up). */
  async deleteEndedBefore(cutoff: string): Promise<number> {
    const result = await this.db.deleteFrom('sign_in_attempts').where('window_start', '<=', cutoff).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
