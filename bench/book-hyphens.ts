/**
 * What the hyphenation a book asks for costs the first paint of a chapter (docs/decisions.md "Hyphenation where
 * Chromium has no patterns"; engine/hyphenation.ts), in Debian's Chromium (no hyphenation dictionaries) with the
 * built app. Two books of bench/long-chapter.ts's making, the same words, imported into one fresh server:
 *
 * - subject: the book whose stylesheet adds `p { hyphens: auto }`: the reader loads the `hyphen` library and the
 *   English patterns (two chunks, a fresh context each run so nothing is cached) and puts the soft hyphens in before
 *   the pages are counted (a long chapter: its first slice; the rest as each slice goes in);
 * - anchor: the same chapter of the book that does not ask (the reader's own default is not acted on).
 *
 * Measured from navigation start: the chapter's first paint (`reader:first-screen` when it goes in slices, else
 * `reader:chapter-painted`) and the hyphenation's own step (`reader:hyphenating` to `reader:hyphenated`: the patterns loaded, the hyphens put in). Subject and
 * anchor alternate (the anchor first in odd rounds), each in a new context, after one warm-up of each; per-round
 * ratios subject/anchor as median and range (min-max). CHARS: the chapter's characters, several sizes comma-separated.
 *
 *   npm run build && npx tsx bench/book-hyphens.ts      ROUNDS=7 (at least 5), CHARS=30000,800000, PORT=5150
 */
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { longChapterEpub } from '../packages/server/test/fixtures/long-chapter.ts';
import { CHROMIUM_LAUNCH, importBook, signIn, startFreshServer } from '../scripts/fresh-server.ts';
import { summary } from './stats.ts';

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const SIZES = (process.env.CHARS ?? '30000,800000').split(',').map(Number);
if (ROUNDS < 5) console.warn('fewer than 5 rounds: the figures are not for docs/performance.md');
const VIEWPORT = { width: 390, height: 844 };

interface Run {
  first: number;
  step: number;
  inserted: number;
}

async function run(browser: Browser, storageState: Awaited<ReturnType<BrowserContext['storageState']>>, url: string, asked: boolean): Promise<Run> {
  const context = await browser.newContext({ viewport: VIEWPORT, storageState });
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0, null, { timeout: 120_000, polling: 50 });
    // (no named functions in page code: tsx would wrap them in a helper the page does not have)
    const r = await page.evaluate(() => {
      const marks: Record<string, number> = {};
      // (the reader's own first screen, hyphenated: the page may paint one of its own first, detail 'page')
      for (const m of performance.getEntriesByType('mark') as PerformanceMark[]) if (m.detail !== 'page') marks[m.name] ??= m.startTime;
      const first = marks['reader:first-screen'] ?? marks['reader:chapter-painted']!;
      const step = marks['reader:hyphenated'] !== undefined ? marks['reader:hyphenated']! - marks['reader:hyphenating']! : 0;
      const text = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')?.contentDocument?.body?.textContent ?? '';
      return { first, step, inserted: text.split('\u00ad').length - 1 };
    });
    if (asked !== r.inserted > 0) throw new Error(`${asked ? 'subject' : 'anchor'} run: ${r.inserted} soft hyphens in the chapter`);
    return r;
  } finally {
    await context.close();
  }
}

async function main() {
  const browser = await chromium.launch(CHROMIUM_LAUNCH);
  const fresh = await startFreshServer({ dataDirPrefix: 'lectern-bench-book-hyphens-', timeoutMs: 170_000, port: Number(process.env.PORT ?? 5150) });
  try {
    const signedIn = await browser.newContext({ baseURL: fresh.base, viewport: VIEWPORT });
    const page = await signedIn.newPage();
    await signIn(page, fresh.email, fresh.password);
    const storageState = await signedIn.storageState();
    const urlOf = async (chars: number, asked: boolean) => {
      const book = longChapterEpub({
        chars,
        title: `Hyphens Bench ${chars} ${asked ? 'asked' : 'plain'}`,
        uuid: `8f0c6a52-6d7e-4b7a-9d1e-${(asked ? 1e11 : 2e11) + chars}`,
        css: asked ? 'p { hyphens: auto; }\n' : '',
      });
      const file = path.join(fresh.dataDir, `hyphens-${chars}-${asked}.epub`);
      fs.writeFileSync(file, book.bytes);
      const bookId = /^imported\s+(\S+)/m.exec(importBook(fresh.dataDir, file))?.[1];
      if (!bookId) throw new Error('the import printed no book');
      const detail = (await (await page.request.get(`/api/v1/book/${bookId}/`, { headers: { Accept: 'application/json' } })).json()) as { chapters: { full_path: string; web_url: string }[] };
      return new URL(detail.chapters.find((c) => c.full_path.endsWith(book.longPath))!.web_url, fresh.base).href;
    };
    for (const chars of SIZES) {
      const subjectUrl = await urlOf(chars, true);
      const anchorUrl = await urlOf(chars, false);
      console.log(`\nhyphenation the book asks for — ${new Date().toISOString()} — ${ROUNDS} rounds alternating + 1 warm-up; ${chars.toLocaleString('en')}-character chapter, ${VIEWPORT.width}x${VIEWPORT.height}`);
      await run(browser, storageState, subjectUrl, true);
      await run(browser, storageState, anchorUrl, false);
      const subject: Run[] = [];
      const anchor: Run[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        if (round % 2) anchor.push(await run(browser, storageState, anchorUrl, false));
        subject.push(await run(browser, storageState, subjectUrl, true));
        if (!(round % 2)) anchor.push(await run(browser, storageState, anchorUrl, false));
      }
      const ratios = subject.map((s, i) => s.first / anchor[i]!.first);
      console.log('| chapter | first paint, asked: ms median (min-max) | not asked | ratio per round: median (min-max) | hyphenation step, ms | soft hyphens in the chapter when painted |');
      console.log('|---|---:|---:|---:|---:|---:|');
      console.log(`| ${chars.toLocaleString('en')} characters | ${summary(subject.map((r) => r.first), 0)} | ${summary(anchor.map((r) => r.first), 0)} | **${summary(ratios)}** | ${summary(subject.map((r) => r.step), 0)} | ${subject[0]!.inserted.toLocaleString('en')} |`);
    }
    await signedIn.close();
  } finally {
    await browser.close();
    await fresh.stop();
  }
}

await main();
