/**
 * Media streaming bench (docs/decisions.md "Media serving: sessions, streams, usage and positions"): HTTP range reads
 * of a 100 MB media part from Lectern (GET /api/v1/media/{book_id}/{href}?ks=, a signed-in subscriber's session, the
 * route's whole path: session cookie, token, rights, the part's row, sendMediaFile) against a bare static-file handler
 * (node:http, fs.createReadStream of the same file, a single byte range parsed by hand: the anchor), each in a process
 * of its own, at 1, 10 and 100 concurrent readers. Each measurement reads TOTAL bytes as consecutive CHUNK-byte ranges
 * (what a player's range requests look like), the readers sharing the queue of ranges over keep-alive sockets. Anchor
 * and Lectern alternate (anchor first in odd rounds, Lectern first in even ones) for `--rounds` rounds; each round
 * gives a throughput ratio (Lectern MB/s / anchor MB/s); printed: median and range per side, the ratio's median and
 * range, each server's CPU time per 100 MB sent (from /proc: what serving costs the server, which other work on a
 * loaded machine moves much less than throughput) with its ratio, and each server's peak RSS while it served (sampled
 * from /proc every 20 ms) - flat as the readers grow when nothing buffers whole files.
 *
 * The 100 MB file is made once under /tmp (a real MP4 from the fixtures, padded with random bytes with dd: the
 * server does not parse what it streams). Lectern's title is imported from the real fixture and its stored part is
 * then replaced by the big file on disk.
 *
 * Usage: npx tsx bench/media-stream.ts [--rounds 5] [--chunk 2] [--port 4610]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startJsonProcess } from './replay.ts';
import { median, summary } from './stats.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    port: { type: 'string', default: '4610' },
    serve: { type: 'string' },
    chunk: { type: 'string', default: '2' },
    file: { type: 'string' },
  },
});

const SIZE = 100 * 1024 * 1024;
/** the size of each range asked for, MB (--chunk): a player's range requests run from a few MB to the whole file */
const CHUNK = Number(values.chunk) * 1024 * 1024;
const TOTAL = 400 * 1024 * 1024;
const CONCURRENCY = [1, 10, 100];
const FIXTURE = path.resolve(import.meta.dirname, '../packages/server/test/fixtures/media/clip.mp4');
const BIG = path.join(os.tmpdir(), 'lectern-bench-media-100mb.mp4');

interface Served {
  port: number;
  path: string;
  headers: Record<string, string>;
  /** the file on disk the server sends (the anchor sends Lectern's stored copy: the same file, the same page cache) */
  file: string;
}

/** The 100 MB file: the fixture's MP4, then random bytes to 100 MB (made once). */
function bigFile(): string {
  if (fs.existsSync(BIG) && fs.statSync(BIG).size === SIZE) return BIG;
  const head = fs.readFileSync(FIXTURE);
  fs.writeFileSync(BIG, head);
  execFileSync('dd', ['if=/dev/urandom', `of=${BIG}`, 'bs=1M', `count=${Math.ceil((SIZE - head.byteLength) / (1024 * 1024))}`, 'oflag=append', 'conv=notrunc', 'status=none']);
  fs.truncateSync(BIG, SIZE);
  return BIG;
}

/** The anchor: node:http sending the file or one byte range of it from disk, nothing else. */
async function serveAnchor(file: string, port: number): Promise<void> {
  const size = fs.statSync(file).size;
  const server = http.createServer((req, res) => {
    const m = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
    let start = 0;
    let end = size - 1;
    if (m) {
      start = m[1] ? Number(m[1]) : size - Number(m[2]);
      end = m[1] && m[2] ? Math.min(Number(m[2]), size - 1) : size - 1;
      res.writeHead(206, { 'content-type': 'video/mp4', 'content-length': end - start + 1, 'content-range': `bytes ${start}-${end}/${size}`, 'accept-ranges': 'bytes' });
    } else {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': size, 'accept-ranges': 'bytes' });
    }
    fs.createReadStream(file, { start, end }).pipe(res);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  console.log(JSON.stringify({ port, path: '/clip.mp4', headers: {}, file } satisfies Served));
}

/** Lectern with one imported video whose stored part is the big file; a subscriber's cookie and session. */
async function serveLectern(file: string, port: number): Promise<void> {
  const { buildApp } = await import('../packages/server/src/app.ts');
  const { loadConfig } = await import('../packages/server/src/config.ts');
  const { paths } = await import('@lectern/core');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-bench-media-'));
  process.on('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }));
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => process.exit(0));
  const lectern = await buildApp(loadConfig({}, { dataDir, databaseUrl: null, logLevel: 'silent', webDist: null, secret: 'bench-secret-'.padEnd(40, 'x') }));
  const report = await lectern.services.importer.importPaths([FIXTURE]);
  const bookId = report.imported[0]!.book_id;
  const part = await lectern.db.kysely
    .selectFrom('media_files as m')
    .innerJoin('chapters as c', 'c.id', 'm.chapter_id')
    .select(['m.storage_path', 'c.full_path'])
    .where('m.title_id', '=', (await lectern.services.catalog.requireTitle(bookId)).id)
    .executeTakeFirstOrThrow();
  const stored = path.join(dataDir, 'content', part.storage_path);
  fs.copyFileSync(file, stored);
  await lectern.services.accounts.createUser({ email: 'bench@example.com', password: 'a long enough password', status: 'subscriber' });
  // as the web app signs in: the csrftoken cookie first, sent back as X-CSRFToken
  const csrf = (await lectern.app.inject({ method: 'GET', url: '/healthz' })).cookies.find((c) => c.name === 'csrftoken')!.value;
  const login = await lectern.app.inject({
    method: 'POST',
    url: '/login/',
    payload: { email: 'bench@example.com', password: 'a long enough password' },
    headers: { cookie: `csrftoken=${csrf}`, 'x-csrftoken': csrf },
  });
  if (login.statusCode !== 200) throw new Error(`sign-in failed: ${login.statusCode} ${login.body}`);
  const cookie = login.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  const session = await lectern.app.inject({ method: 'GET', url: paths.mediaSession(bookId), headers: { cookie } });
  if (session.statusCode !== 200) throw new Error(`no session: ${session.statusCode} ${session.body}`);
  const { ks } = session.json() as { ks: string };
  await lectern.app.listen({ port, host: '127.0.0.1' });
  console.log(JSON.stringify({ port, path: `${paths.mediaStream(bookId, part.full_path)}?ks=${encodeURIComponent(ks)}`, headers: { cookie }, file: stored } satisfies Served));
}

/** Reads TOTAL bytes as CHUNK ranges with `readers` at once; MB/s. */
async function measure(served: Served, readers: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: readers });
  const count = TOTAL / CHUNK;
  let next = 0;
  let received = 0;
  const one = (index: number) =>
    new Promise<void>((resolve, reject) => {
      // whole ranges only, within the file
      const start = (index % Math.floor(SIZE / CHUNK)) * CHUNK;
      const req = http.get({ host: '127.0.0.1', port: served.port, path: served.path, agent, headers: { ...served.headers, range: `bytes=${start}-${start + CHUNK - 1}` } }, (res) => {
        if (res.statusCode !== 206) reject(new Error(`status ${res.statusCode}`));
        res.on('data', (d: Buffer) => (received += d.byteLength));
        res.on('end', resolve);
        res.on('error', reject);
      });
      req.on('error', reject);
    });
  const began = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: readers }, async () => {
      while (next < count) await one(next++);
    }),
  );
  const seconds = Number(process.hrtime.bigint() - began) / 1e9;
  agent.destroy();
  if (received !== TOTAL) throw new Error(`read ${received} of ${TOTAL} bytes`);
  return TOTAL / (1024 * 1024) / seconds;
}

/** CPU time (user + system, ms) a process has used: what serving cost it, which the machine's load moves less. */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** Peak resident memory (MB) of a process while `work` runs. */
async function withPeakRss<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peakMb: number }> {
  let peak = 0;
  const sample = () => {
    const kb = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    peak = Math.max(peak, Number(kb ?? 0) / 1024);
  };
  sample();
  const timer = setInterval(sample, 20);
  try {
    const result = await work();
    sample();
    return { result, peakMb: peak };
  } finally {
    clearInterval(timer);
  }
}

async function main(): Promise<void> {
  const rounds = Number(values.rounds);
  if (rounds < 5) console.warn('fewer than 5 rounds: the figures are not for docs/performance.md');
  const port = Number(values.port);
  const file = bigFile();
  const me = path.relative(process.cwd(), import.meta.filename);
  const lectern = await startJsonProcess<Served>(me, ['--serve', 'lectern', '--file', file, '--port', String(port)]);
  const anchor = await startJsonProcess<Served>(me, ['--serve', 'anchor', '--file', lectern.info.file, '--port', String(port + 1)]);
  const sides = { anchor, lectern };
  try {
    // warm: the file in the page cache, both servers' code paths compiled
    for (const side of Object.values(sides)) await measure(side.info, 10);
    console.log(`load before: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; ${rounds} rounds of ${TOTAL / 2 ** 20} MB in ${CHUNK / 2 ** 20} MB ranges of a ${SIZE / 2 ** 20} MB file`);
    type Row = { anchor: number[]; lectern: number[]; ratio: number[]; anchorRss: number[]; lecternRss: number[]; anchorCpu: number[]; lecternCpu: number[]; cpuRatio: number[] };
    const results = new Map<number, Row>();
    for (const c of CONCURRENCY) results.set(c, { anchor: [], lectern: [], ratio: [], anchorRss: [], lecternRss: [], anchorCpu: [], lecternCpu: [], cpuRatio: [] });
    for (let round = 0; round < rounds; round++) {
      for (const c of CONCURRENCY) {
        const order = round % 2 === 0 ? (['anchor', 'lectern'] as const) : (['lectern', 'anchor'] as const);
        const got: Record<string, number> = {};
        const r = results.get(c)!;
        for (const side of order) {
          const pid = sides[side].child.pid!;
          const cpuBefore = cpuMs(pid);
          const { result, peakMb } = await withPeakRss(pid, () => measure(sides[side].info, c));
          got[side] = result;
          r[side].push(result);
          r[`${side}Rss`].push(peakMb);
          // the server's CPU milliseconds per 100 MB sent
          const cpu = ((cpuMs(pid) - cpuBefore) * 100) / (TOTAL / 2 ** 20);
          got[`${side}Cpu`] = cpu;
          r[`${side}Cpu`].push(cpu);
        }
        r.ratio.push(got.lectern! / got.anchor!);
        r.cpuRatio.push(got.anchorCpu! / got.lecternCpu!);
      }
    }
    console.log('readers | anchor MB/s       | Lectern MB/s      | ratio (Lectern/anchor) | CPU ms/100 MB anchor | Lectern     | ratio (anchor/Lectern) | peak RSS MB anchor / Lectern');
    for (const [c, r] of results) {
      console.log(
        `${String(c).padStart(7)} | ${summary(r.anchor, 0).padEnd(17)} | ${summary(r.lectern, 0).padEnd(17)} | ${summary(r.ratio).padEnd(22)} | ` +
          `${summary(r.anchorCpu, 0).padEnd(20)} | ${summary(r.lecternCpu, 0).padEnd(11)} | ${summary(r.cpuRatio).padEnd(22)} | ` +
          `${median(r.anchorRss).toFixed(0)} / ${median(r.lecternRss).toFixed(0)} (max ${Math.max(...r.lecternRss).toFixed(0)})`,
      );
    }
    console.log(`load after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    lectern.child.kill();
    anchor.child.kill();
  }
}

if (values.serve === 'anchor') await serveAnchor(values.file!, Number(values.port));
else if (values.serve === 'lectern') await serveLectern(values.file!, Number(values.port));
else await main();
