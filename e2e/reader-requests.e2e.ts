/**
 * The chapter request the HTTP bench replays is the one the reader sends: this opens a chapter in Chromium, takes
 * the block request from the browser's network log (method, path, the headers that change the server's answer,
 * the body with the book and chapter as placeholders) and compares it with bench/reader-requests.json, which
 * bench/http.ts builds its block requests from. A reader that starts sending something else fails here until the
 * file is recorded again: LECTERN_RECORD_READER_REQUESTS=1 writes it instead of comparing.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, signInAsDemo } from './browser.ts';

const FILE = path.resolve(import.meta.dirname, '../bench/reader-requests.json');
const baseURL = inject('baseURL');
const viewport = { width: 1280, height: 800 };

/** Headers that can change what the server answers (the rest are the browser's: user agent, sec-*, referer). */
const KEPT_HEADERS = ['accept', 'accept-encoding', 'content-type', 'cookie', 'x-csrftoken', 'x-requested-with'];

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

async function normalise(request: Request, bookId: string, href: string): Promise<RecordedRequest> {
  const all = await request.allHeaders();
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = all[name];
    if (value === undefined) continue;
    // The session and the CSRF token are the reader's own; the bench puts its readers' in.
    headers[name] = name === 'cookie' ? '{cookie}' : name === 'x-csrftoken' ? '{csrftoken}' : value;
  }
  const body = request.postDataJSON() as Record<string, unknown>;
  const placeholders: Record<string, unknown> = { ...body, book_id: body.book_id === bookId ? '{book_id}' : body.book_id };
  if (body.hrefs === href) placeholders.hrefs = '{href}';
  else if (Array.isArray(body.hrefs) && body.hrefs.length === 1 && body.hrefs[0] === href) placeholders.hrefs = ['{href}'];
  return { method: request.method(), path: new URL(request.url()).pathname, headers, body: placeholders };
}

describe('the chapter request the bench replays', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it('is the one the reader sends when it opens a chapter', async () => {
    const context = await browser.newContext({ baseURL, viewport });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signInAsDemo(page);
    const list = await (await page.request.get('/api/v1/book/?page_size=50')).json();
    const book = list.results.find((b: { title: string }) => /Moby/.test(b.title));
    const detail = (await (await page.request.get(book.api_url)).json()) as { chapters: { full_path: string; web_url: string }[] };
    const chapter = detail.chapters[Math.floor(detail.chapters.length / 2)]!;

    const blockRequest = page.waitForRequest((r) => r.url().includes('/nest/epub/block/') && r.method() === 'POST');
    await page.goto(chapter.web_url);
    const request = await blockRequest;
    const response = await request.response();
    expect(response?.status()).toBe(200);
    const recorded = [await normalise(request, book.book_id, chapter.full_path)];
    // The bench needs the placeholders: a request that names the book and chapter some other way is a change to look at.
    expect(recorded[0]!.body.book_id).toBe('{book_id}');
    expect(JSON.stringify(recorded[0]!.body.hrefs)).toContain('{href}');

    if (process.env.LECTERN_RECORD_READER_REQUESTS === '1') {
      const file = {
        about: 'The reader\'s block request on opening a chapter at 1280x800, from Chromium\'s network log; written by e2e/reader-requests.e2e.ts, replayed by bench/http.ts.',
        requests: recorded,
      };
      fs.writeFileSync(FILE, `${JSON.stringify(file, null, 2)}\n`);
    }
    const kept = JSON.parse(fs.readFileSync(FILE, 'utf8')) as { requests: RecordedRequest[] };
    expect(recorded).toEqual(kept.requests);
    await context.close();
  });
});
