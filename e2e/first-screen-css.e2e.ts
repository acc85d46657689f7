/**
 * A server-rendered screen paints styled from its HTML alone (docs/decisions.md "The first screen rendered on the
 * server": the screen's CSS in the page): with the app's entry and every stylesheet file held in the route, the
 * signed-in search page still paints, laid out and styled by the rules the page carries; once everything is let go
 * and the page is hydrated, nothing has moved (no layout shift, the same boxes and styles), and no stylesheet file
 * applies on screen again what the page holds (a whole restyle of the page after hydration).
 */
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hydrated, openPage, painted, signInAsDemo } from './browser.ts';

/** What the screen looks like: the boxes and a few computed styles of its main parts. */
function looks(page: Page) {
  return page.evaluate(() =>
    ['header.topbar', '.topbar__logo', '.search-page', '.search-page__form', '.search-result', '.search-result__title'].map((selector) => {
      const el = document.querySelector(selector);
      if (!el) return { selector, missing: true };
      const { x, y, width, height } = el.getBoundingClientRect();
      const s = getComputedStyle(el);
      return { selector, x, y, width, height, position: s.position, display: s.display, color: s.color, background: s.backgroundColor, font: s.font };
    }),
  );
}

for (const viewport of [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
]) {
  describe(`the search page's first paint, at ${viewport.width} px`, () => {
    let browser: Browser;
    let page: Page;
    const errors: string[] = [];
    beforeAll(async () => {
      ({ browser, page } = await openPage(viewport));
      page.on('pageerror', (e) => errors.push(e.message));
      await signInAsDemo(page);
    });
    afterAll(() => browser?.close());

    it('is styled with no script and no stylesheet file, and does not move once hydrated', async () => {
      const held: Route[] = [];
      const stylesheetsAsked: string[] = [];
      page.on('request', (r) => {
        if (/\/assets\/[\w.-]+\.css$/.test(r.url())) stylesheetsAsked.push(r.url());
      });
      let entryAsked!: () => void;
      const asked = new Promise<void>((done) => (entryAsked = done));
      // (routing turns the browser's cache off: every file is asked for again, not taken from the sign-in's visit)
      await page.route(/\/assets\/[\w.-]+\.css$/, (route) => {
        held.push(route);
      });
      await page.route(/\/assets\/index-[\w-]+\.js$/, (route) => {
        held.push(route);
        entryAsked();
      });
      const answer = await page.goto('/search/?q=the', { waitUntil: 'commit' });
      expect(await answer!.text()).toContain('data-lectern-ssr');
      await asked;
      await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0);
      await page.evaluate(() => {
        const w = window as unknown as { shifts: number };
        w.shifts = 0;
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) w.shifts += (e as unknown as { value: number }).value;
        }).observe({ type: 'layout-shift', buffered: true });
      });
      // painted from the HTML: no script of the app has run and no stylesheet file has arrived
      expect(await page.locator('html[data-hydrated]').count()).toBe(0);
      expect(await page.evaluate(() => Array.from(document.styleSheets).filter((s) => s.href !== null).length)).toBe(0);
      // yet the screen is the app's, styled: the sticky top bar, the page's column, its results laid out
      expect(await page.locator('header.topbar').evaluate((el) => getComputedStyle(el).position)).toBe('sticky');
      expect(await page.locator('.search-page').evaluate((el) => getComputedStyle(el).maxWidth)).toBe('1152px');
      expect(await page.locator('.search-page__form').evaluate((el) => getComputedStyle(el).display)).toBe('flex');
      await page.locator('.search-result').first().waitFor();
      const before = await looks(page);
      expect(before.filter((l) => 'missing' in l)).toEqual([]);

      // everything let go: the app hydrates the screen (the stylesheet links stay disabled)
      for (const route of held.splice(0)) await route.continue();
      await page.unroute(/\/assets\/[\w.-]+\.css$/);
      await page.unroute(/\/assets\/index-[\w-]+\.js$/);
      await hydrated(page);
      // no stylesheet file applies on screen what the page holds (nor was any asked for: their links are disabled)
      expect(await page.evaluate(() => Array.from(document.styleSheets).filter((s) => s.href !== null && !s.disabled).length)).toBe(0);
      expect(stylesheetsAsked).toEqual([]);
      await painted(page);
      expect(await looks(page)).toEqual(before);
      expect(await page.evaluate(() => (window as unknown as { shifts: number }).shifts)).toBe(0);
      expect(errors).toEqual([]);
    });
  });
}
