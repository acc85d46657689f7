/**
 * Keys and typing made on a server-rendered screen before it is hydrated are kept (docs/decisions.md "The first
 * screen rendered on the server"): the signed-in search page shows from the HTML while the app's entry is held back
 * (its response waits in the route until the keys are sent), the reader presses Shift+/ and types a word; once the
 * entry is let go and the page is hydrated (the document's `data-hydrated` mark), the help popup is open and the
 * typed word is the app's: suggestions for it in the header at a desktop's width, a search for it from the page's
 * own field on a phone's (where the header has no field).
 */
import type { Browser, Page } from 'playwright-core';
import { SHORTCUT_MESSAGES } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdEntry, hydrated, openPage, signInAsDemo } from './browser.ts';

const helpDialog = (page: Page) => page.getByRole('dialog', { name: SHORTCUT_MESSAGES.helpTitle });

for (const viewport of [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
]) {
  describe(`the search page used before it is hydrated, at ${viewport.width} px`, () => {
    let browser: Browser;
    let page: Page;
    const errors: string[] = [];
    beforeAll(async () => {
      ({ browser, page } = await openPage(viewport));
      page.on('pageerror', (e) => errors.push(e.message));
      await signInAsDemo(page);
    });
    afterAll(() => browser?.close());

    it('keeps Shift+/ and a typed word, and answers both once hydrated', async () => {
      const entry = await holdEntry(page);
      const answer = await page.goto('/search/?q=the', { waitUntil: 'commit' });
      expect(await answer!.text()).toContain('data-lectern-ssr');
      await entry.asked;
      // the whole HTML parsed (the early script after #root has run); the entry, a module, waits in the route
      await page.waitForFunction(() => document.readyState !== 'loading');
      const phone = viewport.width < 720;
      const field = phone ? page.locator('#search-page-field') : page.locator('.header-search__input');
      await field.waitFor();
      expect(await field.inputValue()).toBe('the');

      await page.keyboard.press('Shift+Slash');
      await field.click();
      await field.press('ControlOrMeta+a');
      await field.pressSequentially('alice');
      // still the server's HTML: nothing answered yet
      expect(await page.locator('html[data-hydrated]').count()).toBe(0);
      expect(await helpDialog(page).count()).toBe(0);

      entry.release();
      await hydrated(page);
      await helpDialog(page).waitFor();
      await page.keyboard.press('Escape');
      await expect.poll(() => helpDialog(page).count()).toBe(0);
      expect(await field.inputValue()).toBe('alice');
      if (phone) {
        // the page's own field: its search is for the typed word
        await page.getByRole('button', { name: 'Search', exact: true }).click();
        await page.waitForURL(/\/search\/\?q=alice/);
        await page.locator('.search-result').first().waitFor();
      } else {
        await page.getByRole('option', { name: /Alice's Adventures in Wonderland/ }).waitFor();
        expect(await field.getAttribute('aria-expanded')).toBe('true');
      }
      expect(errors).toEqual([]);
    });
  });
}
