/**
 * The playlists' 304 path (docs/decisions.md "Playlists and the home: no keyboard trap, one title one row, the light
 * playlist list"): GET /api/v2/collections/ with If-None-Match for a reader with 50 playlists of 100 items, against a
 * bare Fastify route (`GET /bare` answering {"hello":"world"}) served by ITS OWN process (an anchor inside Lectern's
 * process shares its event loop and reads high). Lectern (SQLite, the sample library) runs in a second child process,
 * the load generator in this one. Anchor and route runs alternate (anchor first in even rounds, route first in odd
 * ones) for `--rounds` rounds; each round gives one ratio, route requests/s over anchor requests/s; printed as median
 * (min-max), with the serving processes' CPU per request (anchor/route). The light list's 304 (`?content=none`, what
 * every page but the playlists area asks) is measured the same way.
 *
 * Usage: npx tsx bench/playlists-304.ts [--rounds 7] [--duration 3] [--connections 10] [--cpu-prof dir]
 *   --cpu-prof   start Lectern under `node --cpu-prof` and load only the 304 route (read it with bench/cpu-top.ts)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { median, summary } from './stats.ts';

const { values } = parseArgs({
  options: {
    serve: { type: 'string' },
    rounds: { type: 'string', default: '7' },
    duration: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    'cpu-prof': { type: 'string' },
  },
});

interface Ready {
  port: number;
  cookie?: string;
  etag?: string;
  lightEtag?: string;
}

if (values.serve === 'anchor') await serveAnchor();
else if (values.serve === 'lectern') await serveLectern();
else await main();

/** The bare route, alone in its process. */
async function serveAnchor() {
  const { default: Fastify } = await import('fastify');
  const anchor = Fastify({ logger: false });
  anchor.get('/bare', async () => ({ hello: 'world' }));
  await anchor.listen({ port: 0, host: '127.0.0.1' });
  const address = anchor.server.address();
  process.on('SIGTERM', () => process.exit(0));
  console.log(JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 } satisfies Ready));
}

/** Lectern on SQLite with the sample library and one reader holding 50 playlists of 100 items. */
async function serveLectern() {
  const { buildApp } = await import('../packages/server/src/app.ts');
  const { loadConfig } = await import('../packages/server/src/config.ts');
  const { importSampleLibrary } = await import('../packages/server/src/first-start.ts');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-bench-304-'));
  process.on('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }));
  process.on('SIGTERM', () => process.exit(0));
  const config = loadConfig({}, { dataDir, databaseUrl: null, logLevel: 'silent', webDist: null, sampleCacheDir: path.join(os.tmpdir(), 'lectern-sample-cache') });
  const lectern = await buildApp(config);
  const report = await importSampleLibrary(lectern.services, config, { cacheDir: config.sampleCacheDir });
  if (report.failed.length) throw new Error(`sample import failed: ${JSON.stringify(report.failed)}`);
  await lectern.services.accounts.createUser({ email: 'bench@example.com', password: 'benchmark password', status: 'subscriber' });
  const first = await lectern.app.inject({ method: 'GET', url: '/healthz' });
  const csrf = first.cookies.find((c) => c.name === 'csrftoken')!.value;
  const login = await lectern.app.inject({
    method: 'POST',
    url: '/login/',
    payload: { email: 'bench@example.com', password: 'benchmark password' },
    headers: { cookie: `csrftoken=${csrf}`, 'x-csrftoken': csrf },
  });
  if (login.statusCode !== 200) throw new Error(`bench sign-in failed: ${login.body}`);
  const cookie = login.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  const list = (await lectern.app.inject({ method: 'GET', url: '/api/v1/book/?page_size=100' })).json() as { results: { title: string; api_url: string }[] };
  const moby = list.results.find((b) => /Moby/i.test(b.title))!;
  const chapterUrls = ((await lectern.app.inject({ method: 'GET', url: moby.api_url })).json() as { chapters: { url: string }[] }).chapters.map((c) => c.url);
  const user = await lectern.db.kysely.selectFrom('users').select('id').where('email', '=', 'bench@example.com').executeTakeFirstOrThrow();
  for (let i = 0; i < 50; i++) {
    const playlist = await lectern.services.collections.create(user, { name: `Playlist ${String(i).padStart(2, '0')}`, description: 'Benchmark' });
    await lectern.services.collections.addContent(user, playlist.id, chapterUrls.slice(i % 40, (i % 40) + 100));
  }
  const answer = await lectern.app.inject({ method: 'GET', url: '/api/v2/collections/', headers: { cookie } });
  const light = await lectern.app.inject({ method: 'GET', url: '/api/v2/collections/?content=none', headers: { cookie } });
  await lectern.app.listen({ port: 0, host: '127.0.0.1' });
  const address = lectern.app.server.address();
  console.log(JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0, cookie, etag: String(answer.headers.etag), lightEtag: String(light.headers.etag) } satisfies Ready));
}

function start(args: string[], node: string[] = []): { child: ChildProcess; ready: Promise<Ready> } {
  const child = spawn(process.execPath, [...node, '--import', 'tsx', 'bench/playlists-304.ts', ...args], {
    cwd: path.resolve(import.meta.dirname, '..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = new Promise<Ready>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line) as Ready);
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
  return { child, ready };
}

async function main() {
  const rounds = Number(values.rounds);
  const duration = Number(values.duration);
  const connections = Number(values.connections);
  if (rounds < 5 && !values['cpu-prof']) console.warn('fewer than 5 rounds: the figures are not for docs/performance.md');
  const profile = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(values['cpu-prof'])}`] : [];
  const anchorProcess = start(['--serve', 'anchor']);
  const lecternProcess = start(['--serve', 'lectern'], profile);
  try {
    const [anchorInfo, app] = await Promise.all([anchorProcess.ready, lecternProcess.ready]);
    const base = `http://127.0.0.1:${app.port}`;
    const anchor = { name: 'anchor', url: `http://127.0.0.1:${anchorInfo.port}/bare`, headers: {}, expect: 200 };
    const notModified = {
      name: 'GET /api/v2/collections/ with If-None-Match (304), 50 playlists x 100 items',
      url: `${base}/api/v2/collections/`,
      headers: { cookie: app.cookie!, 'if-none-match': app.etag! },
      expect: 304,
    };
    const lightNotModified = {
      name: 'GET /api/v2/collections/?content=none with If-None-Match (304), the light list',
      url: `${base}/api/v2/collections/?content=none`,
      headers: { cookie: app.cookie!, 'if-none-match': app.lightEtag! },
      expect: 304,
    };
    type Target = typeof anchor;
    const cpuOf = (child: ChildProcess) => {
      const fields = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    };
    const cpuPerRequest = new Map<Target, number[]>();
    /** requests/s; also records the serving process's CPU seconds per request (from /proc, Linux) */
    const run = async (t: Target, seconds: number) => {
      const serving = t === anchor ? anchorProcess.child : lecternProcess.child;
      const before = cpuOf(serving);
      const r = await autocannon({ url: t.url, connections, headers: t.headers, duration: seconds });
      const ok = r.statusCodeStats?.[String(t.expect) as '200']?.count ?? 0;
      if (r.errors || ok !== r.requests.total) throw new Error(`${t.url}: ${r.requests.total - ok} answers other than ${t.expect}, ${r.errors} errors`);
      cpuPerRequest.set(t, [...(cpuPerRequest.get(t) ?? []), (cpuOf(serving) - before) / r.requests.total]);
      return r.requests.average;
    };
    if (profile.length) {
      console.log(`304: ${Math.round(await run(notModified, duration))} requests/s (profiled)`);
      return;
    }
    const rows: string[] = [];
    for (const target of [notModified, lightNotModified]) {
      await run(anchor, 1);
      await run(target, 1);
      cpuPerRequest.clear();
      const ratios: number[] = [];
      const appRps: number[] = [];
      const anchorRps: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const anchorFirst = round % 2 === 0;
        const a = anchorFirst ? await run(anchor, duration) : 0;
        const b = await run(target, duration);
        const c = anchorFirst ? a : await run(anchor, duration);
        ratios.push(b / c);
        appRps.push(b);
        anchorRps.push(c);
        console.error(`round ${round + 1}: ${Math.round(b)} requests/s, anchor ${Math.round(c)} requests/s, ratio ${(b / c).toFixed(2)}`);
      }
      // per round: the anchor's CPU per request over the route's (the anchor and route runs of that round)
      const anchorCpu = cpuPerRequest.get(anchor) ?? [];
      const cpuRatios = (cpuPerRequest.get(target) ?? []).map((c, i) => anchorCpu[i]! / c);
      rows.push(`| ${target.name} | ${Math.round(median(appRps))} | ${Math.round(median(anchorRps))} | **${summary(ratios)}** | ${summary(cpuRatios)} |`);
    }
    console.log(
      [
        `Lectern playlists 304 bench — ${new Date().toISOString()} — ${rounds} rounds of ${duration} s, ${connections} connections, anchor in its own process, alternating; node ${process.version}`,
        '| route | requests/s (median) | anchor requests/s (median) | ratio to anchor: median (min-max) | server CPU per request, anchor/route: median (min-max) |',
        '|---|---:|---:|---:|---:|',
        ...rows,
      ].join('\n'),
    );
  } finally {
    anchorProcess.child.kill('SIGTERM');
    lecternProcess.child.kill('SIGTERM');
  }
}
