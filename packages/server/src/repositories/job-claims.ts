/**
 * Scheduled jobs' claims on a period (services/scheduled-jobs.ts): each claim is one statement that the primary key
 * (job, period) or the row's own state decides, so two servers on one database cannot both win, on either engine.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

export class JobClaimsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Claims (job, period) for `claimedBy`: true when this call inserted the claim, or took over one left unfinished
   * since `staleBefore` or earlier (its claimer crashed); false when another server holds or finished it.
   */
  async claim(job: string, period: string, claimedBy: string, now: string, staleBefore: string): Promise<boolean> {
    const inserted = await this.db
      .insertInto('job_claims')
      .values({ job, period, claimed_by: claimedBy, claimed_at: now, finished_at: null })
      .onConflict((oc) => oc.columns(['job', 'period']).doNothing())
      .returning('job')
      .executeTakeFirst();
    if (inserted) return true;
    const taken = await this.db
      .updateTable('job_claims')
      .set({ claimed_by: claimedBy, claimed_at: now })
      .where('job', '=', job)
      .where('period', '=', period)
      .where('finished_at', 'is', null)
      .where('claimed_at', '<=', staleBefore)
      .executeTakeFirst();
    return Number(taken.numUpdatedRows) === 1;
  }

  /** The claimer's work is done: the period is not run again. */
  async finish(job: string, period: string, claimedBy: string, now: string): Promise<void> {
    await this.db
      .updateTable('job_claims')
      .set({ finished_at: now })
      .where('job', '=', job)
      .where('period', '=', period)
      .where('claimed_by', '=', claimedBy)
      .execute();
  }

  /** The claimer's work failed: the claim is dropped so that the next tick of any server tries again. */
  async release(job: string, period: string, claimedBy: string): Promise<void> {
    await this.db.deleteFrom('job_claims').where('job', '=', job).where('period', '=', period).where('claimed_by', '=', claimedBy).execute();
  }

  /** Each job's latest finished run (its claim's time), whichever server ran it. */
  async lastFinished(): Promise<{ job: string; claimed_at: string }[]> {
    return this.db
      .selectFrom('job_claims')
      .select(['job', (eb) => eb.fn.max('claimed_at').as('claimed_at')])
      .where('finished_at', 'is not', null)
      .groupBy('job')
      .execute();
  }

  /** Forgets claims made at or before `cutoff` (the hourly retention purge). */
  async deleteClaimedBefore(cutoff: string): Promise<number> {
    const result = await this.db.deleteFrom('job_claims').where('claimed_at', '<=', cutoff).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
