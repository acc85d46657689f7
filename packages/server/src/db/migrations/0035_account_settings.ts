/**
 * A reader's settings kept on the account (issue 24): whether single-key keyboard shortcuts are on
 * (library-playlists-account.md §6 "Shortcuts can be disabled by user setting"; WCAG 2.1.4). One row per account
 * that changed a setting; no row means the defaults.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('account_settings')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('keyboard_shortcuts', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
