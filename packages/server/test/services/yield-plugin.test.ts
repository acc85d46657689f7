/**
 * The event loop turns while a request works through SQLite (db/yield-plugin.ts): a chain of queries and work that
 * runs longer than a slice lets a timer set at its start fire before the chain ends; without the plugin it could
 * not (better-sqlite3 is synchronous under kysely's promises, so the chain is all microtasks).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';
import { SLICE_MS } from '../../src/db/yield-plugin.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-yield-'));
const db = openDatabase({ databaseUrl: null, dataDir: dir });
afterAll(async () => {
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs `rounds` queries, each followed by `busyMs` of work; says whether `timerFired()` was seen true before the end. */
async function chain(rounds: number, busyMs: number, timerFired: () => boolean): Promise<boolean> {
  for (let i = 0; i < rounds; i++) {
    await sql`select 1`.execute(db.kysely);
    const t = performance.now();
    while (performance.now() - t < busyMs) {
      /* work between queries */
    }
    if (timerFired()) return true;
  }
  return false;
}

describe('the event loop while SQLite answers', () => {
  it('turns during a chain of queries longer than a slice, so a timer set before it fires within it', async () => {
    let fired = false;
    setTimeout(() => (fired = true), 0);
    const rounds = Math.ceil((SLICE_MS * 6) / 1);
    expect(await chain(rounds, 1, () => fired)).toBe(true);
  });

  it('does not wait on a short chain (a request that takes less than a slice runs through)', async () => {
    await new Promise((r) => setImmediate(r));
    let turned = false;
    setImmediate(() => (turned = true));
    await chain(3, 0, () => false);
    expect(turned).toBe(false);
  });
});
