/**
 * The console at 100,000 titles and a year of reading (issue 23's bench, docs/performance.md "The operators'
 * console at 100,000 titles"): a title's readers read chapter progress and usage events by title, which no index
 * led with (both had the reader first: every title's page scanned the tables whole); the dashboard's reading
 * series reads every event of its range for the reader, chapter, title and share read, so its index by time now
 * holds those columns too (covering: the range is read from the index alone, not from rows spread over the table),
 * and replaces 0031's index by time alone. The console's title search reads a range of the sort key (as the
 * suggestions do): on PostgreSQL in the C collation, for every title (0018's index holds only those leading their work).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>, engine: 'sqlite' | 'postgres'): Promise<void> {
  await db.schema.createIndex('chapter_progress_title_only_idx').on('chapter_progress').columns(['title_id', 'user_id']).execute();
  await db.schema.createIndex('usage_events_title_received_idx').on('usage_events').columns(['title_id', 'received_at']).execute();
  await db.schema
    .createIndex('usage_events_received_cover_idx')
    .on('usage_events')
    .columns(['received_at', 'user_id', 'chapter_id', 'title_id', 'start_percentage', 'end_percentage'])
    .execute();
  await db.schema.dropIndex('usage_events_received_idx').execute();
  if (engine === 'postgres') await sql`create index titles_sort_title_all_c_idx on titles (sort_title collate "C", id)`.execute(db);
}
