/**
 * The shell, joining and staying (library-playlists-account.md §2, §4, §6, §9) in Chromium at 1280 and
 * 390 px, axe clean, screenshots in .tmp/screens/: the scroll-to-top icon for signed-in readers after 200 px (none
 * for visitors); an expired reader told to subscribe and a cancelled one to reactivate, on the home, in the queue's
 * row and on /c/; the trial welcome message linking to /subscribe/ and sliding away after 25 s (page.clock); the
 * nag's link to the team offering. Accounts are made with the command line; nothing the other specs rely on changes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ACCOUNT_ENTRY_MESSAGES, APP_MESSAGES, WELCOME_MESSAGE_MS } from '@lectern/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { lecternCli, signIn } from '../scripts/fresh-server.ts';
import { launchBrowser, seriousViolations } from './browser.ts';

const SCREENS = path.join(import.meta.dirname, '..', '.tmp', 'screens');
const shot = async (page: Page, name: string) => {
  fs.mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`) });
};
const PASSWORD = 'a shell of a password, long enough';
const stamp = Date.now();
const reader = (kind: string) => `shell-${kind}-${stamp}@example.com`;
const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

/** Puts the catalog's first title in the signed-in reader's queue (through §7's queue call, with the CSRF header). */
async function queueFirstTitle(page: Page): Promise<void> {
  const status = await page.evaluate(async () => {
    const list = await (await fetch('/api/v1/book/?page_size=1')).json();
    const csrf = document.cookie.split('; ').find((c) => c.startsWith('csrftoken='))!.slice('csrftoken='.length);
    const res = await fetch('/api/v1/queue-simple/', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrftoken': csrf }, body: JSON.stringify([list.results[0].api_url]) });
    return res.status;
  });
  expect(status).toBeLessThan(300);
}

beforeAll(() => {
  for (const status of ['expired', 'cancelled', 'trial', 'subscriber']) {
    lecternCli(inject('dataDir'), ['users:create', '--email', reader(status), '--password', PASSWORD, '--status', status]);
  }
});

describe.each([
  { width: 1280, height: 900, name: 'desktop' },
  { width: 390, height: 844, name: 'phone' },
])('the shell at $width px', ({ width, height, name }) => {
  let browser: Browser;
  const pageFor = async (email: string | null): Promise<Page> => {
    const context = await browser.newContext({ baseURL: inject('baseURL'), viewport: { width, height } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    if (email) await signIn(page, email, PASSWORD);
    return page;
  };

  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it('gives a signed-in reader the scroll-to-top icon after 200 px, back to the top with the focus on the page', async () => {
    const page = await pageFor(reader('subscriber'));
    await page.goto('/library/');
    await page.locator('.title-card').first().waitFor();
    const icon = page.getByRole('button', { name: APP_MESSAGES.scrollToTop });
    expect(await icon.count()).toBe(0);
    await page.evaluate(() => window.scrollTo(0, 150));
    await page.waitForFunction(() => window.scrollY === 150);
    expect(await icon.isVisible()).toBe(false);
    await page.evaluate(() => window.scrollTo(0, 600));
    await icon.waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, `shell-scroll-top-${name}`);
    await icon.click();
    await page.waitForFunction(() => window.scrollY === 0);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    await icon.waitFor({ state: 'hidden' });
    await page.context().close();
  });

  it('gives a visitor no scroll-to-top icon', async () => {
    const page = await pageFor(null);
    await page.goto('/library/');
    await page.locator('.title-card').first().waitFor();
    await page.evaluate(() => window.scrollTo(0, 600));
    await page.waitForFunction(() => window.scrollY > 200);
    expect(await page.getByRole('button', { name: APP_MESSAGES.scrollToTop }).count()).toBe(0);
    // the nag's panel links to the team offering (§2)
    await page.getByRole('button', { name: /start a trial/ }).click();
    const team = page.getByRole('link', { name: ACCOUNT_ENTRY_MESSAGES.teamOffer });
    await team.waitFor();
    expect(await team.getAttribute('href')).toBe('/teams/new/');
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, `shell-nag-team-${name}`);
    await page.context().close();
  });

  it('tells an expired reader to subscribe, on the home and on the queue page', async () => {
    const page = await pageFor(reader('expired'));
    await page.goto('/home/');
    const prompt = page.getByRole('region', { name: ACCOUNT_ENTRY_MESSAGES.subscriptionPromptLabel });
    await prompt.getByText(ACCOUNT_ENTRY_MESSAGES.expiredPrompt).waitFor();
    expect(await prompt.getByRole('link', { name: ACCOUNT_ENTRY_MESSAGES.subscribe }).getAttribute('href')).toBe('/subscribe/');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await shot(page, `shell-expired-home-${name}`);
    await page.goto('/c/');
    await page.getByRole('heading', { level: 1 }).waitFor();
    await prompt.getByText(ACCOUNT_ENTRY_MESSAGES.expiredPrompt).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, `shell-expired-queue-${name}`);
    await prompt.getByRole('link', { name: ACCOUNT_ENTRY_MESSAGES.subscribe }).click();
    await page.getByRole('heading', { name: 'Come back to Lectern' }).waitFor();
    await page.context().close();
  });

  it("tells a cancelled reader to reactivate in the home's queue row", async () => {
    const page = await pageFor(reader('cancelled'));
    await page.goto('/home/');
    await queueFirstTitle(page);
    await page.reload();
    const row = page.locator('[data-home-section="queue"]');
    const prompt = row.getByRole('region', { name: ACCOUNT_ENTRY_MESSAGES.subscriptionPromptLabel });
    await prompt.getByText(ACCOUNT_ENTRY_MESSAGES.cancelledPrompt).waitFor();
    expect(await prompt.getByRole('link', { name: ACCOUNT_ENTRY_MESSAGES.reactivate }).getAttribute('href')).toBe('/subscribe/');
    // once: not again above the rows
    expect(await page.getByRole('region', { name: ACCOUNT_ENTRY_MESSAGES.subscriptionPromptLabel }).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await row.scrollIntoViewIfNeeded();
    await shot(page, `shell-cancelled-home-${name}`);
    await page.context().close();
  });

  it('says nothing of the kind to a subscriber', async () => {
    const page = await pageFor(reader('subscriber'));
    await page.goto('/home/');
    await page.locator('.home__section').first().waitFor();
    expect(await page.getByRole('region', { name: ACCOUNT_ENTRY_MESSAGES.subscriptionPromptLabel }).count()).toBe(0);
    await page.context().close();
  });

  it('welcomes a trial reader with a link to /subscribe/, and slides the message away after 25 s', async () => {
    const page = await pageFor(reader('trial'));
    await page.goto('/welcome/topics/');
    const welcome = page.locator('.onboarding__welcome');
    await welcome.getByText(/Welcome to Lectern! Your free trial runs until/).waitFor();
    const link = welcome.getByRole('link', { name: ACCOUNT_ENTRY_MESSAGES.welcomeSubscribe });
    expect(await link.getAttribute('href')).toBe('/subscribe/');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await shot(page, `shell-welcome-${name}`);
    // Again on a clock the test moves (axe polls on the page's frames, which a paused clock would stop).
    await page.clock.install();
    await page.reload();
    await welcome.getByText(/Welcome to Lectern! Your free trial runs until/).waitFor();
    // from here the page's time moves only when the test says (the message has been up for less than 5 s)
    await page.clock.pauseAt(Date.now() + 100);
    await page.clock.runFor(WELCOME_MESSAGE_MS - 5000);
    expect(await welcome.getAttribute('class')).not.toContain('notice--fading');
    await page.clock.runFor(5000);
    expect(await welcome.getAttribute('class')).toContain('notice--fading');
    // it slides up as it fades
    expect(await welcome.evaluate((el) => getComputedStyle(el).translate)).not.toBe('none');
    await page.clock.runFor(400);
    await welcome.waitFor({ state: 'detached' });
    await page.context().close();
  });
});
