/**
 * SQLite's reader threads (db/sqlite-readers.ts) on a real database file: rows and parameters, errors that fail one
 * statement and not the thread, writes refused, a commit on the main connection seen at once, a thread that dies,
 * and closing with statements in flight.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Db, openDatabase } from '../../src/db/database.ts';
import { ReaderError, ReaderPool } from '../../src/db/sqlite-readers.ts';

describe('SQLite reader threads', () => {
  let dir: string;
  let db: Db;
  let file: string;
  const pools: ReaderPool[] = [];
  const pool = (size: number, script?: URL) => {
    const p = new ReaderPool(file, size, script);
    pools.push(p);
    return p;
  };

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-readers-'));
    db = openDatabase({ databaseUrl: null, dataDir: dir, sqliteReaders: 2 });
    file = path.join(dir, 'lectern.sqlite');
    await sql`create table notes (id integer primary key, body text not null)`.execute(db.kysely);
    await sql`insert into notes (body) values ('one'), ('two'), ('three')`.execute(db.kysely);
  });
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.close()));
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers a read with its rows, parameters bound, on a thread of its own', async () => {
    const { rows } = await sql<{ body: string }>`select body from notes where id >= ${2} order by id`.execute(db.reads);
    expect(rows).toEqual([{ body: 'two' }, { body: 'three' }]);
    expect(db.readers!.load).toMatchObject({ threads: 1, busy: 0, waiting: 0, answered: 1 });
  });

  it('leaves the event loop free while a long statement runs on a thread; on the main connection it is held', async () => {
    // how many turns the loop makes until `work` is answered (a callback that puts itself back at each turn)
    const turnsUntil = async (work: Promise<unknown>) => {
      let turns = 0;
      let done = false;
      const tick = () => {
        if (done) return;
        turns++;
        setImmediate(tick);
      };
      setImmediate(tick);
      await work;
      done = true;
      return turns;
    };
    const long = sql<{ n: number }>`with recursive c(i) as (select 1 union all select i + 1 from c where i < ${1_000_000}) select count(*) as n from c`;
    expect(await turnsUntil(long.execute(db.reads))).toBeGreaterThan(20);
    // the same statement on the main connection: no turn while it runs (the yield plugin's one after it, at most)
    expect(await turnsUntil(long.execute(db.kysely))).toBeLessThanOrEqual(2);
  });

  it("fails a bad statement with SQLite's message and code, and the thread answers the next", async () => {
    const err = await sql`select body from nowhere`.execute(db.reads).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReaderError);
    expect((err as ReaderError).message).toMatch(/no such table: nowhere/);
    expect((err as ReaderError).code).toBe('SQLITE_ERROR');
    const { rows } = await sql<{ n: number }>`select count(*) as n from notes`.execute(db.reads);
    expect(rows).toEqual([{ n: 3 }]);
    expect(db.readers!.load.threads).toBe(1);
  });

  it('refuses to write, and nothing changes', async () => {
    await expect(sql`delete from notes`.execute(db.reads)).rejects.toThrow(ReaderError);
    await expect(sql`pragma journal_mode = delete`.execute(db.reads)).rejects.toThrow();
    expect((await sql<{ n: number }>`select count(*) as n from notes`.execute(db.kysely)).rows).toEqual([{ n: 3 }]);
    expect((await sql<{ m: string }>`pragma journal_mode`.execute(db.kysely)).rows[0]).toEqual({ journal_mode: 'wal' });
  });

  it('sees a commit of the main connection at once, on every thread', async () => {
    // both threads started and have read (a reader that kept an old snapshot would miss what follows)
    const count = () => sql<{ n: number }>`select count(*) as n from notes`.execute(db.reads).then((r) => r.rows[0]!.n);
    expect(await Promise.all([count(), count()])).toEqual([3, 3]);
    expect(db.readers!.load.threads).toBe(2);
    await db.kysely.transaction().execute(async (trx) => {
      await sql`insert into notes (body) values ('four')`.execute(trx);
      // not committed yet: not seen
      expect(await count()).toBe(3);
    });
    expect(await Promise.all([count(), count()])).toEqual([4, 4]);
  });

  it('runs at most its size at once; more statements wait their turn and are all answered', async () => {
    const p = pool(2);
    const slow = (n: number) => p.query(`with recursive c(i) as (select 1 union all select i + 1 from c where i < ?) select count(*) as n from c`, [n]);
    const all = Promise.all(Array.from({ length: 5 }, (_, i) => slow(20_000 + i)));
    expect(p.load).toMatchObject({ threads: 2, busy: 2, waiting: 3 });
    expect((await all).map((rows) => (rows as { n: number }[])[0]!.n)).toEqual([20_000, 20_001, 20_002, 20_003, 20_004]);
    expect(p.load).toMatchObject({ threads: 2, busy: 0, waiting: 0, answered: 5 });
  });

  it('fails the statement of a thread that dies, and starts another for the next', async () => {
    const p = pool(1, new URL('./exiting-reader.mjs', import.meta.url));
    const dying = p.query('exit', []);
    const waiting = p.query('select 1', []);
    await expect(dying).rejects.toThrow(/stopped \(exit code 7\)/);
    // the statement queued behind it runs on a new thread
    await expect(waiting).resolves.toEqual([]);
    expect(p.load).toMatchObject({ threads: 1, busy: 0 });
  });

  it('closes: a running statement finishes, a queued one and any later are refused, the threads end', async () => {
    const p = pool(1);
    const running = p.query(`with recursive c(i) as (select 1 union all select i + 1 from c where i < ?) select count(*) as n from c`, [200_000]);
    const queued = p.query('select 1 as one', []);
    const closing = p.close();
    await expect(queued).rejects.toThrow(/closed/);
    await expect(running).resolves.toEqual([{ n: 200_000 }]);
    await closing;
    expect(p.load).toMatchObject({ threads: 0, busy: 0, waiting: 0 });
    await expect(p.query('select 1', [])).rejects.toThrow(/closed/);
  });

  it('closes without waiting on past its grace for a statement that runs on: the statement fails', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const p = pool(1);
      // seconds of SQLite on the thread (a close cannot interrupt it; only its wait is bounded)
      const running = p.query(`with recursive c(i) as (select 1 union all select i + 1 from c where i < ?) select count(*) as n from c`, [10_000_000]);
      const settled = running.then(() => 'answered', () => 'failed');
      let closed = false;
      const closing = p.close(1_000).then(() => {
        closed = true;
      });
      await vi.advanceTimersByTimeAsync(1_000); // the grace for running statements
      await vi.advanceTimersByTimeAsync(1_000); // the wait for the threads to end
      await closing;
      expect(closed).toBe(true);
      expect(p.load).toMatchObject({ threads: 0, waiting: 0 });
      vi.useRealTimers();
      // once SQLite returns, the terminated thread exits and its statement fails rather than answering late
      expect(await settled).toBe('failed');
    } finally {
      vi.useRealTimers();
    }
  });

  it('a thread that cannot open the file fails its statement, not the server', async () => {
    const p = new ReaderPool(path.join(dir, 'missing.sqlite'), 1);
    pools.push(p);
    await expect(p.query('select 1', [])).rejects.toThrow(ReaderError);
    expect(p.load.threads).toBe(0);
  });
});
