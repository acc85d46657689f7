/**
 * The reading position follows the account, and Start opens what a visitor may read (docs/decisions.md
 * "Positions"): a reader leaves a chapter deep in one browser, opens a fresh one, signs in, and Continue on the
 * book's card lands on the same chapter and paragraph; an anonymous visitor's Start opens the sample, whose end
 * names the next chapter and offers to sign in.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { epubBook, PNG } from '../packages/server/test/ingest/helpers.ts';
import { importBook, signIn } from '../scripts/fresh-server.ts';
import { animationsSettled, launchBrowser, loadCatalogUntil, seriousViolations } from './browser.ts';

const baseURL = inject('baseURL');
const viewport = { width: 1280, height: 800 };
const SHOTS = process.env.E2E_SHOTS_DIR;

interface BookDetail {
  book_id: string;
  title: string;
  url: string;
  chapters: { full_path: string; web_url: string; label: string; as_sample: boolean; is_public: boolean }[];
}

/** An account of this spec's own (the demo account's positions belong to the other specs), made as an operator does. */
function createReader(email: string, password: string) {
  execFileSync(process.execPath, ['--import', 'tsx', 'packages/server/src/cli/main.ts', 'users:create', '--email', email, '--password', password, '--status', 'subscriber'], {
    cwd: path.resolve(import.meta.dirname, '..'),
    env: { ...process.env, DATA_DIR: inject('dataDir'), DATABASE_URL: '', LOG_LEVEL: 'silent' },
    stdio: 'pipe',
  });
}

async function warOfTheWorlds(page: Page): Promise<BookDetail> {
  const list = await (await page.request.get('/api/v1/book/?page_size=50')).json();
  const book = list.results.find((b: { title: string }) => /War of the Worlds/.test(b.title));
  return (await page.request.get(book.api_url)).json();
}

const frameOf = (page: Page) => page.frameLocator('iframe.chapter-view__frame');

/** The text of the block (paragraph, heading, list item) that holds the first character in view of the chapter. */
function firstVisibleParagraph(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame');
    const doc = frame?.contentDocument;
    const root = doc?.getElementById('lectern-root');
    if (!doc || !root || getComputedStyle(frame!).visibility === 'hidden') return null;
    const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const range = doc.createRange();
    for (let n = walker.nextNode() as Text | null; n; n = walker.nextNode() as Text | null) {
      if (!n.data.trim()) continue;
      range.selectNodeContents(n);
      if (!Array.from(range.getClientRects()).some((r) => r.top + r.height / 2 >= 0 && r.top < frame!.clientHeight)) continue;
      const block = n.parentElement?.closest('p, h1, h2, h3, h4, li, blockquote, pre, div');
      return (block?.textContent ?? n.data).replace(/\s+/g, ' ').trim().slice(0, 200);
    }
    return null;
  });
}

describe('the reading position follows the account', () => {
  let browser: Browser;
  const email = `positions-${Date.now()}@example.com`;
  const password = 'a long enough password';

  beforeAll(async () => {
    createReader(email, password);
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it('lands on the same chapter and paragraph in a fresh browser, from the card and from the title page', async () => {
    // First browser: read deep into a long chapter.
    const first = await browser.newContext({ baseURL, viewport });
    const a = await first.newPage();
    a.setDefaultTimeout(15_000);
    await signIn(a, email, password);
    const book = await warOfTheWorlds(a);
    const i = book.chapters.findIndex((c) => /Chapter 1\b/.test(c.label));
    const chapter = book.chapters[i + 2]!;
    await a.goto(chapter.web_url);
    await expect.poll(async () => (await frameOf(a).locator('body').innerText()).length).toBeGreaterThan(3000);
    // The position sent 2 s after the scroll (the one of the chapter's top may have gone before it).
    const saved = a.waitForResponse(
      (r) =>
        r.url().endsWith(`/api/v1/book/${book.book_id}/position/`) &&
        r.request().method() === 'PUT' &&
        r.status() === 200 &&
        (r.request().postDataJSON() as { locator: { progression: number } }).locator.progression > 0.4,
    );
    await a.evaluate(() => {
      const doc = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentDocument!;
      const s = doc.scrollingElement!;
      s.scrollTop = Math.round(s.scrollHeight * 0.62);
    });
    const stored = (await (await saved).json()).position;
    expect(stored.locator.href).toBe(chapter.full_path);
    expect(stored.locator.progression).toBeGreaterThan(0.4);
    const leftAt = await firstVisibleParagraph(a);
    expect(leftAt).toBeTruthy();
    await first.close();

    // A fresh browser (a phone: where the same percentage is another paragraph): nothing stored locally. The
    // catalog card says Continue and leads to the chapter, and the reader to the same words.
    const second = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 } });
    const b = await second.newPage();
    b.setDefaultTimeout(15_000);
    await signIn(b, email, password);
    // (the suite's other specs import titles of their own: the card may be past the catalog's first page)
    const card = await loadCatalogUntil(b, `Continue ${book.title}`);
    expect(await card.getAttribute('href')).toBe(chapter.web_url);
    if (SHOTS) {
      await card.scrollIntoViewIfNeeded();
      await b.screenshot({ path: `${SHOTS}/catalog-continue.png` });
    }
    await card.click();
    await b.waitForURL((u) => u.pathname === chapter.web_url);
    await expect.poll(() => firstVisibleParagraph(b), { timeout: 15_000 }).toBe(leftAt);

    // The title page of a third browser: Continue leads there too, and the chapter-less reader address as well.
    const third = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 } });
    const c = await third.newPage();
    c.setDefaultTimeout(15_000);
    await signIn(c, email, password);
    await c.goto(book.url);
    const cont = c.getByRole('link', { name: 'Continue', exact: true });
    expect(await cont.getAttribute('href')).toBe(chapter.web_url);
    if (SHOTS) await c.screenshot({ path: `${SHOTS}/title-continue-390.png` });
    expect(await seriousViolations(c)).toEqual([]);
    await c.goto(new URL(chapter.web_url, baseURL).pathname.replace(/[^/]+$/, ''));
    await c.waitForURL((u) => u.pathname === chapter.web_url);
    await expect.poll(() => frameOf(c).locator('body').innerText().then((t) => t.length), { timeout: 15_000 }).toBeGreaterThan(3000);
    await second.close();
    await third.close();
  });
});

describe('Start for a visitor who may not read the book', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  for (const size of [viewport, { width: 390, height: 844 }]) {
    it(`opens the sample, whose end names the next chapter and offers to sign in (${size.width} px)`, async () => {
      const context = await browser.newContext({ baseURL, viewport: size });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      const book = await warOfTheWorlds(page);
      const sampleIndex = book.chapters.findIndex((ch) => ch.as_sample);
      const sample = book.chapters[sampleIndex]!;
      const next = book.chapters[sampleIndex + 1]!;
      await page.goto('/library/');
      const start = await loadCatalogUntil(page, `Start ${book.title}`);
      expect(await start.getAttribute('href')).toBe(sample.web_url);
      await start.click();
      await page.waitForURL((u) => u.pathname === sample.web_url);
      await expect.poll(async () => (await frameOf(page).locator('body').innerText()).length).toBeGreaterThan(100);
      expect(await page.getByText('You must be signed in to read this book.').count()).toBe(0);

      const bridge = page.locator('.sample-bridge');
      // To the end of the chapter, again until the bridge shows: on a busy machine the chapter may still be laid out
      // (its stylesheets, the second frame) when the first scroll lands.
      await expect
        .poll(
          async () => {
            await page.evaluate(() => {
              const doc = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentDocument!;
              doc.scrollingElement!.scrollTop = doc.scrollingElement!.scrollHeight;
            });
            return bridge.isVisible();
          },
          { timeout: 15_000 },
        )
        .toBe(true);
      expect(await bridge.innerText()).toContain("That's the end of the sample.");
      expect(await bridge.innerText()).toContain(`Next: ${next.label}.`);
      const signInLink = bridge.getByRole('link', { name: 'Sign in to keep reading' });
      expect(await signInLink.getAttribute('href')).toBe(`/login/?${new URLSearchParams({ next: next.web_url })}`);
      if (SHOTS) {
        await animationsSettled(page); // the bar's slide-in
        await page.screenshot({ path: `${SHOTS}/sample-bridge-${size.width}.png` });
      }
      expect(await seriousViolations(page)).toEqual([]);
      await context.close();
    });
  }
});

/** The page of the PDF at the top of its view (1-based), or 0 before any page is laid out. */
function pdfPageInView(page: Page): Promise<number> {
  return page.evaluate(() => {
    const el = document.querySelector<HTMLElement>('.reader-pdf');
    if (!el) return 0;
    const pages = Array.from(el.querySelectorAll<HTMLElement>('.reader-pdf__page'));
    const top = el.scrollTop + el.clientHeight / 3;
    const hit = pages.find((p) => p.offsetTop <= top && p.offsetTop + p.offsetHeight > top);
    return hit ? Number(hit.dataset.page) : 0;
  });
}

describe('a PDF position follows the account', () => {
  let browser: Browser;
  const email = `positions-pdf-${Date.now()}@example.com`;
  const password = 'a long enough password';

  beforeAll(async () => {
    createReader(email, password);
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it('reads to page 3 in one browser and lands on page 3 in a fresh one', async () => {
    const first = await browser.newContext({ baseURL, viewport });
    const a = await first.newPage();
    a.setDefaultTimeout(15_000);
    await signIn(a, email, password);
    const list = await (await a.request.get('/api/v1/book/?page_size=50')).json();
    const doc = list.results.find((b: { content_format: string }) => b.content_format === 'document');
    await a.goto(doc.continue_url);
    await a.getByRole('img', { name: 'Page 1' }).waitFor();
    await expect.poll(() => pdfPageInView(a)).toBe(1);
    const saved = a.waitForResponse(
      (r) =>
        r.url().endsWith(`/api/v1/book/${doc.book_id}/position/`) &&
        r.request().method() === 'PUT' &&
        r.status() === 200 &&
        (r.request().postDataJSON() as { locator: { progression: number } }).locator.progression > 0.6,
    );
    // To page 3, a little way into it.
    await a.evaluate(() => {
      const el = document.querySelector<HTMLElement>('.reader-pdf')!;
      const p3 = el.querySelector<HTMLElement>('.reader-pdf__page[data-page="3"]')!;
      el.scrollTop = p3.offsetTop + 40;
    });
    const stored = (await (await saved).json()).position;
    // The position is counted in pages: page 3 of 3 starts at 2/3.
    expect(stored.locator.progression).toBeGreaterThan(2 / 3);
    expect(stored.locator.progression).toBeLessThan(0.8);
    await first.close();

    // A fresh browser on a phone (another zoom: the same scroll fraction would be another place).
    const second = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 } });
    const b = await second.newPage();
    b.setDefaultTimeout(15_000);
    await signIn(b, email, password);
    const card = b.getByRole('link', { name: `Continue ${doc.title}` });
    await card.click();
    await b.getByRole('img', { name: 'Page 3' }).waitFor({ state: 'attached' });
    await expect.poll(() => pdfPageInView(b), { timeout: 15_000 }).toBe(3);
    if (SHOTS) await b.screenshot({ path: `${SHOTS}/pdf-position-390.png` });
    await second.close();
  });

  it('opens a chapter of pictures alone, seen whole on a desktop, at its start on a phone', async () => {
    // Six plates side by side: one screen at 1280 px, a column of them (two pages and more) at 390 px. No words
    // to find them by again: the position is its percentage alone.
    const title = 'Plates Without Words';
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-plates-'));
    const file = path.join(folder, 'plates.epub');
    const plate = (n: number) => `<img src="plate.png" alt="" width="180" height="220" id="plate-${n}"/>`;
    fs.writeFileSync(
      file,
      epubBook({
        identifier: 'urn:uuid:5a1e0c3e-0000-4000-8000-0000000000d1',
        title,
        manifest: ['<item id="plate" href="plate.png" media-type="image/png"/>'],
        files: { 'plate.png': PNG },
        chapters: [
          { path: 'plates.xhtml', label: 'Plates', body: `<div>${Array.from({ length: 6 }, (_, i) => plate(i + 1)).join(' ')}</div>` },
          { path: 'text.xhtml', label: 'Text', body: '<h1>Text</h1><p>The words after the plates.</p>' },
        ],
      }),
    );
    const bookId = new RegExp(`imported\\s+(\\S+)\\s+"${title}"`).exec(importBook(inject('dataDir'), file))?.[1] ?? '';
    fs.rmSync(folder, { recursive: true, force: true });
    expect(bookId).not.toBe('');

    const first = await browser.newContext({ baseURL, viewport });
    const a = await first.newPage();
    a.setDefaultTimeout(15_000);
    await signIn(a, email, password);
    const book = (await (await a.request.get(`/api/v1/book/${bookId}/`)).json()) as BookDetail;
    const footer = (p: Page) => p.locator('.reader-footer__text').textContent();
    const saved = a.waitForResponse((r) => r.url().endsWith(`/api/v1/book/${bookId}/position/`) && r.request().method() === 'PUT' && r.status() === 200);
    await a.goto(book.chapters[0]!.web_url);
    // seen whole (the footer says all of it is read); where the reader is, is its start
    await expect.poll(() => footer(a)).toBe('100%');
    expect((await (await saved).json()).position.locator.progression).toBe(0);
    await first.close();

    const second = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 } });
    const b = await second.newPage();
    b.setDefaultTimeout(15_000);
    await signIn(b, email, password);
    await b.goto(book.url);
    await b.getByRole('link', { name: /^Continue/ }).first().click();
    await b.waitForURL((u) => decodeURIComponent(u.pathname).endsWith('/plates.xhtml'));
    const scroller = () => b.evaluate(() => {
      const s = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentDocument!.scrollingElement!;
      return { top: s.scrollTop, range: s.scrollHeight - s.clientHeight };
    });
    await expect.poll(async () => (await scroller()).range).toBeGreaterThan(200);
    await expect.poll(() => footer(b)).toBe('0%');
    expect((await scroller()).top).toBe(0);
    await second.close();
  });
});
