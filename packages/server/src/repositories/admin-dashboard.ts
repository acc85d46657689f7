/**
 * The console's dashboard and health figures (docs/decisions.md "Operators' console: the server side"), from
 * first-party data only: reading (the daily summary of usage events, reading-summary.ts: minutes as the share read of
 * each chapter's length), accounts and their history, titles, searches that found nothing (search_misses), the
 * database's own size. Days are the UTC dates of the stored ISO times.
 */
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../db/schema.ts';

/** The day (YYYY-MM-DD) of a range's bound: the ranges here start and end at the starts of UTC days. */
const dayOf = (instant: string) => instant.slice(0, 10);

const nextMonth = (month: string) => {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, '0')}`;
};
const daysBetween = (a: string, b: string) => Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);

/**
 * The days [from, to) (YYYY-MM-DD) as rows (title_id, minutes) of the summary to add up: a month wholly inside is
 * its month row; a month partly inside is its days' rows, or, when it is mostly inside, its month row and the
 * rows of its days outside with their minutes negated.
 */
function monthParts(from: string, to: string): RawBuilder<unknown>[] {
  const parts: RawBuilder<unknown>[] = [];
  const days = (a: string, b: string, sign: '' | '-') => sql`select title_id, ${sql.raw(sign)}minutes as minutes from reading_day_titles where day >= ${a} and day < ${b}`;
  for (let month = from.slice(0, 7); `${month}-01` < to; month = nextMonth(month)) {
    const first = `${month}-01`;
    const after = `${nextMonth(month)}-01`;
    const a = from > first ? from : first;
    const b = to < after ? to : after;
    if (a >= b) continue;
    const whole = sql`select title_id, minutes from reading_month_titles where month = ${month}`;
    if (a === first && b === after) parts.push(whole);
    else if (daysBetween(a, b) <= daysBetween(first, after) - daysBetween(a, b)) parts.push(days(a, b, ''));
    else {
      parts.push(whole);
      if (first < a) parts.push(days(first, a, '-'));
      if (b < after) parts.push(days(b, after, '-'));
    }
  }
  return parts;
}

export interface DayCount {
  day: string;
  n: number;
}

export class AdminDashboardRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: 'sqlite' | 'postgres',
  ) {}

  private usage(start: string, end: string) {
    return this.db
      .selectFrom('usage_events as ue')
      .innerJoin('chapters as c', 'c.id', 'ue.chapter_id')
      .leftJoin('media_files as mf', 'mf.chapter_id', 'ue.chapter_id')
      .where('ue.received_at', '>=', start)
      .where('ue.received_at', '<', end);
  }

  /** Each day's distinct readers and minutes (the daily summary: a row a day). */
  async readingByDay(start: string, end: string): Promise<{ day: string; readers: number; minutes: number }[]> {
    const rows = await this.db
      .selectFrom('reading_days')
      .select(['day', 'readers', 'minutes'])
      .where('day', '>=', dayOf(start))
      .where('day', '<', dayOf(end))
      .execute();
    return rows.map((r) => ({ day: r.day, readers: Number(r.readers), minutes: Number(r.minutes) || 0 }));
  }

  async newAccountsByDay(start: string, end: string): Promise<DayCount[]> {
    const rows = await this.db
      .selectFrom('users')
      .select([sql<string>`substr(created_at, 1, 10)`.as('day'), sql<number>`count(*)`.as('n')])
      .where('created_at', '>=', start)
      .where('created_at', '<', end)
      .groupBy(sql`substr(created_at, 1, 10)`)
      .execute();
    return rows.map((r) => ({ day: r.day, n: Number(r.n) }));
  }

  /** A trial that became a subscription (account_history's transitions). */
  async conversionsByDay(start: string, end: string): Promise<DayCount[]> {
    const rows = await this.db
      .selectFrom('account_history')
      .select([sql<string>`substr(at, 1, 10)`.as('day'), sql<number>`count(*)`.as('n')])
      .where('at', '>=', start)
      .where('at', '<', end)
      .where('from_status', '=', 'trial')
      .where('to_status', '=', 'subscriber')
      .groupBy(sql`substr(at, 1, 10)`)
      .execute();
    return rows.map((r) => ({ day: r.day, n: Number(r.n) }));
  }

  /** Titles that came in (from the console, the API or the command line). */
  async importsByDay(start: string, end: string): Promise<DayCount[]> {
    const rows = await this.db
      .selectFrom('titles')
      .select([sql<string>`substr(created_at, 1, 10)`.as('day'), sql<number>`count(*)`.as('n')])
      .where('created_at', '>=', start)
      .where('created_at', '<', end)
      .groupBy(sql`substr(created_at, 1, 10)`)
      .execute();
    return rows.map((r) => ({ day: r.day, n: Number(r.n) }));
  }

  /**
   * Minutes read per title over the range, with the book id that breaks ties (every title read: the service ranks
   * them; it keeps this for the closed days). Whole months are read from reading_month_titles (0046), the other days
   * from the day rows; a month the range covers mostly is its row less the days outside the range (fewer rows).
   */
  async minutesByTitle(start: string, end: string): Promise<{ id: number; key: string; minutes: number }[]> {
    const parts = monthParts(dayOf(start), dayOf(end));
    if (parts.length === 0) return [];
    const { rows } = await sql<{ id: number; book_id: string; minutes: number }>`select t.id, t.book_id, s.minutes
      from (select title_id, sum(minutes) as minutes from (${sql.join(parts, sql` union all `)}) u group by title_id) s
      inner join titles t on t.id = s.title_id`.execute(this.db);
    return rows.map((r) => ({ id: r.id, key: r.book_id, minutes: Number(r.minutes) || 0 }));
  }

  /** Minutes read per topic id over the range (the summary by topic, 0045), without the join to topics. */
  private byTopic(start: string, end: string) {
    return this.db
      .selectFrom('reading_day_topics')
      .select(['topic_id', sql<number>`sum(minutes)`.as('minutes')])
      .where('day', '>=', dayOf(start))
      .where('day', '<', dayOf(end))
      .groupBy('topic_id');
  }

  /** Minutes read per topic over the range (a title's minutes count for its topics as they are now), with the slug that breaks ties. */
  async minutesByTopic(start: string, end: string): Promise<{ id: number; key: string; minutes: number }[]> {
    const rows = await this.db
      .selectFrom(this.byTopic(start, end).as('s'))
      .innerJoin('topics as tp', 'tp.id', 's.topic_id')
      .select(['tp.id', 'tp.slug', 's.minutes'])
      .execute();
    return rows.map((r) => ({ id: r.id, key: r.slug, minutes: Number(r.minutes) || 0 }));
  }

  /** Minutes read per title id over the range, from the summary alone (no key: see the service's topOf). */
  async minutesByTitleId(start: string, end: string): Promise<{ id: number; key: string; minutes: number }[]> {
    const rows = await this.db
      .selectFrom('reading_day_titles')
      .select(['title_id', sql<number>`sum(minutes)`.as('minutes')])
      .where('day', '>=', dayOf(start))
      .where('day', '<', dayOf(end))
      .groupBy('title_id')
      .execute();
    return rows.map((r) => ({ id: r.title_id, key: '', minutes: Number(r.minutes) || 0 }));
  }

  /** Minutes read per topic id over the range (no key: see the service's topOf). */
  async minutesByTopicId(start: string, end: string): Promise<{ id: number; key: string; minutes: number }[]> {
    const rows = await this.byTopic(start, end).execute();
    return rows.map((r) => ({ id: r.topic_id, key: '', minutes: Number(r.minutes) || 0 }));
  }

  /** One day's minutes of these titles (a title not read that day is absent). */
  async titleMinutesOn(day: string, titleIds: number[]): Promise<Map<number, number>> {
    if (titleIds.length === 0) return new Map();
    const rows = await this.db.selectFrom('reading_day_titles').select(['title_id', 'minutes']).where('day', '=', day).where('title_id', 'in', titleIds).execute();
    return new Map(rows.map((r) => [r.title_id, Number(r.minutes) || 0]));
  }

  /** One day's titles from the most read down (the index of 0045), `limit` of them after the first `offset`. */
  async titlesOnByMinutes(day: string, limit: number, offset: number): Promise<{ id: number; minutes: number }[]> {
    const rows = await this.db
      .selectFrom('reading_day_titles')
      .select(['title_id', 'minutes'])
      .where('day', '=', day)
      .orderBy('minutes', 'desc')
      .orderBy('title_id')
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map((r) => ({ id: r.title_id, minutes: Number(r.minutes) || 0 }));
  }

  /** The book ids of these titles. */
  titleKeys(ids: number[]): Promise<Map<number, string>> {
    return this.columnOf('titles', 'book_id', ids);
  }

  /** The slugs of these topics. */
  topicKeys(ids: number[]): Promise<Map<number, string>> {
    return this.columnOf('topics', 'slug', ids);
  }

  /** Who read each of these titles over the range (events of chapters that exist, as the minutes count them). */
  async readersOf(titleIds: number[], start: string, end: string): Promise<Map<number, Set<number>>> {
    const result = new Map<number, Set<number>>(titleIds.map((id) => [id, new Set<number>()]));
    if (titleIds.length === 0) return result;
    const rows = await this.usage(start, end).where('ue.title_id', 'in', titleIds).select(['ue.title_id', 'ue.user_id']).distinct().execute();
    for (const r of rows) result.get(r.title_id)?.add(r.user_id);
    return result;
  }

  titleNames(ids: number[]): Promise<Map<number, string>> {
    return this.columnOf('titles', 'title', ids);
  }

  topicNames(ids: number[]): Promise<Map<number, string>> {
    return this.columnOf('topics', 'name', ids);
  }

  /** One text column of these rows by id: the keys and names the rankings show (no query for no ids). */
  private async columnOf(table: 'titles' | 'topics', column: 'book_id' | 'title' | 'slug' | 'name', ids: number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.selectFrom(table).select(['id', sql.ref<string>(column).as('value')]).where('id', 'in', ids).execute();
    return new Map(rows.map((r) => [r.id, r.value]));
  }

  /** Every query that found nothing over the days from `startDay` to `endDay` (both included), with its count. */
  async searchMisses(startDay: string, endDay: string): Promise<{ query: string; count: number }[]> {
    const rows = await this.db
      .selectFrom('search_misses')
      .select(['query', sql<number>`sum(count)`.as('n')])
      .where('day', '>=', startDay)
      .where('day', '<=', endDay)
      .groupBy('query')
      .execute();
    return rows.map((r) => ({ query: r.query, count: Number(r.n) }));
  }

  /**
   * Counts one search that found nothing: a query already counted that day goes up by one; a new one is a row only
   * while the day has fewer than `cap` (anyone can search: the table must not grow with what they type).
   */
  async recordMiss(day: string, query: string, cap: number): Promise<void> {
    const res = await this.db.updateTable('search_misses').set({ count: sql`count + 1` }).where('day', '=', day).where('query', '=', query).executeTakeFirst();
    if (Number(res.numUpdatedRows) > 0) return;
    // the same query from two visitors at once: the second meets the first's row
    await sql`insert into search_misses (day, query, count)
      select ${day}, ${query}, 1 where (select count(*) from search_misses where day = ${day}) < ${cap}
      on conflict (day, query) do update set count = search_misses.count + 1`.execute(this.db);
  }

  /** Deletes the empty searches of the days before `day` (YYYY-MM-DD); answers how many rows went. */
  async deleteMissesBefore(day: string): Promise<number> {
    const res = await this.db.deleteFrom('search_misses').where('day', '<', day).executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  async titleCount(): Promise<number> {
    const row = await this.db.selectFrom('titles').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The database's size in bytes as the engine counts it. */
  async databaseBytes(): Promise<number | null> {
    if (this.engine === 'postgres') {
      const { rows } = await sql<{ n: string }>`select pg_database_size(current_database()) as n`.execute(this.db);
      return rows[0] ? Number(rows[0].n) : null;
    }
    const { rows } = await sql<{ n: number }>`select page_count * page_size as n from pragma_page_count(), pragma_page_size()`.execute(this.db);
    return rows[0] ? Number(rows[0].n) : null;
  }
}
