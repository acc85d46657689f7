/**
 * Annotations (issue 9): highlights and notes on the Annotator store model. A note names its chapter by path
 * (chapter_href), not by a chapters row, so that a new edition of a book (which may remove chapter rows) keeps
 * every note: one whose chapter is gone is listed as orphaned, never lost. Ranges, W3C selectors, tags, highlights
 * and the four permission lists are JSON text; the read groups are flags and the searchable fields have
 * case-folded copies, so the store's search is one indexed query on both engines.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('annotations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('title_id', 'integer', (c) => c.notNull().references('titles.id').onDelete('cascade'))
    .addColumn('chapter_href', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('user_uuid', 'text', (c) => c.notNull())
    .addColumn('consumer', 'text', (c) => c.notNull())
    .addColumn('uri', 'text', (c) => c.notNull())
    .addColumn('quote', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('ranges', 'text', (c) => c.notNull())
    .addColumn('selectors', 'text', (c) => c.notNull())
    .addColumn('fragment', 'text', (c) => c.notNull())
    .addColumn('sanitized_fragment', 'text', (c) => c.notNull())
    .addColumn('highlights', 'text', (c) => c.notNull())
    .addColumn('perm_read', 'text', (c) => c.notNull())
    .addColumn('perm_update', 'text', (c) => c.notNull())
    .addColumn('perm_delete', 'text', (c) => c.notNull())
    .addColumn('perm_admin', 'text', (c) => c.notNull())
    .addColumn('read_world', 'integer', (c) => c.notNull())
    .addColumn('read_authenticated', 'integer', (c) => c.notNull())
    .addColumn('read_consumer', 'integer', (c) => c.notNull())
    .addColumn('annotation_type', 'text', (c) => c.notNull())
    .addColumn('text_lc', 'text', (c) => c.notNull())
    .addColumn('quote_lc', 'text', (c) => c.notNull())
    .addColumn('tags_lc', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('annotations_chapter_idx').on('annotations').columns(['title_id', 'chapter_href', 'created_at']).execute();
  await db.schema.createIndex('annotations_user_idx').on('annotations').columns(['user_id', 'title_id']).execute();
}
