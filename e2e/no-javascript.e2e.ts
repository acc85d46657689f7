/**
 * Signing in and out with JavaScript disabled in Chromium: the plain HTML forms inside index.html's <noscript>
 * post to /login/ and /logout/ with the CSRF token field. Chromium sends the form's Origin only because the
 * Referrer-Policy is not no-referrer (under no-referrer it sends `Origin: null`, which the CSRF check refuses).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser } from './browser.ts';

describe('with JavaScript disabled', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const posts: { url: string; origin: string | undefined }[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    context = await browser.newContext({ baseURL: inject('baseURL'), javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('request', (r) => {
      if (r.method() === 'POST') posts.push({ url: new URL(r.url()).pathname, origin: r.headers().origin });
    });
  });
  afterAll(() => browser?.close());

  const sessionCookie = async () => (await context.cookies()).find((c) => c.name === 'lectern_session');

  it('refuses a wrong password with a message, then signs in, and out again', async () => {
    await page.goto('/login/');
    await page.getByLabel('Email address').fill(inject('demoEmail'));
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/login\/\?error=credentials/);
    expect(await page.getByRole('alert').textContent()).toBe('The email address or password is not correct.');

    await page.getByLabel('Email address').fill(inject('demoEmail'));
    await page.getByLabel('Password').fill(inject('demoPassword'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/library\/$/);
    // (Playwright's text engine skips <noscript>, hence a CSS locator for the line.)
    const line = page.locator('form[action="/logout/"] p');
    expect(await line.textContent()).toBe(`You are signed in as ${inject('demoEmail')}.`);
    expect(await line.isVisible()).toBe(true);
    expect(await sessionCookie()).toBeTruthy();
    await page.screenshot({ path: '/tmp/no-javascript-signed-in-390.png' });

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/library\/$/);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await sessionCookie()).toBeUndefined();

    // The browser's own form posts, with a real Origin (not "null").
    const base = new URL(inject('baseURL')).origin;
    expect(posts.map((p) => p.url)).toEqual(['/login/', '/login/', '/logout/']);
    expect(posts.map((p) => p.origin)).toEqual([base, base, base]);
  });
});
