/**
 * A first paint that needs no script (docs/decisions.md "The first screen's data in
 * the page, a first paint without script, answers compressed"): index.html draws the top bar and a skeleton with
 * its own inline styles, and no stylesheet holds the paint. Shown by keeping the entry script from arriving (route
 * interception holds its request) and waiting for Chromium's first-contentful-paint entry; then, the entry let
 * through, the app renders styled and the signed-in reader's profile came with the page, not by a request.
 */
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, signInAsDemo } from './browser.ts';

const WIDTHS = [1280, 390];

/** The first-contentful-paint time, once Chromium has recorded one (polled in the page, no sleep). */
async function firstContentfulPaint(page: Page): Promise<number> {
  const handle = await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? false);
  return (await handle.jsonValue()) as number;
}

describe('the first paint', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  describe.each(WIDTHS)('at %i px', (width) => {
    it('happens with the entry script held back, and nothing in the head blocks it', async () => {
      const context = await browser.newContext({ baseURL: inject('baseURL'), viewport: { width, height: 844 } });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      const html = await (await fetch(new URL('/library/', inject('baseURL')))).text();
      const entry = /<script type="module"[^>]*src="([^"]+)"/.exec(html)?.[1];
      expect(entry, 'the entry script in the head').toBeTruthy();
      // no stylesheet link in the head: the build's are preloads the entry applies
      const head = html.slice(0, html.indexOf('</head>'));
      expect(head).not.toMatch(/<link[^>]*rel="stylesheet"/);
      expect(head.match(/data-lectern-css/g)?.length ?? 0).toBeGreaterThan(0);

      const held: Route[] = [];
      let entryAsked!: () => void;
      const asked = new Promise<void>((resolve) => (entryAsked = resolve));
      await page.route(`**${entry}`, (route) => {
        held.push(route);
        entryAsked();
      });
      await page.goto('/library/', { waitUntil: 'commit' });
      await asked;
      const fcp = await firstContentfulPaint(page);
      expect(fcp).toBeGreaterThan(0);
      // what painted is the page's own shell: the mark and the name, styled by its inline styles
      const logo = page.locator('#root .boot__logo');
      expect(await logo.isVisible()).toBe(true);
      if (width > 480) expect(await logo.innerText()).toBe('Lectern');
      expect(await page.locator('#root .boot__bar').evaluate((el) => getComputedStyle(el).height)).toBe('61px');
      expect(held).toHaveLength(1); // the entry is still held: no script of the app has run
      expect(await page.evaluate(() => document.querySelector('#root .boot') !== null)).toBe(true);
      await page.screenshot({ path: `/tmp/first-paint-shell-${width}.png` });

      // let the entry through: the app replaces the shell, with its stylesheets applied
      await held[0]!.continue();
      await page.locator('header.topbar').waitFor();
      expect(await page.locator('#root .boot').count()).toBe(0);
      expect(await page.locator('header.topbar').evaluate((el) => getComputedStyle(el).position)).toBe('sticky');
      await context.close();
    });

    it('a signed-in reader\'s profile comes with the page: the app asks for none', async () => {
      const context = await browser.newContext({ baseURL: inject('baseURL'), viewport: { width, height: 844 } });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await signInAsDemo(page);
      const profileCalls: string[] = [];
      page.on('request', (r) => {
        if (new URL(r.url()).pathname === '/u/information_for_javascript') profileCalls.push(r.url());
      });
      const response = await page.goto('/home/');
      expect(response!.headers()['cache-control']).toBe('private, no-cache');
      expect(response!.headers()['vary']).toMatch(/cookie/i);
      await page.locator('h1').first().waitFor();
      // the account menu knows the reader (it shows "Sign in" to a visitor)
      await page.getByRole('button', { name: /^Account: / }).waitFor();
      expect(await page.getByRole('link', { name: 'Sign in' }).count()).toBe(0);
      expect(profileCalls).toEqual([]);
      await context.close();
    });
  });

  it('a visitor\'s page holds no profile', async () => {
    const html = await (await fetch(new URL('/home/', inject('baseURL')))).text();
    expect(html).not.toContain('lectern-boot');
    expect(html).toContain('class="boot"');
  });
});
