/**
 * HTTP benchmark: requests/s and p99 latency of a bare Fastify route (the anchor) and of Lectern's routes, measured
 * in one run on the same machine, each printed with its ratio to the anchor. Also reports how long importing the
 * whole sample library takes. Usage: npm run bench [-- --duration 10 --connections 10]
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const { values } = parseArgs({ options: { duration: { type: 'string', default: '8' }, connections: { type: 'string', default: '10' } } });
const duration = Number(values.duration);
const connections = Number(values.connections);

const root = path.resolve(import.meta.dirname, '..');
const child = spawn(process.execPath, ['--import', 'tsx', 'bench/servers.ts'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
const info = await new Promise<{
  anchorPort: number;
  appPort: number;
  cookie: string;
  chapterUrl: string;
  chapterBytes: number;
  importMs: number;
  imported: string[];
  failed: unknown[];
}>((resolve, reject) => {
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    const line = out.split('\n').find((l) => l.startsWith('{'));
    if (line) resolve(JSON.parse(line));
  });
  child.on('exit', (code) => reject(new Error(`bench servers exited with ${code}`)));
});

async function measure(name: string, url: string, headers: Record<string, string> = {}) {
  // A short warm-up so JIT and caches are in the same state for every route.
  await autocannon({ url, connections, duration: 2, headers });
  const r = await autocannon({ url, connections, duration, headers });
  if (r.non2xx || r.errors) throw new Error(`${name}: ${r.non2xx} non-2xx responses, ${r.errors} errors`);
  return { name, rps: r.requests.average, p99: r.latency.p99 };
}

try {
  const anchorUrl = `http://127.0.0.1:${info.anchorPort}/bare`;
  const app = `http://127.0.0.1:${info.appPort}`;
  const results = [
    await measure('bare Fastify route (anchor)', anchorUrl),
    await measure('catalog page GET /api/v1/book/?page_size=24', `${app}/api/v1/book/?page_size=24`),
    await measure(`chapter fetch, signed in (${info.chapterBytes} bytes JSON)`, `${app}${info.chapterUrl}`, { cookie: info.cookie }),
  ];
  const anchor = results[0]!.rps;
  console.log(`\nLectern HTTP benchmark — ${new Date().toISOString()} — ${duration}s x ${connections} connections per route, node ${process.version}`);
  console.log('| route | requests/s | p99 ms | ratio to anchor |');
  console.log('|---|---:|---:|---:|');
  for (const r of results) console.log(`| ${r.name} | ${Math.round(r.rps)} | ${r.p99} | ${(r.rps / anchor).toFixed(2)} |`);
  console.log(`\nsample library import: ${info.importMs} ms for ${info.imported.length} books (${info.imported.join('; ')})`);
  if (info.failed.length) console.log('import failures:', info.failed);
} finally {
  child.kill('SIGTERM');
}
