/**
 * The plans of the console's titles screen (a page, the next page, a search for a common title prefix and a rare
 * one) on the library of bench/console-scale.ts --reuse: the SQL AdminTitlesRepository really sends (captured
 * through kysely's log), each explained by its engine (EXPLAIN QUERY PLAN on SQLite, EXPLAIN (ANALYZE, BUFFERS) on
 * PostgreSQL). For docs/performance.md.
 *
 * Usage: npx tsx bench/explain-console.ts sqlite|postgres [size=100000] [common=net] [rare=zeze]
 */
import path from 'node:path';
import { nameKey, titleSortKey } from '@lectern/core';
import { type CompiledQuery, Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { sqliteDriver } from '../packages/server/src/db/database.ts';
import type { Database } from '../packages/server/src/db/schema.ts';
import { AdminTitlesRepository, type AdminTitleFilter } from '../packages/server/src/repositories/admin-titles.ts';
import type { SearchRepository } from '../packages/server/src/repositories/search.ts';

const engine = process.argv[2] === 'postgres' ? 'postgres' : 'sqlite';
const size = Number(process.argv[3] ?? 100_000);
const common = process.argv[4] ?? 'net';
const rare = process.argv[5] ?? 'zeze';
const captured: CompiledQuery[] = [];
const log = (event: { level: string; query: CompiledQuery }) => void captured.push(event.query);
const sqliteFile = engine === 'sqlite' ? new (sqliteDriver())(path.join('/tmp/lectern-console', `sqlite-${size}`, 'lectern.sqlite'), { readonly: true }) : null;
const pool = engine === 'postgres' ? new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:5432/lectern_console_${size}` }) : null;
const db = new Kysely<Database>({ dialect: sqliteFile ? new SqliteDialect({ database: sqliteFile }) : new PostgresDialect({ pool: pool! }), log });
// the page reads no search index
const repo = new AdminTitlesRepository(db, null as unknown as SearchRepository);

async function explain(label: string, run: () => Promise<unknown>) {
  captured.length = 0;
  const started = performance.now();
  const rows = await run();
  const ms = performance.now() - started;
  const queries = [...captured];
  console.log(`\n### ${label} (${Array.isArray(rows) ? rows.length : '-'} rows, ${ms.toFixed(1)} ms run from here)`);
  for (const q of queries) {
    console.log(`\n${q.sql}\n-- ${JSON.stringify(q.parameters).slice(0, 200)}`);
    if (sqliteFile) {
      const plan = sqliteFile.prepare(`explain query plan ${q.sql}`).all(...(q.parameters as unknown[])) as { detail: string }[];
      for (const r of plan) console.log(`   ${r.detail}`);
    } else {
      const { rows: plan } = await pool!.query(`explain (analyze, buffers) ${q.sql}`, q.parameters as unknown[]);
      for (const r of plan as { 'QUERY PLAN': string }[]) console.log(`   ${r['QUERY PLAN']}`);
    }
  }
}

const search = (words: string): Omit<AdminTitleFilter, 'limit' | 'state'> => ({ titlePrefix: titleSortKey(words), authorPrefix: nameKey(words), bookId: words });
const first = await repo.page({ state: 'active', limit: 50 });
const last = first[49]!;
await explain('titles, first page', () => repo.page({ state: 'active', limit: 50 }));
await explain('titles, page 2', () => repo.page({ state: 'active', limit: 50, after: { sortTitle: last.sort_title, id: last.id } }));
for (const words of [common, rare]) {
  await explain(`titles, search ${words}`, () => repo.page({ ...search(words), state: 'active', limit: 50 }));
  const p1 = await repo.page({ ...search(words), state: 'active', limit: 50 });
  const end = p1[49];
  if (end) await explain(`titles, search ${words}, page 2`, () => repo.page({ ...search(words), state: 'active', limit: 50, after: { sortTitle: end.sort_title, id: end.id } }));
}
await db.destroy();
