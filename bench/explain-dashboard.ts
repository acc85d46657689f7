/**
 * The console dashboard's statements on the library of bench/console-scale.ts --reuse, each timed alone and
 * explained (EXPLAIN QUERY PLAN on SQLite, EXPLAIN (ANALYZE, BUFFERS) on PostgreSQL), for a range of `days` ending
 * today; then `--runs` dashboards in a row through the real service (its closed days read once, then kept), timed
 * one at a time: the server-side time of a request without the others' queueing. For docs/performance.md.
 *
 * Usage: npx tsx bench/explain-dashboard.ts sqlite|postgres [days=30] [runs=20] [--plans]
 */
import path from 'node:path';
import { type CompiledQuery, Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { sqliteDriver } from '../packages/server/src/db/database.ts';
import type { Database } from '../packages/server/src/db/schema.ts';
import { AdminDashboardRepository } from '../packages/server/src/repositories/admin-dashboard.ts';
import { AuditRepository } from '../packages/server/src/repositories/audit.ts';
import { AuditLog } from '../packages/server/src/services/admin-audit.ts';
import { AdminDashboardService, JobRuns, RecentErrors } from '../packages/server/src/services/admin-dashboard.ts';
import { summary } from './stats.ts';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const engine = args[0] === 'postgres' ? 'postgres' : 'sqlite';
const days = Number(args[1] ?? 30);
const runs = Number(args[2] ?? 20);
const plans = process.argv.includes('--plans');
const captured: CompiledQuery[] = [];
let capture = false;
const log = (event: { query: CompiledQuery }) => void (capture && captured.push(event.query));
const sqliteFile = engine === 'sqlite' ? new (sqliteDriver())(path.join('/tmp/lectern-console', 'sqlite-100000', 'lectern.sqlite'), { readonly: true }) : null;
const pool = engine === 'postgres' ? new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/lectern_console_100000' }) : null;
const db = new Kysely<Database>({ dialect: sqliteFile ? new SqliteDialect({ database: sqliteFile }) : new PostgresDialect({ pool: pool! }), log });
const audit = new AuditLog(new AuditRepository(db), async () => new Map());
const health = { version: 'bench', engine, contentRoot: '/nonexistent', importQueue: () => ({ running: 0, waiting: 0 }), errors: new RecentErrors(), jobs: new JobRuns(), lastRunsAnywhere: async () => new Map<string, string>() } as const;
const service = () => new AdminDashboardService(new AdminDashboardRepository(db, engine), audit, health);
const today = new Date();
const day = (d: Date) => d.toISOString().slice(0, 10);
const range = { from: day(new Date(today.getTime() - (days - 1) * 86_400_000)), to: day(today) };

// each statement of a cold dashboard (no closed days kept), timed alone
capture = true;
await service().dashboard(range);
capture = false;
const statements = [...captured];
console.log(`${engine}, ${days} days (${range.from} .. ${range.to}): ${statements.length} statements, each alone`);
for (const q of statements) {
  const t = performance.now();
  if (sqliteFile) sqliteFile.prepare(q.sql).all(...(q.parameters as unknown[]));
  else await pool!.query(q.sql, q.parameters as unknown[]);
  console.log(`\n${(performance.now() - t).toFixed(1)} ms  ${q.sql.replace(/\s+/g, ' ').slice(0, 240)}`);
  if (!plans) continue;
  if (sqliteFile) for (const r of sqliteFile.prepare(`explain query plan ${q.sql}`).all(...(q.parameters as unknown[])) as { detail: string }[]) console.log(`   ${r.detail}`);
  else for (const r of (await pool!.query(`explain (analyze, buffers) ${q.sql}`, q.parameters as unknown[])).rows as { 'QUERY PLAN': string }[]) console.log(`   ${r['QUERY PLAN']}`);
}

// a running server: the first view reads the closed days, the next ones only today
const s = service();
const times: number[] = [];
for (let i = 0; i < runs; i++) {
  const t = performance.now();
  await s.dashboard(range);
  times.push(performance.now() - t);
}
const sorted = [...times].sort((a, b) => a - b);
console.log(`\n${runs} dashboards in a row, one at a time: first ${times[0]!.toFixed(1)} ms; the rest ${summary(times.slice(1), 1)} ms (median (range)), p99 ${sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!.toFixed(1)} ms`);
// a warm request's statements (today's only), each alone
captured.length = 0;
capture = true;
await s.dashboard(range);
capture = false;
console.log('\na warm request: its statements, each alone');
for (const q of [...captured]) {
  const t = performance.now();
  if (sqliteFile) sqliteFile.prepare(q.sql).all(...(q.parameters as unknown[]));
  else await pool!.query(q.sql, q.parameters as unknown[]);
  console.log(`${(performance.now() - t).toFixed(1)} ms  ${q.sql.replace(/\s+/g, ' ').slice(0, 160)}`);
}
await db.destroy();
