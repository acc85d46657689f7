/**
 * The console requests the 100,000-title bench (bench/console-scale.ts) sends are the ones the console sends: this
 * opens the titles screen and the dashboard in Chromium as an operator does (first page, Next, a search, a title
 * with its readers, the dashboard over 30 days and over 12 months), takes each GET of the admin API from the
 * browser's network log (path, query, the headers that can change the answer; the operator's values as
 * placeholders) and compares them with bench/console-requests.json. A console that starts sending something else
 * fails here until the file is recorded again: LECTERN_RECORD_CONSOLE_REQUESTS=1 writes it instead of comparing.
 * The suite's library has fewer titles than a page: the test imports enough for a second page and retires them last.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { adminPaths, ADMIN_PAGE_SIZE, CONSOLE_MESSAGES } from '@lectern/core';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { lecternCli } from '../scripts/fresh-server.ts';
import { epubBook } from '../packages/server/test/ingest/helpers.ts';
import { launchBrowser, signedInContexts } from './browser.ts';

const FILE = path.resolve(import.meta.dirname, '../bench/console-requests.json');
const PASSWORD = 'an operator counting titles';
const viewport = { width: 1280, height: 800 };
/** Headers that can change what the server answers (the rest are the browser's: user agent, sec-*, referer). */
const KEPT_HEADERS = ['accept', 'accept-encoding', 'content-type', 'cookie', 'x-csrftoken', 'x-requested-with'];
const DAY_MS = 86_400_000;

interface Recorded {
  key: string;
  name: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
}

/** The request with the operator's values as the bench's placeholders: what it asks, not for whom or when. */
async function normalise(key: string, name: string, request: Request, values: Record<string, string>): Promise<Recorded> {
  const all = await request.allHeaders();
  const headers: Record<string, string> = {};
  for (const h of KEPT_HEADERS) {
    if (all[h] === undefined) continue;
    headers[h] = h === 'cookie' ? '{cookie}' : h === 'x-csrftoken' ? '{csrftoken}' : all[h]!;
  }
  const url = new URL(request.url());
  let p = url.pathname;
  if (values.book_id) p = p.replace(`/${encodeURIComponent(values.book_id)}/`, '/{book_id}/');
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = Object.entries(values).find(([name, value]) => name === k && value === v) ? `{${k}}` : v;
  return { key, name, path: p, query, headers };
}

describe('the console requests the bench replays', () => {
  let browser: Browser;
  let admin: Page;
  const contexts = signedInContexts(() => browser);
  const stamp = `paging${Date.now()}`;
  const email = `operator-${stamp}@example.com`;
  const imported: string[] = [];

  beforeAll(async () => {
    lecternCli(inject('dataDir'), ['users:create', '--email', email, '--password', PASSWORD, '--role', 'admin', '--status', 'subscriber']);
    browser = await launchBrowser();
    ({ page: admin } = await contexts.open(email, PASSWORD, viewport));
    // enough titles in the catalog for the console's second page (titles named to sort after the suite's own)
    const count = async () => {
      const res = await admin.request.get(`${adminPaths.titles()}?limit=${ADMIN_PAGE_SIZE.max}`);
      return ((await res.json()) as { results: unknown[] }).results.length;
    };
    const missing = ADMIN_PAGE_SIZE.default + 1 - (await count());
    if (missing > 0) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-console-paging-'));
      const files = Array.from({ length: missing }, (_, i) => {
        const file = path.join(dir, `paging-${i}.epub`);
        const title = `Zz Console Paging ${String(i).padStart(2, '0')} ${stamp}`;
        fs.writeFileSync(file, epubBook({ identifier: `urn:uuid:${randomUUID()}`, title, creator: 'Console Tester', chapters: [{ path: 'one.xhtml', label: 'One', body: `<h1>One</h1><p>${title}.</p>` }] }));
        return file;
      });
      lecternCli(inject('dataDir'), ['import', ...files]);
      const found = (await (await admin.request.get(`${adminPaths.titles()}?q=${encodeURIComponent('Zz Console Paging')}&limit=${ADMIN_PAGE_SIZE.max}`)).json()) as { results: { book_id: string; title: string }[] };
      imported.push(...found.results.filter((t) => t.title.endsWith(stamp)).map((t) => t.book_id));
      expect(imported).toHaveLength(missing);
    }
  }, 300_000);
  afterAll(async () => {
    await contexts.closeAll();
    await browser?.close();
  });

  it('are the ones the titles screen and the dashboard send', { timeout: 120_000 }, async () => {
    const gets: Request[] = [];
    admin.on('request', (r) => {
      if (r.method() === 'GET' && new URL(r.url()).pathname.startsWith('/api/v1/admin/')) gets.push(r);
    });
    /** the next admin GET whose path and query satisfy `test`, once answered 200 */
    const next = async (test: (url: URL) => boolean, act: () => Promise<void>) => {
      const seen = gets.length;
      await act();
      await expect.poll(() => gets.slice(seen).find((r) => test(new URL(r.url())))).toBeTruthy();
      const request = gets.slice(seen).find((r) => test(new URL(r.url())))!;
      expect((await request.response())?.status()).toBe(200);
      return request;
    };
    const isTitles = (u: URL) => u.pathname === adminPaths.titles();
    const first = await next((u) => isTitles(u) && !u.searchParams.has('cursor') && !u.searchParams.has('q'), () => admin.goto('/admin/titles').then(() => undefined));
    const firstPage = (await (await first.response())!.json()) as { next_cursor: string | null };
    expect(firstPage.next_cursor).toBeTruthy();
    const second = await next(
      (u) => isTitles(u) && u.searchParams.get('cursor') === firstPage.next_cursor,
      () => admin.getByRole('navigation', { name: 'Titles pages' }).getByRole('button', { name: 'Next' }).click(),
    );
    const q = 'moby';
    const search = await next(
      (u) => isTitles(u) && u.searchParams.get('q') === q,
      async () => {
        await admin.getByRole('searchbox', { name: 'Search titles, authors or a book id' }).fill(q);
        await admin.getByRole('button', { name: 'Search' }).click();
      },
    );
    const found = (await (await search.response())!.json()) as { results: { book_id: string; title: string }[] };
    const book = found.results[0]!;
    let readers: Request | undefined;
    const detail = await next(
      (u) => u.pathname === adminPaths.title(book.book_id),
      async () => {
        const readersSeen = gets.length;
        await admin.getByRole('link', { name: book.title }).first().click();
        await expect.poll(() => (readers = gets.slice(readersSeen).find((r) => new URL(r.url()).pathname === adminPaths.titleReaders(book.book_id)))).toBeTruthy();
      },
    );
    const nav = admin.getByRole('navigation', { name: CONSOLE_MESSAGES.navLabel });
    const today = new Date();
    const dayOf = (d: Date) => d.toISOString().slice(0, 10);
    const range = (days: number) => ({ from: dayOf(new Date(today.getTime() - (days - 1) * DAY_MS)), to: dayOf(today) });
    const isDashboard = (days: number) => (u: URL) => u.pathname === adminPaths.dashboard() && u.searchParams.get('from') === range(days).from && u.searchParams.get('to') === range(days).to;
    const month = await next(isDashboard(30), () => nav.getByRole('link', { name: 'Dashboard' }).click());
    const year = await next(isDashboard(365), () => admin.getByLabel(CONSOLE_MESSAGES.rangeLabel).selectOption({ label: 'Last 12 months' }).then(() => undefined));

    const recorded = [
      await normalise('titles-first', 'titles, first page', first, {}),
      await normalise('titles-next', 'titles, page 2 (Next: the cursor of page 1)', second, { cursor: firstPage.next_cursor! }),
      await normalise('titles-search', 'titles, a search (an operator\'s words)', search, { q }),
      await normalise('title-detail', 'a title opened from the list', detail, { book_id: book.book_id }),
      await normalise('title-readers', 'its readers', readers!, { book_id: book.book_id }),
      await normalise('dashboard-30', 'dashboard, last 30 days', month, range(30)),
      await normalise('dashboard-year', 'dashboard, last 12 months', year, range(365)),
    ];
    // the bench fills these in: a request that names them some other way is a change to look at
    expect(recorded[1]!.query.cursor).toBe('{cursor}');
    expect(recorded[2]!.query.q).toBe('{q}');
    expect(recorded[3]!.path).toContain('{book_id}');
    expect(recorded[5]!.query).toMatchObject({ from: '{from}', to: '{to}' });
    expect(recorded[6]!.query).toMatchObject({ from: '{from}', to: '{to}' });

    if (process.env.LECTERN_RECORD_CONSOLE_REQUESTS === '1') {
      const file = {
        about: 'The operators\' console requests of the titles screen and the dashboard at 1280x800, from Chromium\'s network log; written by e2e/console-requests.e2e.ts, replayed by bench/console-scale.ts.',
        requests: recorded,
      };
      fs.writeFileSync(FILE, `${JSON.stringify(file, null, 2)}\n`);
    }
    const kept = JSON.parse(fs.readFileSync(FILE, 'utf8')) as { requests: Recorded[] };
    expect(recorded).toEqual(kept.requests);
  });

  // Last: the suite's shared library holds no more titles in its catalog than before this file.
  it('retires the titles it imported', async () => {
    const csrf = (await admin.context().cookies()).find((c) => c.name === 'csrftoken')!.value;
    for (const id of imported) {
      const res = await admin.request.post(adminPaths.titleRetire(id), { headers: { 'x-csrftoken': csrf, origin: inject('baseURL') } });
      expect(res.status()).toBe(200);
    }
    const left = (await (await admin.request.get(`${adminPaths.titles()}?q=${encodeURIComponent('Zz Console Paging')}`)).json()) as { results: unknown[] };
    expect(left.results).toEqual([]);
  });
});
