/**
 * The dashboard is exact (docs/decisions.md "The dashboard: kept closed days, today read from the top"): on both
 * engines, for ranges crossing months, ending before today, holding only today and ending after it, what the service
 * answers (the closed days kept, today's titles read from the most read down, topics and empty searches from their
 * day rows) equals the same figures aggregated from the raw usage events and search rows in SQL: each day's readers
 * and minutes, the 10 most read titles with their readers, the 10 most read topics, the 20 most frequent empty
 * searches. With a late offline event (counted on the day it arrives) and after a title's topics change.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLibrary } from '../../../../bench/generate-library.ts';
import { AdminDashboardRepository } from '../../src/repositories/admin-dashboard.ts';
import { ProgressRepository } from '../../src/repositories/progress.ts';
import { MINUTES } from '../../src/repositories/reading-minutes.ts';
import { ReadingSummaryRepository, topicIdsOf } from '../../src/repositories/reading-summary.ts';
import { AdminDashboardService, JobRuns, RecentErrors } from '../../src/services/admin-dashboard.ts';
import { dayRange } from '../../src/services/admin-range.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';

const TITLES = 150;
const NOW = new Date('2030-03-02T12:00:00Z');
const round = (n: number) => Math.round(n * 100) / 100;
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe.each(ENGINES)('the dashboard against the raw events, on %s', (engine) => {
  let t: TestApp;
  let n = 0;
  // a small deterministic generator (LCG)
  let seed = 42;
  const rand = (m: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % m;
  };
  const service = () => {
    const db = t.lectern.db;
    const health = { version: 'test', engine, contentRoot: t.dataDir, importQueue: () => ({ running: 0, waiting: 0 }), errors: new RecentErrors(), jobs: new JobRuns(), lastRunsAnywhere: () => t.lectern.services.scheduled.lastRuns() };
    return new AdminDashboardService(new AdminDashboardRepository(db.kysely, db.engine), t.lectern.services.admin.audit, health, () => NOW);
  };

  /** The figures of a range from the raw rows. */
  const raw = async (from: string, to: string) => {
    const k = t.lectern.db.kysely;
    const { start, end, days } = dayRange(from, to, NOW);
    const events = sql`usage_events ue inner join chapters c on c.id = ue.chapter_id left join media_files mf on mf.chapter_id = ue.chapter_id
      where ue.received_at >= ${start} and ue.received_at < ${end}`;
    const byDay = (await sql<{ day: string; readers: number; minutes: number }>`select substr(ue.received_at, 1, 10) as day, count(distinct ue.user_id) as readers, sum(${MINUTES}) as minutes
      from ${events} group by substr(ue.received_at, 1, 10)`.execute(k)).rows;
    const titles = (await sql<{ book_id: string; minutes: number; readers: number }>`select t.book_id, sum(${MINUTES}) as minutes, count(distinct ue.user_id) as readers
      from usage_events ue inner join chapters c on c.id = ue.chapter_id left join media_files mf on mf.chapter_id = ue.chapter_id inner join titles t on t.id = ue.title_id
      where ue.received_at >= ${start} and ue.received_at < ${end} group by t.book_id`.execute(k)).rows;
    const topics = (await sql<{ slug: string; minutes: number }>`select tp.slug, sum(${MINUTES}) as minutes
      from usage_events ue inner join chapters c on c.id = ue.chapter_id left join media_files mf on mf.chapter_id = ue.chapter_id
      inner join title_topics tt on tt.title_id = ue.title_id inner join topics tp on tp.id = tt.topic_id
      where ue.received_at >= ${start} and ue.received_at < ${end} group by tp.slug`.execute(k)).rows;
    const misses = (await sql<{ query: string; n: number }>`select query, sum(count) as n from search_misses where day >= ${days[0]} and day <= ${days[days.length - 1]} group by query`.execute(k)).rows;
    const d = new Map(byDay.map((r) => [r.day, r]));
    return {
      days: days.map((day) => ({ day, active_readers: Number(d.get(day)?.readers ?? 0), minutes_read: round(Number(d.get(day)?.minutes ?? 0)) })),
      top_titles: titles
        .map((r) => ({ book_id: r.book_id, minutes: Number(r.minutes), readers: Number(r.readers) }))
        .sort((a, b) => b.minutes - a.minutes || cmp(a.book_id, b.book_id))
        .slice(0, 10)
        .map((r) => ({ book_id: r.book_id, minutes_read: round(r.minutes), readers: r.readers })),
      top_topics: topics
        .map((r) => ({ slug: r.slug, minutes: Number(r.minutes) }))
        .sort((a, b) => b.minutes - a.minutes || cmp(a.slug, b.slug))
        .slice(0, 10)
        .map((r) => ({ slug: r.slug, minutes_read: round(r.minutes) })),
      empty_searches: misses
        .map((r) => ({ query: r.query, count: Number(r.n) }))
        .sort((a, b) => b.count - a.count || cmp(a.query, b.query))
        .slice(0, 20),
    };
  };
  const served = async (s: AdminDashboardService, from: string, to: string) => {
    const d = await s.dashboard({ from, to });
    return {
      days: d.days.map((x) => ({ day: x.day, active_readers: x.active_readers, minutes_read: x.minutes_read })),
      top_titles: d.top_titles.map((x) => ({ book_id: x.book_id, minutes_read: x.minutes_read, readers: x.readers })),
      top_topics: d.top_topics.map((x) => ({ slug: x.slug, minutes_read: x.minutes_read })),
      empty_searches: d.empty_searches,
    };
  };

  beforeAll(async () => {
    t = await startTestApp(engine);
    await generateLibrary(t.lectern.db, { titles: TITLES, users: 30, topics: 12, publishers: 3, searchIndex: false });
    const progress = new ProgressRepository(t.lectern.db.kysely);
    // 60 days up to NOW: each day 20 short reads (a few percent of a chapter) of titles drawn evenly, sent in
    // batches of mixed readers: the daily series, readers and many small rows
    for (let d = 59; d >= 0; d--) {
      const dayStart = Date.parse('2030-03-02T00:00:00Z') - d * 86_400_000;
      const events = Array.from({ length: 20 }, () => {
        const title = 1 + rand(TITLES);
        const at = new Date(dayStart + rand(d === 0 ? 11 * 3600 : 86_400) * 1000).toISOString();
        const start = rand(60);
        return { user_id: 1 + rand(30), usage_uuid: `exact-${n++}`, chapter_id: (title - 1) * 5 + 1 + rand(5), title_id: title, start_percentage: start, end_percentage: start + rand(3), client_timestamp: at, usage_is_complete: 1 as const, is_offline: 0 as const, product: null, received_at: at };
      });
      for (let i = 0; i < events.length; i += 7) await progress.recordEvents(events.slice(i, i + 7));
    }
    // Title i's first chapter: i/150 of it read on 15 February, the rest today. Every total is one chapter, so the
    // most read are those with the longest first chapter, wherever they rank in the closed days (title i's rank
    // there rises with i) or today (falls with i): the top is found only by reading today's rows past the first
    // batch and the closed titles past the first few (topTitles).
    const split = (day: string, today: boolean) =>
      Array.from({ length: TITLES }, (_, i) => {
        const part = Math.floor(((i + 1) * 100) / TITLES);
        const at = `${day}T${String(1 + rand(10)).padStart(2, '0')}:00:00.000Z`;
        return { user_id: 1 + rand(30), usage_uuid: `exact-${n++}`, chapter_id: i * 5 + 1, title_id: i + 1, start_percentage: 0, end_percentage: today ? 100 - part : part, client_timestamp: at, usage_is_complete: 1 as const, is_offline: 0 as const, product: null, received_at: at };
      });
    for (const [day, today] of [['2030-02-15', false], ['2030-03-02', true]] as const) {
      const events = split(day, today);
      for (let i = 0; i < events.length; i += 13) await progress.recordEvents(events.slice(i, i + 13));
    }
    // a late offline event: read in January, sent today; it counts on the day the server received it
    await progress.recordEvents([
      { user_id: 7, usage_uuid: `exact-${n++}`, chapter_id: (TITLES - 1) * 5 + 1, title_id: TITLES, start_percentage: 0, end_percentage: 100, client_timestamp: '2030-01-05T10:00:00.000Z', usage_is_complete: 1, is_offline: 1, product: null, received_at: '2030-03-02T11:00:00.000Z' },
    ]);
    // empty searches over the days, today's included, some queries on many days
    const k = t.lectern.db.kysely;
    for (let d = 59; d >= 0; d--) {
      const day = new Date(Date.parse('2030-03-02T00:00:00Z') - d * 86_400_000).toISOString().slice(0, 10);
      const queries = new Set(Array.from({ length: 12 }, () => `missing ${rand(40)}`));
      for (const query of queries) await k.insertInto('search_misses').values({ day, query, count: 1 + rand(5) }).execute();
    }
  }, 120_000);
  afterAll(() => t?.close());

  const RANGES: [string, string, string][] = [
    ['30 days up to today, across a month', '2030-02-01', '2030-03-02'],
    ['a year up to today', '2029-03-03', '2030-03-02'],
    ['the days before today only', '2030-01-20', '2030-02-27'],
    ['today only', '2030-03-02', '2030-03-02'],
    ['a range ending after today', '2030-02-20', '2030-03-05'],
  ];

  it.each(RANGES)('%s: as the raw events', async (_what, from, to) => {
    const s = service();
    const expected = await raw(from, to);
    // the first request reads and keeps the closed days, the second uses them
    expect(await served(s, from, to)).toEqual(expected);
    expect(await served(s, from, to)).toEqual(expected);
  });

  it('reads deeper into today when the top is close: many titles read today', async () => {
    const s = service();
    const today = await served(s, '2030-03-02', '2030-03-02');
    // the late offline event's title, read in full today, is counted today
    const late = (await t.lectern.db.kysely.selectFrom('titles').select('book_id').where('id', '=', TITLES).executeTakeFirstOrThrow()).book_id;
    expect(today.top_titles.map((x) => x.book_id)).toContain(late);
    expect(await served(s, '2030-03-02', '2030-03-02')).toEqual(await raw('2030-03-02', '2030-03-02'));
  });

  it('follows a title’s topics when they change, past days included', async () => {
    const k = t.lectern.db.kysely;
    const top = (await raw('2030-02-01', '2030-03-02')).top_titles[0]!.book_id;
    const id = (await k.selectFrom('titles').select('id').where('book_id', '=', top).executeTakeFirstOrThrow()).id;
    const other = (await k.selectFrom('topics').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow()).id;
    const before = await raw('2030-02-01', '2030-03-02');
    await k.transaction().execute(async (trx) => {
      const had = await topicIdsOf(trx, id);
      await trx.deleteFrom('title_topics').where('title_id', '=', id).execute();
      await trx.insertInto('title_topics').values({ title_id: id, topic_id: other }).execute();
      await new ReadingSummaryRepository(trx).moveTopics(id, had, [other]);
    });
    const after = await raw('2030-02-01', '2030-03-02');
    expect(after.top_topics).not.toEqual(before.top_topics);
    for (const [, from, to] of RANGES) expect(await served(service(), from, to)).toEqual(await raw(from, to));
  });
});
