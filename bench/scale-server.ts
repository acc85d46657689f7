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

// STATEMENT_TIMES=file: the time each SQL text took on this process's own SQLite connection (the event loop's; the
// reader threads' are not counted), written there at SIGTERM, the most first: which statements still hold the loop.
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
  process.on('SIGTERM', () => {
    const top = [...times].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25);
    fs.writeFileSync(process.env.STATEMENT_TIMES!, top.map(([sql, t]) => `${t.ms.toFixed(0)} ms, ${t.n} runs, max ${t.max.toFixed(1)} ms: ${sql.replace(/\s+/g, ' ').slice(0, 300)}`).join('\n') + '\n');
    process.exit(0);
  });
}

const config = loadConfig({}, { dataDir: process.env.DATA_DIR!, databaseUrl: process.env.DATABASE_URL || null, logLevel: 'silent', webDist: null });
const lectern = await buildApp(config);
await anchor.listen({ port: 0, host: '127.0.0.1' });
await lectern.app.listen({ port: 0, host: '127.0.0.1' });
const portOf = (a: ReturnType<typeof anchor.server.address>) => (typeof a === 'object' && a ? a.port : 0);
console.log(JSON.stringify({ anchorPort: portOf(anchor.server.address()), appPort: portOf(lectern.app.server.address()) }));
