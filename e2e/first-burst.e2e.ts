/**
 * The first burst (docs/performance.md "Lighthouse"): the files a screen's index.html names before anything paints (the
 * entry, the chunks and stylesheets it imports, the schemas chunk preloaded beside it, the page's own chunk and
 * stylesheet). Chrome asks one host for six files at a time over HTTP/1.1 and Lighthouse's mobile simulation puts all
 * of them before the first paint, so each further six is another round trip of FCP. The schemas came as nine preloaded
 * files (22-24 in the head, FCP 1.08-1.23x of 02e7e48); they are one chunk now (vite.config.ts, schemasGroup). The
 * limits are today's counts (the entry's `queryKeys` chunk, new beside it, made them 15 and 17): a change that adds a
 * file to the burst must say so here. A page names the chunks its own chunk imports too (vite.config.ts,
 * routePreloads), which were asked for only once that chunk had arrived and been parsed, a chained round trip before
 * its first render (docs/decisions.md "Each screen's first answers in its page, its chunks named with it, renders in
 * slices"): the home 19, a playlist 26 (the playlists area's forms), search 18, the reader 21. The page's own chapter
 * request (f14a4f8: the entry takes the page's reader start and the key's storage) split two chunks off the entry
 * (`client` and core's `reader`) and the reader page's panels' stylesheets: home 21, catalog 17, playlist 28, search
 * 20, the reader 25. They were folded back (docs/decisions.md "The start's client and core rules in one chunk";
 * vite.config.ts, startClientGroup: the API client and the zod-free core modules the entry loads, one chunk, where the
 * bundler had made five; Rolldown's runtime helpers, which rode in the React chunk, became a chunk of their own): home
 * 17, catalog 13, playlist 24, search 16, the reader 21. Read from the built app the e2e server serves, and in Chromium
 * from the requests the signed-in home makes.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cardCoverUrl, firstScreenRequests } from '@lectern/core';
import { lecternCli, signIn } from '../scripts/fresh-server.ts';
import { launchBrowser, signInAsDemo } from './browser.ts';

/** Each screen Lighthouse measures, with the most files its head may name. */
const SCREENS = [
  { name: 'home', path: '/home/', limit: 17 },
  { name: 'catalog', path: '/library/', limit: 13 },
  { name: 'playlist', path: '/c/collection/00000000-0000-4000-8000-000000000000/', limit: 24 },
  { name: 'search', path: '/search/?q=whale', limit: 16 },
  { name: 'reader', path: '/library/view/moby-dick/0/chapter_015.xhtml', limit: 21 },
];

/** The files a page's head asks for before the body: module scripts, module preloads, stylesheets. */
function headFiles(html: string): string[] {
  const head = html.slice(0, html.indexOf('</head>'));
  const files: string[] = [];
  for (const tag of head.match(/<(script|link)\b[^>]*>/g) ?? []) {
    const src = /\b(?:src|href)="([^"]+)"/.exec(tag)?.[1];
    // (a server-rendered screen's stylesheet links are disabled, their rules in the page: never fetched)
    if (!src?.startsWith('/assets/') || /\sdisabled\b/.test(tag)) continue;
    if (/^<script\b/.test(tag) || /rel="(modulepreload|stylesheet)"/.test(tag) || /rel="preload"[^>]*as="style"|as="style"[^>]*rel="preload"/.test(tag)) files.push(src);
  }
  return files;
}

describe('the files before the first paint', () => {
  it.each(SCREENS)('$name names at most $limit files in its head, one of them the schemas', async ({ path, limit }) => {
    const res = await fetch(new URL(path, inject('baseURL')));
    expect(res.status).toBe(200);
    const files = headFiles(await res.text());
    expect(files.length).toBeGreaterThan(3); // the entry, its chunks and stylesheets were read at all
    expect(files.length, files.join('\n')).toBeLessThanOrEqual(limit);
    expect(new Set(files).size).toBe(files.length);
    expect(files.filter((f) => /\/schemas-[^/]*\.js$/.test(f))).toHaveLength(1);
  });

  describe('in Chromium, signed in', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchBrowser();
    });
    afterAll(() => browser?.close());

    // The first answers came with the page (routes/web.ts, core's firstScreenRequests): the screen asks none of
    // them, shows what they hold, and the catalog's first cover, named in its page, is fetched once.
    it.each([390, 1280])('at %i px, the home, the catalog and a search ask for none of their first answers', async (width) => {
      const context = await browser.newContext({ baseURL: inject('baseURL'), viewport: { width, height: 844 } });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await signInAsDemo(page);
      const asked: string[] = [];
      page.on('request', (r) => {
        const u = new URL(r.url());
        asked.push(u.pathname + u.search);
      });
      for (const { address, shows } of [
        { address: '/home/', shows: page.locator('h1.home__heading') },
        { address: '/library/', shows: page.locator('.title-grid .title-card').first() },
        { address: '/search/?q=whale', shows: page.locator('.search-page__list li').first() },
      ]) {
        asked.length = 0;
        const html = await (await page.goto(address))!.text();
        await shows.waitFor();
        const url = new URL(address, 'http://x');
        const first = firstScreenRequests(url.pathname, url.searchParams);
        expect(first.length, address).toBeGreaterThan(0);
        for (const f of first) {
          expect(html, f).toContain(JSON.stringify(f).replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
          expect(asked, f).not.toContain(f);
        }
        const cover = /<link rel="preload" as="image" href="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
        if (address === '/library/') {
          expect(cover).toBeTruthy();
          await page.locator(`.title-grid img[src="${cover}"]`).first().waitFor();
          expect(asked.filter((a) => a === cover)).toHaveLength(1);
        } else expect(cover).toBeUndefined();
      }
      await context.close();
    });

    // A playlist's items carry no covers (the cards ask POST /api/v1/metadata/ after rendering): its page names the
    // first card's cover itself (routes/web.ts, MetadataService.covers), and brings the queue the screen waits for.
    it.each([390, 1280])("at %i px, a playlist asks for none of its first answers and fetches its first card's cover, named in its page, once", async (width) => {
      // a reader of its own (the demo's data is every file's): a playlist of two titles with covers, the second first
      const email = `first-burst-${width}-${Date.now()}@example.com`;
      lecternCli(inject('dataDir'), ['users:create', '--email', email, '--password', 'a long enough password', '--status', 'subscriber']);
      const context = await browser.newContext({ baseURL: inject('baseURL'), viewport: { width, height: 844 } });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await signIn(page, email, 'a long enough password', '/home/');
      const headers = async () => ({
        'x-csrftoken': (await context.cookies()).find((c) => c.name === 'csrftoken')?.value ?? '',
        origin: inject('baseURL'),
        accept: 'application/json; version=v2',
      });
      const books = ((await (await page.request.get('/api/v1/book/?page_size=50')).json()) as { results: { api_url: string; cover_image_url: string | null }[] }).results;
      const [second, first] = books.filter((b) => b.cover_image_url) as [(typeof books)[0], (typeof books)[0]];
      const made = (await (await page.request.post('/nest/api/api/v2/collections/', { headers: await headers(), data: { name: 'Covers', description: '' } })).json()) as { id: string };
      const added = await page.request.post(`/nest/api/api/v2/collections/${made.id}/add-content/`, { headers: await headers(), data: { content: [first.api_url, second.api_url] } });
      expect(added.status()).toBe(200);
      const address = `/c/collection/${made.id}/`;
      // nothing of the home the sign-in landed on may still be asking
      await page.goto('about:blank');
      const asked: string[] = [];
      page.on('request', (r) => {
        const u = new URL(r.url());
        asked.push(u.pathname + u.search);
      });
      const html = await (await page.goto(address))!.text();
      const cover = /<link rel="preload" as="image" href="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
      expect(cover).toBe(cardCoverUrl(first.cover_image_url!));
      // the first card shows the cover the page named
      await page.locator(`.title-grid .title-grid__item:first-child img[src="${cover}"]`).waitFor();
      const url = new URL(address, 'http://x');
      const firsts = firstScreenRequests(url.pathname, url.searchParams);
      expect(firsts).toContain('/api/v1/queue-simple/');
      for (const f of firsts) expect(asked, f).not.toContain(f);
      expect(asked.filter((a) => a === cover)).toHaveLength(1);
      await context.close();
    });

    it('the home loads one schemas file, and every file its head names, once', async () => {
      const context = await browser.newContext({ baseURL: inject('baseURL'), viewport: { width: 390, height: 844 } });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await signInAsDemo(page);
      const asked: string[] = [];
      page.on('request', (r) => {
        const u = new URL(r.url());
        if (u.pathname.startsWith('/assets/')) asked.push(u.pathname);
      });
      const html = await (await page.goto('/home/'))!.text();
      await page.locator('h1').first().waitFor();
      const named = headFiles(html);
      expect(named.length).toBeLessThanOrEqual(17);
      expect(asked.filter((f) => /\/schemas-[^/]*\.js$/.test(f))).toHaveLength(1);
      for (const f of named) expect(asked.filter((a) => a === f), f).toHaveLength(1);
      await context.close();
    });
  });
});
