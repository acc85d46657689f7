/**
 * Fixed layout bench (docs/decisions.md "Fixed layout and flow"): first paint of a fixed-layout page against the plain
 * reflowable chapter of the same size, in Chromium at 1280x800. Two books are imported into a fresh server: the
 * fixed-layout fixture (packages/server/test/fixtures/fixed-layout.ts) and its reflowable twin (the same pages,
 * rendition:layout reflowable). Each run opens the book at its first page, waits, then clicks the contents entry of the
 * centre page ("The centrefold": a page shown alone, so one frame either way) and measures the click to the reader's
 * `reader:chapter-painted` mark, as bench/reader.ts does; fixed and reflowable runs alternate in the same browser so
 * both see the same machine, and the first pair is a warm-up. Prints median and range of each and of the ratio.
 *
 *   npm run build --silent && npx tsx bench/fixed-layout.ts        (ROUNDS=7 by default, at least 5)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { fixedLayoutEpub, FIXED_TITLE, FIXED_TWIN_TITLE } from '../packages/server/test/fixtures/fixed-layout.ts';
import { CHROMIUM_LAUNCH, importBook, signIn, startFreshServer } from '../scripts/fresh-server.ts';
import { median, summary } from './stats.ts';

const ROUNDS = Math.max(5, Number(process.env.ROUNDS ?? 7));
const TARGET = 'pages/p4.xhtml';

async function main() {
  const fresh = await startFreshServer({ dataDirPrefix: 'lectern-bench-fixed-', timeoutMs: 170_000 });
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-bench-fixed-books-'));
  const ids: Record<string, string> = {};
  for (const [title, data] of [
    [FIXED_TITLE, fixedLayoutEpub()],
    [FIXED_TWIN_TITLE, fixedLayoutEpub({ reflowable: true })],
  ] as const) {
    const file = path.join(folder, `${title}.epub`);
    fs.writeFileSync(file, data);
    const out = importBook(fresh.dataDir, file);
    ids[title] = new RegExp(`imported\\s+(\\S+)\\s+"${title}"`).exec(out)?.[1] ?? '';
    if (!ids[title]) throw new Error(`${title} was not imported: ${out}`);
  }
  fs.rmSync(folder, { recursive: true, force: true });
  const browser = await chromium.launch(CHROMIUM_LAUNCH);
  try {
    const context = await browser.newContext({ baseURL: fresh.base, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await signIn(page, fresh.email, fresh.password);
    const urls: Record<string, { first: string; size: number }> = {};
    for (const [title, id] of Object.entries(ids)) {
      const detail = await (await page.request.get(`/api/v1/book/${id}/`)).json();
      const chapter = await (await page.request.get(`/api/v1/book/${id}/chapter/${TARGET}`)).json();
      urls[title] = { first: detail.chapters[0].web_url, size: chapter.content.length };
    }
    console.log(`target: ${TARGET} ("The centrefold"), ${urls[FIXED_TITLE]!.size} characters of HTML in the fixed-layout book, ${urls[FIXED_TWIN_TITLE]!.size} in its reflowable twin`);

    const run = async (title: string): Promise<number> => {
      await page.goto(urls[title]!.first);
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
      // as in bench/reader.ts: the reader looks at the page a while, past the next page's preparation (2 s after
      // the paint), so that it does not overlap the measured opening
      await page.waitForTimeout(2800);
      await page.getByRole('button', { name: 'Table of contents' }).click();
      const link = page.locator('aside.toc').locator(`a[href$="/${TARGET}"]`).first();
      await link.waitFor();
      await link.hover();
      await page.waitForTimeout(150);
      await page.evaluate(() => performance.clearMarks());
      await link.click();
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0, null, { timeout: 30_000 });
      const ms = await page.evaluate(() => performance.getEntriesByName('reader:chapter-painted')[0]!.startTime - performance.getEntriesByName('reader:toc-click')[0]!.startTime);
      const shown = await page.evaluate(
        (fixed) => (fixed ? document.querySelector<HTMLIFrameElement>('iframe.fixed-layout__page[data-href="pages/p4.xhtml"]') : document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame'))?.contentDocument?.getElementById('centre-title')?.textContent ?? '',
        title === FIXED_TITLE,
      );
      if (shown !== 'The centrefold') throw new Error(`${title}: the target page did not render`);
      return ms;
    };

    const fixed: number[] = [];
    const flowing: number[] = [];
    for (let i = 0; i < ROUNDS + 1; i++) {
      const f = await run(FIXED_TITLE);
      const r = await run(FIXED_TWIN_TITLE);
      if (i === 0) continue; // warm-up
      fixed.push(f);
      flowing.push(r);
    }
    const ratios = fixed.map((f, i) => f / flowing[i]!);
    console.log(`rounds: ${ROUNDS} (plus one warm-up), alternating`);
    console.log(`fixed-layout page      contents click -> painted: ${summary(fixed, 1)} ms  [${fixed.map((x) => x.toFixed(0)).join(', ')}]`);
    console.log(`reflowable twin (anchor) contents click -> painted: ${summary(flowing, 1)} ms  [${flowing.map((x) => x.toFixed(0)).join(', ')}]`);
    console.log(`ratio fixed/reflowable (per round): ${summary(ratios)}; of the medians ${(median(fixed) / median(flowing)).toFixed(2)}`);
  } finally {
    await browser.close();
    await fresh.stop();
  }
}

await main();
