/**
 * `rendition:flow scrolled-continuous` in Chromium (docs/decisions.md "Fixed layout and flow"), at 1280x800
 * and 390x844, axe clean: the book opens in scroll mode and reads as one scroll, the wheel alone carrying the reader
 * from the end of a chapter into the next one's text, and from the top of that one back to the end of the one before;
 * the place is saved per chapter, as in any book (packages/server/test/fixtures/continuous.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chapterEnd, CONTINUOUS_HEADINGS, CONTINUOUS_TITLE, continuousEpub } from '../packages/server/test/fixtures/continuous.ts';
import { importBook } from '../scripts/fresh-server.ts';
import { openPage, seriousViolations, signInAsDemo } from './browser.ts';

let bookId = '';
const SHOTS = process.env.E2E_SHOTS_DIR;

beforeAll(() => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-continuous-'));
  const file = path.join(folder, 'continuous.epub');
  fs.writeFileSync(file, continuousEpub());
  const out = importBook(inject('dataDir'), file);
  bookId = new RegExp(`imported\\s+(\\S+)\\s+"${CONTINUOUS_TITLE}"`).exec(out)?.[1] ?? '';
  fs.rmSync(folder, { recursive: true, force: true });
  if (!bookId) throw new Error(`the continuous book was not imported: ${out}`);
});

/** The chapter frame on show: its heading, how far it is scrolled (0-1), and the page's address. */
async function shown(page: Page): Promise<{ heading: string; at: number; path: string }> {
  return page.evaluate(() => {
    const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame');
    const doc = frame && frame.style.visibility !== 'hidden' ? frame.contentDocument : null;
    const s = doc?.scrollingElement;
    const heading = doc?.querySelector('h1')?.textContent ?? '';
    const at = s && s.scrollHeight > s.clientHeight ? s.scrollTop / (s.scrollHeight - s.clientHeight) : 0;
    return { heading, at, path: location.pathname };
  });
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  describe(`a scrolled-continuous book at ${viewport.width}x${viewport.height}`, () => {
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      ({ browser, page } = await openPage(viewport));
      await signInAsDemo(page);
    });
    afterAll(() => browser?.close());

    it('reads on from one chapter into the next and back by the wheel alone, the place saved per chapter', async () => {
      const chapters = (await (await page.request.get(`/api/v1/book/${bookId}/`)).json()).chapters as { full_path: string; web_url: string }[];
      await page.goto(chapters[0]!.web_url);
      await expect.poll(async () => (await shown(page)).heading, { timeout: 15_000 }).toBe(CONTINUOUS_HEADINGS[0]);
      // the book's flow: scroll mode, not pages
      await page.locator('.chapter-view--scroll').waitFor();
      const stage = (await page.locator('.reader-stage').boundingBox())!;
      await page.mouse.move(stage.x + stage.width / 2, stage.y + stage.height / 2);

      // Down through the first chapter and on: the second chapter's text comes in, at its top, without a page turn.
      // (One wheel at a time, and none once it is there: a wheel more would scroll on in the second chapter.)
      const wheelUntil = async (heading: string, deltaY: number) => {
        const now = await shown(page);
        if (now.heading !== heading) await page.mouse.wheel(0, deltaY);
        return now.heading;
      };
      await expect
        .poll(
          () => wheelUntil(CONTINUOUS_HEADINGS[1], 500),
          { timeout: 30_000, interval: 100 },
        )
        .toBe(CONTINUOUS_HEADINGS[1]);
      expect((await shown(page)).path.endsWith('/text/reach-2.xhtml')).toBe(true);
      // at its top (or where this reader left it: the other width's run read a little of it)
      expect((await shown(page)).at).toBeLessThan(0.3);
      expect(await page.frameLocator('iframe.chapter-view__frame').locator('h1').isVisible()).toBe(true);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `continuous-${viewport.width}.png`) });
      expect(await seriousViolations(page)).toEqual([]);

      // Reading on in it saves the place in the second chapter, as in any book.
      const saved = page.waitForResponse(
        (r) => r.url().includes('/position/') && r.request().method() === 'PUT' && r.ok() && (r.request().postDataJSON() as { locator: { href: string } }).locator.href === 'text/reach-2.xhtml',
        { timeout: 20_000 },
      );
      await page.mouse.wheel(0, 300);
      await saved;

      // Up past its top: the first chapter again, at its end.
      await expect
        .poll(
          () => wheelUntil(CONTINUOUS_HEADINGS[0], -500),
          { timeout: 30_000, interval: 100 },
        )
        .toBe(CONTINUOUS_HEADINGS[0]);
      await expect.poll(async () => (await shown(page)).at).toBeGreaterThan(0.9);
      expect(await page.frameLocator('iframe.chapter-view__frame').getByText(chapterEnd(1)).isVisible()).toBe(true);
    });
  });
}
