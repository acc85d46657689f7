/**
 * Per calendar month (UTC) and title the minutes read (issue 23; docs/decisions.md "The dashboard: kept closed days,
 * today read from the top"): the first view of a range in a day sums its closed days per title, and a year of
 * day x title rows is millions; whole months are read from here (a month is one row a title read in it), written
 * with the events as reading_day_titles is (repositories/reading-summary.ts) and filled here from it.
 */
import { type Kysely, type RawBuilder, sql } from 'kysely';

export async function up(db: Kysely<unknown>, engine: 'sqlite' | 'postgres'): Promise<void> {
  const compact = <T extends { modifyEnd(m: RawBuilder<unknown>): T }>(t: T): T => (engine === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t);
  await compact(
    db.schema
      .createTable('reading_month_titles')
      .addColumn('month', 'text', (c) => c.notNull())
      .addColumn('title_id', 'integer', (c) => c.notNull().references('titles.id').onDelete('cascade'))
      .addColumn('minutes', 'double precision', (c) => c.notNull())
      .addPrimaryKeyConstraint('reading_month_titles_pk', ['month', 'title_id']),
  ).execute();
  // a title deleted takes its rows (the cascade looks them up by title)
  await db.schema.createIndex('reading_month_titles_title_idx').on('reading_month_titles').columns(['title_id']).execute();
  await sql`insert into reading_month_titles (month, title_id, minutes)
    select substr(day, 1, 7), title_id, sum(minutes) from reading_day_titles group by substr(day, 1, 7), title_id`.execute(db);
  if (engine === 'postgres') await sql`analyze reading_month_titles`.execute(db);
}
