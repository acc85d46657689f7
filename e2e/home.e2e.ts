/**
 * The home dashboard (docs/decisions.md "The home dashboard") as people meet it: a visitor sees what the library holds
 * with calls to action and the titles they just looked at; a reader who read in one browser finds "Continue reading" in
 * another (a phone), picks topics and gets recommendations, drops one ("Not interested", or D on the focused card) and
 * it stays gone in any browser; J / K walk the cards.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { HOME_MESSAGES } from '@lectern/core';
import { lecternCli, signIn } from '../scripts/fresh-server.ts';
import { launchBrowser, seriousViolations } from './browser.ts';

const baseURL = inject('baseURL');
const SCREENS = path.join(import.meta.dirname, '..', '.tmp', 'screens');
const shot = async (page: Page, name: string) => {
  fs.mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`), fullPage: true });
};
const fitsTheScreen = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
const section = (page: Page, heading: string) => page.getByRole('region', { name: heading, exact: true });
const cardTitles = (page: Page, heading: string) => section(page, heading).locator('.title-card__title').allTextContents();

describe('the home dashboard', () => {
  let browser: Browser;
  const email = `home-${Date.now()}@example.com`;
  const password = 'a long enough password';

  beforeAll(async () => {
    lecternCli(inject('dataDir'), ['users:create', '--email', email, '--password', password, '--status', 'subscriber']);
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it('shows a visitor the library with calls to action, and the titles they just viewed', async () => {
    const context = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto('/');
    await page.waitForURL(/\/home\/$/);
    await section(page, HOME_MESSAGES.headings.new).waitFor();
    expect(await page.getByRole('link', { name: HOME_MESSAGES.startTrial }).count()).toBe(3);
    expect(await section(page, HOME_MESSAGES.headings.continue_reading).count()).toBe(0);
    // A title page viewed puts the title in "Last viewed" (the recently viewed cookie).
    const first = section(page, HOME_MESSAGES.headings.new).locator('.title-card__title a').first();
    const title = (await first.textContent())!;
    await first.click();
    await page.waitForURL(/\/library\/book\//);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.goto('/home/');
    await section(page, HOME_MESSAGES.headings.last_viewed).waitFor();
    expect(await cardTitles(page, HOME_MESSAGES.headings.last_viewed)).toEqual([title]);
    expect(await fitsTheScreen(page)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'home-visitor-390');
    await context.close();
  });

  it('continues in a second browser what was read in the first, and recommendations stay dropped', async () => {
    // First browser: open a chapter of The War of the Worlds and read a little way in.
    const first = await browser.newContext({ baseURL, viewport: { width: 1280, height: 800 } });
    const a = await first.newPage();
    a.setDefaultTimeout(15_000);
    await signIn(a, email, password, '/home/');
    const list = await (await a.request.get('/api/v1/book/?page_size=50')).json();
    const summary = list.results.find((b: { title: string }) => /War of the Worlds/.test(b.title));
    const book = await (await a.request.get(summary.api_url)).json();
    const chapter = book.chapters.find((c: { label: string }) => /Chapter 1\b/.test(c.label));
    const saved = a.waitForResponse((r) => r.url().endsWith(`/api/v1/book/${book.book_id}/position/`) && r.request().method() === 'PUT' && r.status() === 200);
    await a.goto(chapter.web_url);
    await a.frameLocator('iframe.chapter-view__frame').locator('p').first().waitFor();
    await a.evaluate(() => {
      const s = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentDocument!.scrollingElement!;
      s.scrollTop = Math.round(s.scrollHeight * 0.4);
    });
    await saved;
    await first.close();

    // Second browser, a phone: the home leads back into the chapter.
    const second = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 } });
    const b = await second.newPage();
    b.setDefaultTimeout(15_000);
    await signIn(b, email, password, '/home/');
    const cont = section(b, HOME_MESSAGES.headings.continue_reading);
    await cont.waitFor();
    expect(await cont.locator('.title-card__title').allTextContents()).toEqual([book.title]);
    expect(await cont.getByRole('link', { name: `Continue ${book.title}` }).getAttribute('href')).toBe(chapter.web_url);
    expect(await fitsTheScreen(b)).toBe(true);

    // Topics chosen: recommendations from them, never the book being read.
    await b.goto('/welcome/topics/');
    const topics = b.locator('.onboarding__topic');
    await topics.first().waitFor();
    for (const t of await topics.all()) await t.click();
    await b.getByRole('button', { name: /^Save \d+ topics?$/ }).click();
    await b.waitForURL(/\/home\/$/);
    const recommended = section(b, HOME_MESSAGES.headings.recommended);
    await recommended.waitFor();
    const before = await recommended.locator('.title-card__title').allTextContents();
    expect(before.length).toBeGreaterThan(0);
    expect(before).not.toContain(book.title);
    expect(await seriousViolations(b)).toEqual([]);
    await shot(b, 'home-reader-390');

    const dropped = before[0]!;
    await recommended.getByRole('button', { name: `${HOME_MESSAGES.notInterested}: ${dropped}` }).click();
    await b.getByRole('status').filter({ hasText: HOME_MESSAGES.rejected(dropped) }).waitFor();
    await expect.poll(() => recommended.locator('.title-card__title').allTextContents()).not.toContain(dropped);
    await second.close();

    // A third browser (a desktop): still gone. J walks the cards; D drops the focused recommendation.
    const third = await browser.newContext({ baseURL, viewport: { width: 1280, height: 900 } });
    const c = await third.newPage();
    c.setDefaultTimeout(15_000);
    await signIn(c, email, password, '/home/');
    await section(c, HOME_MESSAGES.headings.continue_reading).waitFor();
    const rec = section(c, HOME_MESSAGES.headings.recommended);
    const now = (await rec.count()) ? await rec.locator('.title-card__title').allTextContents() : [];
    expect(now).not.toContain(dropped);
    await c.locator('body').press('j');
    const focused = () => c.evaluate(() => document.activeElement?.closest('[data-home-card]')?.querySelector('.title-card__title')?.textContent ?? null);
    expect(await focused()).toBe(book.title);
    if (now.length) {
      // The same title may also sit in an earlier section (popular, recently added): walk on to the recommended card.
      const focusedRecommendation = () =>
        c.evaluate(() => (document.activeElement?.closest('[data-home-section="recommended"] [data-home-card]')?.querySelector('.title-card__title')?.textContent ?? null));
      for (let i = 0; i < 40 && (await focusedRecommendation()) !== now[0]; i++) await c.keyboard.press('j');
      expect(await focusedRecommendation()).toBe(now[0]);
      await c.keyboard.press('d');
      await expect.poll(() => (rec.count().then((n) => (n ? rec.locator('.title-card__title').allTextContents() : [])))).not.toContain(now[0]);
    }
    await shot(c, 'home-reader-1280');
    await third.close();
  });
});

describe('the home dashboard: the queue\'s order, one title one row', () => {
  let browser: Browser;
  const email = `home21-${Date.now()}@example.com`;
  const password = 'a long enough password';

  beforeAll(async () => {
    lecternCli(inject('dataDir'), ['users:create', '--email', email, '--password', password, '--status', 'subscriber']);
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it('runs "Your queue" in the order set on the playlists page, and shows each title in one row only (1280 and 390 px)', async () => {
    const setup = await browser.newContext({ baseURL, viewport: { width: 1280, height: 800 } });
    const s = await setup.newPage();
    s.setDefaultTimeout(15_000);
    await signIn(s, email, password, '/home/');
    const headers = async () => ({
      'x-csrftoken': (await setup.cookies()).find((c) => c.name === 'csrftoken')?.value ?? '',
      origin: baseURL,
      accept: 'application/json; version=v2',
    });
    const books: { api_url: string; title: string }[] = (await (await s.request.get('/api/v1/book/?page_size=50')).json()).results;
    const [a, b, c] = books.slice(0, 3) as [(typeof books)[0], (typeof books)[0], (typeof books)[0]];
    for (const x of [a, b, c]) expect((await s.request.post('/api/v1/queue-simple/', { headers: await headers(), data: [x.api_url] })).status()).toBe(200);
    const queue = ((await (await s.request.get('/nest/api/api/v2/collections/', { headers: { accept: 'application/json; version=v2' } })).json()) as { id: string; is_default: boolean }[]).find((p) => p.is_default)!;
    // the reader's order, as the playlists page's move buttons set it
    const order = [b, c, a];
    const put = await s.request.put(`/nest/api/api/v2/collections/${queue.id}/order/`, { headers: await headers(), data: { content: order.map((x) => x.api_url) } });
    expect(put.status()).toBe(200);
    const cookies = (await setup.storageState()).cookies;
    await setup.close();

    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      const context = await browser.newContext({ baseURL, viewport, storageState: { cookies, origins: [] } });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await page.goto('/c/');
      const onShelf = () => page.locator('[data-reorder-item]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.reorderItem));
      await expect.poll(onShelf).toEqual(order.map((x) => x.api_url));
      await page.goto('/home/');
      await section(page, HOME_MESSAGES.headings.queue).waitFor();
      expect(await cardTitles(page, HOME_MESSAGES.headings.queue)).toEqual(order.map((x) => x.title));
      // one title, one row: every card of the home's rows names a different title ("Recently added" pages through
      // the whole library, and an editor's playlist is shown whole, so neither leaves out what a row shows)
      const all = await page.locator('[data-home-section]:not([data-home-section="recent"]) .title-card__title').allTextContents();
      expect(all.length).toBeGreaterThan(0);
      expect(new Set(all).size, all.join(' | ')).toBe(all.length);
      await shot(page, `home-queue-order-${viewport.width}`);
      await context.close();
    }
  });
});
