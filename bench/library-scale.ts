/**
 * The catalog at scale (docs/decisions.md "Catalog listings at 100,000 titles"): a generated library
 * (bench/generate-library.ts) of each size on each engine, the real app serving it (bench/scale-server.ts), and
 * autocannon on the listings, each route alternating with the bare-Fastify anchor in the same run for `--rounds` rounds
 * (anchor then route, route then anchor, ...). Per route: median and range of p50, p99 and of requests/s as a ratio to
 * the anchor's, and the server's server process's CPU time per request (from /proc: what the route costs the server,
 * which other load on a shared machine moves far less than latency), and its event-loop delay p99 and max while the
 * route ran. Last, the cost of each route at the largest size against the smallest: (anchor ratio at small) / (anchor
 * ratio at large), and p99 large / p99 small. Budget (DESIGN.md): p99 < 50 ms at 10 connections, cost ratio < 3, no
 * event-loop delay above 20 ms.
 *
 * Usage: npx tsx bench/library-scale.ts [--sizes 1000,100000] [--engines sqlite,postgres] [--rounds 5]
 *          [--duration 2] [--connections 10] [--only catalog,topic] [--reuse] [--mix [--against NAME=value]]
 *   Under load: npx tsx bench/library-scale.ts --sizes 100000 --engines sqlite --mix --connections 200
 *          --duration 10 --rounds 5 --reuse [--against HEAVY_REQUESTS=1000]
 *   CPU_PROF=dir (env) writes a V8 CPU profile of each server run there (bench/cpu-top.ts reads it).
 *   HEAP_SNAPSHOT=dir (env, with --mix) writes a heap snapshot of the server halfway through the last round
 *             (bench/heap-top.ts reads it; writing it stops the server for seconds: not a run for figures).
 *   --mix     instead of one route at a time: every route at once, --connections shared among them (200: the
 *             weights in MIX below), for --duration seconds, --rounds times; per request kind p50 and p99, the
 *             server's RSS peak (from /proc, sampled every 100 ms, and VmHWM, the kernel's peak) with Node's own
 *             heap figures, and the latency of a cheap request sent one at a time while the load runs (GET /healthz)
 *             against the same request to a bare-Fastify anchor in its own process (bench/anchor.ts), alternating
 *             which is asked first; also /healthz on the idle server between rounds.
 *   --against 'NAME=value,...'  (with --mix) a second server with that environment on the same library (e.g.
 *             HEAVY_REQUESTS=1000: searches without the gate), rounds alternating between the two, and the ratios.
 *   --against-root dir  (with --mix) the second server runs the code in dir (another checkout of the repository, with
 *             its node_modules: e.g. `git archive main` unpacked and node_modules hard-linked) on the same library,
 *             with --against's settings if given: code before a change against the code after it, in the same run.
 *   --reuse   keep the generated databases in /tmp/lectern-scale (SCALE_DIR=dir in the env: there instead; SQLite
 *             files; PostgreSQL databases lectern_scale_<size>) and use them again when present.
 *   --generate-only  make the libraries (kept as --reuse keeps them) and measure nothing.
 *
 * PostgreSQL at 127.0.0.1:5432 as user postgres (trust), as the tests use it; PGADMIN_URL overrides.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { openDatabase } from '../packages/server/src/db/database.ts';
import { migrateToLatest } from '../packages/server/src/db/migrate.ts';
import { BENCH_PASSWORD, generateLibrary, type GeneratedLibrary } from './generate-library.ts';
import { median, summary } from './stats.ts';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,100000' },
    engines: { type: 'string', default: 'sqlite,postgres' },
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    only: { type: 'string' },
    reuse: { type: 'boolean', default: false },
    mix: { type: 'boolean', default: false },
    against: { type: 'string' },
    'against-root': { type: 'string' },
    'generate-only': { type: 'boolean', default: false },
  },
});
const sizes = values.sizes.split(',').map(Number);
const engines = values.engines.split(',') as ('sqlite' | 'postgres')[];
const rounds = Number(values.rounds);
const duration = Number(values.duration);
const connections = Number(values.connections);
if (rounds < 5) console.warn('fewer than 5 rounds: the figures are not for docs/performance.md');
const root = path.resolve(import.meta.dirname, '..');
const keep = process.env.SCALE_DIR ?? '/tmp/lectern-scale';
fs.mkdirSync(keep, { recursive: true });
const adminUrl = process.env.PGADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const BUDGET = { p99Ms: 50, searchP99Ms: 150, costRatio: 3, eventLoopMs: 20 };
/** DESIGN.md's budgets: a full-text search (catalog or in-book) may take 150 ms at p99; everything else 50 ms */
const p99Budget = (key: string) => (key.startsWith('search-') ? BUDGET.searchP99Ms : BUDGET.p99Ms);

type Library = Omit<GeneratedLibrary, 'userEmail'>;

/** A migrated database holding the generated library of `size` titles: made now, or kept from an earlier --reuse run. */
async function prepare(engine: 'sqlite' | 'postgres', size: number): Promise<{ env: Record<string, string>; library: Library }> {
  const name = `lectern_scale_${size}`;
  const dataDir = path.join(keep, `sqlite-${size}`);
  const infoFile = path.join(keep, `${engine}-${size}.json`);
  const databaseUrl = engine === 'postgres' ? Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString() : null;
  const env = engine === 'postgres' ? { DATABASE_URL: databaseUrl!, DATA_DIR: path.join(keep, `pg-data-${size}`) } : { DATA_DIR: dataDir, DATABASE_URL: '' };
  if (values.reuse && fs.existsSync(infoFile)) {
    console.log(`${engine} ${size}: reusing the library generated earlier (${infoFile})`);
    return { env, library: JSON.parse(fs.readFileSync(infoFile, 'utf8')) as Library };
  }
  if (engine === 'postgres') {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
    await admin.end();
  } else fs.rmSync(dataDir, { recursive: true, force: true });
  const db = openDatabase({ databaseUrl, dataDir });
  await migrateToLatest(db);
  console.log(`${engine} ${size}: generating`);
  const { userEmail: _unused, ...library } = await generateLibrary(db, { titles: size, users: 10_000 }, (line) => console.log(line));
  await db.close();
  console.log(`${engine} ${size}: ${library.titles} titles, ${library.chapters} chapters; rows ${library.seconds.rows.toFixed(1)} s, listings ${library.seconds.derived.toFixed(1)} s`);
  fs.writeFileSync(infoFile, JSON.stringify(library));
  return { env, library };
}

/**
 * The Node flags the checkout in `dir` starts its server with: those before `--import tsx` in its package.json's
 * `start` script (`node --max-old-space-size=1024 --import tsx packages/server/src/main.ts`), so each server here
 * runs as `npm start` runs it there.
 */
function startFlagsOf(dir: string): string[] {
  const start = (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { scripts?: { start?: string } }).scripts?.start ?? '';
  return /\bnode ((?:--[\w-]+(?:=\S+)? )*)--import tsx packages\/server\/src\/main\.ts/.exec(start)?.[1]?.trim().split(/\s+/) ?? [];
}

async function startServer(env: Record<string, string>, cwd = root): Promise<{ child: ChildProcess; app: string; anchor: string }> {
  // CPU_PROF=dir profiles the server (read it with bench/cpu-top.ts); SIGTERM exits, which writes the profile.
  const profile = process.env.CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.CPU_PROF] : [];
  // HEAP_SNAPSHOT=dir: SIGUSR2 writes a heap snapshot there (--mix sends it halfway through the last round)
  if (process.env.HEAP_SNAPSHOT) profile.push('--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${process.env.HEAP_SNAPSHOT}`);
  const child = spawn(process.execPath, [...startFlagsOf(cwd), ...profile, '--import', 'tsx', 'bench/scale-server.ts'], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const ports = await new Promise<{ anchorPort: number; appPort: number }>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line));
    });
    child.on('exit', (code) => reject(new Error(`scale server exited with ${code}`)));
  });
  return { child, app: `http://127.0.0.1:${ports.appPort}`, anchor: `http://127.0.0.1:${ports.anchorPort}` };
}

/** The address of a listing's last page, reached as a client reaches it: following `next` from the first. */
async function lastPage(first: string): Promise<{ url: string; pages: number }> {
  let url = first;
  let pages = 1;
  for (;;) {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`${url}: ${res.status}`);
    const next = ((await res.json()) as { next: string | null }).next;
    if (!next) return { url, pages };
    url = new URL(next, url).toString();
    pages++;
  }
}

interface Target {
  key: string;
  name: string;
  url: string;
  /** request headers (a signed-in reader's session cookie) */
  headers?: Record<string, string>;
}

interface Run {
  rps: number;
  p50: number;
  p99: number;
  /** the server process's CPU milliseconds per request: what the route costs it, which other load moves little */
  cpuMs: number;
}

/** CPU seconds a process has used so far (user + system, from /proc; clock ticks of 10 ms). */
function cpuOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function load(url: string, pid: number, headers?: Record<string, string>): Promise<Run> {
  const before = cpuOf(pid);
  const r = await autocannon({ url, connections, duration, ...(headers ? { headers } : {}) });
  const ok = r.statusCodeStats?.['200']?.count ?? 0;
  if (r.errors || ok !== r.requests.total) throw new Error(`${url}: ${r.requests.total - ok} answers other than 200, ${r.errors} errors`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, cpuMs: ((cpuOf(pid) - before) * 1000) / r.requests.total };
}

export interface RouteResult {
  key: string;
  name: string;
  ratio: number[];
  p50: number[];
  p99: number[];
  anchorP99: number[];
  cpuMs: number[];
  anchorCpuMs: number[];
  loopP99: number[];
  loopMax: number[];
}

/** Every route the bench knows, on this server and library. */
async function targetsOf(engine: string, size: number, app: string, library: Library): Promise<Target[]> {
  const firstCatalog = `${app}/api/v1/book/?page_size=24`;
  const bigTopic = `${app}/api/v1/book/?topic=${library.bigTopic.slug}&page_size=24`;
  const walked = performance.now();
  // (the mix asks no last page: no walk)
  const [catalogLast, topicLast] = values.mix ? [{ url: firstCatalog, pages: 1 }, { url: bigTopic, pages: 1 }] : [await lastPage(firstCatalog), await lastPage(bigTopic)];
  console.log(`${engine} ${size}: walked ${catalogLast.pages} + ${topicLast.pages} pages by next links in ${((performance.now() - walked) / 1000).toFixed(1)} s`);
  return [
    { key: 'catalog-first', name: 'catalog, first page (24)', url: firstCatalog },
    { key: 'catalog-last', name: `catalog, last page (page ${catalogLast.pages}, by next links)`, url: catalogLast.url },
    { key: 'catalog-recent', name: 'catalog, newest first', url: `${app}/api/v1/book/?page_size=24&sort=recent` },
    { key: 'topics', name: 'topic list GET /api/v1/topics/', url: `${app}/api/v1/topics/` },
    { key: 'topic-big', name: `biggest topic's page (${library.bigTopic.titles} titles)`, url: bigTopic },
    { key: 'topic-big-last', name: `biggest topic's last page (page ${topicLast.pages})`, url: topicLast.url },
    { key: 'publisher-big', name: `biggest publisher's page (${library.bigPublisher.titles} titles)`, url: `${app}/api/v1/book/?publisher=${library.bigPublisher.slug}&page_size=24` },
    ...(await FINDING_TARGETS(app)),
  ];
}

async function measure(engine: string, size: number): Promise<RouteResult[]> {
  const { env, library } = await prepare(engine as 'sqlite' | 'postgres', size);
  const server = await startServer(env);
  try {
    const app = server.app;
    const targets = await targetsOf(engine, size, app, library);
    const only = values.only?.split(',');
    const chosen = only ? targets.filter((t) => only.some((o) => t.key.includes(o))) : targets;
    const anchorUrl = `${server.anchor}/bare`;
    const loop = async () => (await (await fetch(`${server.anchor}/event-loop`)).json()) as { p99: number; max: number };
    const results: RouteResult[] = [];
    for (const t of chosen) {
      const r: RouteResult = { key: t.key, name: t.name, ratio: [], p50: [], p99: [], anchorP99: [], cpuMs: [], anchorCpuMs: [], loopP99: [], loopMax: [] };
      const pid = server.child.pid!;
      await load(t.url, pid, t.headers); // warm-up: caches and the page cache, as a running server has them
      for (let i = 0; i < rounds; i++) {
        const runRoute = async () => {
          await loop();
          const run = await load(t.url, pid, t.headers);
          const l = await loop();
          r.loopP99.push(l.p99);
          r.loopMax.push(l.max);
          return run;
        };
        let a: Run;
        let b: Run;
        if (i % 2 === 0) {
          a = await load(anchorUrl, pid);
          b = await runRoute();
        } else {
          b = await runRoute();
          a = await load(anchorUrl, pid);
        }
        r.ratio.push(b.rps / a.rps);
        r.p50.push(b.p50);
        r.p99.push(b.p99);
        r.anchorP99.push(a.p99);
        r.cpuMs.push(b.cpuMs);
        r.anchorCpuMs.push(a.cpuMs);
      }
      results.push(r);
      console.log(
        `${engine} ${size} ${t.key}: p50 ${summary(r.p50, 1)} ms, p99 ${summary(r.p99, 1)} ms, req/s vs anchor ${summary(r.ratio, 3)}, server CPU ${summary(r.cpuMs, 3)} ms/request (anchor ${summary(r.anchorCpuMs, 3)}), event loop p99 ${summary(r.loopP99, 1)} ms (max ${Math.max(...r.loopMax).toFixed(1)})`,
      );
    }
    fs.writeFileSync(path.join(keep, `results-${engine}-${size}.json`), JSON.stringify({ engine, size, library, results }, null, 1));
    return results;
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
  }
}

/** The finding routes (search, suggest, home) once they exist: empty until then. */
/**
 * The finding routes (docs/decisions.md "Finding"): the home as a visitor and as a reader with a queue, positions and
 * history (the generator's reader1), suggest, a one-word and a phrase full-text search. Budgets: p99 < 50 ms for home
 * and suggest, < 150 ms for a full-text search.
 */
async function FINDING_TARGETS(app: string): Promise<Target[]> {
  // As the web app signs in: the csrftoken cookie first, echoed in X-CSRFToken.
  const csrf = (await fetch(`${app}/healthz`)).headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith('csrftoken='))!;
  const login = await fetch(`${app}/login/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: app, cookie: csrf, 'x-csrftoken': csrf.slice('csrftoken='.length) },
    body: JSON.stringify({ email: 'reader1@bench.example', password: BENCH_PASSWORD }),
  });
  if (!login.ok) throw new Error(`bench sign-in: ${login.status} ${await login.text()}`);
  const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  // a book the reader may read whole, found as a reader finds it
  const found = (await (await fetch(`${app}/api/v2/search/?q=protocol`, { headers: { cookie } })).json()) as { results: { metadata: { identifier: string } }[] };
  const book = found.results[0]!.metadata.identifier;
  // The next page of a common word as the web app follows it (the server's `next`, its cursor), a reader's and a
  // visitor's, whose passages come from the chapters open to everyone (docs/decisions.md "Search pages to its end;
  // the typed prefix; a visitor's passages")
  const nextOf = async (headers: Record<string, string>) =>
    ((await (await fetch(`${app}/api/v2/search/?q=protocol`, { headers })).json()) as { next: string | null }).next ?? '/api/v2/search/?q=protocol';
  const readerNext = await nextOf({ cookie });
  const visitorNext = await nextOf({});
  return [
    { key: 'home-visitor', name: 'home GET /api/v2/home/, a visitor', url: `${app}/api/v2/home/` },
    { key: 'home-reader', name: 'home GET /api/v2/home/, a reader (queue, positions, history)', url: `${app}/api/v2/home/`, headers: { cookie } },
    { key: 'suggest', name: 'suggest GET /api/v2/search/suggest/?q=secu', url: `${app}/api/v2/search/suggest/?q=secu` },
    { key: 'search-word', name: 'full-text search, one word (?q=protocol)', url: `${app}/api/v2/search/?q=protocol` },
    { key: 'search-in-book', name: 'search inside one book, a common word (?query=protocol)', url: `${app}/api/v2/search/book/?query=protocol&identifier=${book}&page=1`, headers: { cookie } },
    { key: 'search-phrase', name: 'full-text search, a phrase (?q="hash algorithm")', url: `${app}/api/v2/search/?q=${encodeURIComponent('"hash algorithm"')}` },
    { key: 'search-word-reader', name: 'full-text search, one word, a reader (?q=protocol)', url: `${app}/api/v2/search/?q=protocol`, headers: { cookie } },
    { key: 'search-next-reader', name: `its next page, a reader (${readerNext.replace(/^.*\?/, '?')})`, url: `${app}${readerNext}`, headers: { cookie } },
    { key: 'search-next-visitor', name: `its next page, a visitor (${visitorNext.replace(/^.*\?/, '?')})`, url: `${app}${visitorNext}` },
  ];
}

/**
 * --mix: connections per request kind out of 200 (scaled to --connections): a library's readers browsing, opening
 * their home and searching at once, heavy on search (the costliest requests) as a load test should be.
 */
const MIX: Record<string, number> = {
  'catalog-first': 20,
  'catalog-recent': 10,
  'topic-big': 15,
  'publisher-big': 10,
  topics: 10,
  'home-visitor': 15,
  'home-reader': 20,
  suggest: 20,
  'search-word': 25,
  'search-word-reader': 15,
  'search-phrase': 15,
  'search-in-book': 10,
  'search-next-reader': 8,
  'search-next-visitor': 7,
};

/** VmRSS and VmHWM (the kernel's peak of RSS over the process's life) of a process, in MB. */
function rssOf(pid: number): { rss: number; hwm: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/** One request at a time on one kept-alive connection: its latency in ms (to the end of the body). */
function prober(url: string): () => Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return () =>
    new Promise((resolve, reject) => {
      const start = performance.now();
      http
        .get(url, { agent }, (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - start) : reject(new Error(`${url}: ${res.statusCode}`))));
        })
        .on('error', reject);
    });
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

interface MixRound {
  kinds: Record<string, { p50: number; p99: number; requests: number; other: number; errors: number; timeouts: number }>;
  rssPeak: number;
  hwm: number;
  heapUsedPeak: number;
  /** the server's own memoryUsage() at the sample (every 200 ms) where its RSS was highest */
  atPeak: Memory;
  probe: { p50: number; p99: number; max: number; n: number };
  anchorProbe: { p50: number; p99: number; max: number; n: number };
  idleProbe: { p50: number; p99: number };
  loopP99: number;
  loopMax: number;
  cpuPct: number;
}

type Server = Awaited<ReturnType<typeof startServer>>;
/** bench/scale-server.ts's /memory, in MB */
interface Memory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
}
/** RSS outside the main thread's JS heap and its external memory: SQLite's page caches, the reader threads' heaps, code */
const nativeOf = (m: Memory) => m.rss - m.heapTotal - m.external;

/** One round of the mix against one server: every kind at once for --duration s, the probes, RSS and heap sampled. */
async function mixRound(server: Server, chosen: (Target & { connections: number })[], anchorPort: number, snapshotNow: boolean): Promise<MixRound> {
  const pid = server.child.pid!;
  const probeApp = prober(`${server.app}/healthz`);
  const probeAnchor = prober(`http://127.0.0.1:${anchorPort}/bare`);
  const loop = async () => (await (await fetch(`${server.anchor}/event-loop`)).json()) as { p99: number; max: number };
  const memory = async () => (await (await fetch(`${server.anchor}/memory`)).json()) as Memory;
  // the cheap request on the idle server
  const idle: number[] = [];
  for (let i = 0; i < 100; i++) idle.push(await probeApp());
  await loop();
  const cpuBefore = cpuOf(pid);
  const started = performance.now();
  let running = true;
  let rssPeak = 0;
  let heapUsedPeak = 0;
  let atPeak: Memory | null = null;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssOf(pid).rss)), 100);
  const heapSampler = (async () => {
    while (running) {
      const m = await memory();
      heapUsedPeak = Math.max(heapUsedPeak, m.heapUsed);
      if (!atPeak || m.rss > atPeak.rss) atPeak = m;
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  const probes = { app: [] as number[], anchor: [] as number[] };
  const probing = (async () => {
    // after the connections have opened, until the load ends; which is asked first alternates
    await new Promise((r) => setTimeout(r, 500));
    for (let i = 0; running; i++) {
      if (i % 2 === 0) {
        probes.app.push(await probeApp());
        probes.anchor.push(await probeAnchor());
      } else {
        probes.anchor.push(await probeAnchor());
        probes.app.push(await probeApp());
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const snapshot = snapshotNow ? setTimeout(() => server.child.kill('SIGUSR2'), (duration * 1000) / 2) : undefined;
  const results = await Promise.all(chosen.map((t) => autocannon({ url: t.url, connections: t.connections, duration, timeout: 30, ...(t.headers ? { headers: t.headers } : {}) })));
  running = false;
  clearInterval(sampler);
  clearTimeout(snapshot);
  await Promise.all([probing, heapSampler]);
  const seconds = (performance.now() - started) / 1000;
  const cpuPct = (100 * (cpuOf(pid) - cpuBefore)) / seconds;
  const l = await loop();
  const stat = (v: number[]) => ({ p50: percentile(v, 50), p99: percentile(v, 99), max: Math.max(...v), n: v.length });
  return {
    kinds: Object.fromEntries(
      chosen.map((t, i) => {
        const res = results[i]!;
        const ok = res.statusCodeStats?.['200']?.count ?? 0;
        return [t.key, { p50: res.latency.p50, p99: res.latency.p99, requests: res.requests.total, other: res.requests.total - ok, errors: res.errors, timeouts: res.timeouts }];
      }),
    ),
    rssPeak,
    hwm: rssOf(pid).hwm,
    heapUsedPeak,
    atPeak: atPeak ?? { rss: 0, heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0 },
    probe: stat(probes.app),
    anchorProbe: stat(probes.anchor),
    idleProbe: { p50: percentile(idle, 50), p99: percentile(idle, 99) },
    loopP99: l.p99,
    loopMax: l.max,
    cpuPct,
  };
}

function printMix(label: string, engine: string, size: number, chosen: (Target & { connections: number })[], rounds_: MixRound[]) {
  const med = (f: (r: MixRound) => number, digits = 1) => summary(rounds_.map(f), digits);
  console.log(`\n${label}: ${engine} ${size}, ${connections} connections at once (${chosen.map((t) => `${t.key} ${t.connections}`).join(', ')}), ${duration} s, ${rounds} rounds; medians (range)`);
  console.log(`RSS peak ${med((r) => r.rssPeak, 0)} MB; VmHWM ${med((r) => r.hwm, 0)} MB; JS heap used peak ${med((r) => r.heapUsedPeak, 0)} MB; server CPU ${med((r) => r.cpuPct, 0)}%; event loop p99 ${med((r) => r.loopP99)} ms, max ${med((r) => r.loopMax)} ms`);
  console.log(
    `at the RSS peak (memoryUsage, sampled every 200 ms): RSS ${med((r) => r.atPeak.rss, 0)} MB = JS heap total ${med((r) => r.atPeak.heapTotal, 0)} (used ${med((r) => r.atPeak.heapUsed, 0)}) + external ${med((r) => r.atPeak.external, 0)} (array buffers ${med((r) => r.atPeak.arrayBuffers, 0)}) + the rest ${med((r) => nativeOf(r.atPeak), 0)} (SQLite, reader threads, code)`,
  );
  console.log(
    `cheap request GET /healthz under load: p50 ${med((r) => r.probe.p50)} ms, p99 ${med((r) => r.probe.p99)} ms, max ${med((r) => r.probe.max)} ms; anchor (own process) p50 ${med((r) => r.anchorProbe.p50)}, p99 ${med((r) => r.anchorProbe.p99)}; ratio p99 Lectern / anchor ${med((r) => r.probe.p99 / r.anchorProbe.p99, 2)}; idle /healthz p99 ${med((r) => r.idleProbe.p99)} ms`,
  );
  console.log('| kind | connections | p50 ms | p99 ms | requests/round | not 200 |');
  console.log('|---|---|---|---|---|---|');
  for (const t of chosen) {
    const k = (r: MixRound) => r.kinds[t.key]!;
    const notOk = rounds_.reduce((n, r) => n + k(r).other + k(r).errors + k(r).timeouts, 0);
    console.log(`| ${t.key} | ${t.connections} | ${med((r) => k(r).p50, 0)} | ${med((r) => k(r).p99, 0)} | ${med((r) => k(r).requests, 0)} | ${notOk} |`);
  }
}

/**
 * --mix on one engine and size; with --against 'NAME=value,...' a second server with that environment (e.g.
 * HEAVY_REQUESTS=1000: no gate) on the same library, the two alternating round by round (A B, B A, ...), and
 * the ratios B / A per round.
 */
async function mixed(engine: string, size: number): Promise<void> {
  const { env, library } = await prepare(engine as 'sqlite' | 'postgres', size);
  const against = values.against ? Object.fromEntries(values.against.split(',').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] as [string, string])) : null;
  const otherRoot = values['against-root'] ? path.resolve(values['against-root']) : null;
  const servers: { label: string; server: Server }[] = [{ label: 'A (as configured)', server: await startServer(env) }];
  if (against || otherRoot) {
    const label = [values.against, otherRoot && `the code in ${otherRoot}`].filter(Boolean).join(', ');
    servers.push({ label: `B (${label})`, server: await startServer({ ...env, ...against }, otherRoot ?? root) });
  }
  // the anchor for the cheap request: a bare Fastify in a process of its own (bench/anchor.ts)
  const anchorChild = spawn(process.execPath, ['--import', 'tsx', 'bench/anchor.ts'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const anchorPort = await new Promise<number>((resolve) => {
    let out = '';
    anchorChild.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { anchorPort: number }).anchorPort);
    });
  });
  try {
    const scale = connections / 200;
    const plans = [];
    for (const { label, server } of servers) {
      const targets = await targetsOf(engine, size, server.app, library);
      const chosen = targets.filter((t) => MIX[t.key]).map((t) => ({ ...t, connections: Math.max(1, Math.round(MIX[t.key]! * scale)) }));
      // warm-up: each kind alone for a second, as a running server has its caches and page cache
      for (const t of chosen) await autocannon({ url: t.url, connections: 5, duration: 1, ...(t.headers ? { headers: t.headers } : {}) });
      plans.push({ label, server, chosen, rounds: [] as MixRound[] });
    }
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? plans : [...plans].reverse();
      for (const plan of order) {
        const r = await mixRound(plan.server, plan.chosen, anchorPort, Boolean(process.env.HEAP_SNAPSHOT) && round === rounds - 1 && plan === plans[0]);
        plan.rounds.push(r);
        const bad = Object.entries(r.kinds).filter(([, k]) => k.other || k.errors || k.timeouts);
        console.log(
          `${engine} ${size} ${plan.label} round ${round + 1}: RSS peak ${r.rssPeak.toFixed(0)} MB (VmHWM ${r.hwm.toFixed(0)}), heap used peak ${r.heapUsedPeak.toFixed(0)} MB; at the peak heap total ${r.atPeak.heapTotal.toFixed(0)}, external ${r.atPeak.external.toFixed(0)}, rest ${nativeOf(r.atPeak).toFixed(0)} MB; /healthz under load p50 ${r.probe.p50.toFixed(1)} p99 ${r.probe.p99.toFixed(1)} max ${r.probe.max.toFixed(1)} ms (${r.probe.n}), anchor p50 ${r.anchorProbe.p50.toFixed(1)} p99 ${r.anchorProbe.p99.toFixed(1)}, idle p99 ${r.idleProbe.p99.toFixed(1)}; loop p99 ${r.loopP99} max ${r.loopMax}; server CPU ${r.cpuPct.toFixed(0)}%` +
            (bad.length ? `; NOT 200: ${bad.map(([k, v]) => `${k} ${v.other} other, ${v.errors} errors, ${v.timeouts} timeouts`).join('; ')}` : ''),
        );
      }
    }
    fs.writeFileSync(path.join(keep, `mix-${engine}-${size}.json`), JSON.stringify({ engine, size, connections, duration, against: values.against ?? null, plans: plans.map((p) => ({ label: p.label, rounds: p.rounds })) }, null, 1));
    for (const plan of plans) printMix(plan.label, engine, size, plan.chosen, plan.rounds);
    if (plans.length === 2) {
      const [a, b] = plans as [(typeof plans)[0], (typeof plans)[0]];
      const ratio = (f: (r: MixRound) => number) => summary(a.rounds.map((r, i) => f(b.rounds[i]!) / f(r)), 2);
      console.log(`\nB / A per round, median (range): RSS peak ${ratio((r) => r.rssPeak)}; /healthz p99 under load ${ratio((r) => r.probe.p99)}; event loop max ${ratio((r) => r.loopMax)}`);
      console.log('| kind | p50 B / A | p99 B / A | requests B / A |');
      console.log('|---|---|---|---|');
      for (const t of a.chosen) console.log(`| ${t.key} | ${ratio((r) => r.kinds[t.key]!.p50)} | ${ratio((r) => r.kinds[t.key]!.p99)} | ${ratio((r) => r.kinds[t.key]!.requests)} |`);
    }
  } finally {
    anchorChild.kill('SIGTERM');
    for (const { server } of servers) {
      server.child.kill('SIGTERM');
      await new Promise((resolve) => server.child.once('exit', resolve));
    }
  }
}

if (values['generate-only']) {
  for (const engine of engines) for (const size of sizes) await prepare(engine, size);
  process.exit(0);
}
if (values.mix) {
  for (const engine of engines) for (const size of sizes) await mixed(engine, size);
  process.exit(0);
}

const all = new Map<string, RouteResult[]>();
for (const engine of engines) for (const size of sizes) all.set(`${engine} ${size}`, await measure(engine, size));

console.log(`\n${connections} connections, ${duration} s runs, ${rounds} rounds; medians (range). Budget: p99 < ${BUDGET.p99Ms} ms (full-text search ${BUDGET.searchP99Ms} ms), cost < ${BUDGET.costRatio}x, event loop < ${BUDGET.eventLoopMs} ms`);
console.log('| engine | titles | route | p50 ms | p99 ms | req/s vs anchor | server CPU ms/request (anchor) | event loop p99 ms (max) |');
console.log('|---|---|---|---|---|---|---|---|');
for (const [label, results] of all) {
  const [engine, size] = label.split(' ');
  for (const r of results) {
    const over = (bad: boolean) => (bad ? ' **over**' : '');
    const p99Flag = over(median(r.p99) >= p99Budget(r.key));
    const loopFlag = over(median(r.loopP99) > BUDGET.eventLoopMs);
    console.log(`| ${engine} | ${size} | ${r.key} | ${summary(r.p50, 1)} | ${summary(r.p99, 1)}${p99Flag} | ${summary(r.ratio, 3)} | ${summary(r.cpuMs, 3)} (${median(r.anchorCpuMs).toFixed(3)}) | ${summary(r.loopP99, 1)}${loopFlag} (${Math.max(...r.loopMax).toFixed(1)}) |`);
  }
}
if (sizes.length > 1) {
  const [small, large] = [Math.min(...sizes), Math.max(...sizes)];
  console.log(`\ncost at ${large} titles against ${small}: (req/s vs anchor at ${small}) / (at ${large}); server CPU per request ${large} / ${small}; p99 ${large} / p99 ${small}`);
  console.log('| engine | route | cost ratio (req/s vs anchor) | CPU/request ratio | p99 ratio |');
  console.log('|---|---|---|---|---|');
  for (const engine of engines) {
    const a = all.get(`${engine} ${small}`) ?? [];
    const b = all.get(`${engine} ${large}`) ?? [];
    for (const r of a) {
      const big = b.find((x) => x.key === r.key);
      if (!big) continue;
      const cost = median(r.ratio) / median(big.ratio);
      const p99 = median(big.p99) / median(r.p99);
      const cpu = median(big.cpuMs) / median(r.cpuMs);
      const over = (x: number) => (x >= BUDGET.costRatio ? ' **over**' : '');
      console.log(`| ${engine} | ${r.key} | ${cost.toFixed(2)}${over(cost)} | ${cpu.toFixed(2)}${over(cpu)} | ${p99.toFixed(2)} |`);
    }
  }
}
