/**
 * Every sample book in the reader, at desktop and phone widths: Alice's Adventures in Wonderland and The War of
 * the Worlds (EPUB 2), Moby-Dick (EPUB 3) and the field manual (PDF). Also links inside a chapter and the image
 * lightbox.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPage, signInAsDemo } from './browser.ts';

const frameOf = (page: Page) => page.frameLocator('iframe.chapter-view__frame');

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 375, height: 812 },
]) {
  describe(`every sample book at ${viewport.width}x${viewport.height}`, () => {
    let browser: Browser;
    let page: Page;
    let books: { title: string; api_url: string; content_format: string }[];

    beforeAll(async () => {
      ({ browser, page } = await openPage(viewport));
      await signInAsDemo(page);
      books = (await (await page.request.get('/api/v1/book/?page_size=50')).json()).results;
    });
    afterAll(() => browser?.close());

    for (const pattern of [/^Alice/, /War of the Worlds/, /^Moby-Dick/]) {
      it(`reads ${pattern.source.replace(/[\^/]/g, '')} (EPUB), decrypted, and its next chapter`, async () => {
        const book = books.find((b) => pattern.test(b.title))!;
        const detail = await (await page.request.get(book.api_url)).json();
        const chapter = detail.chapters[Math.min(3, detail.chapters.length - 1)];
        const block = page.waitForResponse((r) => r.url().endsWith('/nest/epub/block/') && r.request().method() === 'POST');
        await page.goto(chapter.web_url);
        expect((await (await block).json())[0].resources[0].encoding).toBe('crypt64');
        // Some early chapters are short (a title page): any text at all shows the chapter was decrypted and laid out.
        await expect.poll(async () => (await frameOf(page).locator('body').innerText()).trim().length).toBeGreaterThan(20);
        if (detail.chapters.length > 4) {
          await page.getByRole('link', { name: /Next chapter/ }).click();
          await page.waitForURL((u) => u.pathname.endsWith(`/${detail.chapters[4].full_path}`));
          // The same frame now holds the next chapter (its document is titled with the chapter's label).
          if (detail.chapters[4].label) await expect.poll(() => frameOf(page).locator('title').textContent()).toBe(detail.chapters[4].label);
          await expect.poll(async () => (await frameOf(page).locator('body').innerText()).length).toBeGreaterThan(0);
        }
      });
    }

    it('shows the PDF document page by page', async () => {
      const doc = books.find((b) => b.content_format === 'document')!;
      await page.goto((await (await page.request.get(doc.api_url)).json()).continue_url);
      await page.getByRole('img', { name: 'Page 1' }).waitFor();
      await expect.poll(async () => (await page.getByRole('img', { name: 'Page 1' }).boundingBox())?.width ?? 0).toBeGreaterThan(100);
    });
  });
}

describe('inside a chapter', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ browser, page } = await openPage({ width: 375, height: 812 }));
  });
  afterAll(() => browser?.close());

  it('opens an image wider than its column in the lightbox', async () => {
    await signInAsDemo(page);
    // The War of the Worlds opens on its cover: a picture much wider than a phone's column.
    const books = (await (await page.request.get('/api/v1/book/?page_size=50')).json()).results;
    const wotw = await (await page.request.get(books.find((b: { title: string }) => /War of the Worlds/.test(b.title)).api_url)).json();
    await page.goto(wotw.chapters[0].web_url);
    const img = frameOf(page).locator('img.lectern-zoomable').first();
    await img.scrollIntoViewIfNeeded();
    await img.click();
    const lightbox = page.getByRole('dialog', { name: /Image/ });
    await lightbox.waitFor();
    await page.getByRole('button', { name: 'Close image' }).click();
    await expect.poll(() => lightbox.count()).toBe(0);
  });

  it('follows a link to another chapter inside the app, without reloading it', async () => {
    // Moby-Dick's contents page is a chapter whose links point at the other chapters.
    const books = (await (await page.request.get('/api/v1/book/?page_size=50')).json()).results;
    const moby = await (await page.request.get(books.find((b: { title: string }) => /^Moby-Dick/.test(b.title)).api_url)).json();
    const toc = moby.chapters.find((c: { full_path: string }) => c.full_path.endsWith('toc.xhtml'));
    await page.goto(toc.web_url);
    const link = frameOf(page).locator('a[href$="preface_001.xhtml"]').first();
    await link.waitFor();
    await page.evaluate(() => ((window as unknown as { __marker: number }).__marker = 42));
    await page.evaluate(() => performance.clearMarks('reader:chapter-painted'));
    await link.click();
    await page.waitForURL((u) => u.pathname.endsWith('/preface_001.xhtml'));
    await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
    expect(await frameOf(page).locator('a[href$="preface_001.xhtml"]').count()).toBe(0);
    await expect.poll(async () => (await frameOf(page).locator('body').innerText()).length).toBeGreaterThan(200);
    // Still the same document: the app was not reloaded.
    expect(await page.evaluate(() => (window as unknown as { __marker?: number }).__marker)).toBe(42);
  });
});
