/**
 * The signed-in home rendered on the server (docs/decisions.md "The first screen rendered on the server"), at both
 * widths, in a browser whose language and time zone are not the server's (French, UTC+14): the page arrives with the
 * home in its HTML (shown with JavaScript off), hydrates with no error, and goes on working: a trial reader's bar says
 * the trial's end in the browser's own words once hydrated, "Load more" pages the recent titles, a title put in the
 * queue is in the next page's "Your queue", whose greeting then says "back".
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { HOME_MESSAGES, MARKETING_MESSAGES, RECENT_ITEMS_PAGE_SIZE } from '@lectern/core';
import { lecternCli, signIn } from '../scripts/fresh-server.ts';
import { hydrated, launchBrowser } from './browser.ts';

const baseURL = inject('baseURL');
const SCREENS = path.join(import.meta.dirname, '..', '.tmp', 'screens');
const shot = async (page: Page, name: string) => {
  fs.mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`), fullPage: true });
};
const section = (page: Page, heading: string) => page.getByRole('region', { name: heading, exact: true });
const ZONE = 'Pacific/Kiritimati';
const password = 'a long enough password';

for (const viewport of [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
]) {
  describe(`a trial reader's home rendered on the server, in a French browser at UTC+14, at ${viewport.width} px`, () => {
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    const errors: string[] = [];
    const email = `home-ssr-${viewport.width}-${Date.now()}@example.com`;

    beforeAll(async () => {
      lecternCli(inject('dataDir'), ['users:create', '--email', email, '--password', password, '--status', 'trial']);
      browser = await launchBrowser();
      context = await browser.newContext({ baseURL, viewport, locale: 'fr-FR', timezoneId: ZONE });
      page = await context.newPage();
      page.setDefaultTimeout(15_000);
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      // signed in on the catalog: the home's first visit is the page under test
      await signIn(page, email, password);
    });
    afterAll(() => browser?.close());

    it('arrives with the home in its HTML, shown with JavaScript off', async () => {
      const html = await (await page.request.get('/home/')).text();
      expect(html).toContain('data-lectern-ssr');
      expect(html).toMatch(/<h1 class="page-heading home__heading">Welcome, [^<]+<\/h1>/);
      const off = await browser.newContext({ baseURL, viewport, javaScriptEnabled: false, storageState: await context.storageState() });
      const still = await off.newPage();
      await still.goto('/home/');
      await still.getByRole('heading', { level: 1, name: /^Welcome, / }).waitFor();
      await section(still, HOME_MESSAGES.headings.new).locator('.title-card').first().waitFor();
      await shot(still, `home-ssr-no-js-${viewport.width}`);
      await off.close();
    });

    it('hydrates with no error, says the trial end in the browser\'s words, pages recent titles and queues a title', async () => {
      const answer = await page.goto('/home/');
      const html = await answer!.text();
      expect(html).toContain('data-lectern-ssr');
      const profile = (await (await page.request.get('/u/information_for_javascript')).json()) as { account: { trial_ends_at: string } };
      const ends = new Date(profile.account.trial_ends_at);
      // the server wrote it as every browser does before hydrating (English, UTC); hydrated, it is this browser's
      const fixed = new Intl.DateTimeFormat('en-US', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(ends);
      const own = new Intl.DateTimeFormat('fr-FR', { day: 'numeric', month: 'long', year: 'numeric', timeZone: ZONE }).format(ends);
      expect(html).toContain(`Your free trial ends on ${fixed}.`);
      // painted from the HTML with its stylesheets' rules in it (no file holds the first paint)
      expect(html).toContain('<style data-lectern-screen-css>');
      await hydrated(page);
      await expect.poll(() => page.locator('.nag__summary').textContent()).toBe(`Your free trial ends on ${own}.`);

      // the recent titles are asked for by the hydrated page; "Load more" pages them
      const recent = section(page, MARKETING_MESSAGES.recentHeading);
      const cards = recent.locator('.title-card');
      await expect.poll(() => cards.count()).toBe(RECENT_ITEMS_PAGE_SIZE);
      await recent.getByRole('button', { name: MARKETING_MESSAGES.recentLoadMore }).click();
      await expect.poll(() => cards.count()).toBeGreaterThan(RECENT_ITEMS_PAGE_SIZE);
      await shot(page, `home-ssr-${viewport.width}`);

      // a title of "New" into the queue, from its card
      const card = section(page, HOME_MESSAGES.headings.new).locator('.title-card').first();
      const title = (await card.locator('.title-card__title').textContent())!;
      const toggle = card.getByRole('button', { name: 'Add to Queue' });
      await expect.poll(() => toggle.isEnabled()).toBe(true);
      await toggle.click();
      await expect.poll(() => card.getByRole('button', { name: /Queue/ }).getAttribute('aria-pressed')).toBe('true');
      expect(errors).toEqual([]);

      // the next page: "back", and the queue's row, rendered on the server and hydrated again without an error
      const again = await (await page.reload())!.text();
      await hydrated(page);
      expect(again).toMatch(/<h1 class="page-heading home__heading">Welcome back, [^<]+<\/h1>/);
      expect(again).toContain('data-home-section="queue"');
      await section(page, HOME_MESSAGES.headings.queue).getByRole('link', { name: title, exact: true }).first().waitFor();
      await expect.poll(() => cards.count()).toBe(RECENT_ITEMS_PAGE_SIZE);
      expect(errors).toEqual([]);
    });
  });
}
