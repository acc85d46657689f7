/**
 * Scripted titles (issue 12): a book imported with --allow-scripts is read in a frame of the scripted origin
 * (localhost, where the app is 127.0.0.1). Its script runs there — it finds navigator.epubReadingSystem and its
 * button answers clicks — while the app's document, its cookies and its window stay out of reach; scrolling saves
 * the position, a link to the next chapter moves the reader, and the frame fits a phone. A book without the flag,
 * the hostile one, still runs nothing (e2e/reader-hostile.e2e.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SCRIPTED_TITLE, scriptedEpub } from '../packages/server/test/fixtures/scripted.ts';
import { importBook, lecternCli } from '../scripts/fresh-server.ts';
import { launchBrowser, seriousViolations, signedInContexts } from './browser.ts';

const SCREENS = path.join(import.meta.dirname, '..', '.tmp', 'screens');
const frame = (page: Page) => page.frameLocator('iframe.scripted-chapter__frame');

describe('a title allowed to run scripts', () => {
  let browser: Browser;
  const sessions = signedInContexts(() => browser);
  const email = `scripted-${Date.now()}@example.com`;
  const password = 'a long enough password';
  const dataDir = inject('dataDir');
  const scriptedOrigin = inject('scriptedOrigin');
  let chapters: { label: string; web_url: string }[] = [];

  beforeAll(async () => {
    const file = path.join(dataDir, `scripted-${Date.now()}.epub`);
    fs.writeFileSync(file, scriptedEpub());
    importBook(dataDir, file, ['--allow-scripts']);
    lecternCli(dataDir, ['users:create', '--email', email, '--password', password, '--status', 'subscriber']);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await sessions.closeAll();
    await browser?.close();
  });

  it("runs the book's script on its own origin, away from the app's document, cookies and window", async () => {
    const { page, dialogs } = await sessions.open(email, password, { width: 1280, height: 800 });
    const list = await (await page.request.get('/api/v1/book/?sort=recent&page_size=100')).json();
    const summary = list.results.find((b: { title: string }) => b.title === SCRIPTED_TITLE);
    expect(summary, `"${SCRIPTED_TITLE}" in the catalog`).toBeTruthy();
    chapters = (await (await page.request.get(summary.api_url)).json()).chapters;
    await page.goto(chapters[0]!.web_url);

    await expect.poll(() => frame(page).locator('#ran').textContent(), { timeout: 15_000 }).toBe('The script ran on Lectern with dom-manipulation.');
    // the chapter's inline scripts run too, in order (stored as files of the book: the origin's policy has no inline code)
    expect(await frame(page).locator('#inline').textContent()).toBe('The inline scripts ran: head and body.');
    const probe = JSON.parse((await frame(page).locator('#probe').textContent())!) as { origin: string; cookies: string; parent: string };
    expect(probe.origin).toBe(scriptedOrigin);
    expect(probe.cookies).toBe('');
    expect(probe.parent).toBe('refused');
    await frame(page).getByRole('button', { name: 'Clicked 0' }).click();
    await frame(page).getByRole('button', { name: 'Clicked 1' }).waitFor();

    // The reader is untouched: same page, same title, nothing written into its window.
    expect(new URL(page.url()).pathname).toBe(new URL(chapters[0]!.web_url, page.url()).pathname);
    expect(await page.title()).toMatch(/^Interactive · Scripted Fixture/);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned ?? null)).toBeNull();
    expect(dialogs).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);

    // The frame's address, leaked, shows nothing in another browser (issue 21: it worked for anyone for four hours);
    // the reader's frame, bound to its address by the scripted origin's cookie, still loads the book's files.
    const leaked = (await page.locator('iframe.scripted-chapter__frame').getAttribute('src'))!;
    const elsewhere = await browser.newContext();
    try {
      const other = await elsewhere.newPage();
      expect((await other.goto(leaked))!.status()).toBe(404);
      expect((await other.goto(leaked.replace(/\/text\/one\.xhtml$/, '/js/interactive.js')))!.status()).toBe(404);
    } finally {
      await elsewhere.close();
    }
    expect(await frame(page).locator('#ran').textContent()).toBe('The script ran on Lectern with dom-manipulation.');

    // Scrolling in the frame saves the place, as in any chapter.
    const saved = page.waitForResponse(
      (r) => r.url().includes('/position/') && r.request().method() === 'PUT' && r.status() === 200 && (r.request().postDataJSON() as { locator: { progression: number } }).locator.progression > 0.2,
      { timeout: 20_000 },
    );
    await frame(page).locator('#counter').evaluate(() => {
      const s = document.scrollingElement!;
      s.scrollTop = (s.scrollHeight - s.clientHeight) / 2;
    });
    const body = (await saved).request().postDataJSON() as { locator: { href: string; progression: number } };
    expect(body.locator.href).toBe('text/one.xhtml');
    expect(body.locator.progression).toBeGreaterThan(0.3);
    expect(body.locator.progression).toBeLessThan(0.7);

    // A link to the next chapter moves the reader, not just the frame.
    await frame(page).getByRole('link', { name: 'On to the second chapter' }).click();
    await page.waitForURL((u) => u.pathname.endsWith('/text/two.xhtml'));
    await frame(page).getByRole('heading', { name: 'Second' }).waitFor();
    fs.mkdirSync(SCREENS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENS, 'scripted-1280.png') });
  });

  it('fits a phone and comes back where the reader left off', async () => {
    const { page } = await sessions.open(email, password, { width: 390, height: 844 });
    await page.goto(chapters[1]!.web_url);
    await frame(page).getByRole('heading', { name: 'Second' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await frame(page).locator('h1').evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    const saved = page.waitForResponse(
      (r) => r.url().includes('/position/') && r.request().method() === 'PUT' && r.status() === 200 && (r.request().postDataJSON() as { locator: { progression: number } }).locator.progression > 0.2,
      { timeout: 20_000 },
    );
    await frame(page).locator('h1').evaluate(() => {
      const s = document.scrollingElement!;
      s.scrollTop = (s.scrollHeight - s.clientHeight) * 0.8;
    });
    expect(((await saved).request().postDataJSON() as { locator: { progression: number } }).locator.progression).toBeGreaterThan(0.6);
    await page.screenshot({ path: path.join(SCREENS, 'scripted-390.png') });
    await page.reload();
    await frame(page).getByRole('heading', { name: 'Second' }).waitFor();
    const at = () => frame(page).locator('h1').evaluate(() => document.scrollingElement!.scrollTop / (document.scrollingElement!.scrollHeight - document.scrollingElement!.clientHeight));
    await expect.poll(at, { timeout: 10_000 }).toBeGreaterThan(0.6);
  });
});
