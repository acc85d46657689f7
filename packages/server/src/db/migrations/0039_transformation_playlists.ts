/**
 * Editors' transformation playlists (issue 24): an editor's own playlist made public under a topic, shown with the
 * topic's banner on the home and the topic's page. The playlist stays the editor's (edited on /c/ as any other);
 * this row only publishes it. Deleting the playlist or the topic unpublishes it.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('transformation_playlists')
    .addColumn('collection_id', 'text', (c) => c.primaryKey().references('collections.id').onDelete('cascade'))
    .addColumn('topic_id', 'integer', (c) => c.notNull().references('topics.id').onDelete('cascade'))
    .addColumn('published_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('transformation_playlists_topic_idx').on('transformation_playlists').columns(['topic_id', 'published_at']).execute();
}
