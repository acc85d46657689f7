/**
 * Lighthouse bench (DESIGN.md "Web performance"): Lighthouse 12.8.2 against the built app on loopback, Chrome
 * launched as the Lighthouse CLI launches it (chrome-launcher's defaults) plus DESIGN.md's flags; the desktop preset
 * and the default (mobile) preset, RUNS runs each; the median performance score and the median LCP, TBT and CLS per
 * screen; then every JS chunk of the Vite build with its gzip size, the entry chunk against its 120 KB budget.
 * Prints PASS/FAIL per row and exits 0 (a bench, not a test).
 *
 *   npm run build && npx tsx bench/lighthouse.ts
 *   RUNS=3 (default)  SCREENS=home,catalog,...  PRESETS=desktop,mobile  REPORTS=dir (keeps every report as JSON)
 *
 * Screens: home is `/` signed out (a first visit; the client redirects it to /library/); the catalog is
 * /library/ and a topic page, signed in; the playlist is one made for the run with a few titles; the reader is
 * the median-sized chapter of Moby-Dick, signed in (the chapter arrives encrypted and is decrypted in the browser).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse, { desktopConfig, type Flags, type Result } from 'lighthouse';
import { chromium, type Cookie } from 'playwright-core';
import { startFreshServer, CHROMIUM_LAUNCH, signIn } from '../scripts/fresh-server.ts';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'packages/web/dist');
const RUNS = Number(process.env.RUNS ?? 3);
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

interface Screen {
  name: string;
  path: string;
  signedIn: boolean;
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
const kb = (bytes: number) => (bytes / 1024).toFixed(1);

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

function chunkSizes() {
  const assets = path.join(dist, 'assets');
  const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
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

async function main() {
  if (!fs.existsSync(path.join(dist, 'index.html'))) {
    console.error(`no web build at ${path.relative(root, dist)}: run \`npm run build\` first`);
    process.exit(1);
  }
  process.env.CHROME_PATH = CHROME_PATH;
  const fresh = await startFreshServer({ dataDirPrefix: 'lectern-bench-lighthouse-', timeoutMs: 170_000 });
  const { base } = fresh;
  try {
    // Set-up as the demo user in a browser: the session cookies to hand to each audited Chrome, a playlist, a chapter.
    const setup = await chromium.launch(CHROMIUM_LAUNCH);
    let cookies: Cookie[];
    let playlistId: string;
    let topicSlug: string;
    let chapter: { webUrl: string; label: string; bytes: number };
    try {
      const context = await setup.newContext({ baseURL: base });
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      await signIn(page, fresh.email, fresh.password);
      cookies = await context.cookies();
      const csrf = cookies.find((c) => c.name === 'csrftoken')?.value ?? '';
      const v2 = { accept: 'application/json; version=v2', 'x-csrftoken': csrf, origin: base };

      const books = (await (await page.request.get('/api/v1/book/?page_size=100')).json()).results as {
        api_url: string;
        title: string;
        content_format: string;
        topics: { slug: string }[];
      }[];
      const created = await page.request.post('/nest/api/api/v2/collections/', { headers: v2, data: { name: 'Lighthouse reading list', description: 'Made by bench/lighthouse.ts' } });
      if (created.status() !== 201) throw new Error(`creating the playlist: ${created.status()} ${await created.text()}`);
      playlistId = (await created.json()).id;
      const items = books.slice(0, 5).map((b) => b.api_url);
      const added = await page.request.post(`/nest/api/api/v2/collections/${encodeURIComponent(playlistId)}/add-content/`, { headers: v2, data: { content: items } });
      if (added.status() !== 200) throw new Error(`filling the playlist: ${added.status()} ${await added.text()}`);

      // The topic with the most titles: the fullest catalog page after /library/ itself.
      const counts = new Map<string, number>();
      for (const b of books) for (const t of b.topics) counts.set(t.slug, (counts.get(t.slug) ?? 0) + 1);
      topicSlug = [...counts].sort((a, b) => b[1] - a[1])[0]![0];

      // A typical chapter: the median-sized one of Moby-Dick (as bench/servers.ts picks it), as the signed-in reader gets it.
      const moby = books.find((b) => /Moby/i.test(b.title) && b.content_format === 'book');
      if (!moby) throw new Error('Moby-Dick is not in the sample library');
      const detail = (await (await page.request.get(moby.api_url)).json()) as { chapters: { url: string; web_url: string; label: string }[] };
      const sized = await Promise.all(
        detail.chapters.map(async (c) => ({ webUrl: c.web_url, label: c.label, bytes: (await (await page.request.get(c.url)).body()).length })),
      );
      sized.sort((a, b) => a.bytes - b.bytes);
      chapter = sized[Math.floor(sized.length / 2)]!;
    } finally {
      await setup.close();
    }
    const readerPath = new URL(chapter.webUrl, base).pathname;
    console.log(`reader chapter: "${chapter.label}" of Moby-Dick, ${kb(chapter.bytes)} KB as served (encrypted)`);

    const screens: Screen[] = [
      { name: 'home', path: '/', signedIn: false, finalPath: '/library/' },
      { name: 'catalog', path: '/library/', signedIn: true, finalPath: '/library/' },
      { name: 'catalog-topic', path: `/topics/${topicSlug}/`, signedIn: true, finalPath: `/topics/${topicSlug}/` },
      { name: 'playlist', path: `/c/collection/${encodeURIComponent(playlistId)}/`, signedIn: true, finalPath: `/c/collection/${encodeURIComponent(playlistId)}/` },
      { name: 'reader', path: readerPath, signedIn: true, finalPath: readerPath },
    ];
    const only = process.env.SCREENS?.split(',');
    const presets = (process.env.PRESETS?.split(',') ?? ['desktop', 'mobile']) as Preset[];
    const reports = process.env.REPORTS;
    if (reports) fs.mkdirSync(reports, { recursive: true });

    const auditOnce = async (screen: Screen, preset: Preset): Promise<Run> => {
      // A fresh Chrome per run, as the Lighthouse CLI does.
      const chrome = await chromeLauncher.launch({ chromePath: CHROME_PATH, chromeFlags: CHROME_FLAGS, logLevel: 'silent' });
      try {
        if (screen.signedIn) {
          // Real cookies in the profile, not an extraHeaders Cookie: the client reads `logged_in` from document.cookie.
          const cdp = await chromium.connectOverCDP(`http://127.0.0.1:${chrome.port}`);
          await cdp.contexts()[0]!.addCookies(cookies);
          await cdp.close();
        }
        const flags: Flags = { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance'] };
        const result = await lighthouse(base + screen.path, flags, preset === 'desktop' ? desktopConfig : undefined);
        if (!result) throw new Error('Lighthouse returned nothing');
        const lhr = result.lhr;
        if (lhr.runtimeError) throw new LighthouseRunError(`${screen.name}/${preset}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
        const finalUrl = lhr.finalDisplayedUrl;
        if (new URL(finalUrl).pathname !== screen.finalPath) throw new Error(`${screen.name}/${preset}: ended on ${finalUrl}, not ${screen.finalPath}`);
        const network = networkOf(lhr);
        // Signed in means the profile call succeeded; signed out, that the page did not even ask for it.
        const profile = network.find((r) => r.url.endsWith('/u/information_for_javascript'));
        if (screen.signedIn ? profile?.statusCode !== 200 : profile) throw new Error(`${screen.name}/${preset}: profile call ${profile?.statusCode ?? 'missing'}`);
        if (screen.name === 'reader' && !network.some((r) => r.url.includes('/nest/epub/block/') && r.statusCode === 200)) {
          throw new Error('reader: no chapter block was fetched');
        }
        if (reports) fs.writeFileSync(path.join(reports, `${screen.name}-${preset}-${Date.now()}.json`), JSON.stringify(lhr));
        return {
          score: Math.round((lhr.categories.performance?.score ?? 0) * 100),
          lcp: lhr.audits['largest-contentful-paint']?.numericValue ?? NaN,
          tbt: lhr.audits['total-blocking-time']?.numericValue ?? NaN,
          cls: lhr.audits['cumulative-layout-shift']?.numericValue ?? NaN,
          fcp: lhr.audits['first-contentful-paint']?.numericValue ?? NaN,
          jsBytes: network.filter((r) => r.resourceType === 'Script').reduce((s, r) => s + (r.transferSize ?? 0), 0),
          finalUrl,
          lhr,
        };
      } finally {
        chrome.kill();
      }
    };

    const rows: { screen: Screen; preset: Preset; runs: Run[] }[] = [];
    for (const screen of screens) {
      if (only && !only.includes(screen.name)) continue;
      for (const preset of presets) {
        const runs: Run[] = [];
        for (let i = 0, failures = 0; i < RUNS; i++) {
          try {
            runs.push(await auditOnce(screen, preset));
          } catch (err) {
            // Lighthouse's own hiccups (NO_NAVSTART and the like) get the run again, twice at most.
            if (!(err instanceof LighthouseRunError) || ++failures > 2) throw err;
            console.log(`  ${err.message}: running again`);
            i--;
          }
        }
        rows.push({ screen, preset, runs });
        console.log(`${screen.name} ${preset}: scores ${runs.map((r) => r.score).join(', ')} (final ${runs[0]!.finalUrl.replace(base, '')})`);
      }
    }

    console.log(`\nLighthouse 12.8.2, performance, median of ${RUNS} runs per row; ${CHROME_PATH}`);
    const header = ['screen', 'preset', 'score', 'runs', 'FCP ms', 'LCP ms', 'TBT ms', 'CLS', 'JS KB sent', 'budget', ''];
    const table = rows.map(({ screen, preset, runs }) => {
      const score = median(runs.map((r) => r.score));
      return [
        screen.name,
        preset,
        String(score),
        runs.map((r) => r.score).join('/'),
        median(runs.map((r) => r.fcp)).toFixed(0),
        median(runs.map((r) => r.lcp)).toFixed(0),
        median(runs.map((r) => r.tbt)).toFixed(0),
        median(runs.map((r) => r.cls)).toFixed(3),
        kb(median(runs.map((r) => r.jsBytes))),
        `>= ${BUDGET[preset]}`,
        score >= BUDGET[preset] ? 'PASS' : 'FAIL',
      ];
    });
    const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
    for (const r of [header, ...table]) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  '));

    // Why a row misses: the weak audits of its lowest-scoring run.
    for (const { screen, preset, runs } of rows) {
      if (median(runs.map((r) => r.score)) >= BUDGET[preset]) continue;
      const worst = [...runs].sort((a, b) => a.score - b.score)[0]!;
      console.log(`\n${screen.name} ${preset} (run scoring ${worst.score}):`);
      for (const line of weakAudits(worst.lhr)) console.log(`  ${line}`);
    }
  } finally {
    await fresh.stop();
  }

  const { rows, entry, preloads } = chunkSizes();
  console.log('\nJS chunks of packages/web/dist/assets (gzip -9):');
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
