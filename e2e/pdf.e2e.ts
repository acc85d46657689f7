/** A PDF document in the reader: pages rendered by pdfjs, zoom in and out from the display settings. */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPage, seriousViolations, signInAsDemo } from './browser.ts';

describe('a PDF document in the reader', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ browser, page } = await openPage({ width: 1280, height: 800 }));
    await signInAsDemo(page);
  });
  afterAll(() => browser?.close());

  it('renders its pages and zooms', async () => {
    const list = await (await page.request.get('/api/v1/book/?page_size=50')).json();
    const doc = list.results.find((b: { content_format: string }) => b.content_format === 'document');
    expect(doc.title).toBe('Lectern Field Manual');
    await page.goto(doc.continue_url);
    const first = page.getByRole('img', { name: 'Page 1' });
    await first.waitFor();
    await expect.poll(async () => (await first.boundingBox())?.width ?? 0).toBeGreaterThan(100);
    const before = (await first.boundingBox())!.width;
    await page.getByRole('button', { name: 'Display settings' }).click();
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await expect.poll(async () => (await first.boundingBox())?.width ?? 0).toBeGreaterThan(before * 1.1);
    // The canvas really holds the page: some pixels are not white.
    const inked = await page.evaluate(() => {
      const canvas = document.querySelector('canvas[aria-label="Page 1"]') as HTMLCanvasElement;
      const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let dark = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i]! < 128) dark++;
      return dark;
    });
    expect(inked).toBeGreaterThan(100);
    expect(await seriousViolations(page)).toEqual([]);
  });
});

for (const viewport of [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
]) {
  describe(`a PDF document at ${viewport.width} px`, () => {
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      ({ browser, page } = await openPage(viewport));
      await signInAsDemo(page);
    });
    afterAll(() => browser?.close());

    it('opens fitted to the width of the screen, and Reset fits it again after a zoom', async () => {
      const list = await (await page.request.get('/api/v1/book/?page_size=50')).json();
      const doc = list.results.find((b: { content_format: string }) => b.content_format === 'document');
      await page.goto(doc.continue_url);
      const first = page.getByRole('img', { name: 'Page 1' });
      await first.waitFor();
      const room = await page.locator('.reader-pdf').evaluate((el) => el.clientWidth);
      const width = async () => (await first.boundingBox())?.width ?? 0;
      // reader.md §9: zoom-to-fit is 98 percent of the width.
      await expect.poll(width).toBeCloseTo(room * 0.98, -1);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await page.screenshot({ path: `/tmp/reader-${viewport.width}-pdf.png` });
      await page.getByRole('button', { name: 'Display settings' }).click();
      await page.getByRole('button', { name: 'Zoom in' }).click();
      await expect.poll(width).toBeGreaterThan(room);
      await page.getByRole('button', { name: 'Reset' }).click();
      await expect.poll(width).toBeCloseTo(room * 0.98, -1);
    });
  });
}
