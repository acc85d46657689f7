/**
 * The dashboard's daily reading summary (migration 0040): per UTC day its readers and minutes (reading_days), who
 * read that day (reading_day_readers) and each title's minutes (reading_day_titles). Written here, in the
 * transaction that stores the usage events, from the events that transaction really added (a resent event adds
 * nothing); the dashboard (admin-dashboard.ts) reads it instead of the events. Minutes are those of
 * reading-minutes.ts, taken from the chapter as it is when the event arrives. Per day and topic too
 * (reading_day_topics, 0045), moved when a title's topics change (moveTopics); per month and title
 * (reading_month_titles, 0046).
 */
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.ts';
import { onPostgres } from './conflicts.ts';
import { MINUTES } from './reading-minutes.ts';

const DAY = sql<string>`substr(ue.received_at, 1, 10)`;

export class ReadingSummaryRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Adds these stored events (the keys of usage_events) to the summary. Run it in the events' transaction. */
  async add(events: readonly { user_id: number; usage_uuid: string }[]): Promise<void> {
    const byUser = new Map<number, string[]>();
    for (const e of events) byUser.set(e.user_id, [...(byUser.get(e.user_id) ?? []), e.usage_uuid]);
    for (const [userId, uuids] of byUser) {
      const joins = sql`usage_events ue
        inner join chapters c on c.id = ue.chapter_id
        left join media_files mf on mf.chapter_id = ue.chapter_id`;
      const which = sql`ue.user_id = ${userId} and ue.usage_uuid in (${sql.join(uuids)})`;
      const from = sql`${joins} where ${which}`;
      await sql`insert into reading_day_titles (day, title_id, minutes)
        select ${DAY}, ue.title_id, sum(${MINUTES}) from ${from} group by ${DAY}, ue.title_id
        on conflict (day, title_id) do update set minutes = reading_day_titles.minutes + excluded.minutes`.execute(this.db);
      await sql`insert into reading_month_titles (month, title_id, minutes)
        select substr(ue.received_at, 1, 7), ue.title_id, sum(${MINUTES}) from ${from} group by substr(ue.received_at, 1, 7), ue.title_id
        on conflict (month, title_id) do update set minutes = reading_month_titles.minutes + excluded.minutes`.execute(this.db);
      // a title's minutes count for each of its topics as they are now (moveTopics when they change)
      await sql`insert into reading_day_topics (day, topic_id, minutes)
        select ${DAY}, tt.topic_id, sum(${MINUTES}) from ${joins} inner join title_topics tt on tt.title_id = ue.title_id
        where ${which} group by ${DAY}, tt.topic_id
        on conflict (day, topic_id) do update set minutes = reading_day_topics.minutes + excluded.minutes`.execute(this.db);
      await sql`insert into reading_days (day, readers, minutes)
        select ${DAY}, 0, sum(${MINUTES}) from ${from} group by ${DAY}
        on conflict (day) do update set minutes = reading_days.minutes + excluded.minutes`.execute(this.db);
      // the reader counts once a day: only a first (day, reader) row adds one
      const { rows } = await sql<{ day: string }>`insert into reading_day_readers (day, user_id)
        select distinct ${DAY}, ue.user_id from ${from}
        on conflict (day, user_id) do nothing returning day`.execute(this.db);
      for (const { day } of rows) await this.db.updateTable('reading_days').set({ readers: sql`readers + 1` }).where('day', '=', day).execute();
    }
  }

  /**
   * A title's topics changed from `before` to `after` (topic ids; run it in the transaction that changed them): its
   * minutes of every day leave the topics it lost and join the ones it gained, so that a title's past reading counts
   * for its topics as they are now (as the join of 0040 did). On PostgreSQL the title's row is locked first: a
   * transaction storing its events holds a key-share lock on it (the events' foreign key) until it commits, so this
   * waits for those, and those that come after wait for this one and see its topics.
   */
  async moveTopics(titleId: number, before: readonly number[], after: readonly number[]): Promise<void> {
    const lost = before.filter((id) => !after.includes(id));
    const gained = after.filter((id) => !before.includes(id));
    if (lost.length === 0 && gained.length === 0) return;
    if (onPostgres(this.db)) await sql`select id from titles where id = ${titleId} for update`.execute(this.db);
    for (const [topics, sign] of [[lost, -1], [gained, 1]] as const) {
      for (const topicId of topics) {
        await sql`insert into reading_day_topics (day, topic_id, minutes)
          select day, ${topicId}, ${sign} * minutes from reading_day_titles where title_id = ${titleId}
          on conflict (day, topic_id) do update set minutes = reading_day_topics.minutes + excluded.minutes`.execute(this.db);
      }
    }
  }

  /**
   * The summary made again from every stored event (as migration 0040 fills it): for events written in bulk without
   * `add`, as the benches' generators do.
   */
  async rebuild(): Promise<void> {
    for (const table of ['reading_days', 'reading_day_readers', 'reading_day_titles', 'reading_day_topics', 'reading_month_titles'] as const) await this.db.deleteFrom(table).execute();
    const from = sql`usage_events ue inner join chapters c on c.id = ue.chapter_id left join media_files mf on mf.chapter_id = ue.chapter_id`;
    await sql`insert into reading_day_titles (day, title_id, minutes)
      select ${DAY}, ue.title_id, sum(${MINUTES}) from ${from} group by ${DAY}, ue.title_id`.execute(this.db);
    await sql`insert into reading_day_topics (day, topic_id, minutes)
      select s.day, tt.topic_id, sum(s.minutes) from reading_day_titles s inner join title_topics tt on tt.title_id = s.title_id
      group by s.day, tt.topic_id`.execute(this.db);
    await sql`insert into reading_month_titles (month, title_id, minutes)
      select substr(day, 1, 7), title_id, sum(minutes) from reading_day_titles group by substr(day, 1, 7), title_id`.execute(this.db);
    await sql`insert into reading_day_readers (day, user_id) select distinct ${DAY}, ue.user_id from ${from}`.execute(this.db);
    await sql`insert into reading_days (day, readers, minutes)
      select r.day, r.readers, coalesce(m.minutes, 0)
      from (select day, count(*) as readers from reading_day_readers group by day) r
      left join (select day, sum(minutes) as minutes from reading_day_titles group by day) m on m.day = r.day`.execute(this.db);
  }
}

/** A title's topic ids (before and after a change, for moveTopics). */
export async function topicIdsOf(db: Kysely<Database>, titleId: number): Promise<number[]> {
  const rows = await db.selectFrom('title_topics').select('topic_id').where('title_id', '=', titleId).execute();
  return rows.map((r) => r.topic_id);
}
