/**
 * Where each reader left each book (one row per user and title, upserted): the chapter and the Locator as JSON,
 * so that "Continue" lands on the same paragraph in any browser. The chapter is a column too, so that lists can
 * join it (its path and flags) without parsing JSON, and a removed chapter takes its positions with it.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('reading_positions')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('title_id', 'integer', (c) => c.notNull().references('titles.id').onDelete('cascade'))
    .addColumn('chapter_id', 'integer', (c) => c.notNull().references('chapters.id').onDelete('cascade'))
    .addColumn('locator', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('reading_positions_pk', ['user_id', 'title_id'])
    .execute();
}
