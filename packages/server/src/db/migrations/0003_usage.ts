/** Reading usage events (reader.md §4 "Usage logging"): every accepted event is kept, once per usage_uuid. */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('usage_events')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('usage_uuid', 'text', (c) => c.notNull())
    .addColumn('chapter_id', 'integer', (c) => c.notNull().references('chapters.id').onDelete('cascade'))
    .addColumn('title_id', 'integer', (c) => c.notNull().references('titles.id').onDelete('cascade'))
    .addColumn('start_percentage', 'real', (c) => c.notNull())
    .addColumn('end_percentage', 'real', (c) => c.notNull())
    .addColumn('client_timestamp', 'text', (c) => c.notNull())
    .addColumn('usage_is_complete', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_offline', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('product', 'text')
    .addColumn('received_at', 'text', (c) => c.notNull())
    // A retried batch (the browser resends what it could not confirm) must not count twice.
    .addPrimaryKeyConstraint('usage_events_pk', ['user_id', 'usage_uuid'])
    .execute();
  await db.schema.createIndex('usage_events_title_idx').on('usage_events').columns(['user_id', 'title_id']).execute();
}
