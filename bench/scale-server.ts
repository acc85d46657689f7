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
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Fastify from 'fastify';
import { buildApp } from '../packages/server/src/app.ts';
import { loadConfig } from '../packages/server/src/config.ts';

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

const config = loadConfig({}, { dataDir: process.env.DATA_DIR!, databaseUrl: process.env.DATABASE_URL || null, logLevel: 'silent', webDist: null });
const lectern = await buildApp(config);
await anchor.listen({ port: 0, host: '127.0.0.1' });
await lectern.app.listen({ port: 0, host: '127.0.0.1' });
const portOf = (a: ReturnType<typeof anchor.server.address>) => (typeof a === 'object' && a ? a.port : 0);
console.log(JSON.stringify({ anchorPort: portOf(anchor.server.address()), appPort: portOf(lectern.app.server.address()) }));
