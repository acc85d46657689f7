/**
 * The dashboard's closed days kept (services/admin-dashboard.ts): on both engines, a range read in two parts (the
 * days before today, kept until the day turns, and today, read at each request) answers exactly what the same range
 * read whole answers (a service whose today is after the range), as today's reading grows, when the day turns, and
 * after a title's topics change (forgetReading). Titles, chapters, topics and readers from the scale bench's
 * generator (3 titles), usage events written here at chosen times through the repository that stores a reader's
 * (so the daily summary the dashboard reads is kept with them).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLibrary } from '../../../../bench/generate-library.ts';
import { AdminDashboardRepository } from '../../src/repositories/admin-dashboard.ts';
import { ProgressRepository } from '../../src/repositories/progress.ts';
import { ReadingSummaryRepository, topicIdsOf } from '../../src/repositories/reading-summary.ts';
import { AdminDashboardService, JobRuns, RecentErrors } from '../../src/services/admin-dashboard.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';

describe.each(ENGINES)('the dashboard with its closed days kept, on %s', (engine) => {
  let t: TestApp;
  let n = 0;
  const range = { from: '2030-03-01', to: '2030-03-10' };
  const service = (now: () => Date) => {
    const db = t.lectern.db;
    const health = { version: 'test', engine, contentRoot: t.dataDir, importQueue: () => ({ running: 0, waiting: 0 }), errors: new RecentErrors(), jobs: new JobRuns(), lastRunsAnywhere: () => t.lectern.services.scheduled.lastRuns() };
    return new AdminDashboardService(new AdminDashboardRepository(db.kysely, db.engine), t.lectern.services.admin.audit, health, now);
  };
  /** the range read whole: a service whose today is long after it */
  const whole = () => service(() => new Date('2031-01-01T00:00:00Z')).dashboard(range);
  /** a usage event of reader `user` in title `title`'s first chapter (5 chapters a title), `pct` of it, at `at` */
  const read = (user: number, title: number, pct: number, at: string) =>
    // as the reader's events are stored: with the dashboard's daily summary (reading-summary.ts)
    new ProgressRepository(t.lectern.db.kysely).recordEvents([
      { user_id: user, usage_uuid: `closed-days-${n++}`, chapter_id: (title - 1) * 5 + 1, title_id: title, start_percentage: 0, end_percentage: pct, client_timestamp: at, usage_is_complete: 1, is_offline: 0, product: null, received_at: at },
    ]);

  beforeAll(async () => {
    t = await startTestApp(engine);
    await generateLibrary(t.lectern.db, { titles: 3, users: 3, topics: 3, publishers: 2, searchIndex: false });
    // the generator's own reading is dated by the real clock, far from 2030
    await read(1, 1, 30, '2030-03-02T10:00:00.000Z');
    await read(2, 2, 80, '2030-03-05T10:00:00.000Z');
    await read(3, 2, 20, '2030-03-05T11:00:00.000Z');
    await read(1, 3, 50, '2030-03-10T09:00:00.000Z');
  }, 60_000);
  afterAll(() => t?.close());

  it('answers as the range read whole, today growing, the day turning and topics changing', async () => {
    let now = new Date('2030-03-10T12:00:00Z');
    const kept = service(() => now);
    const first = await kept.dashboard(range);
    expect(first).toEqual(await whole());
    expect(first.top_titles.map((x) => x.book_id)).toEqual(['gen-0000002', 'gen-0000003', 'gen-0000001']);
    expect(first.days.find((d) => d.day === '2030-03-10')).toMatchObject({ active_readers: 1 });

    // today's reading moves title 1 (closed days 30 %) above title 3, which only today's reading counts
    await read(2, 1, 100, '2030-03-10T12:30:00.000Z');
    await read(3, 1, 100, '2030-03-10T12:40:00.000Z');
    now = new Date('2030-03-10T13:00:00Z');
    const later = await kept.dashboard(range);
    expect(later).toEqual(await whole());
    expect(later.top_titles.map((x) => [x.book_id, x.readers])).toEqual([
      ['gen-0000001', 3],
      ['gen-0000002', 2],
      ['gen-0000003', 1],
    ]);
    expect(later.days.find((d) => d.day === '2030-03-10')).toMatchObject({ active_readers: 3 });

    // the next day: 10 March is closed now, read once more
    now = new Date('2030-03-11T08:00:00Z');
    expect(await kept.dashboard(range)).toEqual(await whole());

    // a title's topics changed, as the repositories change them: the day summary's topic rows move with them
    // (reading-summary.ts moveTopics); the console's edit also forgets the kept reading
    await t.lectern.db.kysely.transaction().execute(async (trx) => {
      const before = await topicIdsOf(trx, 2);
      await trx.deleteFrom('title_topics').where('title_id', '=', 2).execute();
      await sql`insert into title_topics (title_id, topic_id) values (2, 3)`.execute(trx);
      await new ReadingSummaryRepository(trx).moveTopics(2, before, [3]);
    });
    // kept, the past minutes still count for the old topic; forgotten, they count for the new one
    expect((await kept.dashboard(range)).top_topics).not.toEqual((await whole()).top_topics);
    kept.forgetReading();
    expect(await kept.dashboard(range)).toEqual(await whole());
  });
});
