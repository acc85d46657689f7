/**
 * docs/decisions.md "Annotation defaults" and "A chapter that is not well-formed" in Chromium: a chapter that is not
 * well-formed XML shown recovered with its quiet notice (at 1280 and 390 px), its import warning in the console's title
 * page; the page's declared highlight privacy (public by default, or forced private with the Public option disabled);
 * whitespace-only text never painted by a highlight. The book it imports is retired at the end (the catalog's first
 * page stays as other files expect).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ANNOTATION_MESSAGES, CONSOLE_MESSAGES, HIGHLIGHT_PRIVACY_ATTRIBUTES, READING_MESSAGES, highlightPrivacyAttributes } from '@lectern/core';
import { BROKEN_PATH, BROKEN_TITLE, BROKEN_WORDS, GOOD_WORDS, SPACED, brokenChapterEpub } from '../packages/server/test/fixtures/broken-chapter.ts';
import { importBook, lecternCli } from '../scripts/fresh-server.ts';
import { launchBrowser, seriousViolations, signedInContexts } from './browser.ts';

const SHOTS = process.env.E2E_SHOTS_DIR ?? '/tmp';
const PASSWORD = 'a long enough password';
const shown = (page: Page) => page.frameLocator('iframe.chapter-view__frame:not(.chapter-view__spare)');

let bookId = '';

beforeAll(() => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-broken-'));
  const file = path.join(folder, 'broken.epub');
  fs.writeFileSync(file, brokenChapterEpub('urn:uuid:5a1e0c3e-0000-4000-8000-0000000e2e24'));
  const out = importBook(inject('dataDir'), file);
  fs.rmSync(folder, { recursive: true, force: true });
  bookId = new RegExp(`imported\\s+(\\S+)\\s+"${BROKEN_TITLE}"`).exec(out)?.[1] ?? '';
  if (!bookId) throw new Error(`the book was not imported: ${out}`);
});

/** Selects, in the chapter's frame, from the start of `from` to the end of `to` (text nodes holding them). */
function select(page: Page, from: string, to: string) {
  return page.evaluate(
    ([from, to]) => {
      const frame = Array.from(document.querySelectorAll<HTMLIFrameElement>('iframe.chapter-view__frame')).find((f) => getComputedStyle(f).visibility !== 'hidden')!;
      const doc = frame.contentDocument!;
      const walker = doc.createTreeWalker(doc.getElementById('lectern-root')!, NodeFilter.SHOW_TEXT);
      const texts: Text[] = [];
      for (let t = walker.nextNode(); t; t = walker.nextNode()) texts.push(t as Text);
      const a = texts.find((t) => t.data.includes(from))!;
      const b = texts.find((t) => t.data.includes(to))!;
      const range = doc.createRange();
      range.setStart(a, a.data.indexOf(from));
      range.setEnd(b, b.data.indexOf(to) + to.length);
      doc.getSelection()!.removeAllRanges();
      doc.getSelection()!.addRange(range);
      return range.toString();
    },
    [from, to] as const,
  );
}

/** What the frame's highlights paint: the text of each range of the Highlight API's plain highlights. */
function painted(page: Page) {
  return page.evaluate(() => {
    const frame = Array.from(document.querySelectorAll<HTMLIFrameElement>('iframe.chapter-view__frame')).find((f) => getComputedStyle(f).visibility !== 'hidden')!;
    const win = frame.contentWindow as unknown as { CSS: { highlights: Map<string, Set<Range>> } };
    return Array.from(win.CSS.highlights.get('lectern-highlight') ?? []).map((r) => r.toString());
  });
}

/** Declares highlight privacy on the page's document element, as the server does from HIGHLIGHT_PRIVACY. */
function declare(page: Page, setting: 'private' | 'public' | 'private-only') {
  return page.evaluate(
    ([names, attrs]) => {
      for (const n of names) document.documentElement.removeAttribute(n);
      for (const [n, v] of Object.entries(attrs)) document.documentElement.setAttribute(n, v);
    },
    [Object.values(HIGHLIGHT_PRIVACY_ATTRIBUTES), highlightPrivacyAttributes(setting)] as const,
  );
}

const created = (page: Page) => page.waitForResponse((r: Response) => r.request().method() === 'POST' && /\/annotations\/?$/.test(new URL(r.url()).pathname));

describe('broken chapters and annotation defaults', () => {
  let browser: Browser;
  const reader = `defaults-${Date.now()}@example.com`;
  const operator = `defaults-admin-${Date.now()}@example.com`;
  const sessions = signedInContexts(() => browser);
  let chapterUrl: (href: string) => string = () => '';

  beforeAll(async () => {
    lecternCli(inject('dataDir'), ['users:create', '--email', reader, '--password', PASSWORD, '--status', 'subscriber']);
    lecternCli(inject('dataDir'), ['users:create', '--email', operator, '--password', PASSWORD, '--role', 'admin']);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await sessions.closeAll();
    await browser?.close();
  });

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    it(`shows a chapter that is not well-formed, recovered, with a quiet notice (${viewport.width} px)`, async () => {
      const { page, dialogs } = await sessions.open(reader, PASSWORD, viewport);
      const book = await (await page.request.get(`/api/v1/book/${encodeURIComponent(bookId)}/`)).json();
      const urls = new Map<string, string>(book.chapters.map((c: { full_path: string; web_url: string }) => [c.full_path, c.web_url]));
      chapterUrl = (href) => urls.get(href)!;
      await page.goto(chapterUrl(BROKEN_PATH));
      await shown(page).getByText(BROKEN_WORDS).waitFor();
      // recovered as HTML: the open paragraph ended where the next began, the line break kept
      await expect.poll(() => shown(page).locator('#lectern-root p').count()).toBe(2);
      expect(await shown(page).locator('#lectern-root br').count()).toBe(1);
      const notice = page.getByRole('status').filter({ hasText: READING_MESSAGES.bookHasError });
      await notice.waitFor();
      // nothing of the chapter's script ran, no handler kept
      expect(await shown(page).locator('[onclick], script').count()).toBe(0);
      expect(dialogs).toEqual([]);
      // on the screen, clear of nothing wider than the window
      const box = (await notice.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: `${SHOTS}/broken-chapter-${viewport.width}.png` });
      await notice.getByRole('button', { name: READING_MESSAGES.hideNotice }).click();
      await expect.poll(() => notice.count()).toBe(0);
      // a well-formed chapter says nothing
      await page.goto(chapterUrl('good.xhtml'));
      await shown(page).getByText(GOOD_WORDS).waitFor();
      expect(await page.getByText(READING_MESSAGES.bookHasError).count()).toBe(0);
    });
  }

  it("shows the importer's warning and the recovered chapter in the console's title page", async () => {
    const { page } = await sessions.open(operator, PASSWORD, { width: 1280, height: 800 });
    await page.goto(`/admin/titles/${encodeURIComponent(bookId)}/`);
    const section = page.getByRole('region', { name: CONSOLE_MESSAGES.importWarningsHeading });
    await section.getByText(`${BROKEN_PATH} is not well-formed XHTML`, { exact: false }).waitFor();
    await section.getByRole('list', { name: 'Chapters shown recovered' }).getByText('A Broken Chapter', { exact: false }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/title-import-warnings-1280.png` });
  });

  it('makes new highlights public when the page declares it, and forces notes private with Public disabled', async () => {
    const { page } = await sessions.open(reader, PASSWORD, { width: 1280, height: 800 });
    await page.goto(chapterUrl('good.xhtml'));
    await shown(page).getByText(GOOD_WORDS).waitFor();
    const adder = page.getByRole('toolbar', { name: 'Annotate the selection' });

    // public declared: Add Highlight saves a public highlight
    await declare(page, 'public');
    await select(page, 'The first', 'chapter');
    let answer = created(page);
    await adder.getByRole('button', { name: 'Add Highlight' }).click();
    expect((await (await answer).json()).is_public).toBe(true);

    // private-only declared: the editor's Public box is off, disabled and explained; the note saves private
    await declare(page, 'private-only');
    await select(page, 'More well-formed', 'words');
    await adder.getByRole('button', { name: 'Add Note' }).click();
    const editor = page.getByRole('dialog', { name: 'Add note' });
    const box = editor.getByRole('checkbox', { name: ANNOTATION_MESSAGES.publicOption });
    expect(await box.isChecked()).toBe(false);
    expect(await box.isDisabled()).toBe(true);
    await editor.getByText(ANNOTATION_MESSAGES.forcedPrivate).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/annotation-forced-private-1280.png` });
    await editor.getByPlaceholder(ANNOTATION_MESSAGES.notePlaceholder).fill('kept to myself');
    answer = created(page);
    await editor.getByRole('button', { name: 'Save' }).click();
    expect((await (await answer).json()).is_public).toBe(false);
    await declare(page, 'private');
  });

  it('never paints whitespace-only text: two words with a space between them are two painted ranges', async () => {
    const { page } = await sessions.open(reader, PASSWORD, { width: 390, height: 844 });
    await page.goto(chapterUrl('good.xhtml'));
    await shown(page).getByText(GOOD_WORDS).waitFor();
    const quote = await select(page, SPACED.first, SPACED.second);
    expect(quote).toBe(`${SPACED.first} ${SPACED.second}`);
    const adder = page.getByRole('toolbar', { name: 'Annotate the selection' });
    const answer = created(page);
    await adder.getByRole('button', { name: 'Add Highlight' }).click();
    expect((await (await answer).json()).quote).toBe(quote);
    await expect.poll(() => painted(page)).toEqual(expect.arrayContaining([SPACED.first, SPACED.second]));
    expect((await painted(page)).filter((t) => !t.trim())).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/annotation-spaced-390.png` });
  });

  // Last: the book leaves the catalog (other files read its first page), still open by its address.
  it('retires the book it imported', () => {
    expect(lecternCli(inject('dataDir'), ['titles:retire', bookId])).toMatch(/retired/i);
  });
});
