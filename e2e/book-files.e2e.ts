/**
 * A hostile book's own files opened straight in a tab of Chromium, the way an attacker would send a reader a link:
 * HTML and XHTML outside the reading order, a script, scripted SVGs (one of them the cover), XML with a stylesheet
 * instruction, an HTML page declared as a PNG. Each would, if it ran on the app's origin, write a marker into
 * localStorage and call the API (packages/server/test/fixtures/hostile-files.ts). Nothing may run. The reader still
 * shows the book's plain SVG and PNG images.
 */
import { describe, expect, it } from 'vitest';
import { HOSTILE_FILES_TITLE, HOSTILE_MARKER_KEY, HOSTILE_RESOURCES, hostileFilesEpub } from '../packages/server/test/fixtures/hostile-files.ts';
import { hostileBookTab } from './hostile-book.ts';

describe('a hostile book\'s files opened in a tab', () => {
  const tab = hostileBookTab('hostile-files.epub', HOSTILE_FILES_TITLE, hostileFilesEpub);
  const { pwnedRequests, dialogs } = tab;
  const marker = () => tab.marker();

  it('runs nothing, whichever file is opened, with or without ?download=1, and the cover', async () => {
    const { page, bookId } = tab;
    const urls = [
      ...HOSTILE_RESOURCES.flatMap((r) => [`/api/v1/book/${bookId}/chapter/${r.path}`, `/api/v1/book/${bookId}/chapter/${r.path}?download=1`]),
      `/api/v1/book/${bookId}/cover`,
    ];
    const titles: string[] = [];
    const unsandboxed: string[] = [];
    const ran: string[] = [];
    for (const url of urls) {
      const response = await page.goto(url, { waitUntil: 'load' });
      expect(response?.status(), url).toBe(200);
      if (!/^sandbox;/.test(response?.headers()['content-security-policy'] ?? '')) unsandboxed.push(url);
      titles.push(await page.title());
      // A script of the file, had it run, left a marker in this document's storage (an opaque origin throws).
      const here = await page.evaluate((key) => {
        try {
          return localStorage.getItem(key);
        } catch {
          return 'opaque';
        }
      }, HOSTILE_MARKER_KEY);
      if (here !== null && here !== 'opaque') ran.push(`${url}: ${here}`);
    }
    expect(titles.filter((t) => t.startsWith('PWNED'))).toEqual([]);
    expect(ran).toEqual([]);
    expect(pwnedRequests).toEqual([]);
    expect(dialogs).toEqual([]);
    expect(await marker()).toBeNull();
    expect(unsandboxed).toEqual([]);
  });

  it('still shows the book\'s SVG and PNG images in the reader', async () => {
    const { page, chapterWebUrl } = tab;
    await page.goto(chapterWebUrl);
    await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
    const frame = page.frameLocator('iframe.chapter-view__frame');
    for (const id of ['#plain-svg', '#pixel']) {
      await expect.poll(() => frame.locator(id).evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), { timeout: 10_000 }).toBe(true);
    }
    expect(pwnedRequests).toEqual([]);
    expect(await marker()).toBeNull();
  });
});
