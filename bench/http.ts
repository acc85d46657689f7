/**
 * HTTP benchmark: requests/s and p99 latency of Lectern's routes against a bare Fastify route (the anchor:
 * `GET /bare` answering {"hello":"world"}) served from the same process, on the same machine, in the same run.
 * For each route, anchor and route runs alternate (anchor then route, route then anchor, ...) for `--rounds`
 * rounds; each round gives one ratio (route requests/s / anchor requests/s of the same round) and the bench prints
 * the median ratio and its range (min-max). Load elsewhere on the machine hits both sides of a pair alike.
 * Beside it, the servers' CPU time per request (from /proc) as anchor/route: what the route costs the server,
 * which other work on the machine moves much less than it moves throughput.
 *
 * Usage: npm run bench [-- --duration 2 --connections 10 --rounds 7 --only chapter,304 --cpu-prof dir]
 *   --only       run the routes whose key contains one of these words (keys: catalog, floor, pipeline, chapter, chapter-identity, block, list, 304, metadata, annotations)
 *   --cpu-prof   profile mode: start the servers with `node --cpu-prof --cpu-prof-dir=dir` and load only the chosen
 *                routes, no anchor and no ratios (then read the profile with bench/cpu-top.ts)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CLIENT_METADATA_FIELDS } from '@lectern/core';
import autocannon from 'autocannon';
import type { BenchInfo } from './servers.ts';
import { median, summary } from './stats.ts';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '7' },
    only: { type: 'string' },
    'cpu-prof': { type: 'string' },
  },
});
const duration = Number(values.duration);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
if (rounds < 5) console.warn('fewer than 5 rounds: the figures are not for docs/performance.md');

const root = path.resolve(import.meta.dirname, '..');
const profile = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(values['cpu-prof'])}`] : [];
const child = spawn(process.execPath, [...profile, '--import', 'tsx', 'bench/servers.ts'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
const info = await new Promise<BenchInfo>((resolve, reject) => {
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    const line = out.split('\n').find((l) => l.startsWith('{'));
    if (line) resolve(JSON.parse(line));
  });
  child.on('exit', (code) => reject(new Error(`bench servers exited with ${code}`)));
});

interface Target {
  key: string;
  name: string;
  url: string;
  headers?: Record<string, string>;
  method?: 'GET' | 'POST';
  body?: string;
  expect?: number;
  budget?: number;
}

/** CPU seconds the servers' process has used so far (user + system, from /proc; Linux clock ticks of 10 ms). */
function serverCpu(): number {
  const fields = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function run(t: Target, seconds: number) {
  const cpuBefore = serverCpu();
  const r = await autocannon({ url: t.url, connections, headers: t.headers ?? {}, method: t.method ?? 'GET', body: t.body, duration: seconds });
  const expected = t.expect ?? 200;
  const ok = r.statusCodeStats?.[String(expected) as '200']?.count ?? 0;
  if (r.errors || ok !== r.requests.total) throw new Error(`${t.url}: ${r.requests.total - ok} answers other than ${expected}, ${r.errors} errors`);
  return { rps: r.requests.average, p99: r.latency.p99, cpuPerRequest: (serverCpu() - cpuBefore) / r.requests.total };
}

const app = `http://127.0.0.1:${info.appPort}`;
/** What Chromium sends on every fetch. */
const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br, zstd';
const anchor: Target = { key: 'anchor', name: 'anchor', url: `http://127.0.0.1:${info.anchorPort}/bare` };
const signedIn = { cookie: info.cookie };
const posting = { cookie: info.cookie, 'x-csrftoken': info.csrfToken, 'content-type': 'application/json' };
const targets: Target[] = [
  { key: 'catalog', name: 'catalog page GET /api/v1/book/?page_size=24', url: `${app}/api/v1/book/?page_size=24` },
  { key: 'catalog-signed-in', name: 'catalog page, signed in (continue_url, progress)', url: `${app}/api/v1/book/?page_size=24`, headers: signedIn },
  {
    key: 'floor',
    name: 'floor: the bare server sending the chapter answer (same bytes, same headers), no work',
    url: `http://127.0.0.1:${info.anchorPort}/floor`,
  },
  {
    key: 'pipeline',
    name: "Lectern's request hooks alone: a bench-only route on the app sending the chapter answer, no work",
    url: `${app}/bench-floor`,
    headers: signedIn,
  },
  // A browser asks with Accept-Encoding and gets the chapter's brotli bytes (made once per cache lifetime).
  {
    key: 'chapter',
    name: `chapter GET /api/v1/book/{id}/chapter/{path}, signed in, as a browser asks (${info.chapterBytes} bytes JSON, sent brotli)`,
    url: `${app}${info.chapterUrl}`,
    headers: { ...signedIn, 'accept-encoding': BROWSER_ACCEPT_ENCODING },
    budget: 0.6,
  },
  {
    key: 'chapter-identity',
    name: `chapter GET, signed in, a client that takes no compression (${info.chapterBytes} bytes JSON)`,
    url: `${app}${info.chapterUrl}`,
    headers: signedIn,
  },
  {
    key: 'block',
    name: `chapter block POST /nest/epub/block/, signed in (encrypted, ${info.blockBytes} bytes JSON)`,
    url: `${app}/nest/epub/block/`,
    headers: posting,
    method: 'POST',
    body: JSON.stringify({ book_id: info.blockBookId, hrefs: [info.blockHref] }),
  },
  { key: 'list', name: 'GET /api/v2/collections/ (50 playlists x 100 items)', url: `${app}/api/v2/collections/`, headers: signedIn },
  {
    key: '304',
    name: 'GET /api/v2/collections/ with If-None-Match (304)',
    url: `${app}/api/v2/collections/`,
    headers: { ...signedIn, 'if-none-match': info.etag },
    expect: 304,
    budget: 0.5,
  },
  {
    key: 'metadata',
    name: "POST /api/v1/metadata/ (50 urls, the web client's fields=)",
    url: `${app}/api/v1/metadata/?fields=${CLIENT_METADATA_FIELDS}`,
    headers: posting,
    method: 'POST',
    body: JSON.stringify({ urls: info.metadataUrls }),
    budget: 0.15,
  },
  {
    key: 'annotations',
    name: 'annotation store GET {prefix}/search?limit=1000, a chapter holding 1,000 annotations (token header)',
    url: `${app}${info.annotationSearchUrl}`,
    headers: { 'x-annotator-auth-token': info.annotationToken },
  },
];
const only = values.only?.split(',');
const chosen = only ? [anchor, ...targets].filter((t) => only.some((o) => t.key.includes(o))) : targets;

try {
  if (profile.length) {
    for (const t of chosen) console.log(`${t.key}: ${Math.round((await run(t, duration)).rps)} requests/s (profiled)`);
  } else await compare();
} finally {
  child.kill('SIGTERM');
}

async function compare() {
  const rows: string[] = [];
  for (const t of chosen) {
    // A warm-up of each side, so JIT and caches are in the same state for every round.
    await run(anchor, 1);
    await run(t, 1);
    const ratios: number[] = [];
    const cpuRatios: number[] = [];
    const appRps: number[] = [];
    const anchorRps: number[] = [];
    const p99s: number[] = [];
    for (let round = 0; round < rounds; round++) {
      // Alternate the order within the pair too, so a drift in load over the pair does not favour one side.
      const first = round % 2 === 0 ? anchor : t;
      const a = await run(first, duration);
      const b = await run(first === anchor ? t : anchor, duration);
      const [anchorRun, appRun] = first === anchor ? [a, b] : [b, a];
      ratios.push(appRun.rps / anchorRun.rps);
      cpuRatios.push(anchorRun.cpuPerRequest / appRun.cpuPerRequest);
      appRps.push(appRun.rps);
      anchorRps.push(anchorRun.rps);
      p99s.push(appRun.p99);
    }
    const budget = t.budget === undefined ? '—' : `≥ ${t.budget.toFixed(2)}: ${median(ratios) >= t.budget ? 'met' : 'NOT MET'}`;
    rows.push(
      `| ${t.name} | ${Math.round(median(appRps))} | ${median(p99s)} | ${Math.round(median(anchorRps))} | **${summary(ratios)}** | ${summary(cpuRatios)} | ${budget} |`,
    );
    console.error(`${t.key}: ratios ${ratios.map((r) => r.toFixed(2)).join(' ')}; server CPU ratios ${cpuRatios.map((r) => r.toFixed(2)).join(' ')}`);
  }
  console.log(
    `\nLectern HTTP benchmark — ${new Date().toISOString()} — ${rounds} rounds of ${duration} s, ${connections} connections, ` +
      `anchor and route alternating; node ${process.version}`,
  );
  console.log(
    '| route | requests/s (median) | p99 ms (median) | anchor requests/s (median) | ratio to anchor: median (min-max) | server CPU per request, anchor/route: median (min-max) | budget (on the ratio) |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---|');
  for (const row of rows) console.log(row);
}
