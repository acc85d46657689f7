/**
 * The catalog paints its first card from its HTML (docs/decisions.md "The catalog's first card in its page"): with
 * the app's entry held back (no code of the app has run), the first card's cover and title are on screen, the cover
 * the image the card asks for; once the entry is let through, React's card shows the same cover and title in the
 * same boxes (within a pixel), so the page's cover is the largest paint and React's is no later, larger one. At 390
 * px (one card a row, the cover beside the text) and at 1280 px (covers above the text). No timings are asserted.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { signIn } from '../scripts/fresh-server.ts';
import { holdEntry, imagesSettled, largestPaints, launchBrowser, observeLargestPaints } from './browser.ts';

type Box = [x: number, y: number, width: number, height: number];

/** Each box equal to its counterpart's within a pixel, on every side. */
const expectSameBox = (page: Box, app: Box, what: string) => {
  for (let i = 0; i < 4; i++) expect(Math.abs(page[i]! - app[i]!), `${what}: the page's ${JSON.stringify(page)}, the app's ${JSON.stringify(app)}`).toBeLessThanOrEqual(1);
};

describe("the catalog's page paints its first card itself", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it.each([
    { width: 390, height: 844 },
    { width: 1280, height: 800 },
  ])('at $width px, with the app held back, and React then draws the same card in the same place', async (viewport) => {
    const context = await browser.newContext({ baseURL: inject('baseURL'), viewport });
    await observeLargestPaints(context);
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      await signIn(page, inject('demoEmail'), inject('demoPassword'), '/home/');
      const first = ((await (await page.request.get('/api/v1/book/?page=1&page_size=24')).json()) as { results: { title: string; cover_image_url: string | null }[] }).results[0]!;
      expect(first.cover_image_url, "the catalog's first title has a cover").toBeTruthy();
      await page.goto('about:blank');

      // The app's entry held back until the page's own card is measured: nothing of the app runs before.
      const entry = await holdEntry(page);
      await page.goto('/library/', { waitUntil: 'commit' });
      await page.waitForFunction(() => (document.getElementById('boot-catalog-cover') as HTMLImageElement | null)?.complete === true);
      const boxOf = (selector: string) =>
        page.locator(selector).first().evaluate((e) => {
          const r = e.getBoundingClientRect();
          return [r.x, r.y, r.width, r.height] as Box;
        });
      const before = {
        cover: await boxOf('#boot-catalog-cover'),
        title: await boxOf('.boot__title'),
        label: await boxOf('.boot__label'),
        src: await page.locator('#boot-catalog-cover').getAttribute('src'),
        text: await page.locator('.boot__title').innerText(),
        loaded: await page.locator('#boot-catalog-cover').evaluate((i: HTMLImageElement) => i.naturalWidth > 0),
        app: await page.locator('.title-grid').count(),
      };
      expect(entry.urls.length, 'the entry was asked for and is held').toBeGreaterThan(0);
      expect(before).toMatchObject({ text: first.title, loaded: true, app: 0 });

      entry.release();
      const card = page.locator('.title-grid .title-card').first();
      await card.locator('img.cover__img').waitFor();
      await imagesSettled(page);
      // the same image React's card asks for: the same address, the same bytes
      expect(await card.locator('img.cover__img').getAttribute('src')).toBe(before.src);
      expect(await card.locator('.title-card__title').innerText()).toBe(first.title);
      expectSameBox(before.cover, await boxOf('.title-grid img.cover__img'), 'the cover');
      expectSameBox(before.title, await boxOf('.title-grid .title-card__title'), 'the title');
      expectSameBox(before.label, await boxOf('.title-grid .title-card__label'), 'the format label');
      expect(await page.locator('#boot-catalog-cover').count()).toBe(0);

      // The page's cover is the last largest paint: React's covers, the same size, are no larger one.
      const lcp = await largestPaints(page);
      expect(lcp.at(-1)?.id, JSON.stringify(lcp)).toBe('boot-catalog-cover');
    } finally {
      await context.close();
    }
  });
});
