/**
 * Keyboard shortcuts through the one registry (library-playlists-account.md §6, §9; reader.md §5), in
 * Chromium at a desktop's and a phone's width: Shift+/ opens the help popup made from what works on the page (axe
 * clean, Esc closes it); in the reader `/` opens the book's search wherever the focus is (a header link, the
 * chapter frame) and never the site header's box, and types a `/` in a field; on /u/shortcuts/ a reader turns
 * single-key shortcuts off, the choice is kept on the account, and then the keys do nothing while Esc still works.
 * A touch-only phone gets no single-key shortcuts at all. Each width has an account of its own.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SHORTCUT_MESSAGES } from '@lectern/core';
import { lecternCli, signIn } from '../scripts/fresh-server.ts';
import { launchBrowser, seriousViolations } from './browser.ts';

const baseURL = inject('baseURL');
const SCREENS = path.join(import.meta.dirname, '..', '.tmp', 'screens');
const shot = async (page: Page, name: string) => {
  fs.mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`) });
};
const password = 'a long enough password';
const helpDialog = (page: Page) => page.getByRole('dialog', { name: SHORTCUT_MESSAGES.helpTitle });
/** Two frames after a key: whatever it was going to render has rendered. */
const settled = (page: Page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const fitsTheScreen = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

async function warOfTheWorlds(page: Page): Promise<string> {
  const list = await (await page.request.get('/api/v1/book/?page_size=50')).json();
  return list.results.find((b: { title: string }) => /War of the Worlds/.test(b.title)).continue_url;
}

for (const viewport of [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
]) {
  describe(`keyboard shortcuts at ${viewport.width} px`, () => {
    let browser: Browser;
    let page: Page;
    const email = `shortcuts-${viewport.width}-${Date.now()}@example.com`;

    beforeAll(async () => {
      lecternCli(inject('dataDir'), ['users:create', '--email', email, '--password', password, '--status', 'subscriber']);
      browser = await launchBrowser();
      page = await (await browser.newContext({ baseURL, viewport })).newPage();
      page.setDefaultTimeout(15_000);
      await signIn(page, email, password);
    });
    afterAll(() => browser?.close());

    it('Shift+/ opens the help popup made from what works on the page; Esc closes it', async () => {
      await page.goto('/library/');
      await page.locator('.title-card').first().waitFor();
      await page.keyboard.press('Shift+Slash');
      const dialog = helpDialog(page);
      await dialog.waitFor();
      const text = await dialog.innerText();
      expect(text).toContain(SHORTCUT_MESSAGES.labels.search);
      expect(text).toContain(SHORTCUT_MESSAGES.labels.top);
      // J/K are the home's: not listed on the catalog
      expect(text).not.toContain(SHORTCUT_MESSAGES.labels['next-card']);
      expect(await dialog.getByRole('link', { name: SHORTCUT_MESSAGES.manage }).getAttribute('href')).toBe('/u/shortcuts/');
      expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
      expect(await seriousViolations(page)).toEqual([]);
      expect(await fitsTheScreen(page)).toBe(true);
      await shot(page, `shortcuts-help-library-${viewport.width}`);
      await page.keyboard.press('Escape');
      await expect.poll(() => helpDialog(page).count()).toBe(0);

      // On the home the card keys join the list.
      await page.goto('/home/');
      await page.locator('[data-home-card]').first().waitFor();
      await page.keyboard.press('Shift+Slash');
      await helpDialog(page).waitFor();
      const home = await helpDialog(page).innerText();
      for (const id of ['next-card', 'previous-card', 'reject', 'open'] as const) expect(home).toContain(SHORTCUT_MESSAGES.labels[id]);
      await page.keyboard.press('Escape');
      await expect.poll(() => helpDialog(page).count()).toBe(0);
    });

    it('in the reader, / opens the book’s search wherever the focus is, and types a / in a field', async () => {
      await page.goto(await warOfTheWorlds(page));
      const frame = page.locator('iframe.chapter-view__frame');
      await frame.waitFor();
      const bookSearch = page.getByRole('searchbox', { name: 'Search this book' });
      const openPanel = page.locator('.reader-search--open');

      // from the site header (its logo link)
      await page.locator('.topbar__logo').focus();
      await page.keyboard.press('/');
      await openPanel.waitFor();
      await expect.poll(() => bookSearch.evaluate((el) => el === document.activeElement)).toBe(true);
      expect(await page.evaluate(() => document.activeElement?.closest('.topbar') ?? null)).toBeNull();
      // typing in the field: the / is a character, not a shortcut
      await bookSearch.fill('');
      await page.keyboard.press('/');
      expect(await bookSearch.inputValue()).toBe('/');
      await page.keyboard.press('Escape');
      await expect.poll(() => openPanel.count()).toBe(0);

      // from inside the chapter frame
      await frame.contentFrame().locator('body').click({ position: { x: 5, y: 5 } });
      await frame.contentFrame().locator('body').press('/');
      await openPanel.waitFor();
      await page.keyboard.press('Escape');
      await expect.poll(() => openPanel.count()).toBe(0);

      // the reader's keys are in the help popup
      await page.locator('.topbar__logo').focus();
      await page.keyboard.press('Shift+Slash');
      await helpDialog(page).waitFor();
      const text = await helpDialog(page).innerText();
      for (const id of ['book-search', 'contents', 'font-larger', 'page'] as const) expect(text).toContain(SHORTCUT_MESSAGES.labels[id]);
      expect(text).not.toContain(SHORTCUT_MESSAGES.labels.search);
      expect(await seriousViolations(page)).toEqual([]);
      await shot(page, `shortcuts-help-reader-${viewport.width}`);
      await page.keyboard.press('Escape');
      await expect.poll(() => helpDialog(page).count()).toBe(0);
    });

    it('turned off on /u/shortcuts/, kept on the account, single keys do nothing and Esc still works', async () => {
      await page.goto('/u/shortcuts/');
      const box = page.getByRole('checkbox', { name: SHORTCUT_MESSAGES.singleKeyToggle });
      await box.waitFor();
      expect(await box.isChecked()).toBe(true);
      expect(await page.getByRole('table').count()).toBeGreaterThanOrEqual(3);
      expect(await seriousViolations(page)).toEqual([]);
      expect(await fitsTheScreen(page)).toBe(true);
      await shot(page, `shortcuts-page-${viewport.width}`);
      const saved = page.waitForResponse((r) => r.url().endsWith('/api/v1/account/shortcuts/') && r.request().method() === 'PUT');
      await box.uncheck();
      expect((await saved).status()).toBe(200);
      await page.getByText(SHORTCUT_MESSAGES.savedOff).waitFor();
      await page.reload();
      await box.waitFor();
      expect(await box.isChecked()).toBe(false);

      // the catalog: no help popup, no jump to the search box
      await page.goto('/library/');
      await page.locator('.title-card').first().waitFor();
      await page.keyboard.press('Shift+Slash');
      await page.keyboard.press('/');
      await settled(page);
      expect(await helpDialog(page).count()).toBe(0);
      expect(await page.evaluate(() => document.activeElement?.tagName)).not.toBe('INPUT');

      // the reader: / and T do nothing; Esc still closes the contents opened by its button
      await page.goto(await warOfTheWorlds(page));
      await page.locator('iframe.chapter-view__frame').waitFor();
      await page.locator('.topbar__logo').focus();
      await page.keyboard.press('/');
      await page.keyboard.press('t');
      await settled(page);
      expect(await page.locator('.reader-search--open').count()).toBe(0);
      expect(await page.locator('.toc--open').count()).toBe(0);
      await page.getByRole('button', { name: 'Table of contents' }).click();
      await page.locator('.toc--open').waitFor();
      await page.keyboard.press('Escape');
      await expect.poll(() => page.locator('.toc--open').count()).toBe(0);

      // back on
      await page.goto('/u/shortcuts/');
      await box.waitFor();
      await box.check();
      await page.getByText(SHORTCUT_MESSAGES.savedOn).waitFor();
      await page.goto('/library/');
      await page.locator('.title-card').first().waitFor();
      await page.keyboard.press('Shift+Slash');
      await helpDialog(page).waitFor();
    });
  });
}

describe('keyboard shortcuts on a touch-only phone', () => {
  let browser: Browser;
  afterAll(() => browser?.close());

  it('are off: Shift+/ and / do nothing', async () => {
    const email = `shortcuts-phone-${Date.now()}@example.com`;
    lecternCli(inject('dataDir'), ['users:create', '--email', email, '--password', password, '--status', 'subscriber']);
    browser = await launchBrowser();
    const page = await (await browser.newContext({ baseURL, viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })).newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, email, password);
    expect(await page.evaluate(() => matchMedia('(hover: none) and (pointer: coarse)').matches)).toBe(true);
    await page.locator('.title-card').first().waitFor();
    await page.keyboard.press('Shift+Slash');
    await settled(page);
    expect(await helpDialog(page).count()).toBe(0);
  });
});
