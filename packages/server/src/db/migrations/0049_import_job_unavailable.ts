/**
 * An import job that failed because the database or the content store was not available, not because of its file
 * (docs/decisions.md "An import the database or the store failed is not the file's fault"): such a job is
 * retried by the queue, and when its last attempt fails the same way the upload is answered 503, not 400. `unavailable`
 * is 1 on those failed jobs. Old servers, which do not read it, run beside new ones during an upgrade.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('import_jobs').addColumn('unavailable', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}
