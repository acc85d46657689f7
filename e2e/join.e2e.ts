/**
 * Joining (issue 10) as a visitor does it: the live checks under the fields (the email asked of the server, the
 * password rule in the server's words, 'Looks good!'), the plan panels, the form disabled with 'Just a second...'
 * while it is sent, the topic form with the welcome message and the trial's end, and a second registration of the
 * same email refused under its field. At a phone's width and a desktop's; screenshots in .tmp/screens/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ACCOUNT_ENTRY_MESSAGES, PASSWORD_MESSAGES } from '@lectern/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openPage, seriousViolations } from './browser.ts';

const SCREENS = path.join(import.meta.dirname, '..', '.tmp', 'screens');
const shot = async (page: Page, name: string) => {
  fs.mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`), fullPage: true });
};

describe.each([
  { name: 'phone', viewport: { width: 390, height: 844 } },
  { name: 'desktop', viewport: { width: 1280, height: 900 } },
])('registering on a $name', ({ name, viewport }) => {
  let browser: Browser;
  let page: Page;
  const email = `joiner-${name}-${Date.now()}@example.com`;

  beforeAll(async () => {
    ({ browser, page } = await openPage(viewport));
  });
  afterAll(() => browser?.close());

  it('shows a visitor the subscribe nag: collapsed, slid up after half a second, opened and closed by a click', async () => {
    await page.goto('/library/');
    const toggle = page.getByRole('complementary', { name: 'Subscribe' }).getByRole('button');
    await toggle.waitFor();
    await expect.poll(() => page.locator('.nag').evaluate((n) => getComputedStyle(n).translate)).toMatch(/^-50%( 0px)?$/);
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await page.locator('.nag__panel').getByRole('link', { name: 'Start free trial' }).waitFor();
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
  });

  it('checks as the visitor types, then registers a trial and opens the topic form', async () => {
    await page.goto('/library/');
    await page.getByRole('link', { name: 'Start free trial' }).click();
    await page.getByRole('heading', { name: 'Start your free trial' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

    const emailField = page.getByLabel('Email');
    const passwordField = page.getByLabel('Password');
    // Sending it empty names both fields.
    await page.getByRole('button', { name: 'Start my free trial' }).click();
    await expect.poll(() => page.getByText(ACCOUNT_ENTRY_MESSAGES.required).count()).toBe(2);
    // The demo account's address is taken: the server says so under the field.
    await emailField.fill(inject('demoEmail'));
    await page.getByText(ACCOUNT_ENTRY_MESSAGES.emailTaken).waitFor();
    await emailField.fill(email);
    await expect.poll(() => page.getByText(ACCOUNT_ENTRY_MESSAGES.emailTaken).count()).toBe(0);
    // One of the 10,000 most common passwords: the server's words; then a good one.
    await passwordField.fill('michelle');
    await page.getByText(PASSWORD_MESSAGES.common).waitFor();
    await passwordField.fill('a reading lamp by the window');
    await page.getByText(ACCOUNT_ENTRY_MESSAGES.looksGood).waitFor();
    await page.getByText('Pro', { exact: true }).click();
    expect(await page.getByRole('radio', { name: /Pro/ }).isChecked()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, `register-${name}`);

    // While it is sent the form is disabled and says so (the answer is held back a moment to see it).
    await page.route('**/register/', async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      await new Promise((r) => setTimeout(r, 600));
      await route.continue();
    });
    await page.getByRole('button', { name: 'Start my free trial' }).click();
    await page.getByRole('button', { name: ACCOUNT_ENTRY_MESSAGES.justASecond }).waitFor();
    expect(await emailField.isDisabled()).toBe(true);

    await page.waitForURL('**/welcome/topics/');
    const welcome = page.getByRole('status').filter({ hasText: 'Welcome to Lectern! Your free trial runs until' });
    await welcome.waitFor();
    const topics = page.locator('.onboarding__topic');
    await topics.first().waitFor();
    await topics.first().click();
    expect(await seriousViolations(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await shot(page, `onboarding-${name}`);
    await page.getByRole('button', { name: /Save 1 topic/ }).click();
    await page.waitForURL('**/home/');
    // Signed in: the account menu, not the trial button.
    await page.getByRole('button', { name: /Account/ }).waitFor();
    expect(await page.getByRole('link', { name: 'Start free trial' }).count()).toBe(0);
  });

  it('refuses the same email a second time, under the field', async () => {
    const other = await (await browser.newContext({ baseURL: inject('baseURL'), viewport })).newPage();
    await other.goto('/register/');
    await other.getByLabel('Email').fill(email.toUpperCase());
    await other.getByText(ACCOUNT_ENTRY_MESSAGES.emailTaken).waitFor();
    await other.close();
  });
});
