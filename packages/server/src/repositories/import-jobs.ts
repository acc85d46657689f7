/**
 * The import queue (services/import-jobs.ts): each claim is one statement, so two servers on one database cannot
 * both take a job. PostgreSQL picks the job with `FOR UPDATE SKIP LOCKED` (a job another server is claiming is
 * passed over, not waited for); SQLite has one writer at a time, so the same statement without it is already one
 * claim. The update also checks the row's state again, which PostgreSQL re-reads after a lock. A job given back for a
 * retry (`release`) is a running job with no server and a lease that lapses at the retry time: the claim takes it then.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, ImportJobsTable } from '../db/schema.ts';

export type ImportJobRow = Selectable<ImportJobsTable>;

export class ImportJobsRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: 'sqlite' | 'postgres',
  ) {}

  async insert(row: Pick<ImportJobRow, 'id' | 'area' | 'owner_id' | 'request' | 'created_at'>): Promise<void> {
    await this.db.insertInto('import_jobs').values({ ...row, state: 'queued', attempts: 0 }).execute();
  }

  find(id: string): Promise<ImportJobRow | undefined> {
    return this.db.selectFrom('import_jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * Takes the oldest job of `area` that is queued, or running under a lease that ran out by `now` (its server
   * stopped) and taken fewer than `maxAttempts` times; null when there is none.
   */
  async claim(area: string, serverId: string, now: string, leaseUntil: string, maxAttempts: number): Promise<ImportJobRow | null> {
    const next = this.db
      .selectFrom('import_jobs')
      .select('id')
      .where('area', '=', area)
      .where('attempts', '<', maxAttempts)
      .where((eb) => eb.or([eb('state', '=', 'queued'), eb.and([eb('state', '=', 'running'), eb('lease_until', '<=', now)])]))
      .orderBy('created_at')
      .orderBy('id')
      .limit(1)
      .$if(this.engine === 'postgres', (qb) => qb.forUpdate().skipLocked());
    const row = await this.db
      .updateTable('import_jobs')
      .set((eb) => ({ state: 'running', claimed_by: serverId, lease_until: leaseUntil, attempts: eb('attempts', '+', 1) }))
      .where('id', '=', next)
      .where('attempts', '<', maxAttempts)
      .where((eb) => eb.or([eb('state', '=', 'queued'), eb.and([eb('state', '=', 'running'), eb('lease_until', '<=', now)])]))
      .returningAll()
      .executeTakeFirst();
    return row ?? null;
  }

  /**
   * Jobs of `area` whose lease ran out after their last allowed attempt: failed, with `reason`. Returns their ids
   * (their upload folders go).
   */
  async failExhausted(area: string, now: string, maxAttempts: number, reason: string): Promise<string[]> {
    const rows = await this.db
      .updateTable('import_jobs')
      .set({ state: 'failed', error: reason, finished_at: now, lease_until: null })
      .where('area', '=', area)
      .where('state', '=', 'running')
      .where('lease_until', '<=', now)
      .where('attempts', '>=', maxAttempts)
      .returning('id')
      .execute();
    return rows.map((r) => r.id);
  }

  /** Moves the lease on while the worker runs; false when the job is no longer this server's (its lease lapsed). */
  async renew(id: string, serverId: string, leaseUntil: string): Promise<boolean> {
    const done = await this.db
      .updateTable('import_jobs')
      .set({ lease_until: leaseUntil })
      .where('id', '=', id)
      .where('claimed_by', '=', serverId)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(done.numUpdatedRows) === 1;
  }

  /**
   * Gives back this server's claim on a job its run could not finish for want of the database or the store: any
   * worker of the area may take it again from `retryAt` (a lapsed lease, as a stopped server's), `reason` kept till
   * then. False when the job was no longer this server's.
   */
  async release(id: string, serverId: string, retryAt: string, reason: string): Promise<boolean> {
    const done = await this.db
      .updateTable('import_jobs')
      .set({ claimed_by: null, lease_until: retryAt, error: reason })
      .where('id', '=', id)
      .where('claimed_by', '=', serverId)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(done.numUpdatedRows) === 1;
  }

  /** Records the outcome of this server's run; false when the job was no longer its own. */
  async finish(
    id: string,
    serverId: string,
    outcome: { state: 'done'; report: string } | { state: 'failed'; error: string; unavailable: boolean },
    now: string,
  ): Promise<boolean> {
    const done = await this.db
      .updateTable('import_jobs')
      .set({
        state: outcome.state,
        report: outcome.state === 'done' ? outcome.report : null,
        error: outcome.state === 'failed' ? outcome.error : null,
        unavailable: outcome.state === 'failed' && outcome.unavailable ? 1 : 0,
        finished_at: now,
        lease_until: null,
      })
      .where('id', '=', id)
      .where('claimed_by', '=', serverId)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(done.numUpdatedRows) === 1;
  }

  /** Fails a job still queued or running (its upload was swept); false when it had ended already. */
  async failUnfinished(id: string, reason: string, now: string): Promise<boolean> {
    const done = await this.db
      .updateTable('import_jobs')
      .set({ state: 'failed', error: reason, finished_at: now, lease_until: null })
      .where('id', '=', id)
      .where('state', 'in', ['queued', 'running'])
      .executeTakeFirst();
    return Number(done.numUpdatedRows) === 1;
  }

  /**
   * Fails every job, of any area, queued before `queuedBefore` that no server holds (queued, or running under a lease
   * that lapsed by `now`): nobody read its files in all that time. Returns their ids.
   */
  async failWaitingSince(queuedBefore: string, now: string, reason: string): Promise<string[]> {
    const rows = await this.db
      .updateTable('import_jobs')
      .set({ state: 'failed', error: reason, finished_at: now, lease_until: null })
      .where('created_at', '<', queuedBefore)
      .where((eb) => eb.or([eb('state', '=', 'queued'), eb.and([eb('state', '=', 'running'), eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)])])]))
      .returning('id')
      .execute();
    return rows.map((r) => r.id);
  }

  /** How many jobs run and wait, on every server (the console's health page). */
  async load(): Promise<{ running: number; waiting: number }> {
    const rows = await this.db
      .selectFrom('import_jobs')
      .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
      .where('state', 'in', ['queued', 'running'])
      .groupBy('state')
      .execute();
    const of = (state: string) => Number(rows.find((r) => r.state === state)?.n ?? 0);
    return { running: of('running'), waiting: of('queued') };
  }

  /** Deletes finished jobs older than `before`; returns how many. */
  async purgeFinishedBefore(before: string): Promise<number> {
    const done = await this.db.deleteFrom('import_jobs').where('state', 'in', ['done', 'failed']).where('finished_at', '<', before).executeTakeFirst();
    return Number(done.numDeletedRows);
  }
}
