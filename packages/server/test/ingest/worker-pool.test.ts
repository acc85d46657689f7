/**
 * The import worker ("Import"): compiled JavaScript rather than TypeScript through a loader, and a spare
 * process started while an import runs, so the next import does not wait for a process to start and load — but
 * still one process per file: no worker ever reads a second one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { workerEntry } from '../../src/ingest/worker-build.ts';
import { runImportWorker, sparePid, stopSpare, type WorkerRunStats } from '../../src/ingest/worker-host.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../src/ingest/worker-protocol.ts';
import { minimalEpub3 } from './helpers.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-worker-pool-'));
afterAll(() => {
  stopSpare();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function importOnce(name: string): Promise<WorkerRunStats> {
  const file = path.join(dir, `${name}.epub`);
  fs.writeFileSync(file, minimalEpub3());
  const stagingDir = fs.mkdtempSync(path.join(dir, 'staging-'));
  let stats: WorkerRunStats | null = null;
  const done = await runImportWorker({ file, fileName: `${name}.epub`, stagingDir, allowScripts: false }, DEFAULT_IMPORT_LIMITS, async () => name, (s) => (stats = s));
  expect(done.title.title).toBe('A Small Book');
  return stats!;
}

it('runs each import in a process of its own, compiled, and started before the import asked for it', async () => {
  const entry = await workerEntry();
  expect(entry).toMatchObject({ compiled: true, execArgv: [] });
  expect(entry.file).toMatch(/node_modules\/\.cache\/lectern-import-worker\/[0-9a-f]{16}\/worker\.js$/);

  const first = await importOnce('first');
  const waiting = sparePid();
  expect(waiting).not.toBeNull();
  expect(waiting).not.toBe(first.pid);
  const second = await importOnce('second');
  expect(second.pid).toBe(waiting);
  // The first worker is gone: it read one file and ended.
  expect(() => process.kill(first.pid!, 0)).toThrow(/ESRCH/);
  expect(() => process.kill(second.pid!, 0)).toThrow(/ESRCH/);
  // A spare that waits is not a reason for the process to stay: stopping it leaves none.
  stopSpare();
  expect(sparePid()).toBeNull();
});
