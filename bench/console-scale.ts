/**
 * The operators' console at 100,000 titles and a year of usage (docs/performance.md "The operators' console at 100,000
 * titles"): the requests the console's titles screen and dashboard send, as Chromium sent them
 * (bench/console-requests.json, taken from the browser's network log and checked by e2e/console-requests.e2e.ts),
 * against a library of bench/generate-library.ts with a year of readers (bench/generate-usage-year.ts) on each engine,
 * served by the real app (bench/scale-server.ts). Each request alternates with the anchor, `GET /bare` of a bare
 * Fastify server in a process of its own (bench/anchor.ts), for `--rounds` rounds (anchor then route, route then
 * anchor, ...): per request the median and range of p50 and p99 at the server's side of the loopback, of requests/s as
 * a ratio to the anchor's of the same round, and of the server's CPU time per request (/proc). Budget (DESIGN.md): p99
 * < 100 ms.
 *
 * Usage: npx tsx bench/console-scale.ts [--engines sqlite,postgres] [--titles 100000] [--rounds 5] [--duration 2]
 *          [--connections 10] [--only titles-first,dashboard-30 (keys)] [--reuse] [--prepare]
 *   --reuse    keep the generated databases (SQLite under /tmp/lectern-console, PostgreSQL database
 *              lectern_console_<titles>) and use them again when present; a reused year gets a full day of
 *              today's reading when today has less (fillToday: the dashboard's today part at its worst)
 *   --prepare  generate (or find) the libraries and stop
 *
 * PostgreSQL at 127.0.0.1:5432 as user postgres (trust); PGADMIN_URL overrides.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../packages/server/src/db/database.ts';
import { migrateToLatest } from '../packages/server/src/db/migrate.ts';
import { BENCH_PASSWORD, generateLibrary } from './generate-library.ts';
import { CONSOLE_ADMIN_EMAIL, fillToday, generateUsageYear } from './generate-usage-year.ts';
import { startJsonProcess } from './replay.ts';
import { median, summary } from './stats.ts';

const { values } = parseArgs({
  options: {
    engines: { type: 'string', default: 'sqlite,postgres' },
    titles: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    only: { type: 'string' },
    reuse: { type: 'boolean', default: false },
    prepare: { type: 'boolean', default: false },
  },
});
const engines = values.engines.split(',') as ('sqlite' | 'postgres')[];
const size = Number(values.titles);
const rounds = Number(values.rounds);
const duration = Number(values.duration);
const connections = Number(values.connections);
if (rounds < 5) console.warn('fewer than 5 rounds: the figures are not for docs/performance.md');
const root = path.resolve(import.meta.dirname, '..');
const keep = '/tmp/lectern-console';
fs.mkdirSync(keep, { recursive: true });
const adminUrl = process.env.PGADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const BUDGET_P99_MS = 100;
const USERS = 10_000;
const CHAPTERS_PER_TITLE = 5;

interface Prepared {
  env: Record<string, string>;
  info: { titles: number; events: number; seconds: { library: number; year: number }; generatedAt: string };
}

/** A migrated database holding the library and its year: made now, or kept from an earlier --reuse run. */
async function prepare(engine: 'sqlite' | 'postgres'): Promise<Prepared> {
  const name = `lectern_console_${size}`;
  const dataDir = path.join(keep, `sqlite-${size}`);
  const infoFile = path.join(keep, `${engine}-${size}.json`);
  const databaseUrl = engine === 'postgres' ? Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString() : null;
  const env = engine === 'postgres' ? { DATABASE_URL: databaseUrl!, DATA_DIR: path.join(keep, `pg-data-${size}`) } : { DATA_DIR: dataDir, DATABASE_URL: '' };
  if (values.reuse && fs.existsSync(infoFile)) {
    console.log(`${engine}: reusing the library generated earlier (${infoFile})`);
    const db = openDatabase({ databaseUrl, dataDir });
    const migrating = performance.now();
    const ran = await migrateToLatest(db); // a migration landed since (0032's index) applies as at a real start
    if (ran.length > 0) console.log(`${engine}: migrations ${ran.join(', ')} in ${((performance.now() - migrating) / 1000).toFixed(1)} s`);
    // a full day of today's reading, so that the dashboard's today part is measured at its worst
    await fillToday(db, { titles: JSON.parse(fs.readFileSync(infoFile, 'utf8')).titles, chaptersPerTitle: CHAPTERS_PER_TITLE, users: USERS }, (line) => console.log(`${engine}:${line}`));
    // as after generating: the rows a migration wrote (0040's summary) visible to index-only scans, and counted
    if (ran.length > 0 && engine === 'postgres') await sql`vacuum analyze`.execute(db.kysely);
    await db.close();
    return { env, info: JSON.parse(fs.readFileSync(infoFile, 'utf8')) as Prepared['info'] };
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
  console.log(`${engine}: generating ${size} works`);
  const started = performance.now();
  const library = await generateLibrary(db, { titles: size, users: USERS, chaptersPerTitle: CHAPTERS_PER_TITLE, searchIndex: false }, (line) => console.log(line));
  const libraryS = (performance.now() - started) / 1000;
  console.log(`${engine}: ${library.titles} titles, ${library.chapters} chapters in ${libraryS.toFixed(1)} s; a year of usage`);
  const year = await generateUsageYear(db, { titles: library.titles, chaptersPerTitle: CHAPTERS_PER_TITLE, users: USERS }, (line) => console.log(line));
  await db.close();
  const info = { titles: library.titles, events: year.events, seconds: { library: libraryS, year: year.seconds }, generatedAt: new Date().toISOString() };
  fs.writeFileSync(infoFile, JSON.stringify(info));
  return { env, info };
}

interface Recorded {
  key: string;
  name: string;
  path: string;
  /** query parameters as the console sent them; {q}, {cursor}, {from}, {to}, {book_id} are filled in here */
  query: Record<string, string>;
  headers: Record<string, string>;
}

/** The console's requests as Chromium sent them (e2e/console-requests.e2e.ts checks the file against the console). */
function recordedRequests(): Recorded[] {
  return (JSON.parse(fs.readFileSync(path.join(root, 'bench/console-requests.json'), 'utf8')) as { requests: Recorded[] }).requests;
}

const dayOf = (d: Date) => d.toISOString().slice(0, 10);

async function signIn(app: string): Promise<{ cookie: string }> {
  const csrf = (await fetch(`${app}/healthz`)).headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith('csrftoken='))!;
  const login = await fetch(`${app}/login/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: app, cookie: csrf, 'x-csrftoken': csrf.slice('csrftoken='.length) },
    body: JSON.stringify({ email: CONSOLE_ADMIN_EMAIL, password: BENCH_PASSWORD }),
  });
  if (!login.ok) throw new Error(`bench sign-in: ${login.status} ${await login.text()}`);
  return { cookie: [csrf, ...login.headers.getSetCookie().map((c) => c.split(';')[0]!)].join('; ') };
}

interface Target {
  key: string;
  name: string;
  url: string;
  headers: Record<string, string>;
}

/**
 * The recorded requests made concrete on this library: the search word one an operator types (a common title
 * word's prefix, and a rare one), page 2's cursor the server's own from page 1, the dashboard's days ending today as the console
 * counts them, the title the most read one.
 */
async function targetsOf(app: string, cookie: string): Promise<Target[]> {
  const get = async (url: string) => {
    const res = await fetch(url, { headers: { cookie } });
    if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  const today = new Date();
  const rangeOf = (days: number) => ({ from: dayOf(new Date(today.getTime() - (days - 1) * 86_400_000)), to: dayOf(today) });
  const fill = (r: Recorded, extra: Record<string, string>) => {
    const q = new URLSearchParams(Object.entries(r.query).map(([k, v]) => [k, v.replace(/^\{(\w+)\}$/, (_m, name: string) => extra[name] ?? `{${name}}`)]));
    const p = r.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(extra[name] ?? `{${name}}`));
    const url = `${app}${p}${q.size ? `?${q}` : ''}`;
    if (url.includes('{')) throw new Error(`${r.key}: a placeholder the bench cannot fill: ${url}`);
    return url;
  };
  const headers = (r: Recorded) => Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, v === '{cookie}' ? cookie : v]));
  const requests = recordedRequests();
  const byKey = (key: string) => {
    const r = requests.find((x) => x.key === key);
    if (!r) throw new Error(`bench/console-requests.json has no ${key}: record it with e2e/console-requests.e2e.ts`);
    return r;
  };
  const first = byKey('titles-first');
  const page1 = await get(fill(first, {}));
  const values_: Record<string, string> = {
    q: 'net',
    cursor: String(page1.next_cursor),
    // the year's draws favour the lowest ids (generate-usage-year.ts): the first title is the most read
    book_id: 'gen-0000001',
  };
  const out: Target[] = [];
  for (const r of requests) {
    const days = r.key === 'dashboard-year' ? 365 : 30;
    const url = fill(r, { ...values_, ...rangeOf(days) });
    out.push({ key: r.key, name: `${r.name}: ${url.slice(app.length)}`, url, headers: headers(r) });
    // and a prefix few titles have (10 of 110,000): the page is filled only at the end of the title order
    if (r.key === 'titles-search') {
      const rare = fill(r, { ...values_, q: 'zeze' });
      out.push({ key: 'titles-search-rare', name: `${r.name}, a rare prefix: ${rare.slice(app.length)}`, url: rare, headers: headers(r) });
    }
  }
  return out;
}

interface Run {
  rps: number;
  p50: number;
  p99: number;
  cpuMs: number;
}

function cpuOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function load(url: string, pid: number, headers?: Record<string, string>): Promise<Run> {
  const before = cpuOf(pid);
  const r = await autocannon({ url, connections, duration, timeout: 30, ...(headers ? { headers } : {}) });
  const ok = r.statusCodeStats?.['200']?.count ?? 0;
  // no answer within autocannon's 30 s: a latency above that, not a failure of the bench
  if (r.errors && r.errors === r.timeouts && ok === 0) return { rps: 0, p50: Infinity, p99: Infinity, cpuMs: NaN };
  if (r.errors || ok !== r.requests.total) throw new Error(`${url}: ${r.requests.total - ok} answers other than 200, ${r.errors} errors`);
  // no answer within the run: its latency is above the run's length (printed as Infinity), not 0
  if (r.requests.total === 0) return { rps: 0, p50: Infinity, p99: Infinity, cpuMs: NaN };
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, cpuMs: ((cpuOf(pid) - before) * 1000) / r.requests.total };
}

interface Result {
  key: string;
  name: string;
  ratio: number[];
  p50: number[];
  p99: number[];
  anchorP99: number[];
  cpuMs: number[];
  anchorCpuMs: number[];
}

async function measure(engine: 'sqlite' | 'postgres'): Promise<Result[]> {
  const { env } = await prepare(engine);
  if (values.prepare) return [];
  const server = await startJsonProcess<{ appPort: number }>('bench/scale-server.ts', [], [], env);
  const anchor = await startJsonProcess<{ anchorPort: number }>('bench/anchor.ts');
  try {
    const app = `http://127.0.0.1:${server.info.appPort}`;
    const anchorUrl = `http://127.0.0.1:${anchor.info.anchorPort}/bare`;
    const { cookie } = await signIn(app);
    const targets = await targetsOf(app, cookie);
    const only = values.only?.split(',');
    const chosen = only ? targets.filter((t) => only.includes(t.key)) : targets;
    const pid = server.child.pid!;
    const anchorPid = anchor.child.pid!;
    const results: Result[] = [];
    for (const t of chosen) {
      const r: Result = { key: t.key, name: t.name, ratio: [], p50: [], p99: [], anchorP99: [], cpuMs: [], anchorCpuMs: [] };
      // the first request alone: the dashboard's first view of a range in a day reads the closed days whole
      const once = performance.now();
      const status = await fetch(t.url, { headers: t.headers })
        .then(async (res) => (await res.arrayBuffer(), res.status))
        .catch((err: Error) => `no answer: ${err.cause instanceof Error ? err.cause.message : err.message}`);
      console.log(`${engine} ${t.key}: the first request alone ${(performance.now() - once).toFixed(0)} ms (${status})`);
      await load(t.url, pid, t.headers); // warm-up: caches and the page cache, as a running server has them
      await load(anchorUrl, anchorPid);
      for (let i = 0; i < rounds; i++) {
        let a: Run;
        let b: Run;
        if (i % 2 === 0) {
          a = await load(anchorUrl, anchorPid);
          b = await load(t.url, pid, t.headers);
        } else {
          b = await load(t.url, pid, t.headers);
          a = await load(anchorUrl, anchorPid);
        }
        r.ratio.push(b.rps / a.rps);
        r.p50.push(b.p50);
        r.p99.push(b.p99);
        r.anchorP99.push(a.p99);
        r.cpuMs.push(b.cpuMs);
        r.anchorCpuMs.push(a.cpuMs);
      }
      results.push(r);
      console.log(`${engine} ${t.key}: p50 ${summary(r.p50, 1)} ms, p99 ${summary(r.p99, 1)} ms (anchor p99 ${summary(r.anchorP99, 1)}), req/s vs anchor ${summary(r.ratio, 3)}, server CPU ${summary(r.cpuMs, 3)} ms/request (anchor ${summary(r.anchorCpuMs, 3)})`);
    }
    fs.writeFileSync(path.join(keep, `results-${engine}-${size}.json`), JSON.stringify({ engine, size, results }, null, 1));
    return results;
  } finally {
    for (const p of [anchor.child, server.child]) {
      p.kill('SIGTERM');
      await new Promise((resolve) => p.once('exit', resolve));
    }
  }
}

const all = new Map<string, Result[]>();
const loadAverage = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`load average at the start: ${loadAverage()}`);
for (const engine of engines) all.set(engine, await measure(engine));
if (values.prepare) process.exit(0);
console.log(`\nload average at the end: ${loadAverage()}`);
console.log(`${connections} connections, ${duration} s runs, ${rounds} rounds alternating with the anchor (own process); medians (range). Budget: p99 < ${BUDGET_P99_MS} ms`);
console.log('| engine | request | p50 ms | p99 ms | anchor p99 ms | req/s vs anchor | server CPU ms/request (anchor) |');
console.log('|---|---|---|---|---|---|---|');
for (const [engine, results] of all) {
  for (const r of results) {
    const over = median(r.p99) >= BUDGET_P99_MS ? ' **over**' : '';
    console.log(`| ${engine} | ${r.name} | ${summary(r.p50, 1)} | ${summary(r.p99, 1)}${over} | ${summary(r.anchorP99, 1)} | ${summary(r.ratio, 3)} | ${summary(r.cpuMs, 3)} (${median(r.anchorCpuMs).toFixed(3)}) |`);
  }
}
process.exit(0);
