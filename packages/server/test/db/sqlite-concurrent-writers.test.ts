/**
 * Imports from several processes at once into one SQLite library (docs/decisions.md "SQLite transactions begin
 * IMMEDIATE"): the operators' command line writes beside the server and beside itself. Begun DEFERRED, a transaction
 * that read and then wrote failed at once with "database is locked" whenever another process had written since its
 * read (3 of 8 simultaneous imports, twice in a row); begun IMMEDIATE, each waits for the write lock and all land.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';
import { runCli } from '../helpers/cli.ts';
import { epubBook } from '../ingest/helpers.ts';

const PROCESSES = 6;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-concurrent-writers-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('several processes writing one SQLite library', () => {
  it(`imports ${PROCESSES} books sent at once from ${PROCESSES} command lines, every one`, async () => {
    const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent' };
    // the library made and migrated first, as a running server would have it
    expect((await runCli(['users:list'], env)).code).toBe(0);
    const files = Array.from({ length: PROCESSES }, (_, i) => {
      const file = path.join(dataDir, `concurrent-${i}.epub`);
      const body = `<p>${'Words of a book sent beside others. '.repeat(60)} ${i}</p>`;
      fs.writeFileSync(file, epubBook({ identifier: `urn:uuid:5c0c0000-0000-4000-8000-${String(i).padStart(12, '0')}`, title: `Sent Together ${i}`, creator: 'Ann Beside', chapters: [{ path: 'one.xhtml', label: 'One', body }] }));
      return file;
    });
    const runs = await Promise.all(files.map((file) => runCli(['import', file], env)));
    for (const run of runs) expect(run.code, `${run.stdout}${run.stderr}`).toBe(0);
    const db = openDatabase({ databaseUrl: null, dataDir });
    try {
      const titles = await db.kysely.selectFrom('titles').select('title').where('title', 'like', 'Sent Together %').execute();
      expect(titles.map((t) => t.title).sort()).toEqual(files.map((_, i) => `Sent Together ${i}`));
    } finally {
      await db.close();
    }
  }, 180_000);
});
