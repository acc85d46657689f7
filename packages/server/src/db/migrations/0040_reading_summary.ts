/**
 * The dashboard's daily reading summary (issue 23; docs/performance.md "The operators' console at 100,000 titles"):
 * a year of usage events is millions of rows, and the dashboard read them all (joined to their chapters) for every
 * range. The summary holds what its charts draw, written in the transaction that stores the events
 * (repositories/reading-summary.ts) and filled here from the events already stored:
 * - reading_days: per UTC day (of received_at) its distinct readers and minutes read (the daily series: a year is
 *   365 rows);
 * - reading_day_readers: who read on a day (so that a reader's second event of the day does not count twice);
 * - reading_day_titles: per day and title the minutes read (the most read titles and, through title_topics at
 *   read time, topics).
 * Minutes are each event's share read of its chapter's length as it was when the event arrived (the expression of
 * repositories/reading-minutes.ts, copied: a migration stays as it was written). Also the imports' audit entries
 * by action and time, so that the dashboard's range is one range read per action.
 */
import { type Kysely, type RawBuilder, sql } from 'kysely';

const MINUTES = sql`(case when ue.end_percentage > ue.start_percentage then ue.end_percentage - ue.start_percentage else 0 end) / 100.0 *
  coalesce(mf.duration_ms / 60000.0, c.text_length / 1500.0)`;

export async function up(db: Kysely<unknown>, engine: 'sqlite' | 'postgres'): Promise<void> {
  // SQLite: without rowid, the primary key's b-tree holds the row, so a range of days is read from it alone
  const compact = <T extends { modifyEnd(m: RawBuilder<unknown>): T }>(t: T): T => (engine === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t);
  await compact(
    db.schema
      .createTable('reading_days')
      .addColumn('day', 'text', (c) => c.primaryKey())
      .addColumn('readers', 'integer', (c) => c.notNull())
      .addColumn('minutes', 'double precision', (c) => c.notNull()),
  ).execute();
  await compact(
    db.schema
      .createTable('reading_day_readers')
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('reading_day_readers_pk', ['day', 'user_id']),
  ).execute();
  await compact(
    db.schema
      .createTable('reading_day_titles')
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('title_id', 'integer', (c) => c.notNull().references('titles.id').onDelete('cascade'))
      .addColumn('minutes', 'double precision', (c) => c.notNull())
      .addPrimaryKeyConstraint('reading_day_titles_pk', ['day', 'title_id']),
  ).execute();
  // a title deleted takes its rows (the cascade looks them up by title)
  await db.schema.createIndex('reading_day_titles_title_idx').on('reading_day_titles').columns(['title_id']).execute();
  if (engine === 'postgres') await sql`create index reading_day_titles_cover_idx on reading_day_titles (day) include (title_id, minutes)`.execute(db);

  const day = sql`substr(ue.received_at, 1, 10)`;
  const events = sql`usage_events ue inner join chapters c on c.id = ue.chapter_id left join media_files mf on mf.chapter_id = ue.chapter_id`;
  await sql`insert into reading_day_titles (day, title_id, minutes)
    select ${day}, ue.title_id, sum(${MINUTES}) from ${events} group by ${day}, ue.title_id`.execute(db);
  await sql`insert into reading_day_readers (day, user_id)
    select distinct ${day}, ue.user_id from ${events}`.execute(db);
  await sql`insert into reading_days (day, readers, minutes)
    select r.day, r.readers, coalesce(m.minutes, 0)
    from (select day, count(*) as readers from reading_day_readers group by day) r
    left join (select day, sum(minutes) as minutes from reading_day_titles group by day) m on m.day = r.day`.execute(db);

  await db.schema.createIndex('audit_log_action_at_idx').on('audit_log').columns(['action', 'at', 'id']).execute();
  if (engine === 'postgres') for (const t of ['reading_days', 'reading_day_readers', 'reading_day_titles']) await sql`analyze ${sql.table(t)}`.execute(db);
}
