/**
 * Several Lectern servers behind HAProxy on one PostgreSQL (docs/operations.md "Several servers"), under
 * load and faults. It starts a PostgreSQL cluster of its own (its own port and folder under /tmp: restarting it
 * cannot disturb the machine's shared PostgreSQL or other tests), Lectern servers as production starts them
 * (packages/server/src/main.ts, the same DATABASE_URL, LECTERN_SECRET and content store: an S3 bucket on s3rver, an S3
 * API server on this machine; each its own DATA_DIR, as on machines of their own: an upload through one is imported
 * by whichever server's worker takes it, from the bucket), and HAProxy from the
 * config block of docs/operations.md with only its `bind` and `server` lines changed. Then:
 * 1. reads (the reader's recorded block request) from 200 signed-in readers with 1, 2 and 3 servers: throughput
 *    and p99 against the one-server figure, and where the cores went meanwhile (each part's CPU from /proc: the
 *    servers, the simulated readers, HAProxy, PostgreSQL, the bench with s3rver);
 * 2. the mixed load (reads, usage events, playlist edits, notes; an operator importing titles) while one server is
 *    killed with `kill -9` and started again, and PostgreSQL is restarted;
 * 3. every write a client saw answered 2xx is looked up in the database (lost writes: the goal is 0), and every
 *    reader's session is checked through the proxy.
 * `--ci`: 2 servers, 50 readers, no throughput steps, 60 s of mixed load with both faults; exits 1 on a lost write,
 * a dead session, a missing fault or a kind of write never acknowledged.
 *
 * Usage: bash scripts/ensure-haproxy.sh && npx tsx bench/multi-server.ts [--ci] [--servers 1,2,3] [--readers 200]
 *        [--read-seconds 20] [--rounds 5] [--fault-seconds 90] [--port-base 5300]
 */
import { type ChildProcess, execFileSync, fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import S3rver from 's3rver';
import { longChapterEpub } from '../packages/server/test/fixtures/long-chapter.ts';
import type { Ack, CallStats, Chapter, ReaderAccount, ReaderJob, RunResult } from './multi-server-reader.ts';
import { summary } from './stats.ts';

const root = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    ci: { type: 'boolean', default: false },
    servers: { type: 'string' },
    readers: { type: 'string' },
    'read-seconds': { type: 'string', default: '20' },
    'fault-seconds': { type: 'string' },
    'port-base': { type: 'string', default: '5300' },
    clients: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '5' },
  },
});
const CI = values.ci!;
const STEPS = (values.servers ?? (CI ? '2' : '1,2,3')).split(',').map(Number);
const MAX_SERVERS = Math.max(...STEPS);
const READERS = Number(values.readers ?? (CI ? 50 : 200));
const READ_SECONDS = Number(values['read-seconds']);
const ROUNDS = Number(values.rounds);
const FAULT_SECONDS = Number(values['fault-seconds'] ?? (CI ? 60 : 90));
const BASE = Number(values['port-base']);
const PG_PORT = BASE + 1;
const PROXY_PORT = BASE + 2;
const serverPort = (i: number) => BASE + 10 + i;
const CLIENTS = Math.min(Number(values.clients), READERS);
const PASSWORD = 'multi-server bench password';
const SECRET = randomBytes(24).toString('hex');

const log = (line: string) => console.log(`[multi-server] ${line}`);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-multi-'));
const dataDir = path.join(work, 'data');
fs.mkdirSync(dataDir);
const children = new Set<ChildProcess>();

// ------------------------------------------------------------------ PostgreSQL of our own

const PG_BIN = fs
  .readdirSync('/usr/lib/postgresql')
  .sort((a, b) => Number(a) - Number(b))
  .map((v) => `/usr/lib/postgresql/${v}/bin`)
  .pop();
if (!PG_BIN) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql: run bash scripts/ensure-haproxy.sh');
const pgDir = path.join(work, 'pg');
/** Runs a PostgreSQL binary as the postgres user (we are root; initdb and the server refuse root). */
const asPostgres = (bin: string, args: string[]) => execFileSync('runuser', ['-u', 'postgres', '--', path.join(PG_BIN, bin), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
const pgCtl = (action: string, extra: string[] = []) =>
  asPostgres('pg_ctl', ['-D', path.join(pgDir, 'data'), '-l', path.join(pgDir, 'server.log'), '-w', ...extra, action]);

function startCluster() {
  try {
    execFileSync('id', ['postgres'], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['--system', '--home', pgDir, 'postgres']);
  }
  fs.mkdirSync(pgDir);
  fs.chmodSync(work, 0o755);
  execFileSync('chown', ['postgres', pgDir]);
  asPostgres('initdb', ['-D', path.join(pgDir, 'data'), '--auth=trust', '-U', 'postgres']);
  pgCtl('start', ['-o', `-p ${PG_PORT} -c listen_addresses=127.0.0.1 -k ${pgDir} -c max_connections=200`]);
}
const DATABASE_URL = `postgres://postgres@127.0.0.1:${PG_PORT}/lectern`;

// ------------------------------------------------------------------ the content store: an S3 API on this machine

// s3rver (npm) speaks the S3 HTTP API and checks no signatures (README "Tests"); the servers reach it as they would
// any S3-compatible store, with CONTENT_STORE=s3://bucket/prefix and the usual variables.
const S3_PORT = BASE + 3;
const BUCKET = 'lectern-multi-server';
const s3Dir = path.join(work, 's3');
fs.mkdirSync(s3Dir);
const s3 = new S3rver({ address: '127.0.0.1', port: S3_PORT, directory: s3Dir, silent: true, configureBuckets: [{ name: BUCKET }] });
const STORE_ENV = {
  CONTENT_STORE: `s3://${BUCKET}/content`,
  AWS_ENDPOINT_URL: `http://127.0.0.1:${S3_PORT}`,
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'S3RVER',
  AWS_SECRET_ACCESS_KEY: 'S3RVER',
};

// ------------------------------------------------------------------ Lectern servers, as `npm start` starts them

const servers: (ChildProcess | null)[] = [];
/** servers that ended without being killed by the scenario (a crash: the run fails) */
const died: string[] = [];
/** Starts server i (packages/server/src/main.ts under tsx) and resolves once it says it is running. */
function startServer(i: number): Promise<void> {
  const out = fs.openSync(path.join(work, `server${i}.log`), 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL,
      LECTERN_SECRET: SECRET,
      // each server's own (uploads being received, imports' working copies): they share only the database and the bucket
      DATA_DIR: path.join(dataDir, `server${i + 1}`),
      HOST: '127.0.0.1',
      PORT: String(serverPort(i)),
      TRUST_PROXY: 'true',
      LOG_LEVEL: 'warn',
      SAMPLE_CACHE_DIR: path.join(os.tmpdir(), 'lectern-sample-cache'),
      ...STORE_ENV,
    },
    stdio: ['ignore', 'pipe', out],
  });
  children.add(child);
  servers[i] = child;
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (d: Buffer) => {
      fs.appendFileSync(path.join(work, `server${i}.log`), d);
      seen += d.toString();
      if (seen.includes('Lectern is running at')) resolve();
    });
    child.on('exit', (code, signal) => {
      children.delete(child);
      if (signal !== 'SIGKILL') died.push(`server ${i + 1} exited (${code ?? signal}): see ${work}/server${i}.log`);
      reject(new Error(`server ${i + 1} exited (${code ?? signal}) before it was running: see ${work}/server${i}.log`));
    });
  });
}

// ------------------------------------------------------------------ HAProxy, from docs/operations.md's block

/** The haproxy block of docs/operations.md "Several servers", with its bind and server lines made ours. */
function haproxyConfig(serverCount: number, proxyPort: number, portOf: (i: number) => number): string {
  const doc = fs.readFileSync(path.join(root, 'docs/operations.md'), 'utf8');
  const block = /```haproxy\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!block) throw new Error('docs/operations.md has no ```haproxy block');
  const ours = Array.from({ length: serverCount }, (_, i) => `    server lectern${i + 1} 127.0.0.1:${portOf(i)}`);
  const out: string[] = [];
  for (const line of block.split('\n')) {
    if (/^\s+bind /.test(line)) out.push(`    bind 127.0.0.1:${proxyPort}`);
    else if (!/^\s+server /.test(line)) out.push(line);
    else if (!out.includes(ours[0]!)) out.push(...ours);
  }
  if (!out.includes(ours[0]!) || !out.some((l) => l.includes(`bind 127.0.0.1:${proxyPort}`))) throw new Error("docs/operations.md's haproxy block lost its bind or server lines");
  return out.join('\n');
}

let proxy: ChildProcess | null = null;
async function startProxy(serverCount: number) {
  if (proxy && proxyServers === serverCount) return;
  if (proxy) {
    const old = proxy;
    const gone = new Promise((r) => old.once('exit', r));
    old.kill('SIGTERM');
    await gone;
  }
  const cfg = path.join(work, `haproxy-${serverCount}.cfg`);
  fs.writeFileSync(cfg, haproxyConfig(serverCount, PROXY_PORT, serverPort));
  execFileSync('haproxy', ['-c', '-q', '-f', cfg]);
  const child = spawn('haproxy', ['-db', '-f', cfg], { stdio: ['ignore', 'ignore', fs.openSync(path.join(work, 'haproxy.log'), 'a')] });
  children.add(child);
  child.on('exit', () => children.delete(child));
  proxy = child;
  proxyServers = serverCount;
  await healthy(serverCount);
}
let proxyServers = 0;

/** Waits (polling their state) until servers 1..n answer /healthz 200 directly and the proxy answers it too. */
async function healthy(n: number) {
  const deadline = Date.now() + 120_000;
  const ok = (url: string) => fetch(url, { signal: AbortSignal.timeout(5000) }).then((r) => r.status === 200).catch(() => false);
  for (;;) {
    const answers = await Promise.all([...Array.from({ length: n }, (_, i) => ok(`http://127.0.0.1:${serverPort(i)}/healthz`)), ok(`${BASE_URL}/healthz`)]);
    if (answers.every(Boolean)) return;
    if (Date.now() > deadline || died.length) throw new Error(`servers not healthy within 2 minutes${died.length ? `: ${died.join('; ')}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
const BASE_URL = `http://127.0.0.1:${PROXY_PORT}`;

// ------------------------------------------------------------------ the reader processes

interface ReaderProcess {
  child: ChildProcess;
  ask<T>(job: ReaderJob): Promise<T>;
}
async function startReaders(): Promise<ReaderProcess[]> {
  return Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const child = fork(path.join(root, 'bench/multi-server-reader.ts'), [], { execArgv: ['--import', 'tsx'], cwd: root });
      children.add(child);
      await new Promise<void>((resolve) => child.once('message', () => resolve()));
      const answer = <T>() =>
        new Promise<T>((resolve, reject) => child.once('message', (m: T & { error?: string }) => (m.error ? reject(new Error(m.error)) : resolve(m))));
      return {
        child,
        ask<T>(job: ReaderJob) {
          const answered = answer<T>();
          child.send(job);
          return answered;
        },
      };
    }),
  );
}

// ------------------------------------------------------------------ the operator

/** An admin signed in through the proxy, as the console does. */
async function operatorSession() {
  const jar = new Map<string, string>();
  const req = async (method: string, url: string, body?: string | FormData) => {
    const headers: Record<string, string> = { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') };
    if (method !== 'GET' && jar.has('csrftoken')) headers['x-csrftoken'] = jar.get('csrftoken')!;
    if (typeof body === 'string') headers['content-type'] = 'application/json';
    const res = await fetch(BASE_URL + url, { method, headers, body, signal: AbortSignal.timeout(200_000) });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
    return res;
  };
  await req('GET', '/healthz');
  const login = await req('POST', '/login/', JSON.stringify({ email: 'operator@example.com', password: PASSWORD }));
  if (login.status !== 200) throw new Error(`operator sign-in: ${login.status} ${await login.text()}`);
  return req;
}

// ------------------------------------------------------------------ where the cores go (/proc, Linux)

const TICK_MS = 1000 / (Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100);
/** A process's CPU time so far (user + system, ms) and its parent, from /proc/<pid>/stat; null once it is gone. */
function procStat(pid: number): { cpu: number; ppid: number } | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // after "pid (comm) ": state, ppid, … utime is the 14th field, stime the 15th
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { cpu: (Number(f[11]) + Number(f[12])) * TICK_MS, ppid: Number(f[1]) };
  } catch {
    return null;
  }
}
/**
 * CPU time (ms) used so far by each part of the run, and by the whole machine (busy, all cores): taken before and
 * after a read step, it says how much of the cores the simulated readers take from the servers.
 */
function cpuSnapshot(readerPids: number[]) {
  const sum = (pids: number[]) => pids.reduce((n, pid) => n + (procStat(pid)?.cpu ?? 0), 0);
  let postgres: number[] = [];
  try {
    const postmaster = Number(fs.readFileSync(path.join(pgDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const backends = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).filter((pid) => procStat(pid)?.ppid === postmaster);
    postgres = [postmaster, ...backends];
  } catch {
    // not running just now
  }
  const [, ...jiffies] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = jiffies.map(Number);
  return {
    servers: sum(servers.flatMap((c) => (c?.pid ? [c.pid] : []))),
    clients: sum(readerPids),
    proxy: sum(proxy?.pid ? [proxy.pid] : []),
    postgres: sum(postgres),
    // the bench itself, with s3rver (the content store) running in it
    bench: sum([process.pid]),
    machineBusy: (user! + nice! + system! + irq! + softirq! + (steal ?? 0)) * TICK_MS,
    machineAll: (user! + nice! + system! + idle! + iowait! + irq! + softirq! + (steal ?? 0)) * TICK_MS,
  };
}
type CpuSnapshot = ReturnType<typeof cpuSnapshot>;
const CPU_PARTS = ['servers', 'clients', 'proxy', 'postgres', 'bench'] as const;

// ------------------------------------------------------------------ figures

function p99(latencies: number[]) {
  if (!latencies.length) return NaN;
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!;
}
function merge(results: RunResult[]) {
  const calls: Record<string, CallStats> = {};
  for (const r of results) {
    for (const [name, s] of Object.entries(r.calls)) {
      const m = (calls[name] ??= { ok: 0, latencies: [], failures: [] });
      m.ok += s.ok;
      for (const l of s.latencies) m.latencies.push(l);
      m.failures.push(...s.failures);
    }
  }
  return { calls, acks: results.flatMap((r) => r.acks), seconds: (Math.max(...results.map((r) => r.endedAt)) - Math.min(...results.map((r) => r.startedAt))) / 1000 };
}

// ------------------------------------------------------------------ the run

let failed = false;
const cleanUp = () => {
  for (const c of children) c.kill('SIGKILL');
  try {
    pgCtl('stop', ['-m', 'immediate']);
  } catch {
    // not started, or already stopped
  }
  fs.rmSync(work, { recursive: true, force: true });
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    cleanUp();
    process.exit(130);
  });
}
// a run that hangs fails instead (CI's time is bounded): 10 minutes in --ci, else 30
setTimeout(() => {
  console.log(`FAILED: the run took too long (logs kept in ${work})`);
  for (const c of children) c.kill('SIGKILL');
  try {
    pgCtl('stop', ['-m', 'immediate']);
  } catch {
    // not started
  }
  process.exit(1);
}, (CI ? 10 : 30) * 60_000).unref();

try {
  log(`work folder ${work}; PostgreSQL on ${PG_PORT}, HAProxy on ${PROXY_PORT}, S3 (s3rver) on ${S3_PORT}, servers on ${serverPort(0)}+; ${READERS} readers in ${CLIENTS} processes`);
  startCluster();
  await s3.run();
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${PG_PORT}/postgres` });
  await admin.connect();
  await admin.query('create database lectern');
  await admin.end();

  // The first server migrates and imports the sample library; the others start on the library it made.
  await startServer(0);
  log('server 1 running (migrated, sample library imported)');
  // The operator and the readers: the first with the command line an operator uses, the readers by the operator
  // through the console's call (audited, as every admin action).
  execFileSync(process.execPath, ['--import', 'tsx', 'packages/server/src/cli/main.ts', 'users:create', '--email', 'operator@example.com', '--role', 'admin', '--status', 'subscriber', '--password-stdin'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL, LECTERN_SECRET: SECRET, DATA_DIR: dataDir, ...STORE_ENV },
    input: `${PASSWORD}\n`,
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  for (let i = 1; i < MAX_SERVERS; i++) await startServer(i);
  log(`${MAX_SERVERS} servers running`);
  await startProxy(STEPS[0]!);
  const operator = await operatorSession();
  const accounts: ReaderAccount[] = Array.from({ length: READERS }, (_, i) => ({ email: `reader-${i}@example.com`, password: PASSWORD }));
  for (let i = 0; i < accounts.length; i += 20) {
    const made = await Promise.all(
      accounts.slice(i, i + 20).map((a) => operator('POST', '/api/v1/admin/users/', JSON.stringify({ email: a.email, password: a.password, status: 'subscriber' }))),
    );
    const bad = made.find((r) => r.status !== 201);
    if (bad) throw new Error(`creating readers: ${bad.status} ${await bad.text()}`);
  }

  // The chapters readers read: every text chapter of the catalog, as the bench's cold case (bench/servers.ts).
  const list = (await (await fetch(`${BASE_URL}/api/v1/book/?page_size=100`)).json()) as { results: { api_url: string }[] };
  const chapters: Chapter[] = [];
  for (const book of list.results) {
    const d = (await (await fetch(BASE_URL + book.api_url)).json()) as { book_id: string; title_safe: string; format?: string; chapters?: { full_path: string }[] };
    for (const c of d.chapters ?? []) if (/\.x?html?$/i.test(c.full_path)) chapters.push({ bookId: d.book_id, titleSafe: d.title_safe, href: c.full_path });
  }
  if (!chapters.length) throw new Error('the sample library has no text chapters');
  log(`${chapters.length} text chapters in ${list.results.length} titles`);

  const readerProcesses = await startReaders();
  const share = (i: number) => accounts.filter((_, k) => k % CLIENTS === i);
  const signIns = await Promise.all(readerProcesses.map((p, i) => p.ask<{ signedIn: number; failed: string[] }>({ kind: 'signIn', base: BASE_URL, readers: share(i) })));
  const signedIn = signIns.reduce((n, s) => n + s.signedIn, 0);
  log(`${signedIn} of ${READERS} readers signed in through the proxy${signIns.some((s) => s.failed.length) ? `; failed: ${signIns.flatMap((s) => s.failed).slice(0, 5).join(', ')}` : ''}`);
  if (signedIn !== READERS) failed = true;

  // 1. reads with 1, 2, 3 servers behind the proxy, the steps alternating round after round (the one-server step is
  // the anchor each ratio is taken against, measured in the same round)
  const readFigures: { round: number; servers: number; rate: number; p99: number; failures: number; cpu: { before: CpuSnapshot; after: CpuSnapshot; requests: number } }[] = [];
  const readerPids = readerProcesses.flatMap((p) => (p.child.pid ? [p.child.pid] : []));
  if (!CI) {
    for (let round = 0; round < ROUNDS; round++) {
      for (const n of round % 2 ? [...STEPS].reverse() : STEPS) {
        await startProxy(n);
        const before = cpuSnapshot(readerPids);
        const results = await Promise.all(readerProcesses.map((p, i) => p.ask<RunResult>({ kind: 'run', base: BASE_URL, mix: 'reads', seconds: READ_SECONDS, chapters, seed: round * 1000 + n * 100 + i })));
        const m = merge(results);
        const reads = Object.values(m.calls)[0] ?? { ok: 0, latencies: [], failures: [] };
        const after = cpuSnapshot(readerPids);
        readFigures.push({ round, servers: n, rate: reads.ok / m.seconds, p99: p99(reads.latencies), failures: reads.failures.length, cpu: { before, after, requests: reads.ok } });
        log(`round ${round + 1}, reads with ${n} server(s): ${(reads.ok / m.seconds).toFixed(0)} requests/s, p99 ${p99(reads.latencies).toFixed(0)} ms, ${reads.failures.length} failed (load ${os.loadavg()[0]!.toFixed(1)})`);
      }
    }
  }

  // 2. the mixed load with faults, on all servers
  await startProxy(MAX_SERVERS);
  const faults: { what: string; from: number; to: number }[] = [];
  const running = Promise.all(readerProcesses.map((p, i) => p.ask<RunResult>({ kind: 'run', base: BASE_URL, mix: 'mixed', seconds: FAULT_SECONDS, chapters, seed: 7000 + i })));
  const runStart = Date.now();
  const runEnd = runStart + FAULT_SECONDS * 1000;

  // The operator imports titles meanwhile, one after another, through the proxy.
  const imported: { bookId: string; title: string }[] = [];
  const importFailures: { at: number; status: string }[] = [];
  const importing = (async () => {
    for (let i = 0; Date.now() < runEnd - 5000; i++) {
      const title = `Multi-server import ${i} ${randomBytes(3).toString('hex')}`;
      const epub = longChapterEpub({ chars: 20_000, title, uuid: `6d0e1b52-0000-4000-8000-${randomBytes(6).toString('hex')}` });
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(epub.bytes)], { type: 'application/epub+zip' }), `import-${i}.epub`);
      try {
        const res = await operator('POST', '/api/v1/admin/import/', form);
        // the proxy's own answers (502, 503) are HTML
        const body = (/json/.test(res.headers.get('content-type') ?? '') ? await res.json() : await res.text()) as { imported?: { book_id: string }[] };
        if (res.status === 201 && body.imported?.[0]) imported.push({ bookId: body.imported[0].book_id, title });
        else importFailures.push({ at: Date.now(), status: String(res.status) });
      } catch (err) {
        importFailures.push({ at: Date.now(), status: (err as { cause?: { code?: string } }).cause?.code ?? String(err) });
      }
    }
  })();

  const at = (fraction: number) => new Promise((r) => setTimeout(r, Math.max(0, runStart + FAULT_SECONDS * 1000 * fraction - Date.now())));
  await at(0.25);
  {
    const victim = servers[0]!;
    const from = Date.now();
    const gone = new Promise((r) => victim.once('exit', r));
    victim.kill('SIGKILL');
    await gone;
    log(`kill -9 server 1 at ${((from - runStart) / 1000).toFixed(1)} s; starting it again`);
    await startServer(0);
    faults.push({ what: 'kill -9 of server 1, and its restart', from, to: Date.now() });
    log(`server 1 running again after ${((Date.now() - from) / 1000).toFixed(1)} s`);
  }
  await at(0.6);
  {
    const from = Date.now();
    pgCtl('restart', ['-m', 'fast']);
    faults.push({ what: 'PostgreSQL restart (pg_ctl restart -m fast)', from, to: Date.now() });
    log(`PostgreSQL restarted at ${((from - runStart) / 1000).toFixed(1)} s, in ${((Date.now() - from) / 1000).toFixed(1)} s`);
  }
  const mixed = merge(await running);
  await importing;

  // 3. every acknowledged write in the database; every reader's session alive
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  const lost: string[] = [];
  const userIds = new Map<string, number>((await db.query<{ email: string; id: number }>('select email, id from users')).rows.map((r) => [r.email, r.id]));
  const byKind = (k: Ack['kind']) => mixed.acks.filter((a) => a.kind === k);
  const present = async (sql: string, params: unknown[][]) => {
    const missing: number[] = [];
    for (let i = 0; i < params.length; i++) if ((await db.query(sql, params[i])).rowCount === 0) missing.push(i);
    return missing;
  };
  const usage = byKind('usage') as Extract<Ack, { kind: 'usage' }>[];
  for (const i of await present('select 1 from usage_events where user_id = $1 and usage_uuid = $2', usage.map((a) => [userIds.get(a.email), a.usageUuid]))) lost.push(`usage event ${usage[i]!.usageUuid}`);
  const playlists = byKind('playlist') as Extract<Ack, { kind: 'playlist' }>[];
  for (const i of await present('select 1 from collections where user_id = $1 and id = $2', playlists.map((a) => [userIds.get(a.email), a.id]))) lost.push(`playlist ${playlists[i]!.id}`);
  const items = byKind('playlistItem') as Extract<Ack, { kind: 'playlistItem' }>[];
  for (const i of await present('select 1 from collection_items where collection_id = $1 and api_url = $2', items.map((a) => [a.id, a.url]))) lost.push(`playlist item ${items[i]!.url} in ${items[i]!.id}`);
  const notes = byKind('note') as Extract<Ack, { kind: 'note' }>[];
  for (const i of await present('select 1 from annotations where user_id = $1 and id = $2', notes.map((a) => [userIds.get(a.email), a.id]))) lost.push(`note ${notes[i]!.id}`);
  for (const i of await present('select 1 from titles where book_id = $1', imported.map((t) => [t.bookId]))) lost.push(`imported title ${imported[i]!.title}`);
  await db.end();
  await healthy(MAX_SERVERS);
  const checks = await Promise.all(readerProcesses.map((p) => p.ask<{ alive: number; dead: string[] }>({ kind: 'check', base: BASE_URL })));
  const alive = checks.reduce((n, c) => n + c.alive, 0);

  // The report: per call, p99 and failures, each failure inside a fault's window (from the fault to the server or
  // database back, plus the proxy's checks to notice it) or outside.
  // after a fault ends, the proxy takes up to 2 checks (4 s) to put a server back and 3 (6 s + answers) to notice one
  const GRACE_MS = 10_000;
  // a failure belongs to the latest fault whose window holds it (the restarted server's window may run into the next)
  const faultOf = (t: number) => [...faults].reverse().find((f) => t >= f.from && t <= f.to + GRACE_MS) ?? null;
  console.log('');
  console.log(`Mixed load with faults: ${MAX_SERVERS} servers, ${READERS} readers, ${mixed.seconds.toFixed(0)} s (load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})`);
  console.log(`| call | answered | per s | p99 ms | ${faults.map((f) => `failed during ${f.what}`).join(' | ')} | failed outside |`);
  console.log(`|---|---:|---:|---:|${faults.map(() => '---:|').join('')}---:|`);
  const rows = Object.entries(mixed.calls).map(([name, s]) => ({ name, s }));
  rows.push({ name: 'import (POST /api/v1/admin/import/, the operator)', s: { ok: imported.length, latencies: [], failures: importFailures } });
  let outside = 0;
  for (const { name, s } of rows) {
    const cell = (fs: typeof s.failures) => `${fs.length}${fs.length ? ` (${[...new Set(fs.map((f) => f.status))].join(', ')})` : ''}`;
    const during = faults.map((fault) => cell(s.failures.filter((f) => faultOf(f.at) === fault)));
    const out = s.failures.filter((f) => !faultOf(f.at));
    outside += out.length;
    console.log(`| ${name} | ${s.ok} | ${(s.ok / mixed.seconds).toFixed(1)} | ${s.latencies.length ? p99(s.latencies).toFixed(0) : '-'} | ${during.join(' | ')} | ${cell(out)} |`);
  }
  for (const f of faults) console.log(`fault: ${f.what}, ${((f.from - runStart) / 1000).toFixed(1)}-${((f.to - runStart) / 1000).toFixed(1)} s`);
  console.log(`acknowledged writes: ${usage.length} usage events, ${playlists.length} playlists, ${items.length} playlist items, ${notes.length} notes, ${imported.length} imported titles`);
  console.log(`lost writes: ${lost.length}${lost.length ? ` (${lost.slice(0, 10).join('; ')})` : ''}`);
  console.log(`sessions alive through the proxy afterwards: ${alive} of ${READERS}${alive < READERS ? ` (${checks.flatMap((c) => c.dead).slice(0, 5).join(', ')})` : ''}`);
  console.log(`failures outside the fault windows: ${outside}`);
  if (readFigures.length) {
    console.log('');
    console.log(`Reads (the reader's block request), ${READERS} readers, ${READ_SECONDS} s per step, ${ROUNDS} rounds: median (range)`);
    console.log('| servers | requests/s | vs one server, same round | p99 ms | failed |');
    console.log('|---:|---:|---:|---:|---:|');
    for (const n of STEPS) {
      const mine = readFigures.filter((f) => f.servers === n);
      const ratios = mine.map((f) => f.rate / (readFigures.find((o) => o.round === f.round && o.servers === 1)?.rate ?? NaN));
      console.log(`| ${n} | ${summary(mine.map((f) => f.rate), 0)} | ${summary(ratios)} | ${summary(mine.map((f) => f.p99), 0)} | ${mine.reduce((k, f) => k + f.failures, 0)} |`);
    }
    // Where the cores went during the read steps (/proc): each part's CPU per answered read, and its share of the
    // machine's busy time; `cores busy` is the machine's busy time over the step's wall time (os.cpus() cores).
    console.log('');
    console.log(`CPU during the read steps (/proc; ${os.cpus().length} cores): ms of CPU per answered read, and share of the machine's busy time, median (range)`);
    console.log(`| servers | cores busy | ${CPU_PARTS.map((p) => `${p} ms/read | ${p} share`).join(' | ')} | other share |`);
    console.log(`|---:|---:|${CPU_PARTS.map(() => '---:|---:|').join('')}---:|`);
    for (const n of STEPS) {
      const mine = readFigures.filter((f) => f.servers === n);
      const delta = (f: (typeof mine)[number], k: keyof CpuSnapshot) => f.cpu.after[k] - f.cpu.before[k];
      const busy = (f: (typeof mine)[number]) => delta(f, 'machineBusy');
      const cells = CPU_PARTS.map((p) => `${summary(mine.map((f) => delta(f, p) / f.cpu.requests), 2)} | ${summary(mine.map((f) => delta(f, p) / busy(f)), 2)}`);
      const other = summary(mine.map((f) => 1 - CPU_PARTS.reduce((k, p) => k + delta(f, p), 0) / busy(f)), 2);
      const cores = summary(mine.map((f) => (busy(f) / delta(f, 'machineAll')) * os.cpus().length), 2);
      console.log(`| ${n} | ${cores} | ${cells.join(' | ')} | ${other} |`);
    }
  }

  const problems = [
    ...died,
    signedIn !== READERS ? `${READERS - signedIn} readers could not sign in` : null,
    lost.length ? `${lost.length} acknowledged writes lost` : null,
    alive !== READERS ? `${READERS - alive} sessions dead` : null,
    faults.length !== 2 ? 'a fault did not happen' : null,
    ...(['usage', 'playlist', 'playlistItem', 'note'] as const).filter((k) => !byKind(k).length).map((k) => `no ${k} write was acknowledged`),
    imported.length ? null : 'no title was imported',
  ].filter((p) => p !== null);
  if (problems.length) {
    failed = true;
    console.log(`FAILED: ${problems.join('; ')} (logs kept in ${work})`);
  } else {
    console.log(`passed: 0 lost writes, every session alive, both faults survived (summary of p99s: ${summary(rows.filter((r) => r.s.latencies.length).map((r) => p99(r.s.latencies)), 0)} ms)`);
  }
} catch (err) {
  failed = true;
  console.error(err);
  console.log(`FAILED (logs kept in ${work})`);
}
if (failed) {
  for (const c of children) c.kill('SIGKILL');
  try {
    pgCtl('stop', ['-m', 'immediate']);
  } catch {
    // not started
  }
} else cleanUp();
process.exit(failed ? 1 : 0);
