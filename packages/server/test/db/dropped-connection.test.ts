/**
 * PostgreSQL restarted or failed over while a connection is checked out of the pool (docs/operations.md "Several
 * servers"): the server ends the backend with FATAL 57P01 between two queries of a request. pg then emits 'error' on
 * the client, which the pool listens to only while the client is idle; unheard, it ended the whole Lectern process
 * (found by bench/multi-server.ts's PostgreSQL restart). It must fail that request only.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';
import { createTestDatabase } from '../helpers/app.ts';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

it('a checked-out connection ended by the server fails its request, not the process; the next request gets a new one', async () => {
  const dropped: string[] = [];
  const db = openDatabase({ databaseUrl: database.url, dataDir: '', onIdleError: (err) => dropped.push(err.message) });
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);
  process.on('uncaughtException', onUncaught);
  try {
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    const outcome = await db.kysely
      .connection()
      .execute(async (conn) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(conn);
        // the connection is checked out and between queries, as in a transaction or a request's two statements
        await other.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
        await expect.poll(() => dropped.length + uncaught.length).toBeGreaterThan(0);
        return sql`select 1`.execute(conn).then(
          () => 'answered',
          (err: Error) => `failed: ${err.message}`,
        );
      })
      .catch((err: Error) => `failed: ${err.message}`);
    await other.end();
    expect(outcome).toMatch(/^failed/);
    expect(uncaught).toEqual([]);
    const again = await sql<{ one: number }>`select 1 as one`.execute(db.kysely);
    expect(again.rows).toEqual([{ one: 1 }]);
  } finally {
    process.off('uncaughtException', onUncaught);
    await db.close();
  }
});

it('a connection the server ended inside a query is not handed to the next request', async () => {
  // PostgreSQL answers the query that its backend's end interrupts with FATAL 57P01 and then closes the socket; the pool
  // got the client back between the two, before pg heard the close, and gave it to the next request, which failed
  // with "Connection terminated unexpectedly" (a restart or failover's one more failed request per connection)
  const db = openDatabase({ databaseUrl: database.url, dataDir: '', onIdleError: () => {} });
  try {
    for (let round = 0; round < 5; round++) {
      const ended = await sql`select pg_terminate_backend(pg_backend_pid())`.execute(db.kysely).then(
        () => 'answered',
        (err: { code?: string }) => err.code,
      );
      expect(ended).toBe('57P01');
      const next = await sql<{ one: number }>`select 1 as one`.execute(db.kysely);
      expect(next.rows).toEqual([{ one: 1 }]);
    }
  } finally {
    await db.close();
  }
});
