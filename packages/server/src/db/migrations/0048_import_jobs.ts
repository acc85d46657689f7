/**
 * Imports queued in the database so that any server's worker may take one (issue 26; docs/decisions.md "Imports
 * queued in the database"). A row per upload: who asked, what it is (its files' names in the upload area, topics,
 * the book it replaces), its state (queued, running, done, failed), the server holding it and until when (a lease
 * the worker renews; one that lapses lets another server take the job), how many times it was taken, and its
 * outcome (the import report, or why it failed). `area` names the upload area that holds its files: a server takes
 * only jobs whose files it can read.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('import_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('area', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'integer')
    .addColumn('request', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('claimed_by', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('report', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('import_jobs_state_idx').on('import_jobs').columns(['area', 'state', 'created_at']).execute();
}
