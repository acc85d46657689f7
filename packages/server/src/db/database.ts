/**
 * The kysely factory: SQLite (better-sqlite3, WAL) in DATA_DIR by default, PostgreSQL when DATABASE_URL is set.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver } from 'kysely';
import type Pg from 'pg';
import type { Database } from './schema.ts';
import { ReaderPool, readerKysely } from './sqlite-readers.ts';
import { YieldPlugin } from './yield-plugin.ts';

/**
 * better-sqlite3 12 is built on node::ObjectWrap, whose destructor on Node 24 aborts the process when a statement
 * is collected outside a Node environment ("Assertion failed: (env) != nullptr", WiseLibs/better-sqlite3#1515);
 * 13 is Node-API and fixes it, but needs Node 22 (on 20 it segfaults). Both are installed; each Node gets its own.
 */
export function sqliteDriver(): typeof SQLite {
  const require = createRequire(import.meta.url);
  const major = Number(process.versions.node.split('.')[0]);
  return require(major >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3') as typeof SQLite;
}

export type Engine = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  engine: Engine;
  /**
   * Where long reads (the searches) run: on SQLite with reader threads, a kysely on them (db/sqlite-readers.ts); else
   * `kysely` itself (PostgreSQL is asynchronous already).
   */
  reads: Kysely<Database>;
  /** SQLite's reader threads under `reads`, when there are any (their load, for tests and benches) */
  readers: ReaderPool | null;
  /** SQLite only (else null): one-row reads run at once on the main connection ({@link SyncGet}) */
  syncGet: SyncGet | null;
  close(): Promise<void>;
}

/**
 * A one-row read run at once on SQLite's main connection, for the hottest request's one statement (the reader's
 * furthest position, ProgressRepository.chapterTop): better-sqlite3 is synchronous, and kysely's way to it (the
 * connection's lock, the query's compilation steps, the result plugin, two promises) cost more than the statement.
 * `null` while a transaction is open on the connection (kysely holds it across awaits; a read there would see that
 * transaction's uncommitted writes): the caller then goes through kysely, which waits for it as before. Outside a
 * transaction the statement is an autocommit read of what is committed, as through kysely.
 */
export type SyncGet = <Row>(sql: string, parameters: readonly unknown[]) => { row: Row | undefined } | null;

export function openDatabase(opts: {
  databaseUrl: string | null;
  dataDir: string;
  /** a server that accepts the connection and never answers (a firewall, a hung host) must not hang the start */
  databaseConnectTimeoutMs?: number;
  /** a pooled connection was dropped by the server (told once per connection, idle or in use) */
  onIdleError?: (err: Error) => void;
  /** SQLite: how many reader threads `reads` runs on (0 or unset: none, reads run on this thread) */
  sqliteReaders?: number;
}): Db {
  if (opts.databaseUrl) {
    // loaded for PostgreSQL only, as each SQLite driver is for SQLite only: a process on SQLite never loads pg
    const pg = createRequire(import.meta.url)('pg') as typeof Pg;
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10, connectionTimeoutMillis: opts.databaseConnectTimeoutMs ?? 10_000 });
    // A connection the server drops (restart, failover) must not end the process, idle or checked out: pg emits
    // 'error' on the client, which the pool hears only while the client is idle (a request between two statements
    // held one when bench/multi-server.ts restarted PostgreSQL, and every server died). Heard here, once, in both
    // states: the request on it fails, and the pool drops it at release (no longer queryable) and makes a new one.
    pool.on('connect', (client) => {
      client.on('error', (err) => opts.onIdleError?.(err));
      // a pooled client is a Client (PoolClient's type leaves out end())
      endOnFatal(client as unknown as Pg.Client);
    });
    pool.on('error', () => {});
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { kysely, engine: 'postgres', reads: kysely, readers: null, syncGet: null, close: () => kysely.destroy() };
  }
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const fileName = path.join(opts.dataDir, 'lectern.sqlite');
  const file = new (sqliteDriver())(fileName);
  file.pragma('journal_mode = WAL');
  file.pragma('synchronous = NORMAL');
  file.pragma('foreign_keys = ON');
  file.pragma('busy_timeout = 5000');
  const cached = withStatementCache(file);
  const kysely = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: cached }), plugins: [new YieldPlugin()] });
  // Statements of their own, prepared on the connection itself: the statement cache's proxy made a closure and
  // looked the SQL up on every call. Few (one per caller's SQL text, chapterTop's today), and bounded all the same.
  const syncStatements = new Map<string, SQLite.Statement>();
  const syncGet: SyncGet = <Row>(sql: string, parameters: readonly unknown[]) => {
    if (file.inTransaction) return null;
    let statement = syncStatements.get(sql);
    if (statement === undefined) {
      if (syncStatements.size >= 100) syncStatements.clear();
      syncStatements.set(sql, (statement = file.prepare(sql)));
    }
    return { row: statement.get(parameters) as Row | undefined };
  };
  // the threads start at their first query, after this connection has made the file WAL and migrated it
  const readers = opts.sqliteReaders ? new ReaderPool(fileName, opts.sqliteReaders) : null;
  const reads = readers ? readerKysely(readers) : kysely;
  return {
    kysely,
    engine: 'sqlite',
    reads,
    readers,
    syncGet,
    close: async () => {
      if (reads !== kysely) await reads.destroy();
      await kysely.destroy();
    },
  };
}

/**
 * A query that the server answered with a FATAL error (57P01 at a restart or failover, a backend ended by an
 * operator) leaves a connection whose socket closes a moment later. Back in the pool before pg hears the close, it
 * still looks usable, and the next request given it failed with "Connection terminated unexpectedly". Ending it
 * here marks it (`_ending`), and the pool drops such a client at release instead of keeping it.
 */
function endOnFatal(client: Pg.Client): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const result = query(...args);
    if (result instanceof Promise) {
      result.catch((err: { severity?: unknown; code?: unknown } | null) => {
        // the severity is translated where lc_messages is not English; the codes of a server going away are not
        if (err?.severity === 'FATAL' || err?.severity === 'PANIC' || /^57P0/.test(String(err?.code ?? ''))) client.end().catch(() => {});
      });
    }
    return result;
  };
}

/**
 * kysely prepares every query anew; preparing costs more than running most of ours. Statements are reusable in
 * better-sqlite3 (calls are synchronous and we never stream), so keep the prepared ones by SQL text.
 */
function withStatementCache(file: SQLite.Database, max = 1000): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = file.prepare.bind(file);
  return new Proxy(file, {
    get(target, prop, receiver) {
      if (prop !== 'prepare') {
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (sql: string) => {
        let stmt = cache.get(sql);
        if (!stmt) {
          stmt = prepare(sql);
          if (cache.size >= max) cache.delete(cache.keys().next().value!);
          cache.set(sql, stmt);
        }
        return stmt;
      };
    },
  });
}

/**
 * SQLite transactions begun IMMEDIATE (kysely's driver begins them DEFERRED): a transaction that reads, then writes,
 * beside another process's writes (the operators' command line beside the server, two imports at once) could not
 * take the write lock once its snapshot was stale and failed at once with "database is locked", whatever the
 * busy_timeout; begun IMMEDIATE, it waits for the lock as every other write does (docs/decisions.md "SQLite
 * transactions begin IMMEDIATE").
 */
class ImmediateSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver() as SqliteDriver;
    driver.beginTransaction = async (connection: DatabaseConnection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
    return driver;
  }
}
