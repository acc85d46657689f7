/**
 * Import jobs queued before the upgrade that moved uploads into the content store (docs/decisions.md "Import jobs
 * queued before uploads moved into the store"; storage/legacy-uploads.ts), both engines. The release before kept a
 * job's files in DATA_DIR/import-jobs/<job>/files/<n>, the area named by DATA_DIR/import-jobs/area, and its jobs name
 * that area. Here a DATA_DIR and a database are left as that release left them (its folder layout, its rows) and the
 * upgraded server starts on them: its own worker loop runs a waiting job from the old folder (and one whose server
 * stopped mid-import), fails one whose files are gone with a reason that says so and goes on to the next; the sweep
 * fails a job of an area no server reads once it waited a day (never sooner) and removes old folders whose job ended.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportJobsRepository } from '../../src/repositories/import-jobs.ts';
import { IMPORT_JOB_LEASE_MS, UPLOAD_MAX_AGE_MS, UPLOAD_ORPHAN_AFTER_MS, unreadableReason } from '../../src/services/import-jobs.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { epubBook } from '../ingest/helpers.ts';

const book = (n: number) =>
  epubBook({
    identifier: `urn:uuid:1e6ac700-0000-4000-8000-${String(n).padStart(12, '0')}`,
    title: `Queued Before ${n}`,
    creator: 'Ann Upgrade',
    chapters: [{ path: 'one.xhtml', label: 'One', body: `<h1>One</h1><p>${`Words of a book queued before the upgrade ${n}. `.repeat(30)}</p>` }],
  });

const LEGACY_AREA = 'oldareaname1';
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

describe.each(ENGINES)('import jobs queued before uploads moved into the store, %s', (engine) => {
  let t: TestApp;
  let repo: ImportJobsRepository;
  const legacyRoot = () => path.join(t.dataDir, 'import-jobs');
  /** A job as the release before queued it: a row naming the old area, its files in the old folder (unless `gone`). */
  const legacyJob = async (id: string, n: number, opts: { createdAgo: number; area?: string; gone?: boolean }) => {
    if (!opts.gone) {
      fs.mkdirSync(path.join(legacyRoot(), id, 'files'), { recursive: true });
      fs.writeFileSync(path.join(legacyRoot(), id, 'files', '0'), book(n));
    }
    await repo.insert({
      id,
      area: opts.area ?? LEGACY_AREA,
      owner_id: null,
      request: JSON.stringify({ files: [{ name: `old-${n}.epub`, at: '0' }], topics: [], replace: null }),
      created_at: ago(opts.createdAgo),
    });
  };
  const titled = (title: string) => t.lectern.db.kysely.selectFrom('titles').select('book_id').where('title', '=', title).execute();

  beforeAll(async () => {
    t = await startTestApp(engine);
    repo = new ImportJobsRepository(t.lectern.db.kysely, engine);
    // the DATA_DIR and the rows as the release before left them, before the upgraded server's worker starts
    fs.mkdirSync(legacyRoot(), { recursive: true });
    fs.writeFileSync(path.join(legacyRoot(), 'area'), LEGACY_AREA);
    // oldest first: the worker meets the one whose files are gone before the others
    await legacyJob('00000000-0000-4000-8000-0000000000a1', 1, { createdAgo: 60_000, gone: true });
    await legacyJob('00000000-0000-4000-8000-0000000000a2', 2, { createdAgo: 50_000 });
    // its server (of the release before) stopped mid-import: running, its lease lapsed, one attempt made
    await legacyJob('00000000-0000-4000-8000-0000000000a3', 3, { createdAgo: 40_000 });
    await t.lectern.db.kysely
      .updateTable('import_jobs')
      .set({ state: 'running', claimed_by: 'an-old-server', attempts: 1, lease_until: ago(1_000) })
      .where('id', '=', '00000000-0000-4000-8000-0000000000a3')
      .execute();
    // of another machine's old area, which no server here reads: one a day old, one an hour old
    await legacyJob('00000000-0000-4000-8000-0000000000b1', 4, { createdAgo: UPLOAD_MAX_AGE_MS + 60_000, area: 'elsewhere123', gone: true });
    await legacyJob('00000000-0000-4000-8000-0000000000b2', 5, { createdAgo: 60 * 60_000, area: 'elsewhere123', gone: true });
    await t.lectern.app.ready();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the upgraded server runs them from the old folder, and fails the one whose files are gone with why', async () => {
    const state = async (id: string) => (await repo.find(id))?.state;
    await expect.poll(() => state('00000000-0000-4000-8000-0000000000a3'), { timeout: 60_000 }).toBe('done');
    await expect.poll(() => state('00000000-0000-4000-8000-0000000000a2'), { timeout: 60_000 }).toBe('done');
    const gone = await repo.find('00000000-0000-4000-8000-0000000000a1');
    expect(gone).toMatchObject({ state: 'failed', unavailable: 0 });
    expect(gone!.error).toMatch(/^import failed: it was queued before this server's upgrade and its files are no longer in .*import-jobs.*; send the file again$/);
    expect(await repo.find('00000000-0000-4000-8000-0000000000a2')).toMatchObject({ attempts: 1, error: null });
    expect(await repo.find('00000000-0000-4000-8000-0000000000a3')).toMatchObject({ attempts: 2, claimed_by: t.lectern.services.importJobs.serverId });
    for (const n of [2, 3]) {
      const report = JSON.parse((await repo.find(`00000000-0000-4000-8000-0000000000a${n}`))!.report!);
      expect(report).toMatchObject({ imported: [{ title: `Queued Before ${n}` }], failed: [] });
      expect(await titled(`Queued Before ${n}`)).toHaveLength(1);
    }
    // each job's old folder goes with it (just after its outcome is written); the area's name stays
    await expect.poll(() => fs.readdirSync(legacyRoot())).toEqual(['area']);
    // the other machine's jobs are not this server's to take (the day-old one is the sweep's: below)
    expect(await repo.find('00000000-0000-4000-8000-0000000000b2')).toMatchObject({ state: 'queued', attempts: 0 });
  });

  it('the sweep fails a job no server read in a day, not sooner, and removes old folders whose job ended', async () => {
    // (the server sweeps at its start too, so the day-old job may be failed already: by the same rule)
    // an old folder whose job ended (its request removed nothing: the server stopped), two hours untouched
    const ended = '00000000-0000-4000-8000-0000000000c1';
    await legacyJob(ended, 6, { createdAgo: 2 * 60 * 60_000 });
    await t.lectern.db.kysely.updateTable('import_jobs').set({ state: 'failed', error: 'stopped', finished_at: ago(60 * 60_000) }).where('id', '=', ended).execute();
    const old = new Date(Date.now() - UPLOAD_ORPHAN_AFTER_MS - 60_000);
    fs.utimesSync(path.join(legacyRoot(), ended), old, old);
    expect(await t.lectern.services.importJobs.sweep()).toBe(1);
    expect(fs.readdirSync(legacyRoot())).toEqual(['area']);
    expect(await repo.find('00000000-0000-4000-8000-0000000000b1')).toMatchObject({ state: 'failed', error: unreadableReason, finished_at: expect.any(String) });
    expect(await repo.find('00000000-0000-4000-8000-0000000000b2')).toMatchObject({ state: 'queued', error: null });
    expect(await t.lectern.services.importJobs.load()).toEqual({ running: 0, waiting: 1 });
    // a job held under a live lease is never failed by the sweep, however old
    await t.lectern.db.kysely
      .updateTable('import_jobs')
      .set({ state: 'running', claimed_by: 'a-busy-server', lease_until: new Date(Date.now() + IMPORT_JOB_LEASE_MS).toISOString(), created_at: ago(UPLOAD_MAX_AGE_MS + 60_000) })
      .where('id', '=', '00000000-0000-4000-8000-0000000000b2')
      .execute();
    await t.lectern.services.importJobs.sweep();
    expect(await repo.find('00000000-0000-4000-8000-0000000000b2')).toMatchObject({ state: 'running', error: null });
  });
});
