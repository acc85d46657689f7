/**
 * The dashboard's request at 100,000 titles and a year of reading (issue 23; docs/decisions.md "The dashboard: kept
 * closed days, today read from the top"): what a request reads besides the kept closed days must be small.
 * - reading_day_topics: per UTC day and topic the minutes read, written with the events as reading_day_titles is
 *   (repositories/reading-summary.ts) and moved when a title's topics change, so that a day's topics are ~200 rows
 *   instead of a day's thousands of title rows joined to their topics; filled here from reading_day_titles and
 *   today's title_topics (0040 joined topics when the dashboard read).
 * - reading_day_titles by (day, minutes desc): today's titles read from the most read down, stopping once no
 *   title further down can enter the top (services/admin-dashboard.ts topTitles).
 * - account_history by time: the day's trial conversions without reading the whole history.
 */
import { type Kysely, type RawBuilder, sql } from 'kysely';

export async function up(db: Kysely<unknown>, engine: 'sqlite' | 'postgres'): Promise<void> {
  // SQLite: without rowid, the primary key's b-tree holds the row (as 0040's tables)
  const compact = <T extends { modifyEnd(m: RawBuilder<unknown>): T }>(t: T): T => (engine === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t);
  await compact(
    db.schema
      .createTable('reading_day_topics')
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('topic_id', 'integer', (c) => c.notNull().references('topics.id').onDelete('cascade'))
      .addColumn('minutes', 'double precision', (c) => c.notNull())
      .addPrimaryKeyConstraint('reading_day_topics_pk', ['day', 'topic_id']),
  ).execute();
  // a topic deleted takes its rows (the cascade looks them up by topic)
  await db.schema.createIndex('reading_day_topics_topic_idx').on('reading_day_topics').columns(['topic_id']).execute();
  await sql`insert into reading_day_topics (day, topic_id, minutes)
    select s.day, tt.topic_id, sum(s.minutes) from reading_day_titles s inner join title_topics tt on tt.title_id = s.title_id
    group by s.day, tt.topic_id`.execute(db);
  await sql`create index reading_day_titles_minutes_idx on reading_day_titles (day, minutes desc, title_id)`.execute(db);
  await db.schema.createIndex('account_history_at_idx').on('account_history').columns(['at']).execute();
  if (engine === 'postgres') for (const t of ['reading_day_topics', 'reading_day_titles', 'account_history']) await sql`analyze ${sql.table(t)}`.execute(db);
}
