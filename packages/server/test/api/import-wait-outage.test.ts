/**
 * The upload's wait through a database outage (services/import-jobs.ts `outcome`, WAIT_UNREACHABLE_MS;
 * docs/decisions.md "An import the database or the store failed is not the file's fault"): while the database does
 * not answer, a waiting upload keeps asking, and answers its outcome once the database is back; only after 30 s
 * without an answer does it give up, with a 503 that says the upload is kept, and Retry-After.
 *
 * The outage is real: the test's own PostgreSQL database stops taking connections (ALLOW_CONNECTIONS false) and the
 * app's connections are ended, as a restart or failover ends them; then it takes them again. The 30 s are a fake
 * clock (only `performance.now`, which the wait measures, is faked: the real timers, sockets and database run on), so
 * the test waits on the waiter's own failed asks, never on the wall clock. PostgreSQL only: SQLite is a file on the
 * server's own disk, with no connection to lose (its lock held by another writer is a write's failure, not a read's,
 * and test/api/import-unavailable.test.ts has it).
 */
import { UNAVAILABLE_MESSAGES } from '@lectern/core';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ImportJobsRepository } from '../../src/repositories/import-jobs.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { multipart } from '../helpers/multipart.ts';
import { epubBook } from '../ingest/helpers.ts';

const WAIT_MS = 30_000;
const book = (n: number) =>
  epubBook({
    identifier: `urn:uuid:3a170000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    title: `Waited Through ${n}`,
    creator: 'Ann Outage',
    chapters: [{ path: 'one.xhtml', label: 'One', body: `<h1>One</h1><p>${`Words of book ${n}. `.repeat(40)}</p>` }],
  });

describe('an upload waiting through a PostgreSQL outage', () => {
  let t: TestApp;
  let admin: TestClient;
  let database: string;
  /** The waiting uploads' asks for their job that failed (the database did not answer). */
  let failedAsks = 0;

  /** A connection to the server's maintenance database, where the outage is made and undone. */
  const onServer = async (statement: string) => {
    const url = new URL(t.lectern.config.databaseUrl!);
    url.pathname = '/postgres';
    const c = new pg.Client({ connectionString: url.toString() });
    await c.connect();
    try {
      await c.query(statement);
    } finally {
      await c.end();
    }
  };
  const down = async () => {
    await onServer(`alter database ${database} allow_connections false`);
    await onServer(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${database}'`);
  };
  const up = () => onServer(`alter database ${database} allow_connections true`);

  beforeAll(async () => {
    t = await startTestApp('postgres');
    await t.lectern.app.ready();
    database = new URL(t.lectern.config.databaseUrl!).pathname.slice(1);
    // the test runs the queue by hand: the job waits until the database is back
    await t.lectern.services.importJobs.stop();
    await t.lectern.services.accounts.createUser({ email: 'wait-admin@example.com', password: 'a long enough password', status: 'subscriber', role: 'admin' });
    admin = new TestClient(t.lectern.app);
    await admin.login('wait-admin@example.com', 'a long enough password');
    const find = ImportJobsRepository.prototype.find;
    vi.spyOn(ImportJobsRepository.prototype, 'find').mockImplementation(function (this: ImportJobsRepository, id: string) {
      return find.call(this, id).catch((err: unknown) => {
        failedAsks++;
        throw err;
      });
    });
  });
  afterEach(async () => {
    vi.useRealTimers();
    await up();
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await t?.close();
  });

  /** Sends a book and waits until its job is queued; answers the pending request, a flag set once it settled, and the job's id. */
  const sendAndQueue = async (n: number) => {
    const before = await t.lectern.db.kysely.selectFrom('import_jobs').select('id').execute();
    const answer = admin.request('POST', '/api/v1/admin/import/', multipart([{ name: `waited-${n}.epub`, data: book(n) }]));
    // what the upload answered, should it answer before the test expects (CI's Node 24 tier once saw one in the wait)
    const state = { settled: false, said: '' };
    void answer
      .then(
        (res) => `${res.statusCode} ${res.body.slice(0, 300)}`,
        (err: Error) => `threw ${err.message}`,
      )
      .then((said) => Object.assign(state, { settled: true, said }));
    await expect.poll(async () => (await t.lectern.db.kysely.selectFrom('import_jobs').select('id').execute()).length, { timeout: 30_000 }).toBe(before.length + 1);
    const known = new Set(before.map((j) => j.id));
    const job = (await t.lectern.db.kysely.selectFrom('import_jobs').select('id').execute()).find((j) => !known.has(j.id))!.id;
    return { answer, state, job };
  };
  /** Lets the waiter fail `n` more asks (each a real ask of the database, every 250 ms). */
  const failedMore = async (n: number) => {
    const from = failedAsks;
    await expect.poll(() => failedAsks, { timeout: 30_000 }).toBeGreaterThanOrEqual(from + n);
  };

  it('an outage shorter than the wait: the upload keeps asking, then answers its import (201) once the database is back', async () => {
    const { answer, state } = await sendAndQueue(1);
    vi.useFakeTimers({ toFake: ['performance'] });
    await down();
    await failedMore(2);
    // just short of the wait: still asking, not answered
    vi.advanceTimersByTime(WAIT_MS - 1_000);
    await failedMore(2);
    expect(state.settled, state.said).toBe(false);
    await up();
    // The clock stays fake (at 29 s) until the upload has its answer: an ask already under way when the database came
    // back can still fail, and measured against the real clock its fake start would read as the whole wait gone (a 503).

    // the job runs once the database is back (the queue's worker, here by hand; a job a retried test left runs too)
    await expect
      .poll(
        async () => {
          await t.lectern.services.importJobs.workOnce().catch(() => false);
          return state.settled;
        },
        { timeout: 30_000 },
      )
      .toBe(true);
    const res = await answer;
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ imported: [{ title: 'Waited Through 1' }], failed: [] });
  });

  it('an outage past the wait: a 503 saying the upload is kept, with Retry-After; the job runs once the database is back', async () => {
    const { answer, state, job } = await sendAndQueue(2);
    vi.useFakeTimers({ toFake: ['performance'] });
    await down();
    await failedMore(2);
    vi.advanceTimersByTime(WAIT_MS - 1_000);
    await failedMore(1);
    expect(state.settled, state.said).toBe(false);
    vi.advanceTimersByTime(1_000);
    const res = await answer;
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json().detail).toMatch(/^The library's database was not available while the import ran \(.+\)\. The upload is kept/);
    expect(res.json().detail.startsWith(UNAVAILABLE_MESSAGES.stillWaiting('database', 'x').split('(')[0]!)).toBe(true);
    expect(res.headers['retry-after']).toBe('5');
    // kept indeed: once the database is back, the queue imports it
    await up();
    vi.useRealTimers();
    await expect
      .poll(
        async () => {
          await t.lectern.services.importJobs.workOnce().catch(() => false);
          // (this try's job: a retried test's earlier upload may have imported a title of the same name)
          return (await t.lectern.db.kysely.selectFrom('import_jobs').select('state').where('id', '=', job).executeTakeFirst())?.state;
        },
        { timeout: 30_000 },
      )
      .toBe('done');
    const report = await t.lectern.db.kysely.selectFrom('import_jobs').select('report').where('id', '=', job).executeTakeFirstOrThrow();
    expect(JSON.parse(report.report!)).toMatchObject({ imported: [{ title: 'Waited Through 2' }], failed: [] });
  });
});
