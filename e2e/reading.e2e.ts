/** A reader signs in, opens a book from the catalog, reads on into the next chapter and signs out. */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadCatalogUntil, openPage, seriousViolations } from './browser.ts';


describe('reading as a signed-in reader', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ browser, page } = await openPage({ width: 1280, height: 800 }));
  });
  afterAll(() => browser?.close());

  it('signs in with the demo account printed at first start', async () => {
    await page.goto('/library/');
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.waitForURL(/\/login\//);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Email').fill(inject('demoEmail'));
    await page.getByLabel('Password').fill(inject('demoPassword'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/library\/$/);
    await expect.poll(() => page.getByRole('button', { name: /Demo Reader/ }).count()).toBe(1);
  });

  it('shows the catalog as a grid of title cards', async () => {
    const card = page.getByRole('article').filter({ hasText: 'Moby' }).first();
    await card.waitFor();
    expect(await card.textContent()).toMatch(/BOOK/);
    expect(await card.textContent()).toMatch(/by Herman Melville/);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('opens a book and reads on, chapter after chapter', async () => {
    const book = await loadCatalogUntil(page, /The War of the Worlds/);
    await book.click();
    await page.waitForURL(/\/library\/book\//);
    expect(await seriousViolations(page)).toEqual([]);
    // Continue once the demo account has read this book in another spec (positions follow the account).
    await page.getByRole('link', { name: /^(Start reading|Continue)$/ }).click();
    await page.waitForURL(/\/library\/view\/the-war-of-the-worlds\//);
    const frame = page.frameLocator('iframe.chapter-frame__iframe');
    await frame.locator('body').waitFor();
    // The first spine items are a cover and title pages: read on until a chapter of real text.
    const visited = [page.url()];
    let text = '';
    for (let i = 0; i < 6 && text.length < 3000; i++) {
      // The chapter on screen stays until the next one is painted in the same frame: wait for that paint.
      await page.evaluate(() => performance.clearMarks('reader:chapter-painted'));
      await page.getByRole('link', { name: /Next chapter/ }).click();
      await page.waitForURL((u) => u.toString() !== visited.at(-1));
      visited.push(page.url());
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0, null, { timeout: 10_000 });
      text = await frame.locator('body').innerText();
    }
    expect(new Set(visited).size).toBe(visited.length);
    expect(text.length).toBeGreaterThan(3000);
    expect(text).toMatch(/Mars|Martian/);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('signs out', async () => {
    await page.getByRole('button', { name: /Demo Reader/ }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    // The header offers to sign in again (the page itself may too: a chapter that now needs an account).
    await page.getByRole('banner').getByRole('link', { name: 'Sign in' }).waitFor();
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'logged_in')).toBeUndefined();
  });
});

describe('an anonymous visitor', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ browser, page } = await openPage({ width: 375, height: 812 }));
  });
  afterAll(() => browser?.close());

  it('gets the list of books without the navigation in the archive_list state', async () => {
    await page.goto('/archive_list');
    await page.getByRole('link', { name: /Moby-Dick/ }).first().waitFor();
    expect(await page.getByRole('banner').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Sign in' }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('sees the catalog, reads the sample chapter and is stopped at a locked one', async () => {
    const list = await (await page.request.get('/api/v1/book/?page_size=50')).json();
    const book = list.results.find((b: { title: string }) => /War of the Worlds/.test(b.title));
    const detail = await (await page.request.get(book.api_url)).json();
    const sample = detail.chapters.find((c: { as_sample: boolean }) => c.as_sample);
    const locked = detail.chapters.find((c: { as_sample: boolean; is_public: boolean }) => !c.as_sample && !c.is_public);

    await page.goto(sample.web_url);
    await page.frameLocator('iframe.chapter-frame__iframe').locator('body').waitFor();
    expect((await page.frameLocator('iframe.chapter-frame__iframe').locator('body').innerText()).length).toBeGreaterThan(300);

    await page.goto(locked.web_url);
    await page.getByText('You must be signed in to read this book.').waitFor();
    expect(await page.locator('iframe.chapter-frame__iframe').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
  });
});
