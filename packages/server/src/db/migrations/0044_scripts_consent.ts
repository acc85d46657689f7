/**
 * A reader's answer to running a scripted title's scripts (issue 24; docs/decisions.md "Asking before a book's
 * scripts run"): one row per reader and title they answered for; no row means not asked (or withdrawn).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('scripts_consents')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('title_id', 'integer', (c) => c.notNull().references('titles.id').onDelete('cascade'))
    // 1: allowed, 0: declined
    .addColumn('allowed', 'integer', (c) => c.notNull())
    .addColumn('decided_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('scripts_consents_pk', ['user_id', 'title_id'])
    .execute();
}
