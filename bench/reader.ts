/**
 * Reader bench (docs/performance.md "Reader"): time from clicking a table-of-contents entry to the decrypted chapter
 * painted, for the longest chapter of the sample library, against the anchor: the same browser fetching the same
 * chapter's plain HTML (GET /api/v1/book/{id}/chapter/{path}) and painting it, with its stylesheets, in the same kind
 * of iframe. Both are marked painted after the frame's load and a double requestAnimationFrame. Also the reader's JS
 * chunk sizes (gzip).
 *
 *   npm run build -w packages/web && npx tsx bench/reader.ts        (RUNS=10 by default)
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM_LAUNCH, startFreshServer, signIn } from '../scripts/fresh-server.ts';

const RUNS = Number(process.env.RUNS ?? 10);
const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'packages/web/dist');

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)]!;

interface Candidate {
  bookId: string;
  title: string;
  fullPath: string;
  label: string;
  webUrl: string;
  apiUrl: string;
  textLength: number;
  firstWebUrl: string;
}

async function longestChapter(page: Page): Promise<Candidate> {
  return page.evaluate(async () => {
    const list = await (await fetch('/api/v1/book/?page_size=100', { headers: { Accept: 'application/json' } })).json();
    let best: Candidate | null = null;
    for (const b of list.results as { api_url: string; title: string; book_id: string; content_format: string }[]) {
      if (b.content_format !== 'book') continue;
      const detail = await (await fetch(b.api_url, { headers: { Accept: 'application/json' } })).json();
      for (const c of detail.chapters as { full_path: string; url: string; web_url: string; label: string }[]) {
        const r = await fetch(c.url, { headers: { Accept: 'application/json' } });
        if (!r.ok) continue;
        const json = await r.json();
        if (json.content_type === 'application/pdf') continue;
        const text = new DOMParser().parseFromString(json.content, 'text/html').body.textContent ?? '';
        const idx = detail.chapters.indexOf(c);
        // Start elsewhere in the book, and not on the chapter before (whose next one the reader prefetches).
        const other = detail.chapters.find((x: { full_path: string }, j: number) => x.full_path !== c.full_path && j !== idx - 1);
        if (other && (!best || text.length > best.textLength)) {
          best = { bookId: b.book_id, title: b.title, fullPath: c.full_path, label: c.label, webUrl: c.web_url, apiUrl: c.url, textLength: text.length, firstWebUrl: other.web_url };
        }
      }
    }
    return best!;
  }) as Promise<Candidate>;
}

function chunkSizes() {
  const assets = path.join(dist, 'assets');
  const rows: { file: string; raw: number; gzip: number }[] = [];
  for (const f of fs.readdirSync(assets)) {
    if (!/^(ReaderPage|PdfView|chapter\.worker)-.*\.js$/.test(f)) continue;
    const buf = fs.readFileSync(path.join(assets, f));
    rows.push({ file: f, raw: buf.length, gzip: zlib.gzipSync(buf, { level: 9 }).length });
  }
  return rows;
}

async function main() {
  const fresh = await startFreshServer({ dataDirPrefix: 'lectern-bench-reader-', timeoutMs: 170_000 });
  const { base, email, password } = fresh;
  const browser = await chromium.launch(CHROMIUM_LAUNCH);
  try {
    const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await signIn(page, email, password);

    const target = await longestChapter(page);
    console.log(`longest chapter: "${target.label}" of ${target.title} (${target.fullPath}), ${target.textLength.toLocaleString('en')} characters of text`);

    // Reader and anchor runs alternate, so both see the same machine (two cores shared by Chromium and the
    // server); the first pair warms the caches (worker module, fonts, stylesheets) and is not counted.
    const reader: number[] = [];
    const anchor: number[] = [];
    const readerRun = async (): Promise<number> => {
      await page.goto(target.firstWebUrl); // a fresh page: nothing of the target chapter in memory
      await page.locator('iframe.chapter-view__frame').waitFor();
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
      // A reader looks at a chapter for a while before opening the contents: by then the next chapter has been
      // prepared in the background (ChapterView's PREPARE_AFTER_MS, 2 s after the paint), and that work does not
      // overlap the measured opening (1.6 s here let it start during the measurement).
      await page.waitForTimeout(2800);
      await page.getByRole('button', { name: 'Table of contents' }).click();
      const toc = page.locator('aside.toc');
      const link = toc.locator(`a[href$="/${target.fullPath.split('/').map(encodeURIComponent).join('/')}"]`).first();
      await link.waitFor();
      // A reader's pointer rests on the entry before the click: the hover (its colour, the repaint of the list) is
      // not part of opening the chapter, as it is not for the anchor.
      await link.hover();
      await page.waitForTimeout(150);
      await page.evaluate(() => performance.clearMarks());
      await link.click();
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0, null, { timeout: 30_000 });
      const { ms, steps } = await page.evaluate(() => {
        const click = performance.getEntriesByName('reader:toc-click')[0]!;
        const painted = performance.getEntriesByName('reader:chapter-painted')[0]!;
        const steps: Record<string, number> = {};
        for (const m of performance.getEntriesByType('mark')) if (m.name.startsWith('reader:') && m.startTime >= click.startTime) steps[m.name.slice(7)] ??= m.startTime - click.startTime;
        // The block request as the network saw it: when it left, when the first byte and the last arrived.
        const block = performance.getEntriesByType('resource').filter((r) => r.name.includes('/nest/epub/block/') && r.startTime >= click.startTime)[0] as PerformanceResourceTiming | undefined;
        if (block) Object.assign(steps, { 'block-sent': block.startTime - click.startTime, 'block-first-byte': block.responseStart - click.startTime, 'block-done': block.responseEnd - click.startTime });
        return { ms: painted.startTime - click.startTime, steps };
      });
      if (process.env.STEPS) console.log(Object.entries(steps).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(' | '));
      const encoding = await page.evaluate(() => (document.querySelector('iframe.chapter-view__frame') as HTMLIFrameElement | null)?.contentDocument?.body.innerText.length ?? 0);
      if (encoding < 1000) throw new Error('the chapter did not render');
      return ms;
    };
    const anchorRun = async (): Promise<number> => {
      await page.goto('/library/');
      // As for the reader run: the page settles first, so its own loading does not overlap the measurement.
      await page.getByRole('article').first().waitFor();
      await page.waitForTimeout(300);
      const ms = await page.evaluate(async (apiUrl) => {
        const host = document.createElement('div');
        host.style.cssText = 'position:fixed;inset:113px 0 49px 0;z-index:99;background:#fff';
        document.body.append(host);
        const t0 = performance.now();
        const json = await (await fetch(apiUrl, { headers: { Accept: 'application/json' } })).json();
        const t1 = performance.now();
        const frame = document.createElement('iframe');
        frame.style.cssText = 'width:100%;height:100%;border:0';
        frame.setAttribute('sandbox', 'allow-same-origin');
        const loaded = new Promise<void>((r) => frame.addEventListener('load', () => r(), { once: true }));
        // The same chapter as a static page: its own stylesheets, as the reader links them, and a reading style.
        const links = (json.stylesheets as string[]).map((href) => `<link rel="stylesheet" href="${href}">`).join('');
        frame.srcdoc = `<!doctype html><html><head><meta charset="utf-8"><base href="${location.origin}${apiUrl}">${links}<style>body{font-family:Georgia,serif;font-size:18px;line-height:1.65;margin:0}#r{max-width:calc(65ch + 3rem);margin:0 auto;padding:2rem 1.5rem}</style></head><body><div id="r">${json.content}</div></body></html>`;
        host.append(frame);
        await loaded;
        const t2 = performance.now();
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        return { ms: performance.now() - t0, fetched: t1 - t0, loaded: t2 - t0 };
      }, target.apiUrl).then((x) => {
        if (process.env.STEPS) console.log(`anchor: fetched ${x.fetched.toFixed(0)} | loaded ${x.loaded.toFixed(0)} | painted ${x.ms.toFixed(0)}`);
        return x.ms;
      });
      return ms;
    };
    for (let i = 0; i < RUNS + 1; i++) {
      // TRACE=file.json: a Chrome trace of the last reader run, for chrome://tracing or a script.
      const trace = process.env.TRACE && i === RUNS;
      if (trace) await browser.startTracing(page, { path: process.env.TRACE, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink.user_timing', 'v8.execute', 'blink', 'loading', ...(process.env.TRACE_JS ? ['disabled-by-default-v8.cpu_profiler'] : [])] });
      const r = await readerRun();
      if (trace) await browser.stopTracing();
      const a = await anchorRun();
      if (i > 0) {
        reader.push(r);
        anchor.push(a);
      }
    }

    const r = median(reader);
    const a = median(anchor);
    console.log(`runs: ${RUNS} each (plus one warm-up)`);
    console.log(`reader  TOC click -> decrypted chapter painted: median ${r.toFixed(1)} ms, p95 ${p95(reader).toFixed(1)} ms  [${reader.map((x) => x.toFixed(0)).join(', ')}]`);
    console.log(`anchor  plain chapter fetched + painted:        median ${a.toFixed(1)} ms, p95 ${p95(anchor).toFixed(1)} ms  [${anchor.map((x) => x.toFixed(0)).join(', ')}]`);
    console.log(`ratio reader/anchor: ${(r / a).toFixed(2)} (target < 1.5)`);
    for (const c of chunkSizes()) console.log(`chunk ${c.file}: ${(c.raw / 1024).toFixed(1)} KB, gzip ${(c.gzip / 1024).toFixed(1)} KB`);
  } finally {
    await browser.close();
    await fresh.stop();
  }
}

await main();
