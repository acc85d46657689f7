/**
 * Imports queued in the database (docs/decisions.md "Imports queued in the database"; services/import-jobs.ts), two servers on one database sharing the
 * content store's upload area (here one DATA_DIR and its content folder; test/api/import-uploads-store.test.ts has
 * servers with a DATA_DIR each on an S3 bucket), both engines: an upload through one
 * server may be run by the other's worker and is answered as before; a job is claimed once however many workers
 * ask at once; a job whose server stopped is taken again once its lease lapsed, and failed with its reason after its
 * last attempt; a run that fails records why. The workers' loops are stopped where a test drives them itself.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportJobsRepository } from '../../src/repositories/import-jobs.ts';
import { exhaustedReason, IMPORT_JOB_ATTEMPTS, IMPORT_JOB_LEASE_MS, ImportJobs } from '../../src/services/import-jobs.ts';
import { LocalContentStore, UPLOADS_FOLDER } from '../../src/storage/content-store.ts';
import { ENGINES, startAnotherServer, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { multipart } from '../helpers/multipart.ts';
import { epubBook } from '../ingest/helpers.ts';

const book = (n: number) =>
  epubBook({
    identifier: `urn:uuid:1a70b000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    title: `Queued Book ${n}`,
    creator: 'Ann Queue',
    chapters: [{ path: 'one.xhtml', label: 'One', body: `<h1>One</h1><p>${`Words of queued book ${n}. `.repeat(30)}</p>` }],
  });

describe.each(ENGINES)('the import queue on one %s database', (engine) => {
  let a: TestApp;
  let b: TestApp;
  let admin: TestClient;

  beforeAll(async () => {
    a = await startTestApp(engine);
    b = await startAnotherServer(a, {}, { sameDataDir: true });
    await Promise.all([a.lectern.app.ready(), b.lectern.app.ready()]);
    await a.lectern.services.accounts.createUser({ email: 'queue-admin@example.com', password: 'a long enough password', status: 'subscriber', role: 'admin' });
    admin = new TestClient(a.lectern.app);
    await admin.login('queue-admin@example.com', 'a long enough password');
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const jobRows = () => a.lectern.db.kysely.selectFrom('import_jobs').selectAll().orderBy('created_at').execute();
  /** The upload area of the content folder both servers share. */
  const uploadsDir = () => path.join(a.dataDir, 'content', UPLOADS_FOLDER);
  /** A queued job of `files` through A's service, as the upload route makes one. */
  const queue = async (files: { name: string; data: Uint8Array }[]) => {
    const upload = await a.lectern.services.importJobs.begin();
    files.forEach((f, i) => fs.writeFileSync(path.join(upload.dir, String(i)), f.data));
    await a.lectern.services.importJobs.submit(upload, null, { files: files.map((f, i) => ({ name: f.name, at: String(i) })), topics: [], replace: null });
    await upload.removeLocal();
    return upload.id;
  };

  it("an upload through one server may be run by the other's worker, and is answered as before", async () => {
    // A takes no job now: only B's worker is left to run it
    await a.lectern.services.importJobs.stop();
    try {
      const res = await admin.request('POST', '/api/v1/admin/import/', multipart([{ name: 'one.epub', data: book(1) }]));
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ imported: [{ title: 'Queued Book 1', chapters: 1 }], failed: [] });
      const [row] = (await jobRows()).slice(-1);
      expect(row).toMatchObject({ state: 'done', claimed_by: b.lectern.services.importJobs.serverId, attempts: 1 });
      // the upload's folder is gone once answered; the area keeps only its name
      expect(fs.readdirSync(uploadsDir())).toEqual(['area']);
      // a refused file: the same 400 with its reason as before, the reason recorded with the job
      const bad = await admin.request('POST', '/api/v1/admin/import/', multipart([{ name: 'not-a-book.epub', data: new TextEncoder().encode('plain text') }]));
      expect(bad.statusCode).toBe(400);
      expect(bad.json().failed[0].file).toBe('not-a-book.epub');
      const [refused] = (await jobRows()).slice(-1);
      expect(refused!.state).toBe('done');
      expect(JSON.parse(refused!.report!).failed[0].reason).toBe(bad.json().failed[0].reason);
    } finally {
      a.lectern.services.importJobs.start();
    }
  });

  describe('with both workers stopped, driven by hand', () => {
    beforeAll(async () => {
      await Promise.all([a.lectern.services.importJobs.stop(), b.lectern.services.importJobs.stop()]);
    });
    afterAll(() => {
      a.lectern.services.importJobs.start();
      b.lectern.services.importJobs.start();
    });

    it('a job is claimed once, whichever server asks and however many times at once', async () => {
      const id = await queue([{ name: 'two.epub', data: book(2) }]);
      const ran = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? b : a).lectern.services.importJobs.workOnce()));
      expect(ran.filter(Boolean)).toHaveLength(1);
      expect(await a.lectern.services.importJobs.outcome(id)).toMatchObject({ state: 'done', report: { imported: [{ title: 'Queued Book 2' }] } });
      expect(await a.lectern.db.kysely.selectFrom('titles').select('id').where('title', '=', 'Queued Book 2').execute()).toHaveLength(1);
    });

    it("a job whose server stopped mid-import is taken again after its lease, not before; then failed after its last attempt", async () => {
      const repo = new ImportJobsRepository(a.lectern.db.kysely, engine);
      const importer = a.lectern.services.importer;
      // the same content folder as A's and B's: the same upload area
      const store = new LocalContentStore(a.dataDir);
      const area = (await a.lectern.services.importJobs.areaId())!;
      expect(await store.uploads.id()).toBe(area);
      const at = (ms: number) => new Date(Date.now() + 24 * 60 * 60_000 + ms);
      const worker = (id: string, when: Date) => new ImportJobs(repo, importer, store, id, () => when);
      const killedAt = (when: Date, server: string) => repo.claim(area, server, when.toISOString(), new Date(when.getTime() + IMPORT_JOB_LEASE_MS).toISOString(), IMPORT_JOB_ATTEMPTS);

      // the first: claimed by a server that is then killed; taken over after the lease, and imported
      const first = await queue([{ name: 'three.epub', data: book(3) }]);
      expect(await killedAt(at(0), 'killed-server')).toMatchObject({ id: first, attempts: 1 });
      expect(await worker('early', at(IMPORT_JOB_LEASE_MS - 1000)).workOnce()).toBe(false);
      expect(await worker('late', at(IMPORT_JOB_LEASE_MS)).workOnce()).toBe(true);
      expect(await repo.find(first)).toMatchObject({ state: 'done', claimed_by: 'late', attempts: 2 });

      // the second: every attempt's server is killed; after the last, it is failed with that reason
      const second = await queue([{ name: 'four.epub', data: book(4) }]);
      for (let i = 0; i < IMPORT_JOB_ATTEMPTS; i++) expect(await killedAt(at(i * IMPORT_JOB_LEASE_MS), `killed-${i}`)).toMatchObject({ id: second });
      expect(await worker('after', at(IMPORT_JOB_ATTEMPTS * IMPORT_JOB_LEASE_MS)).workOnce()).toBe(false);
      expect(await a.lectern.services.importJobs.outcome(second)).toEqual({ state: 'failed', error: exhaustedReason(IMPORT_JOB_ATTEMPTS), unavailable: false });
      expect(fs.existsSync(path.join(uploadsDir(), second))).toBe(false);
      expect(await a.lectern.db.kysely.selectFrom('titles').select('id').where('title', '=', 'Queued Book 4').execute()).toEqual([]);
    });

    it('a run that fails records why', async () => {
      const id = await queue([{ name: 'five.epub', data: book(5) }]);
      // its file is lost from the upload area before a worker takes it
      fs.rmSync(path.join(uploadsDir(), id), { recursive: true });
      expect(await b.lectern.services.importJobs.workOnce()).toBe(true);
      const outcome = await a.lectern.services.importJobs.outcome(id);
      expect(outcome.state).toBe('failed');
      expect(outcome.state === 'failed' && outcome.error).toMatch(/^import failed: ENOENT/);
      expect(await a.lectern.services.importJobs.load()).toEqual({ running: 0, waiting: 0 });
    });
  });
});
