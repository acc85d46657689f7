/**
 * The scale bench's servers (bench/library-scale.ts): Lectern (buildApp, as main.ts builds it) on an already
 * generated database, and in the same process the bare-Fastify anchor with a bench-only `/event-loop` answer: the
 * event-loop delay of this process (perf_hooks.monitorEventLoopDelay, 1 ms resolution) since the last ask, then
 * reset; and `/memory`: this process's memory as Node counts it (rss, heap used and total, external, array buffers, in
 * MB), to tell the JavaScript heap from native memory (SQLite's page cache, pg's buffers) in the RSS the load bench
 * reads from /proc. Nothing of this ships: it exists only in this bench process. Prints one JSON line with the ports.
 *
 * Env: DATA_DIR (SQLite) or DATABASE_URL (PostgreSQL).
 */
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Fastify from 'fastify';
import { buildApp } from '../packages/server/src/app.ts';
import { loadConfig } from '../packages/server/src/config.ts';
import { sqliteDriver } from '../packages/server/src/db/database.ts';

process.on('SIGTERM', () => process.exit(0));

const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
const anchor = Fastify({ logger: false });
anchor.get('/bare', async () => ({ hello: 'world' }));
anchor.get('/event-loop', async () => {
  const ms = (ns: number) => Math.round(ns / 1e4) / 100;
  const answer = { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max), samples: delay.count };
  delay.reset();
  return answer;
});

anchor.get('/memory', async () => {
  const mb = (n: number) => Math.round(n / 1e4) / 100;
  const m = process.memoryUsage();
  return { rss: mb(m.rss), heapUsed: mb(m.heapUsed), heapTotal: mb(m.heapTotal), external: mb(m.external), arrayBuffers: mb(m.arrayBuffers) };
});

// STATEMENT_TIMES=prefix: the time each SQL text took on this process's own SQLite connection (the event loop's; the
// reader threads' are not counted), written to prefix.<pid>.txt at SIGTERM, the most first, with how many statements
// held the loop 10, 50 and 100 ms or more: which statements still hold the loop.
if (process.env.STATEMENT_TIMES) {
  const Driver = sqliteDriver();
  const proto = Object.getPrototypeOf(new Driver(':memory:').prepare('select 1')) as Record<string, (...args: unknown[]) => unknown>;
  const times = new Map<string, { ms: number; n: number; max: number }>();
  for (const name of ['all', 'get', 'run', 'iterate']) {
    const original = proto[name]!;
    proto[name] = function (this: { source: string }, ...args: unknown[]) {
      const start = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        const ms = performance.now() - start;
        const t = times.get(this.source) ?? { ms: 0, n: 0, max: 0 };
        times.set(this.source, { ms: t.ms + ms, n: t.n + 1, max: Math.max(t.max, ms) });
      }
    };
  }
  process.removeAllListeners('SIGTERM');
  // how many statements held the loop for at least this long (ms): the stalls a cheap request can wait behind
  const over = [10, 50, 100];
  const stalls = over.map(() => 0);
  for (const name of ['all', 'get', 'run', 'iterate']) {
    const timed = proto[name]!;
    proto[name] = function (this: unknown, ...args: unknown[]) {
      const start = performance.now();
      try {
        return timed.apply(this, args);
      } finally {
        const ms = performance.now() - start;
        over.forEach((limit, i) => ms >= limit && stalls[i]!++);
      }
    };
  }
  process.removeAllListeners('SIGTERM');
  process.on('SIGTERM', () => {
    const top = [...times].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25);
    const all = [...times.values()].reduce((a, t) => ({ ms: a.ms + t.ms, n: a.n + t.n }), { ms: 0, n: 0 });
    // one file per server (a bench with --against runs two): named by pid, headed by the settings that differ
    const settings = ['SEARCH_THREADS', 'HEAVY_REQUESTS', 'LISTING_REQUESTS'].map((k) => `${k}=${process.env[k] ?? ''}`).join(' ');
    const head = `${settings}: ${all.n} statements on the main connection, ${all.ms.toFixed(0)} ms; ${over.map((limit, i) => `${stalls[i]} of ${limit} ms or more`).join(', ')}`;
    const lines = top.map(([sql, t]) => `${t.ms.toFixed(0)} ms, ${t.n} runs, max ${t.max.toFixed(1)} ms: ${sql.replace(/\s+/g, ' ').slice(0, 300)}`);
    fs.writeFileSync(`${process.env.STATEMENT_TIMES}.${process.pid}.txt`, [head, ...lines].join('\n') + '\n');
    process.exit(0);
  });
}

// The settings a bench compares (--against NAME=value) come from this process's environment; loadConfig({}) alone
// dropped them, so until 2026-11-28 both servers of an --against run had the same settings.
const SETTINGS = /^(HEAVY_REQUESTS|HEAVY_REQUESTS_QUEUE|HEAVY_REQUESTS_WAIT_SECONDS|LISTING_REQUESTS|SEARCH_THREADS)$/;
const settings = Object.fromEntries(Object.entries(process.env).filter(([k]) => SETTINGS.test(k)));
const config = loadConfig(settings, { dataDir: process.env.DATA_DIR!, databaseUrl: process.env.DATABASE_URL || null, logLevel: 'silent', webDist: null });
const lectern = await buildApp(config);
await anchor.listen({ port: 0, host: '127.0.0.1' });
await lectern.app.listen({ port: 0, host: '127.0.0.1' });
const portOf = (a: ReturnType<typeof anchor.server.address>) => (typeof a === 'object' && a ? a.port : 0);
console.log(JSON.stringify({ anchorPort: portOf(anchor.server.address()), appPort: portOf(lectern.app.server.address()) }));
// what this server runs with, so a run's log shows that its two servers differ as asked
console.error(`[scale-server] heavy ${lectern.services.heavyRequests.concurrency}, listing ${lectern.services.listingRequests.concurrency}, reader threads ${lectern.db.readers?.size ?? 0}`);
