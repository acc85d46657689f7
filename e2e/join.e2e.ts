/**
 * Joining (docs/decisions.md "Joining") as a visitor does it: the live checks under the fields (the email asked of the
 * server, the password rule in the server's words, 'Looks good!'), the plan panels, the form disabled with 'Just a
 * second...' while it is sent, the topic form with the welcome message and the trial's end, and a second registration
 * of the same email refused under its field. At a phone's width and a desktop's; screenshots in .tmp/screens/. The
 * analytics events (§5: sign-up analytics only with both fields filled and neither in error; the nag's clicks; the
 * lifecycle's trial created and sign-up completed) are read back from the server through the operators' report (GET
 * /api/v1/admin/analytics/, signed in as an admin the command line created).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ACCOUNT_ENTRY_MESSAGES, analyticsPaths, analyticsReportSchema, PASSWORD_MESSAGES } from '@lectern/core';
import type { APIRequestContext, Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { lecternCli, signIn } from '../scripts/fresh-server.ts';
import { openPage, seriousViolations } from './browser.ts';

const SCREENS = path.join(import.meta.dirname, '..', '.tmp', 'screens');
const shot = async (page: Page, name: string) => {
  fs.mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`), fullPage: true });
};

const OPERATOR = { email: `analytics-operator-${Date.now()}@example.com`, password: 'an operator password of some length' };
/** A promotion code for the pro plan only (it was once refused to readers who had chosen pro at sign-up). */
const PRO_CODE = `prohalf${Date.now()}`;
beforeAll(() => {
  lecternCli(inject('dataDir'), ['users:create', '--email', OPERATOR.email, '--password', OPERATOR.password, '--role', 'admin']);
  lecternCli(inject('dataDir'), ['promo:add', PRO_CODE, '--percent', '50', '--plan', 'pro']);
});

/** The events the server stored in one category, as "action label" -> count (the operators' report). */
let operator: APIRequestContext;
const stored = async (category: string): Promise<Map<string, number>> => {
  const res = await operator.get(`${analyticsPaths.adminReport()}?category=${category}&from=2000-01-01`);
  expect(res.status()).toBe(200);
  const { results } = analyticsReportSchema.parse(await res.json());
  return new Map(results.map((r) => [`${r.action} ${r.label}`, r.count]));
};
const total = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);
const POLL = { timeout: 20_000, interval: 500 };

describe.each([
  { name: 'phone', viewport: { width: 390, height: 844 } },
  { name: 'desktop', viewport: { width: 1280, height: 900 } },
])('registering on a $name', ({ name, viewport }) => {
  let browser: Browser;
  let page: Page;
  const email = `joiner-${name}-${Date.now()}@example.com`;

  beforeAll(async () => {
    ({ browser, page } = await openPage(viewport));
    const operatorPage = await (await browser.newContext({ baseURL: inject('baseURL') })).newPage();
    await signIn(operatorPage, OPERATOR.email, OPERATOR.password);
    operator = operatorPage.request;
  });
  afterAll(() => browser?.close());

  it('shows a visitor the subscribe nag: collapsed, slid up after half a second, opened and closed by a click', async () => {
    const nag = await stored('subscribe-nag');
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
    // Both clicks reach the server, marked as a visitor's.
    await expect.poll(() => stored('subscribe-nag'), POLL).toEqual(
      new Map([...nag, ['open visitor', (nag.get('open visitor') ?? 0) + 1], ['close visitor', (nag.get('close visitor') ?? 0) + 1]]),
    );
  });

  it('checks as the visitor types, then registers a trial and opens the topic form', async () => {
    await page.goto('/library/');
    await page.getByRole('link', { name: 'Start free trial' }).click();
    await page.getByRole('heading', { name: 'Start your free trial' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

    const emailField = page.getByLabel('Email');
    const passwordField = page.getByLabel('Password');
    const submit = page.getByRole('button', { name: 'Start my free trial' });
    const signUps = await stored('registration');
    const account = await stored('account');
    // What the page sends, to tell "not tracked" from "not sent yet".
    const sentCategories: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith(analyticsPaths.events())) sentCategories.push(...(r.postDataJSON() as { events: { category: string }[] }).events.map((e) => e.category));
    });
    // Sending it empty names both fields.
    await submit.click();
    await expect.poll(() => page.getByText(ACCOUNT_ENTRY_MESSAGES.required).count()).toBe(2);
    // One field filled, the other empty: still no sign-up event.
    await passwordField.fill('a reading lamp by the window');
    await submit.click();
    await expect.poll(() => page.getByText(ACCOUNT_ENTRY_MESSAGES.required).count()).toBe(1);
    // The demo account's address is taken: the server says so under the field (and a submit is refused).
    await emailField.fill(inject('demoEmail'));
    await page.getByText(ACCOUNT_ENTRY_MESSAGES.emailTaken).waitFor();
    await submit.click();
    await emailField.fill(email);
    await expect.poll(() => page.getByText(ACCOUNT_ENTRY_MESSAGES.emailTaken).count()).toBe(0);
    // One of the 10,000 most common passwords: the server's words (a submit is refused); then a good one.
    await passwordField.fill('michelle');
    await page.getByText(PASSWORD_MESSAGES.common).waitFor();
    await submit.click();
    // §5: none of those submits fired the sign-up event. Hiding the page sends whatever is waiting at once.
    // A request the page makes a task later (every microtask of the flush, its fetch included, has run by then) is
    // seen after whatever the flush sent: the page's requests are reported in the order they are made.
    const after = page.waitForRequest((r) => r.url().endsWith('/after-the-flush/'));
    await page.evaluate(async () => {
      window.dispatchEvent(new Event('pagehide'));
      await new Promise((taskLater) => setTimeout(taskLater, 0));
      void fetch('/after-the-flush/');
    });
    await after;
    expect(sentCategories).not.toContain('registration');
    expect(await stored('registration')).toEqual(signUps);
    await passwordField.fill('a reading lamp by the window');
    await page.getByText(ACCOUNT_ENTRY_MESSAGES.looksGood).waitFor();
    await page.getByText('Pro', { exact: true }).click();
    expect(await page.getByRole('radio', { name: /Pro/ }).isChecked()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, `register-${name}`);

    // While it is sent the form is disabled and says so (the answer is held back until that is seen).
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    await page.route('**/register/', async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      await released;
      await route.continue();
    });
    await page.getByRole('button', { name: 'Start my free trial' }).click();
    await page.getByRole('button', { name: 'Just a second...' }).waitFor();
    expect(await emailField.isDisabled()).toBe(true);
    release();

    await page.waitForURL('**/welcome/topics/');
    // Both fields filled and valid: one sign-up event, for the plan chosen, and the trial created.
    await expect.poll(async () => (await stored('registration')).get('submit pro') ?? 0, POLL).toBe((signUps.get('submit pro') ?? 0) + 1);
    expect(total(await stored('registration'))).toBe(total(signUps) + 1);
    expect(sentCategories.filter((c) => c === 'registration')).toEqual(['registration']);
    await expect.poll(async () => (await stored('account')).get('trial-created pro') ?? 0, POLL).toBe((account.get('trial-created pro') ?? 0) + 1);
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
    // §4's lifecycle: sign-up completed after the topic form.
    await expect.poll(async () => (await stored('account')).get('sign-up-completed topic-form') ?? 0, POLL).toBe((account.get('sign-up-completed topic-form') ?? 0) + 1);
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

  it('greets the first home without "back", and takes the plan chosen at sign-up to the subscribe page', async () => {
    // The registration above chose Pro and ended on the home: the reader's first.
    const heading = page.locator('h1.home__heading');
    expect(await heading.innerText()).toMatch(/^Welcome, \S/);
    await page.reload();
    await expect.poll(() => heading.innerText()).toMatch(/^Welcome back, \S/);

    const subscriptions = await stored('subscription');
    await page.goto('/u');
    await page.getByRole('link', { name: 'Subscribe', exact: true }).click();
    await page.getByRole('heading', { name: 'Subscribe' }).waitFor();
    // Pro, as chosen at sign-up, and so no price24 (§4: only basic carries it)
    expect(await page.getByRole('radio', { name: /^Pro/ }).isChecked()).toBe(true);
    expect(await page.getByLabel('Promotion code').inputValue()).toBe('');
    // A refused subscribe (a code that does not exist) is counted as refused, never as a subscribe.
    await page.getByLabel('Promotion code').fill('nosuchcode');
    await page.getByRole('button', { name: 'Subscribe', exact: true }).click();
    await page.locator('.login__notice').getByText('The code entered is not valid.').waitFor();
    await expect.poll(async () => (await stored('subscription')).get('subscribe-refused pro') ?? 0, POLL).toBe((subscriptions.get('subscribe-refused pro') ?? 0) + 1);
    expect((await stored('subscription')).get('subscribe pro') ?? 0).toBe(subscriptions.get('subscribe pro') ?? 0);
    // The pro-only code applies to the plan chosen.
    await page.getByLabel('Promotion code').fill(PRO_CODE);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText(`${PRO_CODE} has been applied.`).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await shot(page, `subscribe-pro-${name}`);
    await page.getByRole('button', { name: 'Subscribe', exact: true }).click();
    await page.waitForURL('**/u');
    await page.getByText("You're subscribed to Pro. Thank you!").waitFor();
    await expect.poll(async () => (await stored('subscription')).get('subscribe pro') ?? 0, POLL).toBe((subscriptions.get('subscribe pro') ?? 0) + 1);
  });

  it('changes the email on the account page and clears the form', async () => {
    await page.goto('/u');
    const email = page.getByLabel('New email');
    const changed = `moved-${name}-${Date.now()}@example.com`;
    await email.fill(changed);
    await page.locator('form').filter({ has: email }).getByLabel('Current password').fill('a reading lamp by the window');
    await page.getByRole('button', { name: 'Change email' }).click();
    await page.getByText(`Your email is now ${changed}.`).waitFor();
    expect(await email.inputValue()).toBe('');
    expect(await page.getByText('TypeError').count()).toBe(0);
  });

  it('signs out from the account page to the library, not to a sign-in form that leads back', async () => {
    await page.goto('/u');
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await page.getByRole('button', { name: /Account/ }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Start free trial' }).first().waitFor();
    expect(new URL(page.url()).pathname).toBe('/library/');
  });
});
