/**
 * Any server runs any import (docs/decisions.md "Uploads wait in the content store"): two servers on one
 * database and one S3 bucket (s3rver, test/helpers/s3.ts) but each with a DATA_DIR of its own, both engines (SQLite:
 * B's database file a link to A's, test/helpers/app.ts). An upload through A waits in the bucket's upload area, not in
 * A's DATA_DIR; B's worker imports it; the title reads on A and on B; nothing of the upload is left. The same new book
 * sent through A and B at once is one title, whole, with no 5xx (docs/decisions.md "The same new book imported twice
 * at once"). An upload no job will run is swept.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportJobsRepository } from '../../src/repositories/import-jobs.ts';
import { IMPORT_JOB_ATTEMPTS, IMPORT_JOB_LEASE_MS, IMPORT_JOB_RETRY_MS, ImportJobs, UPLOAD_MAX_AGE_MS, UPLOAD_ORPHAN_AFTER_MS } from '../../src/services/import-jobs.ts';
import { S3ContentStore } from '../../src/storage/s3-content-store.ts';
import { ENGINES, startAnotherServer, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { multipart } from '../helpers/multipart.ts';
import { startS3, type TestS3 } from '../helpers/s3.ts';
import { epubBook } from '../ingest/helpers.ts';

const book = (n: number, words = 30) =>
  epubBook({
    identifier: `urn:uuid:5707e000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    title: `Stored Upload ${n}`,
    creator: 'Ann Store',
    chapters: [
      { path: 'one.xhtml', label: 'One', body: `<h1>One</h1><p>${`Words of stored book ${n}. `.repeat(words)}</p>` },
      { path: 'two.xhtml', label: 'Two', body: `<h1>Two</h1><p>${`More words of stored book ${n}. `.repeat(words)}</p>` },
    ],
    manifest: ['<item id="css" href="styles/book.css" media-type="text/css"/>'],
    files: { 'styles/book.css': `p { margin: 0 0 ${n}px }` },
  });

/** Every file below `dir` (an empty list when there is no such folder). */
const filesBelow = (dir: string): string[] => (fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name) : []);

let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(() => s3?.close());

describe.each(ENGINES)('uploads in the content store, two servers with a DATA_DIR each, on %s', (engine) => {
  let a: TestApp;
  let b: TestApp;
  let bucket: S3ContentStore;
  let adminA: TestClient;
  let adminB: TestClient;
  let readerA: TestClient;
  let readerB: TestClient;

  beforeAll(async () => {
    const { url: _url, ...settings } = s3.settings(`uploads-${engine}`);
    a = await startTestApp(engine, { contentStore: `s3://${s3.bucket}/uploads-${engine}`, s3: settings });
    b = await startAnotherServer(a, {}, { ownDataDir: true });
    await Promise.all([a.lectern.app.ready(), b.lectern.app.ready()]);
    expect(b.dataDir).not.toBe(a.dataDir);
    bucket = new S3ContentStore(s3.settings(`uploads-${engine}`), path.join(a.dataDir, 'test-reader'));
    await a.lectern.services.accounts.createUser({ email: 'store-admin@example.com', password: 'a long enough password', status: 'subscriber', role: 'admin' });
    adminA = new TestClient(a.lectern.app);
    await adminA.login('store-admin@example.com', 'a long enough password');
    adminB = new TestClient(b.lectern.app);
    await adminB.login('store-admin@example.com', 'a long enough password');
    [readerA] = await signedInSubscribers(a.lectern, ['store-reader@example.com']);
    readerB = new TestClient(b.lectern.app);
    await readerB.login('store-reader@example.com', 'a long enough password');
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const uploadsInBucket = async () => {
    const held: string[] = [];
    for await (const u of bucket.uploads.list()) held.push(u.upload);
    return held;
  };
  const jobRow = (id: string) => a.lectern.db.kysely.selectFrom('import_jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const lastJob = () => a.lectern.db.kysely.selectFrom('import_jobs').selectAll().orderBy('created_at', 'desc').executeTakeFirst();
  /** The stored resources of a title, each read back from the bucket (a half-written or removed folder fails). */
  const storedFiles = async (bookId: string) => {
    const rows = await a.lectern.db.kysely
      .selectFrom('resources as r')
      .innerJoin('titles as t', 't.id', 'r.title_id')
      .select(['r.full_path', 'r.storage_path', 'r.size'])
      .where('t.book_id', '=', bookId)
      .execute();
    for (const r of rows) expect((await bucket.stat(r.storage_path))?.size, r.storage_path).toBe(r.size);
    return rows;
  };
  /** The title reads on A and on B: its contents, and its stylesheet (the book's own rule in it) from the bucket. */
  const readsOnBoth = async (bookId: string, rule: string) => {
    for (const reader of [readerA, readerB]) {
      const toc = await reader.get(`/nest/epub/toc/?book_id=${encodeURIComponent(bookId)}`);
      expect(toc.statusCode, toc.body).toBe(200);
      const file = await reader.get(`/api/v1/book/${bookId}/chapter/styles/book.css`);
      expect(file.statusCode, file.body).toBe(200);
      expect(file.body).toContain(rule);
    }
  };

  it("an upload through A waits in the bucket, not in A's DATA_DIR; B's worker imports it; it reads on A and B", async () => {
    // no worker runs: the upload waits, and is seen waiting
    await Promise.all([a.lectern.services.importJobs.stop(), b.lectern.services.importJobs.stop()]);
    try {
      const answered = adminA.request('POST', '/api/v1/admin/import/', multipart([{ name: 'stored-1.epub', data: book(1) }]));
      await expect.poll(async () => (await lastJob())?.state, { timeout: 30_000 }).toBe('queued');
      const job = (await lastJob())!;
      expect(job.area).toBe(`s3://${s3.bucket}/uploads-${engine}`);
      expect(await uploadsInBucket()).toEqual([job.id]);
      expect(await bucket.uploads.id()).toBe(job.area);
      // nothing of it on either server's disk: A received it, and gave it to the store
      await expect.poll(() => filesBelow(path.join(a.dataDir, 'tmp'))).toEqual([]);
      expect(filesBelow(path.join(b.dataDir, 'tmp'))).toEqual([]);

      // only B's worker runs it
      b.lectern.services.importJobs.start();
      const res = await answered;
      expect(res.statusCode, res.body).toBe(201);
      const bookId = res.json().imported[0].book_id as string;
      expect(res.json()).toMatchObject({ imported: [{ title: 'Stored Upload 1', chapters: 2 }], failed: [] });
      expect(await jobRow(job.id)).toMatchObject({ state: 'done', claimed_by: b.lectern.services.importJobs.serverId, attempts: 1 });
      await readsOnBoth(bookId, '1px');
      expect((await storedFiles(bookId)).length).toBeGreaterThan(0);
      // the upload is gone from the bucket once answered; B's work folder is gone too
      expect(await uploadsInBucket()).toEqual([]);
      expect(filesBelow(path.join(b.dataDir, 'tmp'))).toEqual([]);
    } finally {
      a.lectern.services.importJobs.start();
      b.lectern.services.importJobs.start();
    }
  });

  it('the same new book through A and B at once: one title, whole, the other told it is in the library; no 5xx', async () => {
    // Both uploads are queued first, then each server's worker takes one, at the same moment: both look for the
    // book before either has inserted it (the race of two servers), and both choose the same book id.
    await Promise.all([a.lectern.services.importJobs.stop(), b.lectern.services.importJobs.stop()]);
    try {
      const data = book(2, 400);
      const answers = [adminA, adminB].map((admin, i) => admin.request('POST', '/api/v1/admin/import/', multipart([{ name: `same-${i}.epub`, data }])));
      const queued = () => a.lectern.db.kysely.selectFrom('import_jobs').select('id').where('state', '=', 'queued').execute();
      await expect.poll(async () => (await queued()).length, { timeout: 30_000 }).toBe(2);
      const ran = await Promise.all([a.lectern.services.importJobs.workOnce(), b.lectern.services.importJobs.workOnce()]);
      expect(ran).toEqual([true, true]);
      // (SQLite here is two connections in one process: the loser's insert may wait out the lock while the winner's
      // transaction cannot go on in the same thread, and fail busy — then its job is given back, or if even that
      // could not be written, left to its lease. A worker whose clock is past both takes it again at once.)
      const late = new ImportJobs(new ImportJobsRepository(a.lectern.db.kysely, engine), a.lectern.services.importer, bucket, 'late', () => new Date(Date.now() + IMPORT_JOB_LEASE_MS + IMPORT_JOB_RETRY_MS));
      const unfinished = () => a.lectern.db.kysely.selectFrom('import_jobs').select('id').where('state', 'in', ['queued', 'running']).execute();
      for (let i = 0; i < IMPORT_JOB_ATTEMPTS && (await unfinished()).length; i++) await late.workOnce();
      expect(await unfinished()).toEqual([]);
      const res = await Promise.all(answers);
      const statuses = res.map((r) => r.statusCode).sort();
      expect(statuses, res.map((r) => r.body).join('\n')).toEqual([201, 400]);
      const won = res.find((r) => r.statusCode === 201)!.json();
      const lost = res.find((r) => r.statusCode === 400)!.json();
      const bookId = won.imported[0].book_id as string;
      expect(lost.failed[0].reason).toBe(`already in the library as "Stored Upload 2" (book id ${bookId})`);

      const titles = await a.lectern.db.kysely.selectFrom('titles').select(['book_id']).where('title', '=', 'Stored Upload 2').execute();
      expect(titles).toEqual([{ book_id: bookId }]);
      // the title's folder is whole, and the loser left no folder of its own in the bucket
      const stored = await storedFiles(bookId);
      const folders = new Set<string>();
      for await (const f of bucket.list()) if (f.path.startsWith(bookId)) folders.add(f.path.split('/')[0]!);
      expect([...folders]).toEqual([stored[0]!.storage_path.split('/')[0]]);
      await readsOnBoth(bookId, '2px');
      expect(await uploadsInBucket()).toEqual([]);
    } finally {
      a.lectern.services.importJobs.start();
      b.lectern.services.importJobs.start();
    }
  });

  it('sweeps stored uploads no job will run: its job gone (after an hour), or waiting more than a day', async () => {
    await Promise.all([a.lectern.services.importJobs.stop(), b.lectern.services.importJobs.stop()]);
    try {
      const repo = new ImportJobsRepository(a.lectern.db.kysely, engine);
      // an orphan: stored, then the route stopped before queuing its job
      const orphan = await a.lectern.services.importJobs.begin();
      fs.writeFileSync(path.join(orphan.dir, '0'), book(3));
      await bucket.uploads.put(orphan.id, '0', path.join(orphan.dir, '0'));
      await orphan.removeLocal();
      // a job queued and never taken (no worker of its area)
      const stale = await a.lectern.services.importJobs.begin();
      fs.writeFileSync(path.join(stale.dir, '0'), book(4));
      await a.lectern.services.importJobs.submit(stale, null, { files: [{ name: 'four.epub', at: '0' }], topics: [], replace: null });
      await stale.removeLocal();
      expect((await uploadsInBucket()).sort()).toEqual([orphan.id, stale.id].sort());

      const sweeper = (ms: number) => new ImportJobs(repo, a.lectern.services.importer, bucket, 'sweeper', () => new Date(Date.now() + ms));
      expect(await sweeper(0).sweep()).toBe(0);
      expect(await sweeper(UPLOAD_ORPHAN_AFTER_MS + 60_000).sweep()).toBe(1);
      expect(await uploadsInBucket()).toEqual([stale.id]);
      expect(await sweeper(UPLOAD_MAX_AGE_MS + 60_000).sweep()).toBe(1);
      expect(await uploadsInBucket()).toEqual([]);
      expect(await jobRow(stale.id)).toMatchObject({ state: 'failed', error: expect.stringMatching(/waited more than a day/) });
    } finally {
      a.lectern.services.importJobs.start();
      b.lectern.services.importJobs.start();
    }
  });
});
