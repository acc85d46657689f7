/**
 * Writes that race (200 identical creations at once answered 500). A check-then-insert loses to another
 * request between its check and its insert; the unique index is what settles it, on both engines: an insert that
 * does nothing on conflict, or a unique violation caught here and answered as the check would have.
 */
import { type Kysely, PostgresAdapter, sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';

/** A unique-constraint violation on either engine (PostgreSQL's 23505, better-sqlite3's code). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * The write's result, or undefined when a unique index refused it: the repository's caller answers as its own check
 * would have ("that name is taken"), and knows nothing of either engine's error codes.
 */
export async function unlessTaken<T extends object>(write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (err) {
    if (isUniqueViolation(err)) return undefined;
    throw err;
  }
}

export function onPostgres(db: Kysely<Database> | Transaction<Database>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * Makes transactions that replace a whole set of rows (delete all, insert the new ones) run one after another on
 * PostgreSQL: without it two at once both delete what they see and the second's insert meets the first's rows (a
 * unique violation), or the two sets merge. SQLite runs one write transaction at a time already.
 */
export async function lockForReplace(trx: Transaction<Database>, table: 'editors_picks'): Promise<void> {
  if (onPostgres(trx)) await sql`lock table ${sql.table(table)} in share row exclusive mode`.execute(trx);
}
