/**
 * HTTP benchmark: requests/s and p99 latency of Lectern's routes against a bare Fastify server (the anchor), each in
 * a process of its own (bench/servers.ts and bench/anchor.ts), on the same machine, in the same run. A route's
 * anchor is `GET /bare` answering {"hello":"world"}, or, for the reader's block request, the bare server sending
 * Lectern's exact answer to that same request (same bytes, same headers) with no work. The block requests are the
 * reader's own, as Chromium sent them (bench/reader-requests.json, checked against the reader by
 * e2e/reader-requests.e2e.ts); the cold row sends each request as another reader for another chapter.
 * For each route, anchor and route runs alternate (anchor then route, route then anchor, ...) for `--rounds`
 * rounds; each round gives one ratio (route requests/s / anchor requests/s of the same round) and the bench prints
 * the median ratio and its range (min-max). Load elsewhere on the machine hits both sides of a pair alike.
 * Beside it, the servers' CPU time per request (from /proc) as anchor/route: what the route costs the server,
 * which other work on the machine moves much less than it moves throughput.
 *
 * The load comes from `--clients` processes of their own (bench/load-client.ts), the connections shared among them,
 * so that the client side is not what limits a fast server; the table's "server busy" (the server's CPU seconds per
 * second of the run) says whether it was: near 1.0, the server's one event loop was saturated.
 *
 * Usage: npm run bench [-- --duration 2 --connections 10 --clients 2 --pipelining 1 --rounds 7 --only chapter,304 --cpu-prof dir]
 *   --only       run the routes whose key contains one of these words (keys: catalog, floor, pipeline, chapter,
 *                chapter-identity, block, block-cold, list, 304, metadata, annotations)
 *   --cpu-prof   profile mode: start Lectern with `node --cpu-prof --cpu-prof-dir=dir` and load only the chosen
 *                routes, no anchor and no ratios (then read the profile with bench/cpu-top.ts)
 */
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CLIENT_METADATA_FIELDS } from '@lectern/core';
import type { ClientResult, ClientRun } from './load-client.ts';
import { startJsonProcess } from './replay.ts';
import type { BenchInfo } from './servers.ts';
import { median, summary } from './stats.ts';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    clients: { type: 'string', default: '2' },
    pipelining: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '7' },
    only: { type: 'string' },
    'cpu-prof': { type: 'string' },
  },
});
const duration = Number(values.duration);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const clientCount = Number(values.clients);
const pipelining = Number(values.pipelining);
if (rounds < 5) console.warn('fewer than 5 rounds: the figures are not for docs/performance.md');

const profile = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(values['cpu-prof'])}`] : [];
const lectern = await startJsonProcess<BenchInfo>('bench/servers.ts', [], profile);
const info = lectern.info;
const anchorProcess = await startJsonProcess<{ anchorPort: number }>('bench/anchor.ts', ['--answers', info.anchorAnswersFile]);
/** The load generators: processes of their own, loading the server together (bench/load-client.ts). */
const clients = await Promise.all(
  Array.from({ length: clientCount }, () => {
    const child = fork(path.join(import.meta.dirname, 'load-client.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    return new Promise<ChildProcess>((resolve, reject) => {
      child.once('message', () => resolve(child));
      child.once('exit', (code) => reject(new Error(`bench/load-client.ts exited with ${code}`)));
    });
  }),
);

interface Target {
  key: string;
  name: string;
  url: string;
  headers?: Record<string, string>;
  method?: 'GET' | 'POST';
  body?: string;
  /** one request after another from this list, round and round (the cold case) */
  sequence?: { headers: Record<string, string>; body: string }[];
  expect?: number;
  budget?: number;
  /** what the route is measured against; the hello anchor unless said */
  anchor?: Target;
}

/** CPU seconds a process has used so far (user + system, from /proc; Linux clock ticks of 10 ms). */
function cpuOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function run(t: Target, seconds: number) {
  const pid = t.url.startsWith(anchorBase) ? anchorProcess.child.pid! : lectern.child.pid!;
  const cpuBefore = cpuOf(pid);
  const from = process.hrtime.bigint() / 1000n;
  const started = performance.now();
  // The connections shared out among the clients; in the cold case each connection starts at another place of the
  // sequence, so that no two send the same reader's same chapter at the same moment.
  let firstConnection = 0;
  const results = await Promise.all(
    clients.map((client, i) => {
      const share = Math.max(1, Math.floor(connections / clients.length) + (i < connections % clients.length ? 1 : 0));
      const mine = Array.from({ length: share }, (_, j) => firstConnection + j);
      firstConnection += share;
      const job: ClientRun = {
        url: t.url,
        method: t.method ?? 'GET',
        headers: t.headers ?? {},
        body: t.body,
        sequence: t.sequence,
        offsets: t.sequence ? mine.map((k) => Math.floor((k * t.sequence!.length) / Math.max(connections, clients.length))) : [],
        connections: share,
        seconds,
        pipelining,
      };
      return new Promise<ClientResult>((resolve) => {
        client.once('message', (m: ClientResult) => resolve(m));
        client.send(job);
      });
    }),
  );
  const wall = (performance.now() - started) / 1000;
  const cpu = cpuOf(pid) - cpuBefore;
  const expected = String(t.expect ?? 200);
  const total = results.reduce((n, r) => n + r.total, 0);
  const ok = results.reduce((n, r) => n + (r.statuses[expected] ?? 0), 0);
  const errors = results.reduce((n, r) => n + r.errors, 0);
  if (errors || ok !== total) throw new Error(`${t.url}: ${total - ok} answers other than ${expected}, ${errors} errors`);
  const window = `${from}-${process.hrtime.bigint() / 1000n}`;
  return {
    rps: total / seconds,
    p99: Math.max(...results.map((r) => r.p99)),
    cpuPerRequest: cpu / total,
    /** the server's CPU over the run's wall time: near 1, its one event loop was the limit, not the clients */
    busy: cpu / wall,
    window,
  };
}

const app = `http://127.0.0.1:${info.appPort}`;
const anchorBase = `http://127.0.0.1:${anchorProcess.info.anchorPort}`;
/** What Chromium sends on every fetch over HTTPS (the chapter rows; the block rows send what the reader sent). */
const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br, zstd';
const helloAnchor: Target = { key: 'anchor', name: 'anchor', url: `${anchorBase}/bare` };
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const coldBytes = info.cold.map((c) => c.bytes).sort((a, b) => a - b);
/** The block request as the reader sends it, to Lectern or to the anchor (which sends Lectern's answer back). */
const blockTo = (base: string): Pick<Target, 'url' | 'method' | 'headers' | 'body'> => ({
  url: `${base}${info.block.path}`,
  method: info.block.method as 'POST',
  headers: info.block.headers,
  body: info.block.body,
});
const coldTo = (base: string): Pick<Target, 'url' | 'method' | 'sequence'> => ({ url: `${base}${info.block.path}`, method: 'POST', sequence: info.cold });
const signedIn = { cookie: info.cookie };
const posting = { cookie: info.cookie, 'x-csrftoken': info.csrfToken, 'content-type': 'application/json' };
const targets: Target[] = [
  { key: 'catalog', name: 'catalog page GET /api/v1/book/?page_size=24', url: `${app}/api/v1/book/?page_size=24` },
  { key: 'catalog-signed-in', name: 'catalog page, signed in (continue_url, progress)', url: `${app}/api/v1/book/?page_size=24`, headers: signedIn },
  {
    key: 'floor',
    name: 'floor: the bare server sending the chapter answer (same bytes, same headers), no work',
    url: `${anchorBase}/floor`,
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
    name: `the reader's chapter request POST /nest/epub/block/ as Chromium sends it (crypt64, ${kb(info.block.bytes)} sent ${info.block.encoding}); anchor: the bare server sending the same answer`,
    ...blockTo(app),
    anchor: { key: 'block-anchor', name: 'anchor', ...blockTo(anchorBase) },
    budget: 0.5,
  },
  {
    key: 'block-cold',
    name: `the same, cold: each request another of ${info.coldReaders} readers and another of ${info.coldChapters} chapters (${kb(median(coldBytes))} median, ${kb(coldBytes.at(-1)!)} largest, as sent); anchor: the bare server sending each same answer`,
    ...coldTo(app),
    anchor: { key: 'block-cold-anchor', name: 'anchor', ...coldTo(anchorBase) },
    budget: 0.5,
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
const chosen = only ? targets.filter((t) => only.some((o) => t.key.includes(o))) : targets;

try {
  if (profile.length) {
    for (const t of chosen) {
      const r = await run(t, duration);
      // The window (the profile's clock: µs of the monotonic clock) is for bench/cpu-top.ts --window.
      console.log(`${t.key}: ${Math.round(r.rps)} requests/s (profiled), ${(r.cpuPerRequest * 1e6).toFixed(0)} µs CPU per request, window ${r.window}`);
    }
  } else await compare();
} finally {
  lectern.child.kill('SIGTERM');
  anchorProcess.child.kill('SIGTERM');
  for (const c of clients) c.kill('SIGTERM');
}

async function compare() {
  const rows: string[] = [];
  for (const t of chosen) {
    const anchor = t.anchor ?? helloAnchor;
    // A warm-up of each side, so JIT and caches are in the same state for every round.
    await run(anchor, 1);
    await run(t, 1);
    const ratios: number[] = [];
    const cpuRatios: number[] = [];
    const appRps: number[] = [];
    const anchorRps: number[] = [];
    const p99s: number[] = [];
    const appBusy: number[] = [];
    const anchorBusy: number[] = [];
    const appCpu: number[] = [];
    const anchorCpu: number[] = [];
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
      appBusy.push(appRun.busy);
      anchorBusy.push(anchorRun.busy);
      appCpu.push(appRun.cpuPerRequest * 1e6);
      anchorCpu.push(anchorRun.cpuPerRequest * 1e6);
    }
    const budget = t.budget === undefined ? '—' : `≥ ${t.budget.toFixed(2)}: ${median(ratios) >= t.budget ? 'met' : 'NOT MET'}`;
    rows.push(
      `| ${t.name} | ${Math.round(median(appRps))} | ${median(p99s)} | ${Math.round(median(anchorRps))} | ${summary(anchorBusy)} / ${summary(appBusy)} | **${summary(ratios)}** | ${summary(cpuRatios)} | ${budget} |`,
    );
    console.error(`${t.key}: ratios ${ratios.map((r) => r.toFixed(2)).join(' ')}; server CPU ratios ${cpuRatios.map((r) => r.toFixed(2)).join(' ')}`);
    // The CPU time itself (from /proc, 10 ms ticks over a round's thousands of requests), not only the ratio.
    console.error(`${t.key}: server CPU µs per request, anchor ${summary(anchorCpu, 0)} / route ${summary(appCpu, 0)}`);
  }
  console.log(
    `\nLectern HTTP benchmark — ${new Date().toISOString()} — ${rounds} rounds of ${duration} s, ${connections} connections ` +
      `from ${clientCount} client processes${pipelining > 1 ? `, pipelining ${pipelining}` : ''}, ` +
      `anchor and route alternating, each server in a process of its own; node ${process.version}`,
  );
  console.log(
    '| route | requests/s (median) | p99 ms (median) | anchor requests/s (median) | server busy (CPU s per s), anchor / route | ratio to anchor: median (min-max) | server CPU per request, anchor/route: median (min-max) | budget (on the ratio) |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---|');
  for (const row of rows) console.log(row);
}
