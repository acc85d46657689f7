/**
 * Sign-in attempt counters in the database (not in the process's memory, where a flood of other keys could push
 * an account's counter out, and where several server processes would each count alone), and an index that makes
 * deleting expired sessions cheap.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sign_in_attempts')
    // "addr:{client address}|{email}" or "acct:{email}"
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('window_start', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sign_in_attempts_window_idx').on('sign_in_attempts').column('window_start').execute();
  await db.schema.createIndex('sessions_expires_idx').on('sessions').column('expires_at').execute();
}
