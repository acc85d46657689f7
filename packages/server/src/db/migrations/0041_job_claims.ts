/**
 * Scheduled jobs run once per period across all servers on one database (issue 26): the first server to insert
 * (job, period) runs that period's work; the primary key refuses the others. A claim not finished within its
 * lease (the claimer crashed) may be taken over (services/scheduled-jobs.ts).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('job_claims')
    .addColumn('job', 'text', (c) => c.notNull())
    // the period's number: floor(epoch ms / the job's interval)
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('claimed_by', 'text', (c) => c.notNull())
    .addColumn('claimed_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addPrimaryKeyConstraint('job_claims_pk', ['job', 'period'])
    .execute();
  await db.schema.createIndex('job_claims_claimed_at_idx').on('job_claims').column('claimed_at').execute();
}
