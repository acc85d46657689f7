/** Importing through the service and the operators' command line, on both engines, with the real sample books. */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchSampleLibrary } from '../../src/sample/fetch.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { SAMPLE_CACHE } from '../helpers/sample.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../../../..');

describe.each(ENGINES)('import on %s', (engine) => {
  let t: TestApp;
  let folder: string;
  let aliceFile: string;

  beforeAll(async () => {
    t = await startTestApp(engine);
    const books = await fetchSampleLibrary(SAMPLE_CACHE);
    aliceFile = books.find((b) => /alice/i.test(b.file))!.file;
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-import-'));
    fs.copyFileSync(aliceFile, path.join(folder, 'alice.epub'));
    const bytes = fs.readFileSync(aliceFile);
    fs.mkdirSync(path.join(folder, 'nested'));
    fs.writeFileSync(path.join(folder, 'nested', 'half-alice.epub'), bytes.subarray(0, Math.floor(bytes.length / 2)));
    fs.writeFileSync(path.join(folder, 'notes.txt'), 'not a book');
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('imports a folder: the good book lands whole, the corrupt one not at all', async () => {
    const report = await t.lectern.services.importer.importPaths([folder], { topics: ['classics'] });
    expect(report.imported.map((b) => b.title)).toEqual(["Alice's Adventures in Wonderland"]);
    expect(report.failed).toHaveLength(1);
    expect(report.failed[0]!.file).toMatch(/half-alice\.epub$/);
    expect(report.failed[0]!.reason.length).toBeGreaterThan(5);
    const k = t.lectern.db.kysely;
    const titles = await k.selectFrom('titles').select(['id', 'book_id']).execute();
    expect(titles).toHaveLength(1);
    const chapters = await k.selectFrom('chapters').select('id').execute();
    expect(chapters.length).toBe(report.imported[0]!.chapters);
    // Only the imported book's folder exists: nothing staged is left behind.
    expect(fs.readdirSync(path.join(t.dataDir, 'content'))).toEqual([titles[0]!.book_id]);
  });

  it('refuses the same file twice and says where it already is', async () => {
    const again = await t.lectern.services.importer.importPaths([aliceFile]);
    expect(again.imported).toEqual([]);
    expect(again.failed[0]!.reason).toMatch(/^already in the library as "Alice's Adventures in Wonderland"/);
  });

  it('reports a missing path', async () => {
    const report = await t.lectern.services.importer.importPaths([path.join(folder, 'nope.epub')]);
    expect(report.failed).toEqual([{ file: path.join(folder, 'nope.epub'), reason: 'no such file or folder' }]);
  });
});

describe('the operators command line', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-cli-'));
  const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' };
  const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'packages/server/src/cli/main.ts', ...args], { cwd: root, env });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('creates users and rejects bad options with a clear message', async () => {
    const ok = await cli('users:create', '--email', 'Ops@Example.com', '--password', 'long enough password', '--role', 'admin', '--status', 'subscriber');
    expect(ok.stdout).toMatch(/created user ops@example.com \(subscriber, admin\)/);
    const bad = await cli('users:create', '--email', 'x@example.com', '--password', 'long enough password', '--role', 'wizard').catch((e) => e);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/role must be one of admin, content-creator, preview-creator/);
    const short = await cli('users:create', '--email', 'y@example.com', '--password', 'short').catch((e) => e);
    expect(short.stderr).toMatch(/at least 8 characters/);
  });

  it('imports a file and flags a chapter', async () => {
    const books = await fetchSampleLibrary(SAMPLE_CACHE);
    const moby = books.find((b) => /moby/i.test(b.file))!.file;
    const out = await cli('import', moby, '--topic', 'classics');
    const m = /imported\s+(\S+)\s+"([^"]+)"\s+(\d+) chapters/.exec(out.stdout)!;
    expect(m[2]).toMatch(/Moby/);
    expect(Number(m[3])).toBeGreaterThan(100);
    expect(out.stdout).toMatch(/1 imported, 0 failed/);
    const bad = await cli('chapters:flag', m[1]!, 'no-such-chapter.xhtml', '--public', 'true').catch((e) => e);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/We could not find that chapter\./);
  });

  it('reports a bad configuration value by name', async () => {
    const bad = await run(process.execPath, ['--import', 'tsx', 'packages/server/src/cli/main.ts', 'migrate'], { cwd: root, env: { ...env, DATABASE_URL: 'mysql://x' } }).catch((e) => e);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/DATABASE_URL must start with postgres:\/\//);
  });
});
