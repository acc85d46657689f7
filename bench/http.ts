/**
 * HTTP benchmark: requests/s and p99 latency of a bare Fastify route (the anchor) and of Lectern's routes, measured
 * in one run on the same machine, each printed with its ratio to the anchor. Also reports how long importing the
 * whole sample library takes. Usage: npm run bench [-- --duration 4 --connections 10 --rounds 3]
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CLIENT_METADATA_FIELDS } from '@lectern/core';
import autocannon from 'autocannon';

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '4' }, connections: { type: 'string', default: '10' }, rounds: { type: 'string', default: '3' } },
});
const duration = Number(values.duration);
const rounds = Number(values.rounds);
const connections = Number(values.connections);

const root = path.resolve(import.meta.dirname, '..');
const child = spawn(process.execPath, ['--import', 'tsx', 'bench/servers.ts'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
const info = await new Promise<{
  anchorPort: number;
  appPort: number;
  cookie: string;
  chapterUrl: string;
  chapterBytes: number;
  etag: string;
  csrfToken: string;
  metadataUrls: string[];
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

async function measure(url: string, headers: Record<string, string> = {}, extra: { method?: 'POST'; body?: string; expect?: number } = {}) {
  const opts = { url, connections, headers, method: extra.method ?? 'GET', body: extra.body } as const;
  // A short warm-up so JIT and caches are in the same state for every route.
  await autocannon({ ...opts, duration: 1 });
  const r = await autocannon({ ...opts, duration });
  const expected = extra.expect ?? 200;
  const ok = r.statusCodeStats?.[String(expected) as '200']?.count ?? (expected === 200 ? r['2xx'] : 0);
  if (r.errors || ok !== r.requests.total) throw new Error(`${url}: ${r.requests.total - ok} answers other than ${expected}, ${r.errors} errors`);
  return { rps: r.requests.average, p99: r.latency.p99 };
}

try {
  const anchorUrl = `http://127.0.0.1:${info.anchorPort}/bare`;
  const app = `http://127.0.0.1:${info.appPort}`;
  const routes: [string, () => Promise<{ rps: number; p99: number }>][] = [
    ['catalog page GET /api/v1/book/?page_size=24', () => measure(`${app}/api/v1/book/?page_size=24`)],
    ['catalog page, signed in (continue_url, progress)', () => measure(`${app}/api/v1/book/?page_size=24`, { cookie: info.cookie })],
    [`chapter fetch, signed in (${info.chapterBytes} bytes JSON)`, () => measure(`${app}${info.chapterUrl}`, { cookie: info.cookie })],
    ['GET /api/v2/collections/ (50 playlists x 100 items)', () => measure(`${app}/api/v2/collections/`, { cookie: info.cookie })],
    [
      'GET /api/v2/collections/ with If-None-Match (304)',
      () => measure(`${app}/api/v2/collections/`, { cookie: info.cookie, 'if-none-match': info.etag }, { expect: 304 }),
    ],
    [
      "POST /api/v1/metadata/ (50 urls, the web client's fields=)",
      () =>
        measure(
          `${app}/api/v1/metadata/?fields=${CLIENT_METADATA_FIELDS}`,
          { cookie: info.cookie, 'x-csrftoken': info.csrfToken, 'content-type': 'application/json' },
          { method: 'POST', body: JSON.stringify({ urls: info.metadataUrls }) },
        ),
    ],
  ];
  // Each route is measured right after its own anchor run, several rounds over; the ratio reported is the median
  // of the rounds, so a burst of load elsewhere on the machine skews one pair, not the figure.
  const rows: { name: string; rps: number; p99: number; anchor: number; ratio: number }[] = [];
  for (const [name, run] of routes) {
    const pairs: { rps: number; p99: number; anchor: number }[] = [];
    for (let round = 0; round < rounds; round++) {
      const anchor = await measure(anchorUrl);
      const r = await run();
      pairs.push({ ...r, anchor: anchor.rps });
    }
    pairs.sort((a, b) => a.rps / a.anchor - b.rps / b.anchor);
    const mid = pairs[Math.floor(pairs.length / 2)]!;
    rows.push({ name, ...mid, ratio: mid.rps / mid.anchor });
  }
  console.log(`\nLectern HTTP benchmark — ${new Date().toISOString()} — ${duration}s x ${connections} connections, median of ${rounds} anchor/route pairs, node ${process.version}`);
  console.log('| route | requests/s | p99 ms | anchor requests/s (same round) | ratio to anchor |');
  console.log('|---|---:|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.name} | ${Math.round(r.rps)} | ${r.p99} | ${Math.round(r.anchor)} | ${r.ratio.toFixed(2)} |`);
  console.log(`\nsample library import: ${info.importMs} ms for ${info.imported.length} books (${info.imported.join('; ')})`);
  if (info.failed.length) console.log('import failures:', info.failed);
} finally {
  child.kill('SIGTERM');
}
