/**
 * The dashboard's daily reading summary (migration 0040, repositories/reading-summary.ts) on both engines: written
 * with the usage events, it equals the aggregation of the raw events (the queries the dashboard ran before, kept
 * here as the reference) day by day, title by title and topic by topic, over three days with a resent event and an
 * offline event that arrives after its day closed (it counts on the day it is received, as the events always did);
 * the dashboard draws those values; and the migration's backfill of stored events gives the same rows.
 */
import { adminDashboardSchema, adminPaths, bookDetailSchema } from '@lectern/core';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as m0040 from '../../src/db/migrations/0040_reading_summary.ts';
import type { Database } from '../../src/db/schema.ts';
import { MINUTES } from '../../src/repositories/reading-minutes.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { epubBook } from '../ingest/helpers.ts';

const PASSWORD = 'a long enough password';
const DAYS = ['2026-03-10', '2026-03-11', '2026-03-12'] as const;

const book = (id: string, title: string, subject: string) =>
  epubBook({
    identifier: `urn:uuid:${id}`,
    title,
    metadata: [`<dc:subject>${subject}</dc:subject>`],
    chapters: [
      { path: 'one.xhtml', label: 'One', body: `<h1>One</h1><p>${'Words of the first chapter. '.repeat(300)}</p>` },
      { path: 'two.xhtml', label: 'Two', body: `<h1>Two</h1><p>${'Words of the second, longer chapter. '.repeat(500)}</p>` },
    ],
  });

type Row = Record<string, string | number>;
const sorted = (rows: Row[]) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' && k !== 'day' ? Number(v) : v]))).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

/** The raw events' aggregation: the dashboard's queries before the summary. */
async function raw(db: Kysely<Database>) {
  const events = sql`usage_events ue inner join chapters c on c.id = ue.chapter_id left join media_files mf on mf.chapter_id = ue.chapter_id`;
  const day = sql`substr(ue.received_at, 1, 10)`;
  const days = await sql<Row>`select ${day} as day, count(distinct ue.user_id) as readers, sum(${MINUTES}) as minutes from ${events} group by ${day}`.execute(db);
  const titles = await sql<Row>`select ${day} as day, ue.title_id, sum(${MINUTES}) as minutes from ${events} group by ${day}, ue.title_id`.execute(db);
  const topics = await sql<Row>`select tt.topic_id, sum(${MINUTES}) as minutes from ${events} inner join title_topics tt on tt.title_id = ue.title_id group by tt.topic_id`.execute(db);
  return { days: sorted(days.rows), titles: sorted(titles.rows), topics: sorted(topics.rows) };
}

async function summary(db: Kysely<Database>) {
  const days = await sql<Row>`select day, readers, minutes from reading_days`.execute(db);
  const titles = await sql<Row>`select day, title_id, minutes from reading_day_titles`.execute(db);
  const topics = await sql<Row>`select tt.topic_id, sum(s.minutes) as minutes from reading_day_titles s inner join title_topics tt on tt.title_id = s.title_id group by tt.topic_id`.execute(db);
  return { days: sorted(days.rows), titles: sorted(titles.rows), topics: sorted(topics.rows) };
}

/** Numbers equal to 9 decimals (the engines add floating minutes in their own order). */
const same = (a: Awaited<ReturnType<typeof raw>>, b: Awaited<ReturnType<typeof raw>>) => {
  const round = (x: Awaited<ReturnType<typeof raw>>) => JSON.parse(JSON.stringify(x, (_k, v: unknown) => (typeof v === 'number' ? Math.round(v * 1e9) / 1e9 : v))) as unknown;
  expect(round(b)).toEqual(round(a));
};

describe.each(ENGINES)('the daily reading summary on %s', (engine) => {
  let t: TestApp;
  let admin: TestClient;
  let ann: TestClient;
  let bob: TestClient;
  let cyd: TestClient;
  const ids = { a: '', b: '' };
  const at = (day: string, time: string) => vi.setSystemTime(new Date(`${day}T${time}Z`));

  const read = async (c: TestClient, bookId: string, chapter: number, start: number, end: number, uuid: string, extra: Record<string, unknown> = {}) => {
    const d = bookDetailSchema.parse((await c.get(`/api/v1/book/${bookId}/`)).json());
    const res = await c.post('/api/v1/usage-event/', {
      events: [{ chapter: d.chapters[chapter]!.url, start_percentage: start, end_percentage: end, client_timestamp: Date.now(), usage_uuid: uuid, ...extra }],
    });
    expect(res.json().accepted, res.body).toEqual([uuid]);
  };
  const dashboard = async (from: string, to: string) => adminDashboardSchema.parse((await admin.get(`${adminPaths.dashboard()}?from=${from}&to=${to}`)).json());

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    at(DAYS[0], '08:00:00');
    t = await startTestApp(engine);
    await t.lectern.services.accounts.createUser({ email: 'root@example.com', password: PASSWORD, role: 'admin' });
    admin = new TestClient(t.lectern.app);
    await admin.login('root@example.com', PASSWORD);
    [ann, bob, cyd] = await signedInSubscribers(t.lectern, ['ann@example.com', 'bob@example.com', 'cyd@example.com']);
    ids.a = (await t.lectern.services.importer.importBytes(book('5e2f0000-0000-4000-8000-00000000000a', 'Apple Lanes', 'Gardens'), 'a.epub')).book_id;
    ids.b = (await t.lectern.services.importer.importBytes(book('5e2f0000-0000-4000-8000-00000000000b', 'Birch Hollow', 'Forests'), 'b.epub')).book_id;
  });
  afterAll(async () => {
    await t.close();
    vi.useRealTimers();
  });

  it('equals the raw events day by day, title by title and topic by topic, and the dashboard draws it', async () => {
    const db = t.lectern.db.kysely;
    // day 1: ann and bob read; bob's batch is resent (the browser did not see the answer): it counts once
    at(DAYS[0], '09:00:00');
    await read(ann, ids.a, 0, 0, 100, 'ann-1');
    await read(ann, ids.a, 1, 0, 40, 'ann-2');
    await read(bob, ids.a, 1, 10, 60, 'bob-1');
    await read(bob, ids.b, 0, 0, 30, 'bob-2');
    await read(bob, ids.b, 0, 0, 30, 'bob-2');
    const first = await dashboard(DAYS[0], DAYS[0]);
    expect(first.days[0]).toMatchObject({ day: DAYS[0], active_readers: 2 });

    // day 2: day 1 is closed (the dashboard keeps its figures); cyd's offline event from day 1 arrives now
    at(DAYS[1], '07:30:00');
    expect((await dashboard(DAYS[0], DAYS[1])).days[0]).toEqual(first.days[0]);
    await read(cyd, ids.b, 1, 0, 80, 'cyd-offline', { is_offline: true, client_timestamp: Date.parse(`${DAYS[0]}T21:00:00Z`) });
    await read(ann, ids.b, 0, 20, 90, 'ann-3');
    // day 3: more of the same titles
    at(DAYS[2], '12:00:00');
    await read(bob, ids.a, 0, 0, 100, 'bob-3');
    await read(bob, ids.a, 0, 0, 50, 'bob-4');

    const reference = await raw(db);
    expect(reference.days.map((d) => [d.day, d.readers])).toEqual([
      [DAYS[0], 2],
      [DAYS[1], 2],
      [DAYS[2], 1],
    ]);
    expect(reference.topics).toHaveLength(2);
    same(reference, await summary(db));

    // the dashboard draws the summary: the closed days it kept and today's, the titles and topics ranked
    const d = await dashboard(DAYS[0], DAYS[2]);
    const round = (n: number) => Math.round(n * 100) / 100;
    expect(d.days.map((x) => [x.day, x.active_readers, x.minutes_read])).toEqual(reference.days.map((x) => [x.day, x.readers, round(Number(x.minutes))]));
    const titleMinutes = new Map<string, number>();
    for (const r of reference.titles) titleMinutes.set(String(r.title_id), (titleMinutes.get(String(r.title_id)) ?? 0) + Number(r.minutes));
    const titleIds = new Map((await db.selectFrom('titles').select(['id', 'book_id']).execute()).map((r) => [r.book_id, String(r.id)]));
    expect(d.top_titles.map((x) => [x.book_id, x.minutes_read])).toEqual(
      [ids.a, ids.b].map((b) => [b, round(titleMinutes.get(titleIds.get(b)!)!)] as [string, number]).sort((x, y) => y[1] - x[1]),
    );
    expect(d.top_titles.find((x) => x.book_id === ids.b)!.readers).toBe(3);
    expect(d.top_topics.map((x) => x.minutes_read).sort()).toEqual(reference.topics.map((x) => round(Number(x.minutes))).sort());

    // the migration's backfill, run again over the stored events, gives the rows the events wrote
    const written = await summary(db);
    for (const table of ['reading_days', 'reading_day_readers', 'reading_day_titles']) await db.schema.dropTable(table).execute();
    await db.schema.dropIndex('audit_log_action_at_idx').execute();
    await m0040.up(db as Kysely<unknown>, engine);
    same(written, await summary(db));
  });
});
