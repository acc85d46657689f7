/**
 * Highlights and notes on a PDF (docs/decisions.md "Annotations in the reader"): made on a page's text layer, stored
 * with the page they are on (a W3C FragmentSelector `page=N`), drawn again on that page in a fresh browser and after a
 * zoom rebuilds the text layer; a content creator's highlight covers the whole page (reader.md §6).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ANNOTATION_MESSAGES, PDF_FRAGMENT_SPEC } from '@lectern/core';
import { lecternCli } from '../scripts/fresh-server.ts';
import { launchBrowser, seriousViolations, signedInContexts } from './browser.ts';
import { FIELD_MANUAL_PAGE_WORDS } from './global-setup.ts';

const password = 'a long enough password';

/** Selects `word` in the text layer of page `n` once that layer is in place; returns the page's whole text. */
async function selectOnPage(page: Page, n: number, word: string): Promise<string> {
  // Pages are drawn as they come near the view.
  await page.locator(`.reader-pdf__page[data-page="${n}"]`).evaluate((el) => el.scrollIntoView({ block: 'start' }));
  const layer = page.locator(`.reader-pdf__page[data-page="${n}"] .reader-pdf__text[data-text-ready]`);
  await layer.waitFor({ state: 'attached' });
  return layer.evaluate((root, word) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode() as Text | null; t; t = walker.nextNode() as Text | null) {
      const at = t.data.indexOf(word);
      if (at < 0) continue;
      const range = document.createRange();
      range.setStart(t, at);
      range.setEnd(t, at + word.length);
      document.getSelection()!.removeAllRanges();
      document.getSelection()!.addRange(range);
      return root.textContent ?? '';
    }
    throw new Error(`${word} is not on the page`);
  }, word);
}

/** What the app's window paints as highlights and notes: each range's text, notes marked. */
const drawn = (page: Page) =>
  page.evaluate(() => {
    const registry = (window as unknown as { CSS: { highlights: Map<string, Set<Range>> } }).CSS.highlights;
    const live = (name: string) => [...(registry.get(name) ?? [])].filter((r) => r.startContainer.isConnected).map((r) => r.toString());
    return [...live('lectern-highlight'), ...live('lectern-note').map((t) => `note:${t}`)];
  });

/** The reader's own annotations of the book, as the store has them. */
const stored = (page: Page, bookId: string) =>
  page.evaluate(async (bookId) => {
    const token = await (await fetch('/auth/token')).text();
    const res = await fetch(`/nest/api/a/book/${encodeURIComponent(bookId)}/search?limit=50`, { headers: { 'x-annotator-auth-token': token } });
    return (await res.json()).rows as { quote: string; text: string; selectors: { type: string; value?: string; conformsTo?: string }[] }[];
  }, bookId);

describe('highlights and notes on a PDF', () => {
  let browser: Browser;
  const stamp = Date.now();
  const reader = `pdf-notes-${stamp}@example.com`;
  const creator = `pdf-creator-${stamp}@example.com`;
  let doc: { continue_url: string; book_id: string };

  const sessions = signedInContexts(() => browser);
  const open = async (email: string, viewport: { width: number; height: number }) => (await sessions.open(email, password, viewport)).page;

  beforeAll(async () => {
    const dataDir = inject('dataDir');
    lecternCli(dataDir, ['users:create', '--email', reader, '--password', password, '--status', 'subscriber']);
    lecternCli(dataDir, ['users:create', '--email', creator, '--password', password, '--status', 'subscriber', '--role', 'content-creator']);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await sessions.closeAll();
    await browser?.close();
  });

  it('notes words on a page, and finds them on that page in a fresh browser and after a zoom', async () => {
    const page = await open(reader, { width: 1280, height: 800 });
    const list = await (await page.request.get('/api/v1/book/?page_size=50')).json();
    doc = list.results.find((b: { content_format: string }) => b.content_format === 'document');
    await page.goto(doc.continue_url);
    const word = FIELD_MANUAL_PAGE_WORDS[1]!;
    await selectOnPage(page, 2, word);
    const adder = page.getByRole('toolbar', { name: 'Annotate the selection' });
    await adder.getByRole('button', { name: 'Add Note' }).click();
    const editor = page.getByRole('dialog', { name: 'Add note' });
    await expect.poll(() => editor.locator('blockquote').textContent()).toBe(word);
    await editor.getByPlaceholder(ANNOTATION_MESSAGES.notePlaceholder).fill('Spread on **page two**');
    await editor.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => editor.count()).toBe(0);
    await expect.poll(() => drawn(page)).toEqual([`note:${word}`]);
    const [note] = await stored(page, doc.book_id);
    expect(note!.quote).toBe(word);
    expect(note!.selectors).toContainEqual({ type: 'FragmentSelector', conformsTo: PDF_FRAGMENT_SPEC, value: 'page=2' });

    // A fresh browser on a phone: drawn on page 2 (only there: page 1 has no such words), and the viewer opens on it.
    const phone = await open(reader, { width: 390, height: 844 });
    await phone.goto(doc.continue_url);
    await phone.locator('.reader-pdf__page[data-page="2"]').scrollIntoViewIfNeeded();
    await expect.poll(() => drawn(phone)).toEqual([`note:${word}`]);
    // The pages around it are drawn as they come into view and may move it: measure and tap until the viewer opens.
    const viewer = phone.getByRole('dialog', { name: 'Note' });
    await expect
      .poll(
        async () => {
          const box = await phone.evaluate((word) => {
            const registry = (window as unknown as { CSS: { highlights: Map<string, Set<Range>> } }).CSS.highlights;
            const range = [...registry.get('lectern-note')!].find((r) => r.toString() === word)!;
            const r = range.getBoundingClientRect();
            return { x: r.left + r.width / 2, y: r.top + r.height / 2, page: range.startContainer.parentElement!.closest<HTMLElement>('.reader-pdf__page')!.dataset.page };
          }, word);
          expect(box.page).toBe('2');
          await phone.mouse.click(box.x, box.y);
          // the viewer with its note drawn (the Markdown's <strong>), read in the same try: under CI's load a viewer
          // seen open may have gone again before a separate read of its text
          return viewer.locator('strong').textContent({ timeout: 1500 }).catch(() => null);
        },
        { timeout: 30_000 },
      )
      .toBe('page two');
    expect(await seriousViolations(phone)).toEqual([]);
    await phone.keyboard.press('Escape');

    // A zoom draws the pages and their text layers again: the note is drawn on the new text.
    await page.getByRole('button', { name: 'Display settings' }).click();
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await page.keyboard.press('Escape');
    await expect.poll(() => drawn(page)).toEqual([`note:${word}`]);
  });

  it("expands a content creator's highlight to the whole page (reader.md §6)", async () => {
    const page = await open(creator, { width: 1280, height: 800 });
    await page.goto(doc.continue_url);
    const pageText = await selectOnPage(page, 3, FIELD_MANUAL_PAGE_WORDS[2]!);
    const adder = page.getByRole('toolbar', { name: 'Annotate the selection' });
    await adder.getByRole('button', { name: 'Add Highlight' }).click();
    await expect.poll(() => adder.count()).toBe(0);
    const [highlight] = await stored(page, doc.book_id);
    expect(highlight!.quote).toBe(pageText);
    expect(highlight!.quote).toContain('Lectern Field Manual, page 3');
    expect(highlight!.selectors).toContainEqual({ type: 'FragmentSelector', conformsTo: PDF_FRAGMENT_SPEC, value: 'page=3' });
    await expect.poll(() => drawn(page)).toEqual([pageText]);
  });
});
