/**
 * Lighthouse bench (DESIGN.md "Web performance"): Lighthouse 12.8.2 against the built app on loopback, Chrome
 * launched as the Lighthouse CLI launches it (chrome-launcher's defaults) plus DESIGN.md's flags; the mobile (default)
 * preset and, if asked, the desktop one; RUNS runs per row; the median performance score with its range and the
 * median FCP, LCP, TBT and CLS per row; the machine's load while each row ran; then every JS chunk of the Vite build
 * with its gzip size, the entry chunk against its 120 KB budget. Prints PASS/FAIL per row and exits 0 (a bench, not
 * a test).
 *
 *   npm run build && npx tsx bench/lighthouse.ts
 *   RUNS=5 (default)  READERS=one,many  SCREENS=home,catalog,playlist,search,reader,first-visit  PRESETS=mobile,desktop
 *   PORT=4300 (the server; Chrome gets the next ports)  REPORTS=dir (keeps every report as JSON)
 *   BEFORE=dir: another build (say, of an older commit) served by a second fresh server with the same readers; each
 *   row then has that build's row beside it and their runs alternate (the anchor on a machine others share)
 *   DIST=dir: the build to measure instead of packages/web/dist  BEFORE_PORT=n: the anchor's server (default PORT+50)
 *   CHROME_PORTS=n: Chrome takes the ports PORT+1 to PORT+n in turn (default 20)
 *   BEFORE_ROOT=dir: the anchor's server started from that checkout (a `git worktree` of the older commit, its
 *   packages/web/dist built), so the anchor is that commit whole, server and web app, not its web app on today's server
 *
 * Readers: "one" is the demo account with one playlist of the library's titles; "many" is a subscriber
 * with 51 playlists of 100 items (50 playlists and the queue), the reader whose pages used to download every
 * playlist's items. Screens, each signed in as that reader: the home (/home/), the catalog (/library/), a playlist
 * (one of theirs, 100 items for "many"), a search (/search/?q=whale) and the reader (the median-sized chapter of
 * Moby-Dick; the chapter arrives encrypted and is decrypted in the browser). first-visit is `/` signed out, once.
 *
 * The machine is shared: runs go round the rows (round 1 of every row, then round 2, ...) so a busy spell touches
 * every row alike rather than one, and each run records the 1-minute load average and Lighthouse's own
 * benchmarkIndex (its measure of how fast this CPU was, which its simulated throttling scales by).
 * The built app is copied aside first and served from the copy: another build replacing packages/web/dist
 * mid-run must not change what is measured.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse, { desktopConfig, type Flags, type Result } from 'lighthouse';
import { chromium, type Cookie } from 'playwright-core';
import { startFreshServer, CHROMIUM_LAUNCH, lecternCli, signIn } from '../scripts/fresh-server.ts';

const root = path.resolve(import.meta.dirname, '..');
/** The build measured as 'this': packages/web/dist, or DIST=dir (a build of one's own, made with `vite build --outDir`). */
const dist = process.env.DIST ? path.resolve(process.env.DIST) : path.join(root, 'packages/web/dist');
const RUNS = Number(process.env.RUNS ?? 5);
const PORT = Number(process.env.PORT ?? 0);
const CHROME_PATH = process.env.CHROME_PATH || '/usr/bin/chromium';
/** DESIGN.md's flags, word for word. */
const CHROME_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
];
const BUDGET = { desktop: 100, mobile: 95 } as const;
const ENTRY_BUDGET_KB = 120;
type Preset = keyof typeof BUDGET;

/** One built app served by its own fresh server, with the readers made on it. */
interface Site {
  /** 'this' (packages/web/dist), or 'before' (BEFORE=dir: another build, the anchor the rows alternate with). */
  label: string;
  base: string;
  readers: Map<string, Reader>;
  readerPath: string;
  stop(): Promise<void>;
}

interface Screen {
  site: Site;
  /** Which reader's session the screen is audited in; null for a signed-out visit. */
  reader: string | null;
  name: string;
  path: string;
  /** The path the page must end on: a login redirect must not be audited in its place. */
  finalPath: string;
}

interface Run {
  score: number;
  lcp: number;
  tbt: number;
  cls: number;
  fcp: number;
  /** Script bytes over the wire, as Lighthouse recorded them. */
  jsBytes: number;
  /** Every byte over the wire. */
  totalBytes: number;
  /** The 1-minute load average when the run started and when it ended. */
  load: [number, number];
  /** Lighthouse's measure of this CPU's speed during the run (higher is faster). */
  benchmarkIndex: number;
  lcpElement: string;
  finalUrl: string;
  lhr: Result;
}

/** A run Lighthouse itself could not complete (it says "Please run Lighthouse again"). */
class LighthouseRunError extends Error {}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const range = (xs: number[], digits = 0) => `${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)}`;
const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const load1 = () => os.loadavg()[0]!;

interface NetworkItem {
  url: string;
  statusCode: number;
  resourceType?: string;
  transferSize?: number;
}
const networkOf = (lhr: Result) => ((lhr.audits['network-requests']?.details as { items?: NetworkItem[] } | undefined)?.items ?? []) as NetworkItem[];

/** The performance audits that cost the run something, for finding out why a screen misses its budget. */
function weakAudits(lhr: Result): string[] {
  const refs = lhr.categories.performance?.auditRefs ?? [];
  return refs
    .map((r) => lhr.audits[r.id]!)
    .filter((a) => a.score !== null && a.score < 0.9 && a.scoreDisplayMode !== 'informative' && a.scoreDisplayMode !== 'notApplicable')
    .map((a) => `${a.id}: ${a.displayValue ?? ''} (score ${a.score})`);
}

/** The element Lighthouse took for the largest paint, as its selector says it. */
function lcpElementOf(lhr: Result): string {
  const details = lhr.audits['largest-contentful-paint-element']?.details as { items?: { items?: { node?: { selector?: string; nodeLabel?: string } }[] }[] } | undefined;
  const node = details?.items?.[0]?.items?.[0]?.node;
  return node ? `${node.selector ?? '?'} "${(node.nodeLabel ?? '').slice(0, 40)}"` : 'none';
}

function chunkSizes(dir: string) {
  const assets = path.join(dir, 'assets');
  const html = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
  const entry = /<script type="module"[^>]*src="\/assets\/([^"]+\.js)"/.exec(html)?.[1];
  // Chunks index.html preloads (the entry's static imports, the schemas): fetched with the entry.
  const preloads = [...html.matchAll(/<link rel="modulepreload"[^>]*href="\/assets\/([^"]+\.js)"/g)].map((m) => m[1]!);
  const rows = fs
    .readdirSync(assets)
    .filter((f) => /\.m?js$/.test(f))
    .map((file) => {
      const buf = fs.readFileSync(path.join(assets, file));
      return { file, raw: buf.length, gzip: zlib.gzipSync(buf, { level: 9 }).length, role: file === entry ? 'entry' : preloads.includes(file) ? 'preloaded with the entry' : '' };
    })
    .sort((a, b) => b.gzip - a.gzip);
  return { rows, entry, preloads };
}

interface Reader {
  cookies: Cookie[];
  playlistPath: string;
  playlists: number;
}

const V2 = 'application/json; version=v2';

async function main() {
  if (!fs.existsSync(path.join(dist, 'index.html'))) {
    console.error(`no web build at ${path.relative(root, dist)}: run \`npm run build\` first`);
    process.exit(1);
  }
  process.env.CHROME_PATH = CHROME_PATH;
  const wantedReaders = process.env.READERS?.split(',') ?? ['one', 'many'];
  const only = process.env.SCREENS?.split(',') ?? ['home', 'catalog', 'playlist', 'search', 'reader', 'first-visit'];
  const presets = (process.env.PRESETS?.split(',') ?? ['mobile']) as Preset[];
  const reports = process.env.REPORTS;
  if (reports) fs.mkdirSync(reports, { recursive: true });

  /** A build as it is now, served from a copy: a build by someone else mid-run empties packages/web/dist. */
  const snapshotOf = (dir: string) => {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-bench-lighthouse-web-'));
    fs.cpSync(dir, copy, { recursive: true, filter: (f) => !f.endsWith('.map') });
    process.on('exit', () => fs.rmSync(copy, { recursive: true, force: true }));
    return copy;
  };

  /** A fresh server for one build, with the readers made on it through its API. */
  const prepare = async (label: string, web: string, port: number | undefined, serverRoot?: string): Promise<Site> => {
    // (BEFORE_ROOT: the anchor's server from that checkout, so a comparison with an older commit holds its server too)
    const start: typeof startFreshServer = serverRoot
      ? ((await import(pathToFileURL(path.join(path.resolve(serverRoot), 'scripts/fresh-server.ts')).href)) as { startFreshServer: typeof startFreshServer }).startFreshServer
      : startFreshServer;
    const fresh = await start({ dataDirPrefix: 'lectern-bench-lighthouse-', timeoutMs: 170_000, port, env: { WEB_DIST: web } });
    const { base } = fresh;
    const readers = new Map<string, Reader>();
    let readerPath: string;
    const setup = await chromium.launch(CHROMIUM_LAUNCH);
    try {
      /** Signs a reader in through the sign-in page; their cookies and a request context with their CSRF token. */
      const session = async (email: string, password: string) => {
        const context = await setup.newContext({ baseURL: base });
        const page = await context.newPage();
        page.setDefaultTimeout(30_000);
        await signIn(page, email, password);
        const cookies = await context.cookies();
        const csrf = cookies.find((c) => c.name === 'csrftoken')?.value ?? '';
        const post = async (url: string, data: unknown, expected: number) => {
          const r = await page.request.post(url, { headers: { accept: V2, 'x-csrftoken': csrf, origin: base }, data });
          if (r.status() !== expected) throw new Error(`${url}: ${r.status()} ${await r.text()}`);
          return r.json();
        };
        return { page, cookies, post };
      };

      const demo = await session(fresh.email, fresh.password);
      const books = (await (await demo.page.request.get('/api/v1/book/?page_size=100')).json()).results as { api_url: string; title: string; content_format: string }[];
      const details = await Promise.all(books.map(async (b) => ({ ...b, chapters: ((await (await demo.page.request.get(b.api_url)).json()) as { chapters: { url: string; web_url: string; label: string }[] }).chapters })));

      // A typical chapter: the median-sized one of Moby-Dick (as bench/servers.ts picks it), as a signed-in reader gets it.
      const moby = details.find((b) => /Moby/i.test(b.title) && b.content_format === 'book');
      if (!moby) throw new Error('Moby-Dick is not in the sample library');
      const sized = await Promise.all(moby.chapters.map(async (c) => ({ webUrl: c.web_url, label: c.label, bytes: (await (await demo.page.request.get(c.url)).body()).length })));
      sized.sort((a, b) => a.bytes - b.bytes);
      const chapter = sized[Math.floor(sized.length / 2)]!;
      readerPath = new URL(chapter.webUrl, base).pathname;
      console.log(`reader chapter: "${chapter.label}" of Moby-Dick, ${kb(chapter.bytes)} KB as served (encrypted)`);

      if (wantedReaders.includes('one')) {
        // One playlist with every title of the library.
        const made = await demo.post('/nest/api/api/v2/collections/', { name: 'Lighthouse reading list', description: 'Made by bench/lighthouse.ts' }, 201);
        await demo.post(`/nest/api/api/v2/collections/${encodeURIComponent(made.id)}/add-content/`, { content: books.map((b) => b.api_url) }, 200);
        readers.set('one', { cookies: demo.cookies, playlistPath: `/c/collection/${encodeURIComponent(made.id)}/`, playlists: 1 });
      }
      if (wantedReaders.includes('many')) {
        // 51 playlists of 100 items: 50 playlists and the queue, each holding 100 chapters (items are titles or chapters).
        const email = `lighthouse-many-${Date.now()}@example.com`;
        const password = 'a long enough password';
        lecternCli(fresh.dataDir, ['users:create', '--email', email, '--password', password, '--status', 'subscriber']);
        const many = await session(email, password);
        const chapters = details.flatMap((b) => b.chapters.map((c) => c.url)).slice(0, 100);
        if (chapters.length < 100) throw new Error(`the sample library has ${chapters.length} chapters, not 100`);
        let last = '';
        for (let i = 0; i < 50; i++) {
          const made = await many.post('/nest/api/api/v2/collections/', { name: `Shelf ${String(i).padStart(2, '0')}`, description: '' }, 201);
          await many.post(`/nest/api/api/v2/collections/${encodeURIComponent(made.id)}/add-content/`, { content: chapters }, 200);
          last = made.id;
        }
        await many.post('/api/v1/queue-simple/', chapters, 200);
        const whole = await many.page.request.get('/nest/api/api/v2/collections/', { headers: { accept: V2 } });
        console.log(`reader "many": 51 playlists of 100 items; the whole playlist list is ${(await whole.body()).length} bytes`);
        readers.set('many', { cookies: many.cookies, playlistPath: `/c/collection/${encodeURIComponent(last)}/`, playlists: 51 });
      }
    } finally {
      await setup.close();
    }
    return { label, base, readers, readerPath, stop: () => fresh.stop() };
  };

  console.log(`load average before set-up: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (${os.cpus().length} cores)`);
  const sites: Site[] = [];
  // The anchor first, then this build: each row's runs alternate between them, round after round.
  if (process.env.BEFORE) sites.push(await prepare('before', snapshotOf(process.env.BEFORE), process.env.BEFORE_PORT ? Number(process.env.BEFORE_PORT) : PORT ? PORT + 50 : undefined, process.env.BEFORE_ROOT));
  sites.push(await prepare('this', snapshotOf(dist), PORT || undefined));
  const thisBuild = sites[sites.length - 1]!;
  try {
    // Per reader and screen, the anchor's row (if any) right before this build's, so their runs alternate.
    const screens: Screen[] = [];
    for (const name of thisBuild.readers.keys()) {
      for (const screen of ['home', 'catalog', 'playlist', 'search', 'reader']) {
        if (!only.includes(screen)) continue;
        for (const site of sites) {
          const r = site.readers.get(name)!;
          const p = { home: '/home/', catalog: '/library/', playlist: r.playlistPath, search: '/search/?q=whale', reader: site.readerPath }[screen]!;
          screens.push({ site, reader: name, name: screen, path: p, finalPath: p.split('?')[0]! });
        }
      }
    }
    // A first visit: `/` signed out, which the client sends to the home.
    if (only.includes('first-visit')) for (const site of sites) screens.push({ site, reader: null, name: 'first-visit', path: '/', finalPath: '/home/' });
    const labelOf = (screen: Screen) => `${sites.length > 1 ? `${screen.site.label} ` : ''}${screen.reader ?? 'visitor'}`;

    let chromePort = PORT ? PORT + 1 : 0;
    const auditOnce = async (screen: Screen, preset: Preset): Promise<Run> => {
      const loadBefore = load1();
      // A fresh Chrome per run, as the Lighthouse CLI does.
      const chrome = await chromeLauncher.launch({
        chromePath: CHROME_PATH,
        chromeFlags: CHROME_FLAGS,
        logLevel: 'silent',
        ...(chromePort ? { port: chromePort } : {}),
      });
      // A port a killed Chrome may still hold is not reused at once.
      if (chromePort) chromePort = chromePort >= PORT + Number(process.env.CHROME_PORTS ?? 20) ? PORT + 1 : chromePort + 1;
      try {
        const reader = screen.reader ? screen.site.readers.get(screen.reader)! : null;
        if (reader) {
          // Real cookies in the profile, not an extraHeaders Cookie: the client reads `logged_in` from document.cookie.
          const cdp = await chromium.connectOverCDP(`http://127.0.0.1:${chrome.port}`);
          await cdp.contexts()[0]!.addCookies(reader.cookies);
          await cdp.close();
        }
        const flags: Flags = { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance'] };
        const base = screen.site.base;
        const result = await lighthouse(base + screen.path, flags, preset === 'desktop' ? desktopConfig : undefined);
        if (!result) throw new Error('Lighthouse returned nothing');
        const lhr = result.lhr;
        const label = `${labelOf(screen)}/${screen.name}/${preset}`;
        if (lhr.runtimeError) throw new LighthouseRunError(`${label}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
        const finalUrl = lhr.finalDisplayedUrl;
        if (new URL(finalUrl).pathname !== screen.finalPath) throw new Error(`${label}: ended on ${finalUrl}, not ${screen.finalPath}`);
        const network = networkOf(lhr);
        // Signed in means the app knew the reader: the profile came with the page (routes/web.ts, the boot data) or
        // its call succeeded, and the playlist menus, which only a signed-in reader has, were asked for. Signed out,
        // that the page asked for neither.
        const profile = network.find((r) => r.url.endsWith('/u/information_for_javascript'));
        const playlists = network.find((r) => r.url.includes('/api/v2/collections/'));
        // (search asks for no playlist: its results carry no playlist controls, and the reader may open before the
        // menus ask; for them the profile, in the page or asked, is the sign)
        const menus = screen.name !== 'search' && screen.name !== 'reader';
        if (reader ? (profile && profile.statusCode !== 200) || (menus && playlists?.statusCode !== 200) : profile || playlists) {
          throw new Error(`${label}: profile call ${profile?.statusCode ?? 'none'}, playlists ${playlists?.statusCode ?? 'none'}`);
        }
        if (screen.name === 'reader' && !network.some((r) => r.url.includes('/nest/epub/block/') && r.statusCode === 200)) {
          throw new Error(`${label}: no chapter block was fetched`);
        }
        // (the signed-in page itself carries the search's first answer since each screen's first answers are in its
        // page, routes/web.ts: its request counts, as an API request would)
        if (screen.name === 'search' && !network.some((r) => r.url.includes('/search') && r.url.includes('whale') && r.statusCode === 200)) {
          throw new Error(`${label}: no search was answered`);
        }
        if (reports) fs.writeFileSync(path.join(reports, `${labelOf(screen).replace(' ', '-')}-${screen.name}-${preset}-${Date.now()}.json`), JSON.stringify(lhr));
        return {
          score: Math.round((lhr.categories.performance?.score ?? 0) * 100),
          lcp: lhr.audits['largest-contentful-paint']?.numericValue ?? NaN,
          tbt: lhr.audits['total-blocking-time']?.numericValue ?? NaN,
          cls: lhr.audits['cumulative-layout-shift']?.numericValue ?? NaN,
          fcp: lhr.audits['first-contentful-paint']?.numericValue ?? NaN,
          jsBytes: network.filter((r) => r.resourceType === 'Script').reduce((s, r) => s + (r.transferSize ?? 0), 0),
          totalBytes: network.reduce((s, r) => s + (r.transferSize ?? 0), 0),
          load: [loadBefore, load1()],
          benchmarkIndex: lhr.environment.benchmarkIndex,
          lcpElement: lcpElementOf(lhr),
          finalUrl,
          lhr,
        };
      } finally {
        chrome.kill();
      }
    };

    const rows = screens.flatMap((screen) => presets.map((preset) => ({ screen, preset, runs: [] as Run[] })));
    const started = new Date();
    for (let round = 0; round < RUNS; round++) {
      for (const row of rows) {
        for (let failures = 0; ; ) {
          try {
            const run = await auditOnce(row.screen, row.preset);
            row.runs.push(run);
            console.log(
              `round ${round + 1}  ${labelOf(row.screen).padEnd(sites.length > 1 ? 14 : 7)} ${row.screen.name.padEnd(11)} ${row.preset.padEnd(7)} score ${String(run.score).padStart(3)}  ` +
                `FCP ${run.fcp.toFixed(0)} LCP ${run.lcp.toFixed(0)} TBT ${run.tbt.toFixed(0)} CLS ${run.cls.toFixed(3)}  load ${run.load[0].toFixed(2)}->${run.load[1].toFixed(2)}  index ${run.benchmarkIndex.toFixed(0)}`,
            );
            break;
          } catch (err) {
            // Lighthouse's own hiccups (NO_NAVSTART and the like) get the run again, twice at most.
            if (!(err instanceof LighthouseRunError) || ++failures > 2) throw err;
            console.log(`  ${err.message}: running again`);
          }
        }
      }
    }

    const allLoads = rows.flatMap((r) => r.runs.flatMap((x) => x.load));
    console.log(
      `\nLighthouse 12.8.2, performance, median of ${RUNS} runs per row (rounds interleaved); ${CHROME_PATH}; ` +
        `${started.toISOString().slice(0, 16)}-${new Date().toISOString().slice(11, 16)} UTC, 1-min load ${range(allLoads, 2)} (median ${median(allLoads).toFixed(2)}), ${os.cpus().length} cores`,
    );
    const header = ['reader', 'screen', 'preset', 'score', 'runs', 'FCP ms', 'LCP ms', 'TBT ms', 'CLS', 'JS KB', 'all KB', 'load', 'index', 'budget', ''];
    const table = rows.map(({ screen, preset, runs }) => {
      const score = median(runs.map((r) => r.score));
      return [
        labelOf(screen),
        screen.name,
        preset,
        String(score),
        runs.map((r) => r.score).join('/'),
        median(runs.map((r) => r.fcp)).toFixed(0),
        median(runs.map((r) => r.lcp)).toFixed(0),
        median(runs.map((r) => r.tbt)).toFixed(0),
        median(runs.map((r) => r.cls)).toFixed(3),
        kb(median(runs.map((r) => r.jsBytes))),
        kb(median(runs.map((r) => r.totalBytes))),
        range(runs.flatMap((r) => r.load), 2),
        median(runs.map((r) => r.benchmarkIndex)).toFixed(0),
        `>= ${BUDGET[preset]}`,
        score >= BUDGET[preset] ? 'PASS' : 'FAIL',
      ];
    });
    const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
    for (const r of [header, ...table]) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  '));

    // What the largest paint was, per row (the most frequent element over the runs).
    console.log('\nLCP element (most runs):');
    for (const { screen, preset, runs } of rows) {
      const counts = new Map<string, number>();
      for (const r of runs) counts.set(r.lcpElement, (counts.get(r.lcpElement) ?? 0) + 1);
      const [el, n] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
      console.log(`  ${labelOf(screen)} ${screen.name} ${preset}: ${el} (${n}/${runs.length})`);
    }

    // Why a row misses: the weak audits of its lowest-scoring run.
    for (const { screen, preset, runs } of rows) {
      if (median(runs.map((r) => r.score)) >= BUDGET[preset]) continue;
      const worst = [...runs].sort((a, b) => a.score - b.score)[0]!;
      console.log(`\n${labelOf(screen)} ${screen.name} ${preset} (run scoring ${worst.score}):`);
      for (const line of weakAudits(worst.lhr)) console.log(`  ${line}`);
    }
  } finally {
    for (const site of sites) await site.stop();
  }

  const { rows, entry, preloads } = chunkSizes(dist);
  console.log('\nJS chunks of the build (gzip -9):');
  for (const c of rows) console.log(`  ${c.file.padEnd(36)} ${kb(c.raw).padStart(8)} KB  gzip ${kb(c.gzip).padStart(7)} KB  ${c.role}`);
  const entryRow = rows.find((c) => c.file === entry);
  if (!entryRow) console.log('entry chunk: not found in index.html');
  else {
    const withImports = entryRow.gzip + rows.filter((c) => preloads.includes(c.file)).reduce((s, c) => s + c.gzip, 0);
    console.log(
      `entry chunk ${entry}: gzip ${kb(entryRow.gzip)} KB (with the chunks preloaded beside it ${kb(withImports)} KB), budget ${ENTRY_BUDGET_KB} KB: ${entryRow.gzip <= ENTRY_BUDGET_KB * 1024 ? 'PASS' : 'FAIL'}`,
    );
  }
}

await main();
