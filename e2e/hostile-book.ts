/**
 * A hostile book imported and watched in Chromium (book-files.e2e.ts, svg-entities.e2e.ts): a signed-in page that
 * records every request for the payloads' path (a payload that ran, an external entity or DTD fetched: they all carry
 * `?pwned=`) and every dialog, from any page or frame of the browser, and reads the marker a payload that ran on the
 * app's origin would leave in its localStorage.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { importBook } from '../scripts/fresh-server.ts';
import { HOSTILE_FETCH_PATH, HOSTILE_MARKER_KEY } from '../packages/server/test/fixtures/hostile-files.ts';
import { openPage, signInAsDemo } from './browser.ts';

export interface HostileBookTab {
  page: Page;
  bookId: string;
  chapterWebUrl: string;
  /** Requests for the payloads' path (`?pwned=`), from any page or frame. */
  readonly pwnedRequests: string[];
  readonly dialogs: string[];
  /** What a payload that ran on the app's origin left in its localStorage (null: nothing). */
  marker(): Promise<string | null>;
}

/** Imports `epub` (its title `title`) before the describe's tests and opens a signed-in page watching it. */
export function hostileBookTab(fileName: string, title: string, epub: () => Uint8Array): HostileBookTab {
  let browser: Browser | undefined;
  const tab = {
    pwnedRequests: [] as string[],
    dialogs: [] as string[],
    async marker() {
      await tab.page.goto('/library/');
      return tab.page.evaluate((key) => localStorage.getItem(key), HOSTILE_MARKER_KEY);
    },
  } as HostileBookTab;
  beforeAll(async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-hostile-')), fileName);
    fs.writeFileSync(file, epub());
    importBook(inject('dataDir'), file);
    let page: Page;
    ({ browser, page } = await openPage({ width: 1280, height: 800 }));
    tab.page = page;
    page.context().on('request', (r) => {
      if (r.url().includes(HOSTILE_FETCH_PATH.split('?')[0]!) && r.url().includes('pwned=')) tab.pwnedRequests.push(r.url());
    });
    page.on('dialog', (d) => {
      tab.dialogs.push(d.message());
      void d.dismiss();
    });
    // Signed in: a payload that ran would reach the profile with the reader's session.
    await signInAsDemo(page);
    const list = await (await page.request.get('/api/v1/book/?page_size=100')).json();
    const book = list.results.find((b: { title: string }) => b.title === title);
    expect(book).toBeTruthy();
    tab.bookId = book.book_id;
    tab.chapterWebUrl = (await (await page.request.get(book.api_url)).json()).chapters[0].web_url;
  });
  afterAll(() => browser?.close());
  return tab;
}
