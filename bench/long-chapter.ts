/**
 * A long chapter's first paint against the same chapter as a static page (docs/decisions.md "Long chapters in slices"),
 * in Chromium with the built app. The book is bench/reader-budgets.ts's: a generated EPUB 3 whose second chapter has
 * 800,000 characters of prose, imported with the operators' command line into a fresh server.
 *
 * - reader: a fresh browser context (signed in) opens the chapter's reader address; first paint is navigation
 *   start to `reader:first-screen` (the first screen painted: a long chapter goes in slices, engine/chapterSlices.ts;
 *   a build that writes the chapter whole has no such mark, and its `reader:chapter-painted` is the first paint),
 *   whole is navigation start to `reader:chapter-painted` (the whole chapter in and painted);
 * - anchor: the same chapter's HTML (GET /api/v1/book/{id}/chapter/{path}) with its stylesheets inlined and a
 *   reading style, as a static page served by a bare Node HTTP server in a process of its own, opened in a fresh
 *   browser context; first paint is its first-contentful-paint, whole is its load event and two animation frames.
 * Reader and anchor alternate (the anchor first in odd rounds), each run in a new context, ROUNDS rounds after one
 * warm-up of each; medians, ranges and the ratio of the medians. Long tasks (PerformanceObserver 'longtask',
 * buffered, from navigation start until the whole chapter is painted and 500 ms more): the longest per run.
 * DEEP=1 adds reader runs that resume at a stored position 80 % into the chapter (the slice holding it goes first).
 * Each round also opens the book's short first chapter (3,000 characters) the same way: its longest task is the
 * app's own start (scripts, the first render), which no chapter length changes.
 *
 *   npm run build && npx tsx bench/long-chapter.ts
 *   ROUNDS=7, ANCHOR_PORT=4201, WEB_DIST=dir (another build of the web app), DEEP=1, STEPS=1 (each reader run's marks and long tasks),
 *   BEFORE_DIST=dir: a second fresh server (its own process) serving that build of the web app, whose reader runs
 *   join each round (first in odd rounds, last in even ones), so the two builds are compared under the same load
 *   (first paint ratio per round);
 *   BEFORE_ROOT=checkout: that server run from another checkout (a change on the server's side too);
 *   PAGE_ONLY=1: each round adds a reader run with the app's scripts refused (every /assets/*.js but the chapter
 *   worker's), timed to the page's own first screen (`reader:page-first-screen`): the floor of the page's path (its
 *   early request, the worker's start and decryption, the frame it writes) with nothing of the app's start beside it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { longChapterEpub } from '../packages/server/test/fixtures/long-chapter.ts';
import { CHROMIUM_LAUNCH, importBook, signIn, startFreshServer } from '../scripts/fresh-server.ts';
import { median } from './stats.ts';
import { observeLongTasks } from './long-tasks.ts';

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const ANCHOR_PORT = Number(process.env.ANCHOR_PORT ?? 4201);
const VIEWPORT = { width: 1280, height: 800 };

interface LongTask {
  start: number;
  duration: number;
}
interface Run {
  first: number;
  whole: number;
  longest: number;
  /** the longest task after the first paint (while the rest goes in) */
  longestAfterFirst: number;
  steps: Record<string, number>;
}


const range = (xs: number[]) => `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}`;
const longestOf = (tasks: LongTask[], from = -Infinity) => tasks.filter((t) => t.start >= from).reduce((m, t) => Math.max(m, t.duration), 0);

/** The static page's server: a bare Node HTTP server in a process of its own, sending one file. */
function startStaticServer(file: string, port: number): Promise<ChildProcess> {
  const code = `
    const http = require('node:http'); const fs = require('node:fs');
    const body = fs.readFileSync(process.argv[1]);
    http.createServer((req, res) => {
      if (req.url !== '/chapter.html') { res.writeHead(404); res.end(); return; }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length, 'cache-control': 'no-store' });
      res.end(body);
    }).listen(Number(process.argv[2]), '127.0.0.1', () => console.log('listening'));
    process.on('SIGTERM', () => process.exit(0));`;
  const child = spawn(process.execPath, ['-e', code, file, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve(child));
    child.once('exit', (c) => reject(new Error(`the static page server exited (${c}); is port ${port} taken?`)));
  });
}

async function readerRun(browser: Browser, storageState: Awaited<ReturnType<BrowserContext['storageState']>>, url: string, minChars: number, deepLocator?: unknown, pageOnly = false): Promise<Run> {
  const context = await browser.newContext({ viewport: VIEWPORT, storageState });
  try {
    // (PAGE_ONLY: the app's files refused, so only the page's own script and its worker run; nothing paints the whole)
    if (pageOnly) await context.route(/\/assets\/(?!chapter\.worker-)[^/]*\.js$/, (route) => route.abort());
    await context.addInitScript(observeLongTasks);
    if (deepLocator) {
      await context.addInitScript((value) => {
        if (window.top === window) localStorage.setItem('reader_positions', value);
      }, JSON.stringify(deepLocator));
    }
    const page = await context.newPage();
    await page.goto(url);
    const until = pageOnly ? 'reader:page-first-screen' : 'reader:chapter-painted';
    await page.waitForFunction((mark) => performance.getEntriesByName(mark).length > 0, until, { timeout: 60_000, polling: 50 });
    await page.waitForTimeout(500);
    const run = await page.evaluate((mark) => {
      const whole = performance.getEntriesByName(mark)[0]!.startTime;
      const first = performance.getEntriesByName('reader:first-screen')[0]?.startTime ?? whole;
      const steps: Record<string, number> = {};
      for (const m of performance.getEntriesByType('mark')) if (m.name.startsWith('reader:')) steps[m.name.slice(7)] ??= m.startTime;
      // The page may paint the first screen itself (its mark's detail 'page'); the reader's own first screen, apart.
      const own = performance.getEntriesByName('reader:first-screen').find((m) => (m as PerformanceMark).detail !== 'page');
      if (own) steps['own-first-screen'] = own.startTime;
      // The page's own answer: its first byte and its last (the server's boot data is written before the head).
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
      if (nav) {
        steps['>document'] = nav.responseStart;
        steps['<document'] = nav.responseEnd;
      }
      // The page's requests on the way to the chapter (STEPS=1 prints them): when each started and ended.
      for (const r of performance.getEntriesByType('resource') as PerformanceResourceTiming[]) {
        const name = new URL(r.name).pathname.replace(/^\/assets\//, '').replace(/-[\w-]{8}\.js$/, '.js');
        if (/block|information_for_javascript|nest\/key|\.js$/.test(name)) {
          steps[`>${name}`] ??= r.startTime;
          steps[`<${name}`] ??= r.responseEnd;
        }
      }
      const tasks = (window as unknown as { __lt: { start: number; duration: number }[] }).__lt ?? [];
      // (STEPS=1 prints each long task where it began, with its length)
      tasks.forEach((t, i) => (steps[`long-task-${i + 1}:${Math.round(t.duration)}ms`] = t.start));
      const text = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')?.contentDocument?.body?.textContent?.length ?? 0;
      return { first, whole, steps, tasks, text };
    }, until);
    if (!pageOnly && run.text < minChars) throw new Error(`the reader's frame holds ${run.text} characters, expected at least ${minChars}`);
    return { first: run.first, whole: run.whole, longest: longestOf(run.tasks), longestAfterFirst: longestOf(run.tasks, run.first), steps: run.steps };
  } finally {
    await context.close();
  }
}

async function anchorRun(browser: Browser, url: string): Promise<Run> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  try {
    await context.addInitScript(observeLongTasks);
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForFunction(() => performance.getEntriesByName('static:whole').length > 0, null, { timeout: 60_000, polling: 50 });
    await page.waitForTimeout(500);
    return await page.evaluate(() => {
      const whole = performance.getEntriesByName('static:whole')[0]!.startTime;
      const first = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? whole;
      // (no named functions in page code: tsx would wrap them in a helper the page does not have)
      const tasks = (window as unknown as { __lt: { start: number; duration: number }[] }).__lt ?? [];
      return { first, whole, tasks };
    }).then((r) => ({ first: r.first, whole: r.whole, longest: longestOf(r.tasks), longestAfterFirst: longestOf(r.tasks, r.first), steps: {} }));
  } finally {
    await context.close();
  }
}

/** The generated book imported into a fresh server; the reader address of its long chapter and a signed-in state. */
async function readerSide(browser: Browser, book: ReturnType<typeof longChapterEpub>, env?: Record<string, string>, root?: string) {
  const fresh = await startFreshServer({ dataDirPrefix: 'lectern-bench-long-', timeoutMs: 170_000, env, root });
  const file = path.join(fresh.dataDir, 'long-chapter-800k.epub');
  fs.writeFileSync(file, book.bytes);
  const out = importBook(fresh.dataDir, file);
  const bookId = /^imported\s+(\S+)/m.exec(out)?.[1];
  if (!bookId) throw new Error(`the import printed no book:\n${out}`);
  return { fresh, bookId };
}

async function main() {
  const book = longChapterEpub({ chars: 800_000 });
  const browser = await chromium.launch(CHROMIUM_LAUNCH);
  const { fresh, bookId } = await readerSide(browser, book);
  const before = process.env.BEFORE_DIST ? await readerSide(browser, book, { WEB_DIST: process.env.BEFORE_DIST }, process.env.BEFORE_ROOT) : null;
  let staticServer: ChildProcess | null = null;
  try {

    const signedIn = await browser.newContext({ baseURL: fresh.base, viewport: VIEWPORT });
    const page = await signedIn.newPage();
    await signIn(page, fresh.email, fresh.password);
    const detail = (await (await page.request.get(`/api/v1/book/${bookId}/`, { headers: { Accept: 'application/json' } })).json()) as {
      chapters: { full_path: string; url: string; web_url: string }[];
    };
    const long = detail.chapters.find((c) => c.full_path.endsWith(book.longPath));
    const short = detail.chapters.find((c) => c.full_path.endsWith('text/ch1.xhtml'));
    if (!long || !short) throw new Error(`no chapter ${book.longPath} or text/ch1.xhtml`);
    const chapter = (await (await page.request.get(long.url, { headers: { Accept: 'application/json' } })).json()) as { content: string; stylesheets: string[] };
    const css: string[] = [];
    for (const href of chapter.stylesheets) css.push(await (await page.request.get(new URL(href, new URL(long.url, fresh.base)).href)).text());
    const textLength = await page.evaluate((html) => new DOMParser().parseFromString(html, 'text/html').body.textContent?.length ?? 0, chapter.content);
    const storageState = await signedIn.storageState();
    await signedIn.close();
    let beforeSide: { state: typeof storageState; url: string } | null = null;
    if (before) {
      const ctx = await browser.newContext({ baseURL: before.fresh.base, viewport: VIEWPORT });
      const p = await ctx.newPage();
      await signIn(p, before.fresh.email, before.fresh.password);
      beforeSide = { state: await ctx.storageState(), url: new URL(long.web_url.replace(bookId, before.bookId), before.fresh.base).href };
      await ctx.close();
    }

    // The same chapter as a static page: its own stylesheets (inlined: the anchor's server holds no book) and the
    // reader's type and measure.
    const staticFile = path.join(fresh.dataDir, 'chapter.html');
    fs.writeFileSync(
      staticFile,
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Chapter</title>` +
        `<script>addEventListener('load', () => requestAnimationFrame(() => requestAnimationFrame(() => performance.mark('static:whole'))));</script>` +
        `<style>@layer lectern, book;</style><style>${css.join('\n')}</style>` +
        `<style>body{font-family:Georgia,serif;font-size:18px;line-height:1.65;margin:0}#r{max-width:calc(65ch + 3rem);margin:0 auto;padding:2rem 1.5rem}</style>` +
        `</head><body><div id="r">${chapter.content}</div></body></html>`,
    );
    staticServer = await startStaticServer(staticFile, ANCHOR_PORT);
    const staticUrl = `http://127.0.0.1:${ANCHOR_PORT}/chapter.html`;
    const readerUrl = new URL(long.web_url, fresh.base).href;
    const minChars = Math.floor(textLength * 0.95);
    // DEEP=1: a stored position 80 % into the chapter, as the reader keeps it (position.ts: the book and the
    // chapter's href, the words at the place).
    const deep = process.env.DEEP
      ? await (async () => {
          const p = await browser.newPage();
          const text = await p.evaluate((html) => new DOMParser().parseFromString(html, 'text/html').body.textContent ?? '', chapter.content);
          await p.close();
          const at = text.indexOf(' ', Math.floor(text.length * 0.8)) + 1;
          const words = { before: text.slice(at - 32, at), highlight: text.slice(at, at + 32), after: text.slice(at + 32, at + 64) };
          return { [`${bookId}/${long.full_path}`]: { href: long.full_path, progression: 80, text: words, at: Date.now() } };
        })()
      : undefined;
    console.log(`chapter: ${long.full_path}, ${textLength.toLocaleString('en')} characters of text, ${(chapter.content.length / 1024).toFixed(0)} KB of HTML`);
    console.log(`reader ${readerUrl}\nanchor ${staticUrl} (a bare Node HTTP server, its own process)\nviewport ${VIEWPORT.width}x${VIEWPORT.height}, ${ROUNDS} rounds + 1 warm-up`);

    const reader: Run[] = [];
    const anchor: Run[] = [];
    const deepRuns: Run[] = [];
    const shortRuns: Run[] = [];
    const beforeRuns: Run[] = [];
    const pageOnlyRuns: Run[] = [];
    for (let i = 0; i <= ROUNDS; i++) {
      // The build before goes first in odd rounds and last in even ones, so a load that rises or falls across a round
      // does not favour either build.
      const bFirst = beforeSide && i % 2 === 1 ? await readerRun(browser, beforeSide.state, beforeSide.url, minChars) : null;
      const pair: Run[] = [];
      if (i % 2 === 1) pair.push(await anchorRun(browser, staticUrl), await readerRun(browser, storageState, readerUrl, minChars));
      else pair.push(await readerRun(browser, storageState, readerUrl, minChars), await anchorRun(browser, staticUrl));
      const [r, a] = i % 2 === 1 ? [pair[1]!, pair[0]!] : [pair[0]!, pair[1]!];
      const d = deep ? await readerRun(browser, storageState, readerUrl, minChars, deep) : null;
      const s = await readerRun(browser, storageState, new URL(short.web_url, fresh.base).href, 1000);
      const po = process.env.PAGE_ONLY ? await readerRun(browser, storageState, readerUrl, minChars, undefined, true) : null;
      const b = bFirst ?? (beforeSide ? await readerRun(browser, beforeSide.state, beforeSide.url, minChars) : null);
      if (process.env.STEPS && b) console.log(`  round ${i} before: ${Object.entries(b.steps).filter(([k]) => !k.startsWith('>') && !k.startsWith('<')).sort((x, y) => x[1] - y[1]).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(' | ')}`);
      const stepsOf = (run: Run) => Object.entries(run.steps).sort((x, y) => x[1] - y[1]).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(' | ');
      if (process.env.STEPS) console.log(`  round ${i}: ${stepsOf(r)}`);
      if (process.env.STEPS && po) console.log(`  round ${i} page alone: ${stepsOf(po)}`);
      if (i === 0) continue;
      reader.push(r);
      anchor.push(a);
      if (d) deepRuns.push(d);
      shortRuns.push(s);
      if (b) beforeRuns.push(b);
      if (po) pageOnlyRuns.push(po);
    }

    const row = (name: string, runs: Run[]) => {
      const f = runs.map((r) => r.first);
      const w = runs.map((r) => r.whole);
      const l = runs.map((r) => r.longest);
      const la = runs.map((r) => r.longestAfterFirst);
      // how many runs' first screen the page painted (page-first-screen), and the reader's own first screen's median
      const byPage = runs.filter((r) => r.steps['page-first-screen'] !== undefined).length;
      const own = runs.map((r) => r.steps['own-first-screen']).filter((x): x is number => x !== undefined);
      console.log(
        `${name.padEnd(34)} first paint ${median(f).toFixed(0)} ms (${range(f)})  whole ${median(w).toFixed(0)} ms (${range(w)})  ` +
          `longest task ${median(l).toFixed(0)} ms (${range(l)}), after the first paint ${median(la).toFixed(0)} ms (${range(la)})` +
          (byPage || own.length ? `  [painted by the page in ${byPage} of ${runs.length}; the reader's own first screen ${own.length ? median(own).toFixed(0) : '-'} ms]` : ''),
      );
    };
    console.log('');
    row('reader, from the chapter start', reader);
    if (deepRuns.length) row('reader, resuming at 80 %', deepRuns);
    row('anchor: the static page', anchor);
    row('reader, the short chapter (control)', shortRuns);
    if (beforeRuns.length) row(`reader, BEFORE_DIST build`, beforeRuns);
    if (pageOnlyRuns.length) row(`the page's path alone (no app)`, pageOnlyRuns);
    const ratios = reader.map((r, i) => r.first / anchor[i]!.first);
    console.log(
      `\nfirst paint, reader / static page: ${(median(reader.map((r) => r.first)) / median(anchor.map((a) => a.first))).toFixed(2)} (ratio of the medians; per round ${range(ratios.map((x) => x * 100)).replace(/(\d+)/g, (d) => (Number(d) / 100).toFixed(2))})  target < 1.5`,
    );
    if (beforeRuns.length) {
      const paired = reader.map((r, i) => r.first / beforeRuns[i]!.first);
      console.log(`first paint, this build / BEFORE_DIST build: ${(median(reader.map((r) => r.first)) / median(beforeRuns.map((r) => r.first))).toFixed(2)} (per round ${Math.min(...paired).toFixed(2)}-${Math.max(...paired).toFixed(2)})`);
      console.log(`first paint, BEFORE_DIST build / static page: ${(median(beforeRuns.map((r) => r.first)) / median(anchor.map((a) => a.first))).toFixed(2)}`);
    }
    // What the chapter's length adds beyond the app's own start: the long chapter against the short one, same round.
    const perControl = reader.map((r, i) => r.first / shortRuns[i]!.first);
    console.log(
      `first paint, long chapter / short chapter (control): ${(median(reader.map((r) => r.first)) / median(shortRuns.map((r) => r.first))).toFixed(2)} (per round ${Math.min(...perControl).toFixed(2)}-${Math.max(...perControl).toFixed(2)})`,
    );
    if (pageOnlyRuns.length) {
      const perRound = pageOnlyRuns.map((r, i) => r.first / anchor[i]!.first);
      console.log(`first paint, the page's path alone / static page: ${(median(pageOnlyRuns.map((r) => r.first)) / median(anchor.map((a) => a.first))).toFixed(2)} (per round ${Math.min(...perRound).toFixed(2)}-${Math.max(...perRound).toFixed(2)})`);
    }
    console.log(`whole chapter painted, reader / static page: ${(median(reader.map((r) => r.whole)) / median(anchor.map((a) => a.whole))).toFixed(2)}`);
    const worst = Math.max(...reader.map((r) => r.longest), ...deepRuns.map((r) => r.longest));
    console.log(`longest task in any reader run: ${worst.toFixed(0)} ms  target: none over 50 ms`);
  } finally {
    staticServer?.kill('SIGTERM');
    await browser.close();
    await fresh.stop();
    await before?.fresh.stop();
  }
}

await main();
