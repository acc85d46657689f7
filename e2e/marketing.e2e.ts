/**
 * The marketing modules (docs/decisions.md "The marketing modules") as readers meet them, at 1280 and 390 px, axe
 * clean: the tutorial dismissed and still gone after a reload; the newsletter taken from the home's promo; the recent
 * titles paged by "Load more"; a newly imported title mailed by the newsletter job (the command line's `newsletter:send
 * --now`; without SMTP_URL the mail is written to its output, as the server's are to its log) and the mail's link
 * unsubscribing without signing in; the account page then saying so; the title page's buy link from BUY_LINK_TEMPLATE
 * (global-setup). The titles it imports are retired at the end.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MARKETING_MESSAGES, RECENT_ITEMS_PAGE_SIZE as RECENT_PAGE_SIZE } from '@lectern/core';
import { epubBook } from '../packages/server/test/ingest/helpers.ts';
import { importBook, lecternCli, signIn } from '../scripts/fresh-server.ts';
import { launchBrowser, seriousViolations } from './browser.ts';

const baseURL = inject('baseURL');
const dataDir = inject('dataDir');
const SCREENS = path.join(import.meta.dirname, '..', '.tmp', 'screens');
const shot = async (page: Page, name: string) => {
  fs.mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`), fullPage: true });
};
/** Nothing wider than the window; when something is, the elements reaching past it are printed (what to fix). */
const fitsTheScreen = async (page: Page) => {
  const { fits, wide } = await page.evaluate(() => ({
    fits: document.documentElement.scrollWidth <= window.innerWidth,
    wide: Array.from(document.querySelectorAll('body *'))
      .map((e) => ({ e, right: e.getBoundingClientRect().right }))
      .filter((x) => x.right > window.innerWidth + 0.5)
      .slice(-8)
      .map((x) => `${x.e.tagName.toLowerCase()}.${Array.from(x.e.classList).join('.')} right=${Math.round(x.right)}`),
  }));
  if (!fits) console.log(`wider than the window:\n${wide.join('\n')}`);
  return fits;
};
const region = (page: Page, name: string) => page.getByRole('region', { name, exact: true });
const stamp = Date.now();
const NEW_TITLE = `The Lighthouse Almanac ${stamp}`;
const password = 'a long enough password';

describe('the marketing modules', () => {
  let browser: Browser;
  const imported: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    for (const id of imported) lecternCli(dataDir, ['titles:retire', id]);
    await browser?.close();
  });

  for (const width of [1280, 390]) {
    it(`a reader dismisses the tutorial, subscribes, loads more titles and unsubscribes by the mail's link at ${width} px`, async () => {
      const email = `marketing-${width}-${stamp}@example.com`;
      lecternCli(dataDir, ['users:create', '--email', email, '--password', password, '--status', 'subscriber']);
      const context = await browser.newContext({ baseURL, viewport: { width, height: width > 500 ? 800 : 844 } });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await signIn(page, email, password, '/home/');

      // the tutorial, dismissed for good
      const tutorial = region(page, MARKETING_MESSAGES.tutorialTitle);
      await tutorial.waitFor();
      const promo = region(page, MARKETING_MESSAGES.newsletterTitle);
      await promo.waitFor();
      const recent = region(page, MARKETING_MESSAGES.recentHeading);
      await recent.locator('.title-card').first().waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(await fitsTheScreen(page)).toBe(true);
      await shot(page, `marketing-home-${width}`);
      await tutorial.getByRole('button', { name: MARKETING_MESSAGES.tutorialDismiss }).click();
      await tutorial.waitFor({ state: 'detached' });

      // the newsletter: a sample, then subscribe
      await promo.getByRole('button', { name: MARKETING_MESSAGES.newsletterSample }).click();
      await promo.getByRole('heading', { name: MARKETING_MESSAGES.newsletterSampleHeading }).waitFor();
      await promo.getByRole('button', { name: MARKETING_MESSAGES.newsletterSubscribe }).click();
      await promo.getByText(MARKETING_MESSAGES.newsletterSubscribed).waitFor();
      expect(await seriousViolations(page)).toEqual([]);

      // recent items: one page, then the next by the cursor
      const cards = recent.locator('.title-card');
      const total = (await (await page.request.get(`/api/v1/book/?sort=recent&page_size=${RECENT_PAGE_SIZE}`)).json()).count as number;
      expect(total).toBeGreaterThan(RECENT_PAGE_SIZE);
      expect(await cards.count()).toBe(RECENT_PAGE_SIZE);
      await recent.getByRole('button', { name: MARKETING_MESSAGES.recentLoadMore }).click();
      await expect.poll(() => cards.count(), { timeout: 15_000 }).toBe(Math.min(total, 2 * RECENT_PAGE_SIZE));
      // the keyboard goes on at the first new title
      expect(await page.evaluate(() => document.activeElement?.closest('.title-card') !== null)).toBe(true);
      expect(await fitsTheScreen(page)).toBe(true);

      // after a reload: the tutorial stays gone, the promo too (subscribed)
      await page.reload();
      await recent.locator('.title-card').first().waitFor();
      expect(await tutorial.count()).toBe(0);
      expect(await promo.count()).toBe(0);

      // a new title, and the newsletter job sends it to this reader
      const title = `${NEW_TITLE} (${width})`;
      const file = path.join(dataDir, `almanac-${stamp}-${width}.epub`);
      fs.writeFileSync(
        file,
        epubBook({
          identifier: `urn:uuid:5e1a0c3e-0000-4000-8000-${String(stamp + width).padStart(12, '0').slice(-12)}`,
          title,
          creator: 'The Lectern Team',
          chapters: [{ path: 'text/one.xhtml', label: 'Tides', body: '<h1>Tides</h1><p>The almanac lists the tides of every harbour on the coast.</p>' }],
        }),
      );
      const id = /imported\s+(\S+)/.exec(importBook(dataDir, file))?.[1];
      expect(id).toBeDefined();
      imported.push(id!);
      const printed = lecternCli(dataDir, ['newsletter:send', '--now']);
      const mail = printed.slice(printed.indexOf(`email to ${email}`));
      expect(mail).toContain(`email to ${email}`);
      expect(mail).toContain(title);
      const link = /\/newsletter\/unsubscribe\/\?token=[A-Za-z0-9_.%-]+/.exec(mail)?.[0];
      expect(link).toBeDefined();

      // the link, in a browser that is not signed in
      const visitor = await browser.newContext({ baseURL, viewport: { width, height: width > 500 ? 800 : 844 } });
      const v = await visitor.newPage();
      v.setDefaultTimeout(15_000);
      await v.goto(link!);
      await v.getByRole('heading', { name: MARKETING_MESSAGES.unsubscribeTitle }).waitFor();
      await v.getByText(MARKETING_MESSAGES.unsubscribeQuestion(`m•••@example.com`)).waitFor();
      expect(await seriousViolations(v)).toEqual([]);
      expect(await fitsTheScreen(v)).toBe(true);
      await shot(v, `marketing-unsubscribe-${width}`);
      await v.getByRole('button', { name: MARKETING_MESSAGES.unsubscribeButton }).click();
      await v.getByText(MARKETING_MESSAGES.unsubscribeDone('m•••@example.com')).waitFor();
      // the same link again: nothing more to do, and it says so
      await v.reload();
      await v.getByText(MARKETING_MESSAGES.unsubscribeAlready('m•••@example.com')).waitFor();
      await visitor.close();

      // the account page says so, and can turn it back on
      await page.goto('/u');
      const section = region(page, MARKETING_MESSAGES.accountNewsletterHeading);
      await section.getByText(MARKETING_MESSAGES.accountNewsletterOff).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await context.close();
    }, 240_000);
  }

  it("shows an editor's transformation playlist with its topic's banner on the home and the topic page", async () => {
    const email = `editor-${stamp}@example.com`;
    lecternCli(dataDir, ['users:create', '--email', email, '--password', password, '--role', 'admin']);
    const context = await browser.newContext({ baseURL, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, email, password, '/home/');
    // the editor's own playlist, made and published through the API as the console's client would
    const call = (method: string, url: string, body?: unknown) =>
      page.evaluate(
        async ({ method, url, body }) => {
          const csrf = /(?:^|; )csrftoken=([^;]+)/.exec(document.cookie)?.[1] ?? '';
          const headers: Record<string, string> = { 'x-csrftoken': csrf, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
          const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
          return { status: res.status, json: res.status === 204 ? null : await res.json() };
        },
        { method, url, body },
      );
    const list = await (await page.request.get('/api/v1/book/?page_size=50')).json();
    const wotw = list.results.find((b: { title: string }) => b.title === 'The War of the Worlds');
    const topic = wotw.topics[0] ?? list.results.flatMap((b: { topics: { slug: string; name: string }[] }) => b.topics)[0];
    const made = await call('POST', '/nest/api/api/v2/collections/', { name: `Reading the classics ${stamp}`, description: 'Start here: three classics, in this order.' });
    expect(made.status).toBe(201);
    const inTopic = list.results.filter((b: { topics: { slug: string }[] }) => b.topics.some((t) => t.slug === topic.slug)).slice(0, 3);
    expect((await call('POST', `/nest/api/api/v2/collections/${made.json.id}/add-content/`, { content: inTopic.map((b: { api_url: string }) => b.api_url) })).status).toBe(200);
    expect((await call('PUT', `/api/v2/admin/transformation-playlists/${made.json.id}/`, { topic: topic.slug })).status).toBe(204);
    try {
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: width > 500 ? 800 : 844 });
        await page.goto('/home/');
        const banner = region(page, `Reading the classics ${stamp}`);
        await banner.getByText(MARKETING_MESSAGES.transformationEyebrow(topic.name)).waitFor();
        expect(await banner.locator('.title-card').count()).toBe(inTopic.length);
        expect(await seriousViolations(page)).toEqual([]);
        expect(await fitsTheScreen(page)).toBe(true);
        await banner.scrollIntoViewIfNeeded();
        await shot(page, `marketing-transformation-home-${width}`);
        await banner.getByRole('link', { name: MARKETING_MESSAGES.transformationBrowseTopic(topic.name) }).click();
        await page.waitForURL((u) => u.pathname === `/topics/${topic.slug}`);
        await region(page, `Reading the classics ${stamp}`).getByText(MARKETING_MESSAGES.transformationCurator(email.split('@')[0]!), { exact: false }).waitFor();
        expect(await seriousViolations(page)).toEqual([]);
        expect(await fitsTheScreen(page)).toBe(true);
        await shot(page, `marketing-transformation-topic-${width}`);
      }
    } finally {
      // the shared library's home goes back to what other specs expect
      expect((await call('DELETE', `/api/v2/admin/transformation-playlists/${made.json.id}/`)).status).toBe(204);
      await context.close();
    }
  }, 180_000);

  it('shows the buy link on a title page at 1280 and 390 px', async () => {
    for (const width of [1280, 390]) {
      const context = await browser.newContext({ baseURL, viewport: { width, height: width > 500 ? 800 : 844 } });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await page.goto('/library/?sort=title');
      const list = await (await page.request.get('/api/v1/book/?page_size=50')).json();
      const wotw = list.results.find((b: { title: string }) => b.title === 'The War of the Worlds');
      await page.goto(wotw.url);
      const buy = page.getByRole('link', { name: new RegExp(MARKETING_MESSAGES.buyLink) });
      await buy.waitFor();
      expect(await buy.getAttribute('href')).toBe('https://bookshop.example/search?q=The%20War%20of%20the%20Worlds');
      expect(await seriousViolations(page)).toEqual([]);
      expect(await fitsTheScreen(page)).toBe(true);
      await shot(page, `marketing-buy-link-${width}`);
      await context.close();
    }
  });
});
