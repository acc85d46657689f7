/**
 * An import that the database or the content store failed is not the file's fault (docs/decisions.md "An
 * import the database or the store failed is not the file's fault"), both engines, on an S3 bucket (s3rver): a bad
 * file is still its 400 naming the problem; a run the database failed once is tried again by the queue after a pause
 * and imports (201); one it failed every time is a 503 saying the database, and no title; the store down fails a
 * waiting upload's runs the same way (503 naming the store) and refuses a new upload with 503, nothing kept or
 * queued; the database refusing the upload's job is a 503 with nothing kept.
 *
 * The database fails for real: PostgreSQL ends the connection in the middle of the import's insert (a trigger calls
 * pg_terminate_backend on its own backend, as a restart or failover ends it); on SQLite another connection holds the
 * write lock past the wait (busy_timeout, shortened here), as another writer would. The workers are driven by hand,
 * their clocks moved on past the queue's pause.
 */
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteDriver } from '../../src/db/database.ts';
import { ImportJobsRepository } from '../../src/repositories/import-jobs.ts';
import { IMPORT_JOB_ATTEMPTS, IMPORT_JOB_RETRY_MS, ImportJobs } from '../../src/services/import-jobs.ts';
import type { ImportService } from '../../src/services/import.ts';
import { S3ContentStore } from '../../src/storage/s3-content-store.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { multipart } from '../helpers/multipart.ts';
import { startS3, type TestS3 } from '../helpers/s3.ts';
import { epubBook } from '../ingest/helpers.ts';

const book = (n: number) =>
  epubBook({
    identifier: `urn:uuid:d0a40000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    title: `Unavailable ${n}`,
    creator: 'Ann Outage',
    chapters: [{ path: 'one.xhtml', label: 'One', body: `<h1>One</h1><p>${`Words of book ${n}. `.repeat(40)}</p>` }],
  });

type Importer = Pick<ImportService, 'importUpload' | 'replaceUpload'>;

describe.each(ENGINES)('an import the %s database or the content store failed', (engine) => {
  let s3: TestS3;
  let s3Open = true;
  let t: TestApp;
  let admin: TestClient;
  let repo: ImportJobsRepository;
  let bucket: S3ContentStore;

  beforeAll(async () => {
    s3 = await startS3();
    const { url: _url, ...settings } = s3.settings(`down-${engine}`);
    t = await startTestApp(engine, { contentStore: `s3://${s3.bucket}/down-${engine}`, s3: settings });
    await t.lectern.app.ready();
    // the tests run the queue by hand
    await t.lectern.services.importJobs.stop();
    repo = new ImportJobsRepository(t.lectern.db.kysely, engine);
    bucket = new S3ContentStore(s3.settings(`down-${engine}`), t.dataDir);
    await t.lectern.services.accounts.createUser({ email: 'down-admin@example.com', password: 'a long enough password', status: 'subscriber', role: 'admin' });
    admin = new TestClient(t.lectern.app);
    await admin.login('down-admin@example.com', 'a long enough password');
  });
  afterAll(async () => {
    await t?.close();
    if (s3Open) await s3?.close();
  });

  const send = (name: string, data: Uint8Array) => admin.request('POST', '/api/v1/admin/import/', multipart([{ name, data }]));
  const jobs = () => t.lectern.db.kysely.selectFrom('import_jobs').selectAll().orderBy('created_at').execute();
  /** The job of the upload just sent, once queued. */
  const queued = async (before: number) => {
    await expect.poll(async () => (await jobs()).length, { timeout: 30_000 }).toBe(before + 1);
    return (await jobs()).at(-1)!;
  };
  const titled = (title: string) => t.lectern.db.kysely.selectFrom('titles').select('book_id').where('title', '=', title).execute();
  const uploadsInBucket = async () => {
    const held: string[] = [];
    for await (const u of bucket.uploads.list()) held.push(u.upload);
    return held;
  };
  /** A worker of the app's upload area driven by hand, its clock `ms` ahead. */
  const worker = (ms: number, importer: Importer = t.lectern.services.importer) => new ImportJobs(repo, importer, bucket, `hand-${ms}`, () => new Date(Date.now() + ms));

  /**
   * The database failing the next `times` writes of `table` rows for real, and what undoes it: PostgreSQL ends the
   * writing connection inside its insert; SQLite's write lock is held by another connection while `during` runs.
   */
  async function databaseFault(table: 'titles' | 'import_jobs', times: number) {
    const k = t.lectern.db.kysely;
    if (engine === 'postgres') {
      await sql.raw(`create sequence if not exists lectern_test_kills`).execute(k);
      await sql.raw(`select setval('lectern_test_kills', 1, false)`).execute(k);
      await sql
        .raw(
          `create or replace function lectern_test_kill() returns trigger language plpgsql as $$
           begin
             if nextval('lectern_test_kills') <= ${times} then perform pg_terminate_backend(pg_backend_pid()); end if;
             return new;
           end $$`,
        )
        .execute(k);
      await sql.raw(`create trigger lectern_test_kill before insert on ${table} for each row execute function lectern_test_kill()`).execute(k);
      return {
        // The ended backend's client can go back to the pool before its socket's end is heard (the insert's error
        // comes first), and the next query on it fails: the app's next request, or this test's own reads. Once the
        // work is done, the pool is asked until it answers, which takes that client out.
        async during<T>(work: () => Promise<T>): Promise<T> {
          try {
            return await work();
          } finally {
            await expect.poll(() => sql`select 1`.execute(k).then(() => true, () => false)).toBe(true);
          }
        },
        async undo() {
          await sql.raw(`drop trigger lectern_test_kill on ${table}`).execute(k);
        },
      };
    }
    const lock = new (sqliteDriver())(path.join(t.dataDir, 'lectern.sqlite'));
    await sql.raw('pragma busy_timeout = 300').execute(k);
    let left = times;
    return {
      async during<T>(work: () => Promise<T>): Promise<T> {
        if (left-- <= 0) return work();
        lock.exec('begin immediate');
        try {
          return await work();
        } finally {
          lock.exec('rollback');
        }
      },
      async undo() {
        lock.close();
        await sql.raw('pragma busy_timeout = 5000').execute(k);
      },
    };
  }
  /** The app's importer, each run inside `during`. */
  const faulty = (during: <T>(work: () => Promise<T>) => Promise<T>): Importer => ({
    importUpload: (...a) => during(() => t.lectern.services.importer.importUpload(...a)),
    replaceUpload: (...a) => during(() => t.lectern.services.importer.replaceUpload(...a)),
  });

  it('a bad file is still a 400 naming the problem, its job done with the refusal', async () => {
    const before = (await jobs()).length;
    const answer = send('not-a-book.epub', new TextEncoder().encode('plain text, not a zip'));
    const job = await queued(before);
    expect(await worker(0).workOnce()).toBe(true);
    const res = await answer;
    expect(res.statusCode).toBe(400);
    expect(res.json().failed).toEqual([{ file: 'not-a-book.epub', reason: expect.any(String) }]);
    expect(res.json().failed[0].reason).not.toMatch(/not available/);
    expect(await repo.find(job.id)).toMatchObject({ state: 'done', unavailable: 0 });
  });

  it('the database failing a run once: the job is tried again after a pause, and the book is imported (201)', async () => {
    const fault = await databaseFault('titles', 1);
    try {
      const before = (await jobs()).length;
      const answer = send('retried.epub', book(1));
      const job = await queued(before);
      expect(await worker(0, faulty(fault.during)).workOnce()).toBe(true);
      // given back, not failed: the reason kept, nobody holding it
      expect(await repo.find(job.id)).toMatchObject({ state: 'running', claimed_by: null, attempts: 1, error: expect.stringMatching(/^the library's database was not available \(.+\)$/) });
      expect(await titled('Unavailable 1')).toEqual([]);
      // not taken again before the pause is over, and taken after it
      expect(await worker(IMPORT_JOB_RETRY_MS / 2, faulty(fault.during)).workOnce()).toBe(false);
      expect(await worker(IMPORT_JOB_RETRY_MS, faulty(fault.during)).workOnce()).toBe(true);
      const res = await answer;
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ imported: [{ title: 'Unavailable 1' }], failed: [] });
      expect(await repo.find(job.id)).toMatchObject({ state: 'done', attempts: 2, unavailable: 0 });
      expect(await titled('Unavailable 1')).toHaveLength(1);
      expect(await uploadsInBucket()).toEqual([]);
    } finally {
      await fault.undo();
    }
  });

  it('the database failing every run: a 503 saying so, not a 400 blaming the file; no title', async () => {
    const fault = await databaseFault('titles', IMPORT_JOB_ATTEMPTS);
    try {
      const before = (await jobs()).length;
      const answer = send('never.epub', book(2));
      const job = await queued(before);
      for (let i = 0; i < IMPORT_JOB_ATTEMPTS; i++) expect(await worker(i * IMPORT_JOB_RETRY_MS, faulty(fault.during)).workOnce()).toBe(true);
      const res = await answer;
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json().detail).toMatch(/^The import could not finish: the library's database was not available \(.+\)\. The file is not at fault: send it again in a moment\.$/);
      expect(await repo.find(job.id)).toMatchObject({ state: 'failed', attempts: IMPORT_JOB_ATTEMPTS, unavailable: 1 });
      expect(await titled('Unavailable 2')).toEqual([]);
      expect(await uploadsInBucket()).toEqual([]);
    } finally {
      await fault.undo();
    }
    // the same file once the database is back: imported (nothing of the failed runs is in the way)
    const before = (await jobs()).length;
    const again = send('never.epub', book(2));
    await queued(before);
    expect(await worker(0).workOnce()).toBe(true);
    expect((await again).statusCode).toBe(201);
  });

  it('the database refusing the upload’s job: a 503, nothing kept or queued', async () => {
    const fault = await databaseFault('import_jobs', 1);
    try {
      const before = await jobs();
      const res = await fault.during(() => send('unqueued.epub', book(3)));
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json().detail).toMatch(/database/);
      expect(await jobs()).toEqual(before);
      expect(await uploadsInBucket()).toEqual([]);
    } finally {
      await fault.undo();
    }
  });

  it('the content store down: a waiting upload’s runs are tried again, then a 503 naming the store; a new upload is refused with 503', async () => {
    const before = (await jobs()).length;
    const answer = send('stored.epub', book(4));
    const job = await queued(before);
    expect(await uploadsInBucket()).toEqual([job.id]);
    await s3.close();
    s3Open = false;
    for (let i = 0; i < IMPORT_JOB_ATTEMPTS; i++) expect(await worker(i * IMPORT_JOB_RETRY_MS).workOnce()).toBe(true);
    const res = await answer;
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json().detail).toMatch(/^The import could not finish: the library's content store was not available \(.+\)/);
    expect(await repo.find(job.id)).toMatchObject({ state: 'failed', unavailable: 1 });

    const count = (await jobs()).length;
    const refused = await send('later.epub', book(5));
    expect(refused.statusCode, refused.body).toBe(503);
    expect(refused.json().detail).toMatch(/^The library's content store was not available \(.+\), so the upload was not kept and nothing was imported\./);
    expect(await jobs()).toHaveLength(count);
    expect(await titled('Unavailable 4')).toEqual([]);
  });
});
