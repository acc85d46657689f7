/**
 * The operators' console (issue 23): a title's edit version (two operators editing one title at once: the second
 * save names the first instead of overwriting it) and when it was retired (hidden from the catalog's listings,
 * its readers' notes, positions and playlists kept); the searches that found nothing, counted per day and query
 * (folded), for the dashboard; indexes for the dashboard's daily series (reading by received_at, new accounts).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('titles').addColumn('version', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('titles').addColumn('retired_at', 'text').execute();
  await db.schema
    .createTable('search_misses')
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('query', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('search_misses_pk', ['day', 'query'])
    .execute();
  // the dashboard's series read usage by day: received_at leads
  await db.schema.createIndex('usage_events_received_idx').on('usage_events').columns(['received_at']).execute();
  await db.schema.createIndex('users_created_idx').on('users').columns(['created_at']).execute();
}
