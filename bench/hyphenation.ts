/**
 * What hyphenation supplied in the frame costs (docs/decisions.md "Hyphenation where Chromium has no patterns";
 * engine/hyphenation.ts), in Debian's Chromium (no hyphenation dictionaries: every English chapter is hyphenated by
 * the reader) with the built app. The book is bench/long-chapter.ts's: a generated EPUB 3 whose second chapter has
 * 800,000 characters of English prose (the reader's long-chapter budget), imported into a fresh server.
 *
 * - subject: a fresh signed-in browser context opens the chapter's reader address; the reader hyphenates it after
 *   the first screen (the `hyphen` library and its English patterns, two chunks loaded on demand);
 * - anchor: the same, with those two chunks refused (the context's routes abort them), so nothing is hyphenated:
 *   the reader as it was before.
 * Measured per run from navigation start: first paint (`reader:first-screen`, else `reader:chapter-painted`), the
 * chapter settled (`reader:hyphenated` for the subject, `reader:chapter-painted` for the anchor: everything the
 * reader does to the chapter done), and the longest task (PerformanceObserver 'longtask', buffered) after the first
 * paint; for the subject also the hyphenation's own span (`reader:chapter-complete` to `reader:hyphenated`) and the
 * soft hyphens inserted. Subject and anchor alternate (the anchor first in odd rounds), each in a new context, after
 * one warm-up of each; per-round ratios subject/anchor as median and range (min-max).
 *
 *   npm run build && npx tsx bench/hyphenation.ts        ROUNDS=7 (at least 5), CHARS=800000 (the long chapter's size),
 *   PORT=5510 (the fresh server's)
 */
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { longChapterEpub } from '../packages/server/test/fixtures/long-chapter.ts';
import { CHROMIUM_LAUNCH, importBook, signIn, startFreshServer } from '../scripts/fresh-server.ts';
import { summary } from './stats.ts';
import { observeLongTasks } from './long-tasks.ts';

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const CHARS = Number(process.env.CHARS ?? 800_000);
if (ROUNDS < 5) console.warn('fewer than 5 rounds: the figures are not for docs/performance.md');
const VIEWPORT = { width: 1280, height: 800 };
/** The library's chunk and the English patterns' (engine/hyphenation.ts): refused in the anchor's runs. */
const HYPHEN_CHUNKS = /\/assets\/(hyphen|en-us)-[\w-]{8}\.js$/;

interface Run {
  first: number;
  settled: number;
  longestAfterFirst: number;
  span: number;
  inserted: number;
}


async function run(browser: Browser, storageState: Awaited<ReturnType<BrowserContext['storageState']>>, url: string, hyphenate: boolean): Promise<Run> {
  const context = await browser.newContext({ viewport: VIEWPORT, storageState });
  try {
    await context.addInitScript(observeLongTasks);
    if (!hyphenate) await context.route(HYPHEN_CHUNKS, (route) => route.abort());
    const page = await context.newPage();
    await page.goto(url);
    const settledMark = hyphenate ? 'reader:hyphenated' : 'reader:chapter-painted';
    await page.waitForFunction((mark) => performance.getEntriesByName(mark).length > 0, settledMark, { timeout: 120_000, polling: 50 });
    // the longest task after the chapter settled: a further 500 ms seen (the anchor's failed chunk load too)
    await page.waitForTimeout(500);
    // (no named functions in page code: tsx would wrap them in a helper the page does not have)
    const r = await page.evaluate((mark) => {
      const marks: Record<string, number> = {};
      for (const m of performance.getEntriesByType('mark')) marks[m.name] ??= m.startTime;
      const first = marks['reader:first-screen'] ?? marks['reader:chapter-painted']!;
      const tasks = (window as unknown as { __lt: { start: number; duration: number }[] }).__lt ?? [];
      const longest = tasks.filter((t) => t.start >= first).reduce((m, t) => Math.max(m, t.duration), 0);
      const text = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')?.contentDocument?.body?.textContent ?? '';
      const span = (marks['reader:hyphenated'] ?? 0) - (marks['reader:chapter-complete'] ?? 0);
      return { first, settled: marks[mark]!, longest, span, inserted: text.split('\u00ad').length - 1 };
    }, settledMark);
    if (hyphenate !== r.inserted > 0) throw new Error(`${hyphenate ? 'subject' : 'anchor'} run: ${r.inserted} soft hyphens in the chapter`);
    return { first: r.first, settled: r.settled, longestAfterFirst: r.longest, span: r.span, inserted: r.inserted };
  } finally {
    await context.close();
  }
}

async function main() {
  const book = longChapterEpub({ chars: CHARS });
  const browser = await chromium.launch(CHROMIUM_LAUNCH);
  const fresh = await startFreshServer({ dataDirPrefix: 'lectern-bench-hyphen-', timeoutMs: 170_000, port: Number(process.env.PORT ?? 5510) });
  try {
    const file = path.join(fresh.dataDir, 'long-chapter.epub');
    fs.writeFileSync(file, book.bytes);
    const bookId = /^imported\s+(\S+)/m.exec(importBook(fresh.dataDir, file))?.[1];
    if (!bookId) throw new Error('the import printed no book');
    const signedIn = await browser.newContext({ baseURL: fresh.base, viewport: VIEWPORT });
    const page = await signedIn.newPage();
    await signIn(page, fresh.email, fresh.password);
    const detail = (await (await page.request.get(`/api/v1/book/${bookId}/`, { headers: { Accept: 'application/json' } })).json()) as { chapters: { full_path: string; web_url: string }[] };
    const long = detail.chapters.find((c) => c.full_path.endsWith(book.longPath));
    if (!long) throw new Error(`no chapter ${book.longPath}`);
    const storageState = await signedIn.storageState();
    await signedIn.close();
    const url = new URL(long.web_url, fresh.base).href;

    console.log(`\nhyphenation in the frame — ${new Date().toISOString()} — ${ROUNDS} rounds alternating + 1 warm-up; ${CHARS.toLocaleString('en')}-character chapter, ${VIEWPORT.width}x${VIEWPORT.height}`);
    await run(browser, storageState, url, true);
    await run(browser, storageState, url, false);
    const subject: Run[] = [];
    const anchor: Run[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2) anchor.push(await run(browser, storageState, url, false));
      subject.push(await run(browser, storageState, url, true));
      if (!(round % 2)) anchor.push(await run(browser, storageState, url, false));
    }
    const ratio = (f: (r: Run) => number) => subject.map((s, i) => f(s) / f(anchor[i]!));
    console.log('| measure | hyphenated: ms, median (min-max) | not hyphenated | ratio per round: median (min-max) |');
    console.log('|---|---:|---:|---:|');
    console.log(`| first paint | ${summary(subject.map((r) => r.first), 0)} | ${summary(anchor.map((r) => r.first), 0)} | **${summary(ratio((r) => r.first))}** |`);
    console.log(`| chapter settled (hyphenated / painted) | ${summary(subject.map((r) => r.settled), 0)} | ${summary(anchor.map((r) => r.settled), 0)} | **${summary(ratio((r) => r.settled))}** |`);
    console.log(`| longest task after the first paint | ${summary(subject.map((r) => r.longestAfterFirst), 0)} | ${summary(anchor.map((r) => r.longestAfterFirst), 0)} | ${summary(ratio((r) => Math.max(1, r.longestAfterFirst)))} |`);
    console.log(`hyphenation's span (chapter complete to hyphens in): ${summary(subject.map((r) => r.span), 0)} ms; soft hyphens inserted: ${subject[0]!.inserted.toLocaleString('en')}`);
  } finally {
    await browser.close();
    await fresh.stop();
  }
}

await main();
