/**
 * A playlist's page paints the playlist's heading from its HTML (docs/decisions.md "A playlist's heading in its
 * page"): at the place and size the app's heading has, so the page's largest paint is there from the first paint and
 * the app's heading, the same text in the same box, is no later, larger one.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { lecternCli, signIn } from '../scripts/fresh-server.ts';
import { imagesSettled, largestPaints, launchBrowser, observeLargestPaints } from './browser.ts';

describe("a playlist's page paints its heading itself", () => {
  let browser: Browser;
  const email = `playlist-heading-${Date.now()}@example.com`;
  const password = 'a long enough password';
  // markup in the name is text, in the page as in the app
  const name = 'Lighthouse reading list <b>&</b>';
  let address = '';
  beforeAll(async () => {
    browser = await launchBrowser();
    lecternCli(inject('dataDir'), ['users:create', '--email', email, '--password', password, '--status', 'subscriber']);
    const context = await browser.newContext({ baseURL: inject('baseURL') });
    const page = await context.newPage();
    await signIn(page, email, password, '/home/');
    const headers = { 'x-csrftoken': (await context.cookies()).find((c) => c.name === 'csrftoken')?.value ?? '', origin: inject('baseURL'), accept: 'application/json; version=v2' };
    const books = ((await (await page.request.get('/api/v1/book/?page_size=3')).json()) as { results: { api_url: string }[] }).results;
    const made = (await (await page.request.post('/nest/api/api/v2/collections/', { headers, data: { name, description: '' } })).json()) as { id: string };
    expect((await page.request.post(`/nest/api/api/v2/collections/${made.id}/add-content/`, { headers, data: { content: books.map((b) => b.api_url) } })).status()).toBe(200);
    address = `/c/collection/${made.id}/`;
    await context.close();
  });
  afterAll(() => browser?.close());

  // 412 px: Lighthouse's mobile screen
  it.each([390, 412])('at %i px, the page paints the heading where the app has it, and the app paints no larger one after it', async (width) => {
    const context = await browser.newContext({ baseURL: inject('baseURL'), viewport: { width, height: 844 } });
    await observeLargestPaints(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, email, password, '/home/');
    await page.goto('about:blank');
    await page.goto(address);
    const heading = page.locator('h1.page-heading');
    await heading.waitFor();
    expect(await heading.innerText()).toBe(name);
    // the cards' covers in too: none of them is a later, larger paint
    await page.locator('.title-grid img').first().waitFor();
    await imagesSettled(page);
    const entries = await largestPaints(page);
    expect(entries.at(-1)?.id, JSON.stringify(entries)).toBe('boot-playlist-heading');
    // the page's heading was where the app's is, in a box of the same size
    const boot = entries.at(-1)!;
    const box = await heading.evaluate((h) => {
      const r = h.getBoundingClientRect();
      return [r.x, r.y, r.width, r.height];
    });
    expect(boot.box).toEqual(box);
    await context.close();
  });
});
