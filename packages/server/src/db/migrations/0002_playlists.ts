/** Playlists (collections) with their items, the per-user change counter behind the list's ETag, and progress. */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('collections_version', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  await db.schema
    .createTable('collections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // Names are unique per user ignoring case, and each user has at most one default playlist (the queue).
  await db.schema.createIndex('collections_user_name_uq').on('collections').expression(sql`user_id, lower(name)`).unique().execute();
  await db.schema.createIndex('collections_user_default_uq').on('collections').column('user_id').unique().where(sql.ref('is_default'), '=', 1).execute();

  await db.schema
    .createTable('collection_items')
    .addColumn('collection_id', 'text', (c) => c.notNull().references('collections.id').onDelete('cascade'))
    .addColumn('api_url', 'text', (c) => c.notNull())
    .addColumn('title_id', 'integer', (c) => c.notNull().references('titles.id').onDelete('cascade'))
    .addColumn('chapter_id', 'integer', (c) => c.references('chapters.id').onDelete('cascade'))
    /** higher is newer: lists show the newest first */
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('added_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('collection_items_pk', ['collection_id', 'api_url'])
    .execute();
  await db.schema.createIndex('collection_items_order_idx').on('collection_items').columns(['collection_id', 'position']).execute();

  await db.schema
    .createTable('chapter_progress')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('chapter_id', 'integer', (c) => c.notNull().references('chapters.id').onDelete('cascade'))
    .addColumn('title_id', 'integer', (c) => c.notNull().references('titles.id').onDelete('cascade'))
    /** furthest position read in the chapter, 0–100 */
    .addColumn('top_percentage', 'real', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('chapter_progress_pk', ['user_id', 'chapter_id'])
    .execute();
  await db.schema.createIndex('chapter_progress_title_idx').on('chapter_progress').columns(['user_id', 'title_id']).execute();
}
