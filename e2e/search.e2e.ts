/**
 * Finding (docs/decisions.md "Finding") as a person does it: the header's combobox (suggestions, keyboard, Escape),
 * Enter to the search page, a word that is only inside a chapter found as a passage that opens the reader there with
 * the words marked, facets and sort in the address, a nonsense word on the no-results page, and a phone that searches
 * from the page.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPage, seriousViolations, signInAsDemo } from './browser.ts';

const SCREENS = path.join(import.meta.dirname, '..', '.tmp', 'screens');
const shot = async (page: Page, name: string) => {
  fs.mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`), fullPage: false });
};

describe('searching the library on a desktop', () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    ({ browser, page } = await openPage({ width: 1280, height: 900 }));
    await signInAsDemo(page);
  });
  afterAll(() => browser?.close());

  it('suggests as one types, by keyboard, and Escape closes the list', async () => {
    await page.goto('/library/');
    const box = page.getByRole('combobox', { name: 'Search the library' });
    await page.locator('.title-card').first().waitFor();
    await page.keyboard.press('/');
    expect(await box.evaluate((b) => b === document.activeElement)).toBe(true);
    await box.pressSequentially('alic', { delay: 30 });
    const option = page.getByRole('option', { name: /Alice's Adventures in Wonderland/ });
    await option.waitFor();
    expect(await box.getAttribute('aria-expanded')).toBe('true');
    await box.press('ArrowDown');
    expect(await box.getAttribute('aria-activedescendant')).toBe(await page.getByRole('option').first().getAttribute('id'));
    await shot(page, 'search-suggest-1280');
    await box.press('Escape');
    expect(await box.getAttribute('aria-expanded')).toBe('false');
    // Down opens the list again on its first option; Enter opens it.
    await box.press('ArrowDown');
    expect(await box.getAttribute('aria-expanded')).toBe('true');
    await box.press('Enter');
    await page.waitForURL(/\/library\/book\//);
  });

  it('finds a word only inside a chapter and opens the reader on the passage with the words marked', async () => {
    await page.goto('/library/');
    const box = page.getByRole('combobox', { name: 'Search the library' });
    await box.fill('Pequod');
    await box.press('Enter');
    await page.waitForURL(/\/search\/\?q=Pequod/);
    const passage = page.locator('.search-result__passages a').first();
    await passage.waitFor();
    expect(await passage.locator('mark').first().innerText()).toMatch(/Pequod/i);
    expect(await page.locator('.search-result__title').first().innerText()).toMatch(/Moby-Dick/);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'search-results-1280');
    await passage.click();
    await page.waitForURL(/\/library\/view\/.*\?q=Pequod/);
    const frame = page.frameLocator('iframe.chapter-view__frame').first();
    await expect.poll(async () => frame.locator('mark, .search-mark, [data-search-mark]').count(), { timeout: 15_000 }).toBeGreaterThan(0);
  });

  it('keeps filters and sort in the address, and sends a nonsense word to the no-results page', async () => {
    await page.goto('/search/?q=the');
    await page.locator('.search-result').first().waitFor();
    await page.getByRole('link', { name: /^Books\s*\d+$/ }).click();
    await page.waitForURL(/format=book/);
    await page.getByLabel('Sort by').selectOption('title');
    await page.waitForURL(/sort=title/);
    await page.goBack();
    await page.waitForURL((u) => !u.search.includes('sort=title'));
    await page.goto('/search/?q=zzqxjvv');
    await page.waitForURL(/\/noresults\/\?q=zzqxjvv/);
    await page.getByRole('heading', { name: /Nothing in the library matches/ }).waitFor();
  });
});

describe('searching on a phone', () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    ({ browser, page } = await openPage({ width: 390, height: 844 }));
  });
  afterAll(() => browser?.close());

  it('searches from the search page, nothing wider than the screen', async () => {
    await page.goto('/library/');
    await page.getByRole('link', { name: 'Search the library' }).click();
    await page.waitForURL(/\/search\//);
    await page.getByRole('searchbox', { name: 'Search the library' }).fill('whale');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.locator('.search-result').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await shot(page, 'search-results-390');
  });
});

/**
 * docs/decisions.md "Search pages to its end; the typed prefix; a visitor's passages", at both widths: a visitor's
 * "mart" (the beginning of "Martians") finds The War of the Worlds with a passage from its sample, and the passage
 * opens the sample in the reader; a signed-in reader pages "the" from its first page, by the page links, to the page
 * where Alice's Adventures in Wonderland is.
 */
describe.each([
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
])('search pages to its end and shows a visitor the samples ($width px)', (viewport) => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    ({ browser, page } = await openPage(viewport));
  });
  afterAll(() => browser?.close());

  it('a visitor searches "mart", sees a passage of the sample and jumps into it', async () => {
    const list = await (await page.request.get('/api/v1/book/?page_size=50')).json();
    const book = list.results.find((b: { title: string }) => b.title === 'The War of the Worlds');
    const detail = await (await page.request.get(book.api_url)).json();
    const sample = detail.chapters.find((c: { as_sample: boolean }) => c.as_sample);

    await page.goto('/search/');
    await page.getByRole('searchbox', { name: 'Search the library' }).fill('mart');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/\/search\/\?q=mart/);
    const result = page.locator('.search-result').filter({ has: page.getByRole('link', { name: 'The War of the Worlds', exact: true }) });
    const passage = result.locator('.search-result__passages a').first();
    await passage.waitFor();
    expect(await passage.locator('mark').first().innerText()).toMatch(/^mart/i);
    expect(await passage.getAttribute('href')).toContain(`/${sample.full_path}?`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await shot(page, `search-visitor-mart-${viewport.width}`);
    await passage.click();
    await page.waitForURL((u) => u.pathname.endsWith(`/${sample.full_path}`));
    const frame = page.frameLocator('iframe.chapter-view__frame:not(.chapter-view__spare)');
    await expect.poll(async () => (await frame.locator('body').innerText().catch(() => '')).includes('Martian'), { timeout: 15_000 }).toBe(true);
    expect(await page.getByText('You must be signed in to read this book.').count()).toBe(0);
  });

  it('a reader pages a common word\'s results to the page where Alice is', async () => {
    await signInAsDemo(page);
    await page.goto('/search/?q=the');
    const alice = page.getByRole('link', { name: "Alice's Adventures in Wonderland", exact: true });
    const seen = new Set<string>();
    for (let n = 1; ; n++) {
      await page.locator('.search-result').first().waitFor();
      for (const title of await page.locator('.search-result__title').allInnerTexts()) {
        expect(seen.has(title), `${title} listed twice`).toBe(false);
        seen.add(title);
      }
      if ((await alice.count()) > 0) break;
      const next = page.getByRole('navigation', { name: 'Pages of results' }).getByRole('link', { name: 'Next page' });
      expect(await next.count(), `page ${n} of "the" has no next page and no Alice: ${[...seen].join(', ')}`).toBe(1);
      // The address changes before the next page is drawn (the old page, then a loading state): wait for the new
      // page's own first result, which is not the last page's.
      const before = await page.locator('.search-result__title').first().innerText();
      await next.click();
      await page.waitForURL(new RegExp(`[?&]page=${n + 1}(&|$)`));
      await expect
        .poll(() => page.locator('.search-result__title').first().innerText({ timeout: 1_000 }).catch(() => before), { timeout: 15_000 })
        .not.toBe(before);
    }
    await alice.first().scrollIntoViewIfNeeded();
    await shot(page, `search-paged-alice-${viewport.width}`);
  });
});

for (const viewport of [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
]) {
  describe(`a signed-in search page rendered on the server, in a French browser, at ${viewport.width} px`, () => {
    let browser: Browser;
    let page: Page;
    const errors: string[] = [];
    beforeAll(async () => {
      ({ browser, page } = await openPage(viewport, 'fr-FR'));
      page.on('pageerror', (e) => errors.push(e.message));
      await signInAsDemo(page);
    });
    afterAll(() => browser?.close());

    it('hydrates what the server rendered without a mismatch, the language facet in English, and goes on working', async () => {
      const answer = await page.goto('/search/?q=the');
      expect(await answer!.text()).toContain('data-lectern-ssr');
      await page.locator('.search-result').first().waitFor();
      // the browser's own language would name the facet's languages otherwise than the server did (React error #418)
      await page.getByRole('link', { name: /^English\s*\d+$/ }).first().waitFor();
      await page.getByRole('link', { name: /^Books\s*\d+$/ }).click();
      await page.waitForURL(/format=book/);
      await page.locator('.search-result').first().waitFor();
      expect(errors).toEqual([]);
    });
  });
}
