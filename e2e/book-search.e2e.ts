/**
 * Search inside the open book (reader.md §2, §4 "Search panel", §8), in Chromium against the real server
 * and sample library: search a word, page through the results 5 at a time, choose one on the second page, land on
 * its chapter with the words marked and the passage in view; a query without hits says so; a PDF hit opens its
 * page with the words marked in the text layer, whose text can be selected. At desktop and phone sizes.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPage, seriousViolations, signInAsDemo } from './browser.ts';

const SHOTS = process.env.E2E_SHOTS_DIR ?? '/tmp';

async function bookByTitle(page: Page, re: RegExp): Promise<{ book_id: string; title: string; continue_url: string; url: string }> {
  const list = await (await page.request.get('/api/v1/book/?page_size=50')).json();
  return list.results.find((b: { title: string }) => re.test(b.title));
}

/** The current search mark in the chapter frame, and whether its box lies inside the frame's viewport. */
function currentMarkInView(page: Page) {
  return page.evaluate(() => {
    const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame');
    const doc = frame?.contentDocument;
    const mark = doc?.querySelector<HTMLElement>('mark.lectern-search-hit--current');
    if (!frame || !doc || !mark) return null;
    const r = mark.getBoundingClientRect();
    const win = frame.contentWindow!;
    return {
      text: mark.textContent ?? '',
      marks: doc.querySelectorAll('mark.lectern-search-hit').length,
      inView: r.width > 0 && r.height > 0 && r.top >= 0 && r.bottom <= win.innerHeight && r.left >= 0 && r.right <= win.innerWidth,
    };
  });
}

async function openSearch(page: Page) {
  await page.getByRole('button', { name: 'Search this book' }).click();
  const field = page.getByRole('searchbox', { name: 'Search this book' });
  await field.waitFor();
  return field;
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  describe(`search inside the book at ${viewport.width} px`, () => {
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      ({ browser, page } = await openPage(viewport));
      await signInAsDemo(page);
    });
    afterAll(() => browser?.close());

    it('finds a word, pages through the results, and jumps to the chosen passage with the words marked', async () => {
      const book = await bookByTitle(page, /War of the Worlds/);
      await page.goto(book.continue_url);
      await page.locator('iframe.chapter-view__frame').waitFor();
      if (viewport.width < 600) {
        // On the phone in paged mode: the jump turns to the passage's page.
        await page.getByRole('button', { name: 'Display settings' }).click();
        await page.getByRole('button', { name: 'Pages' }).click();
        await page.keyboard.press('Escape');
      }
      const field = await openSearch(page);
      expect(await field.evaluate((el) => el === document.activeElement)).toBe(true);
      await field.fill('Martians');
      const answered = page.waitForResponse((r) => r.url().includes('/api/v2/search/book/') && r.status() === 200);
      await field.press('Enter');
      const first = await (await answered).json();
      expect(first.total).toBeGreaterThan(5);
      const results = page.locator('.reader-search__result');
      await expect.poll(() => results.count()).toBe(5);
      expect(await results.first().locator('mark').first().innerText()).toMatch(/martian/i);
      expect(await results.first().locator('.reader-search__minutes').innerText()).toMatch(/^\d+( h)?( \d+)? ?min$|^\d+ h$/);
      expect(await page.getByRole('link', { name: 'Search the whole site' }).getAttribute('href')).toBe('/search/?q=Martians');
      await page.screenshot({ path: `${SHOTS}/book-search-results-${viewport.width}.png` });
      expect(await seriousViolations(page)).toEqual([]);

      // The second page.
      await page.getByRole('button', { name: /Next/ }).click();
      await expect.poll(() => page.locator('.reader-search__count').innerText()).toContain('page 2 of');
      const chosen = results.nth(1);
      const snippet = (await chosen.locator('.reader-search__snippet').innerText()).trim();
      const chosenChapter = await chosen.locator('.reader-search__chapter-title').innerText();
      const tracked = page.waitForRequest((r) => r.url().endsWith('/api/v2/search/selection/') && r.method() === 'POST');
      await chosen.getByRole('link').click();
      const selection = (await tracked).postDataJSON();
      expect(selection).toMatchObject({ rank: 6, scope: 'book', selection_type: 'passage', query: 'Martians' });

      // The chapter of the hit, the panel closed, the words marked and the passage in view.
      await expect.poll(() => page.locator('#chapter-heading').innerText()).toBe(chosenChapter);
      expect(await page.locator('.reader-search--open').count()).toBe(0);
      await expect.poll(() => currentMarkInView(page), { timeout: 15_000 }).toMatchObject({ inView: true });
      const mark = (await currentMarkInView(page))!;
      expect(mark.text).toMatch(/martian/i);
      expect(mark.marks).toBeGreaterThan(0);
      // The passage's first words are in the upper half of the view (of the page on show, in paged mode).
      const firstWords = snippet.replace(/^[\s.…]+/, '').split(/\s+/).slice(0, 4).join(' ');
      const frameText = await page.evaluate(() => {
        const doc = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentDocument!;
        const range = doc.createRange();
        const walker = doc.createTreeWalker(doc.getElementById('lectern-root')!, NodeFilter.SHOW_TEXT);
        let text = '';
        for (let n = walker.nextNode() as Text | null; n; n = walker.nextNode() as Text | null) {
          range.selectNodeContents(n);
          const r = range.getBoundingClientRect();
          const win = doc.defaultView!;
          if (r.bottom > 0 && r.top < win.innerHeight * 0.5 && r.right > 0 && r.left < win.innerWidth) text += n.data;
        }
        return text.replace(/\s+/g, ' ');
      });
      expect(frameText.toLowerCase().replace(/\s+/g, '')).toContain(firstWords.toLowerCase().replace(/\s+/g, ''));
      // The address keeps no query (a reload resumes where the reader is).
      expect(new URL(page.url()).search).toBe('');
      await page.screenshot({ path: `${SHOTS}/book-search-landed-${viewport.width}.png` });

      // Opening the panel again (by its key): the field holds the day's query, the results are reset.
      await page.locator('body').press('/');
      await page.getByRole('searchbox', { name: 'Search this book' }).waitFor();
      await expect.poll(() => page.getByRole('searchbox', { name: 'Search this book' }).inputValue()).toBe('Martians');
      expect(await results.count()).toBe(0);
      await page.keyboard.press('Escape');
      await expect.poll(() => page.locator('.reader-search--open').count()).toBe(0);
    });

    it('arriving from a site search passage hit (?q=, no chosen snippet) marks the words and shows the first', async () => {
      const found = await (await page.request.get('/api/v2/search/?q=heliograph')).json();
      const hit = found.results.flatMap((r: { passages: { web_url: string; chapter_title: string }[] }) => r.passages)[0];
      expect(hit.web_url).toContain('?q=heliograph');
      await page.goto(hit.web_url);
      await expect.poll(() => currentMarkInView(page), { timeout: 15_000 }).toMatchObject({ inView: true });
      expect((await currentMarkInView(page))!.text.toLowerCase()).toMatch(/^heliograph/);
      expect(new URL(page.url()).search).toBe('');
    });

    it('says so when nothing matches', async () => {
      const book = await bookByTitle(page, /War of the Worlds/);
      await page.goto(book.continue_url);
      await page.locator('iframe.chapter-view__frame').waitFor();
      const field = await openSearch(page);
      await field.fill('xylophonequux');
      await field.press('Enter');
      await page.getByText('No results for "xylophonequux"').waitFor();
      if (viewport.width === 390) await page.screenshot({ path: `${SHOTS}/book-search-none-390.png` });
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    });

    it('a PDF hit opens its page with the words marked, and the page text can be selected', async () => {
      const list = await (await page.request.get('/api/v1/book/?page_size=50')).json();
      const doc = list.results.find((b: { content_format: string }) => b.content_format === 'document');
      await page.goto(doc.continue_url);
      await page.getByRole('img', { name: 'Page 1' }).waitFor();
      // The text layer: real text over the canvas.
      await expect.poll(() => page.locator('.reader-pdf__page[data-page="1"] .textLayer').innerText()).toContain('Lectern Field Manual, page 1');
      const field = await openSearch(page);
      await field.fill('zeppelin');
      await field.press('Enter');
      const hit = page.locator('.reader-search__result').first();
      await hit.waitFor();
      expect(await page.locator('.reader-search__result').count()).toBe(1);
      await hit.getByRole('link').click();
      const mark = page.locator('.reader-pdf__page[data-page="3"] mark.lectern-search-hit');
      await expect.poll(() => mark.count(), { timeout: 15_000 }).toBeGreaterThan(0);
      expect((await mark.first().innerText()).toLowerCase()).toBe('zeppelin');
      const box = await mark.first().boundingBox();
      const view = await page.locator('.reader-pdf').boundingBox();
      expect(box && view && box.y >= view.y && box.y + box.height <= view.y + view.height).toBe(true);
      await page.screenshot({ path: `${SHOTS}/book-search-pdf-${viewport.width}.png` });
      // Select the page's first line and copy it as text.
      const selected = await page.evaluate(() => {
        const layer = document.querySelector('.reader-pdf__page[data-page="3"] .textLayer')!;
        const range = document.createRange();
        range.selectNodeContents(layer);
        const sel = window.getSelection()!;
        sel.removeAllRanges();
        sel.addRange(range);
        return sel.toString();
      });
      expect(selected).toContain('This page is about the zeppelin of the library.');
    });
  });
}
