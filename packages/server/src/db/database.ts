/**
 * The kysely factory: SQLite (better-sqlite3, WAL) in DATA_DIR by default, PostgreSQL when DATABASE_URL is set.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';
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
  close(): Promise<void>;
}

export function openDatabase(opts: {
  databaseUrl: string | null;
  dataDir: string;
  /** a server that accepts the connection and never answers (a firewall, a hung host) must not hang the start */
  databaseConnectTimeoutMs?: number;
  onIdleError?: (err: Error) => void;
}): Db {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10, connectionTimeoutMillis: opts.databaseConnectTimeoutMs ?? 10_000 });
    // An idle connection that the server drops (restart, failover) must not crash the process: the pool
    // replaces it on the next query.
    pool.on('error', (err) => opts.onIdleError?.(err));
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { kysely, engine: 'postgres', close: () => kysely.destroy() };
  }
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const file = new (sqliteDriver())(path.join(opts.dataDir, 'lectern.sqlite'));
  file.pragma('journal_mode = WAL');
  file.pragma('synchronous = NORMAL');
  file.pragma('foreign_keys = ON');
  file.pragma('busy_timeout = 5000');
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(file) }), plugins: [new YieldPlugin()] });
  return { kysely, engine: 'sqlite', close: () => kysely.destroy() };
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
