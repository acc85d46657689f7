/**
 * Scripted titles (docs/decisions.md "Scripted titles on their own origin"): a book imported with --allow-scripts is
 * read in a frame of the scripted origin (localhost, where the app is 127.0.0.1). Its script runs there — it finds
 * navigator.epubReadingSystem and its button answers clicks — while the app's document, its cookies and its window stay
 * out of reach; scrolling saves the position, a link to the next chapter moves the reader, and the frame fits a phone.
 * A book without the flag, the hostile one, still runs nothing (e2e/reader-hostile.e2e.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { SCRIPTS_CONSENT_MESSAGES } from '@lectern/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FRAMED_TITLE, framedEpub, HOST_TEXT, INNER_RAN, SCRIPTED_TITLE, scriptedEpub, storageProbeEpub, SVG_RAN } from '../packages/server/test/fixtures/scripted.ts';
import { importBook, lecternCli } from '../scripts/fresh-server.ts';
import { launchBrowser, seriousViolations, signedInContexts } from './browser.ts';

const SCREENS = path.join(import.meta.dirname, '..', '.tmp', 'screens');
const frame = (page: Page) => page.frameLocator('iframe.scripted-chapter__frame');
const plainFrame = (page: Page) => page.frameLocator('iframe.chapter-view__frame');
const consentDialog = (page: Page) => page.getByRole('dialog', { name: SCRIPTS_CONSENT_MESSAGES.title });

describe('a title allowed to run scripts', () => {
  let browser: Browser;
  const sessions = signedInContexts(() => browser);
  const email = `scripted-${Date.now()}@example.com`;
  const password = 'a long enough password';
  const decliner = `scripted-decliner-${Date.now()}@example.com`;
  const dataDir = inject('dataDir');
  const scriptedOrigin = inject('scriptedOrigin');
  let chapters: { label: string; web_url: string }[] = [];

  beforeAll(async () => {
    const file = path.join(dataDir, `scripted-${Date.now()}.epub`);
    fs.writeFileSync(file, scriptedEpub());
    importBook(dataDir, file, ['--allow-scripts']);
    for (const name of ['Alpha', 'Beta']) {
      const probe = path.join(dataDir, `storage-${name}-${Date.now()}.epub`);
      fs.writeFileSync(probe, storageProbeEpub(name, `urn:uuid:5c217ed0-0000-4000-8000-0000000${name === 'Alpha' ? 'aaaaa' : 'bbbbb'}`));
      importBook(dataDir, probe, ['--allow-scripts']);
    }
    const framed = path.join(dataDir, `framed-${Date.now()}.epub`);
    fs.writeFileSync(framed, framedEpub());
    importBook(dataDir, framed, ['--allow-scripts']);
    lecternCli(dataDir, ['users:create', '--email', email, '--password', password, '--status', 'subscriber']);
    lecternCli(dataDir, ['users:create', '--email', decliner, '--password', password, '--status', 'subscriber']);
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

    // Asked first (docs/decisions.md "Scripted publications"): nothing of the book's runs on the scripted origin until the reader says yes.
    const dialog = consentDialog(page);
    await dialog.waitFor();
    expect(await page.locator('iframe.scripted-chapter__frame').count()).toBe(0);
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe(SCRIPTS_CONSENT_MESSAGES.decline);
    expect(await seriousViolations(page)).toEqual([]);
    fs.mkdirSync(SCREENS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENS, 'scripted-consent-1280.png') });
    // by keyboard: from the safe answer to Run scripts
    await page.keyboard.press('Tab');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe(SCRIPTS_CONSENT_MESSAGES.allow);
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });

    await expect.poll(() => frame(page).locator('#ran').textContent(), { timeout: 15_000 }).toBe('The script ran on Lectern with dom-manipulation.');
    // the chapter's inline scripts run too, in order (stored as files of the book: the origin's policy has no inline code)
    expect(await frame(page).locator('#inline').textContent()).toBe('The inline scripts ran: head and body.');
    const probe = JSON.parse((await frame(page).locator('#probe').textContent())!) as { origin: string; cookies: string; parent: string };
    // the title's own host under the suite's wildcard origin (docs/decisions.md "Scripted publications")
    expect(probe.origin).toMatch(new RegExp(`^${scriptedOrigin.replace(/[.:/]/g, '\\$&').replace('*', 't[0-9a-f]{20}')}$`));
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

    // The frame's address, leaked, shows nothing in another browser (docs/decisions.md "A scripted title's frame address is bound to the browser that opened it": it once worked for anyone for four hours);
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

  it("keeps each title's storage to its own origin: one book's script reads nothing another wrote", async () => {
    const { page } = await sessions.open(email, password, { width: 1280, height: 800 });
    const list = await (await page.request.get('/api/v1/book/?sort=recent&page_size=100')).json();
    const chapterOf = async (title: string) => {
      const summary = list.results.find((b: { title: string }) => b.title === title);
      expect(summary, `"${title}" in the catalog`).toBeTruthy();
      return (await (await page.request.get(summary.api_url)).json()).chapters[0].web_url as string;
    };
    const found = async () => {
      await frame(page).locator('#written').filter({ hasText: 'Written by' }).waitFor();
      return JSON.parse((await frame(page).locator('#storage').textContent())!) as { stored: string | null; cookies: string };
    };
    // each title asks for itself: the answer for one publication is not taken for another
    const allow = async () => {
      await consentDialog(page).getByRole('button', { name: SCRIPTS_CONSENT_MESSAGES.allow }).click();
      await consentDialog(page).waitFor({ state: 'detached' });
    };
    await page.goto(await chapterOf('Storage Beta'));
    await allow();
    const first = await found();
    expect(first.cookies).toBe('');
    // (Chromium gives this third-party frame no local storage at all: 'unavailable'; where it does, it is the host's)
    expect([null, 'unavailable']).toContain(first.stored);
    // Beta's own storage is kept for Beta: the probe can see what a book wrote...
    await page.reload();
    const again = await found();
    expect(['Beta', 'unavailable']).toContain(again.stored);
    expect(again.cookies).toContain('written-by=Beta');
    // ...and Alpha, read in the same browser, sees none of it: not its local storage, not its cookies.
    await page.goto(await chapterOf('Storage Alpha'));
    await allow();
    const alpha = await found();
    expect([null, 'unavailable']).toContain(alpha.stored);
    expect(alpha.cookies).toBe('');
    const alphaFrame = await page.locator('iframe.scripted-chapter__frame').getAttribute('src');
    expect(new URL(alphaFrame!).hostname).toMatch(/^t[0-9a-f]{20}\.localhost$/);
  });

  it('reads without scripts when declined, remembers it, and asks again once the answer is withdrawn in the settings', async () => {
    const { page } = await sessions.open(decliner, password, { width: 390, height: 844 });
    await page.goto(chapters[0]!.web_url);
    const dialog = consentDialog(page);
    await dialog.waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await page.screenshot({ path: path.join(SCREENS, 'scripted-consent-390.png') });
    await dialog.getByRole('button', { name: SCRIPTS_CONSENT_MESSAGES.decline }).click();
    await dialog.waitFor({ state: 'detached' });
    // the chapter as every other title's: its text, its script never run
    await plainFrame(page).locator('#ran').filter({ hasText: 'The script did not run.' }).waitFor();
    expect(await page.locator('iframe.scripted-chapter__frame').count()).toBe(0);

    // remembered: no question after a reload
    await page.reload();
    await plainFrame(page).locator('#ran').waitFor();
    expect(await dialog.count()).toBe(0);

    // withdrawn in the reader's settings: asked again, and this time the scripts run
    await page.getByRole('button', { name: 'Display settings', exact: true }).click();
    const settings = page.locator('.reader-settings');
    await settings.getByText(SCRIPTS_CONSENT_MESSAGES.declinedNow).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(SCREENS, 'scripted-consent-settings-390.png') });
    await settings.getByRole('button', { name: SCRIPTS_CONSENT_MESSAGES.withdraw }).click();
    await dialog.waitFor();
    await dialog.getByRole('button', { name: SCRIPTS_CONSENT_MESSAGES.allow }).click();
    await expect.poll(() => frame(page).locator('#ran').textContent(), { timeout: 15_000 }).toBe('The script ran on Lectern with dom-manipulation.');
  });

  it.each([
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ])("shows a chapter's iframes of the book's own page and drawing, their scripts run, on the title's frames host, away from the chapter ($width px)", async (viewport) => {
    const { page } = await sessions.open(email, password, viewport);
    const list = await (await page.request.get('/api/v1/book/?sort=recent&page_size=100')).json();
    const summary = list.results.find((b: { title: string }) => b.title === FRAMED_TITLE);
    expect(summary, `"${FRAMED_TITLE}" in the catalog`).toBeTruthy();
    const first = (await (await page.request.get(summary.api_url)).json()).chapters[0].web_url as string;
    await page.goto(first);
    // asked once for this title (the first width), remembered after
    const dialog = consentDialog(page);
    await Promise.race([dialog.waitFor(), page.locator('iframe.scripted-chapter__frame').waitFor()]);
    if (await dialog.isVisible()) {
      await dialog.getByRole('button', { name: SCRIPTS_CONSENT_MESSAGES.allow }).click();
      await dialog.waitFor({ state: 'detached' });
    }
    const inner = frame(page).frameLocator('iframe[title="The first inner page"]');
    await expect.poll(() => inner.locator('#inner-text').textContent(), { timeout: 15_000 }).toBe('The inner page one of the framed book.');
    await expect.poll(() => inner.locator('#inner-ran').textContent(), { timeout: 15_000 }).toBe(INNER_RAN);
    // its script tried to rewrite the chapter around it (W3C scr-not-support_ccscript-modify-host): parent.document
    // threw, and the chapter keeps its words
    await expect.poll(() => inner.locator('#inner-parent').textContent(), { timeout: 15_000 }).toBe('refused');
    expect(await frame(page).locator('#host-text').textContent()).toBe(HOST_TEXT);
    // the book's SVG drawing in an iframe, its script run (W3C scr-readingsystem-support_iframe_svg)
    const drawing = frame(page).frameLocator('iframe[title="The drawing"]');
    await expect.poll(() => drawing.locator('#svg-ran').textContent(), { timeout: 15_000 }).toBe(SVG_RAN);
    // both on the title's frames host, another origin than the chapter's (its label the chapter's with f for t); the
    // remote frame is not there at all
    const origins = await frame(page).locator('iframe').evaluateAll((frames) => frames.map((f) => new URL((f as HTMLIFrameElement).src).origin));
    const chapterOrigin = await frame(page).locator('h1').evaluate(() => location.origin);
    expect(chapterOrigin).toMatch(new RegExp(`^${scriptedOrigin.replace(/[.:/]/g, '\\$&').replace('*', 't[0-9a-f]{20}')}$`));
    expect(origins).toEqual([chapterOrigin.replace('//t', '//f'), chapterOrigin.replace('//t', '//f')]);
    const box = await page.locator('iframe.scripted-chapter__frame').boundingBox();
    expect(box!.width).toBeLessThanOrEqual(viewport.width);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(SCREENS, `scripted-iframe-${viewport.width}.png`) });
  });
});
