/**
 * Highlights survive a re-import with edits (reader.md §4 "Annotations"; docs/decisions.md "Catalog and import"). A
 * reader highlights and notes words of a small EPUB through the reader; the operator publishes a corrected edition with
 * `import <file> --replace <book_id>` (a paragraph inserted before the first highlight, a word changed beside the note,
 * the third highlight's words deleted). A fresh browser (desktop, then a phone) draws the first two on exactly their
 * words in the new text, does not draw the third and lists it in the notes panel as orphaned; the Markdown export still
 * holds all three.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ANNOTATION_MESSAGES } from '@lectern/core';
import { epubBook } from '../packages/server/test/ingest/helpers.ts';
import { importBook, lecternCli } from '../scripts/fresh-server.ts';
import { launchBrowser, seriousViolations, signedInContexts } from './browser.ts';

const stamp = Date.now();
const TITLE = `The Keeper's Ledger ${stamp}`;
const IDENTIFIER = `urn:uuid:7e1a0c3e-0000-4000-8000-${String(stamp).padStart(12, '0').slice(-12)}`;

const A = 'a ledger of every vessel';
const B = 'counted the waves';
const C = 'the wreck of the Albatross';
const INSERTED = 'A paragraph the second edition adds: the keeper also kept bees on the headland behind the tower.';

/** Chapter 1 of either edition: the second inserts a paragraph before A's, changes "storms" to "gales" beside B, deletes C. */
function chapterOne(second: boolean): string {
  return [
    '<h1>The Keeper</h1>',
    '<p>The lighthouse keeper rose before dawn every morning to trim the wicks and polish the great lens that guided ships home.</p>',
    second ? `<p>${INSERTED}</p>` : '',
    `<p>She kept ${A} that passed the point, noting its flag, its cargo and the hour it rounded the rocks.</p>`,
    `<p>In winter the ${second ? 'gales' : 'storms'} came in from the north and the keeper ${B} that broke against the tower walls.</p>`,
    second
      ? '<p>Nobody in the village spoke of it except the old ferryman, who told his story differently each time.</p>'
      : `<p>Nobody in the village remembered ${C} except the old ferryman, who told his story differently each time.</p>`,
    '<p>When spring came the keeper painted the gallery rail white again and wrote to the harbour master for more oil.</p>',
  ].join('\n');
}

function edition(second: boolean): Uint8Array {
  return epubBook({
    identifier: IDENTIFIER,
    title: TITLE,
    creator: 'The Lectern Team',
    modified: second ? '2024-06-01T00:00:00Z' : '2024-01-01T00:00:00Z',
    chapters: [
      { path: 'text/one.xhtml', label: 'The Keeper', body: chapterOne(second) },
      { path: 'text/two.xhtml', label: 'The Harbour', body: '<h1>The Harbour</h1><p>The harbour master answered in a week, and the oil came by the Thursday boat.</p>' },
    ],
  });
}

const shown = (page: Page) => page.frameLocator('iframe.chapter-view__frame:not(.chapter-view__spare)');

/** Selects the first occurrence of `words` in the visible chapter frame, as a reader's drag would. */
async function select(page: Page, words: string): Promise<void> {
  const got = await page.evaluate((words) => {
    const frame = Array.from(document.querySelectorAll<HTMLIFrameElement>('iframe.chapter-view__frame')).find((f) => getComputedStyle(f).visibility !== 'hidden')!;
    const doc = frame.contentDocument!;
    const walker = doc.createTreeWalker(doc.getElementById('lectern-root')!, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode() as Text | null; t; t = walker.nextNode() as Text | null) {
      const at = t.data.indexOf(words);
      if (at < 0) continue;
      const range = doc.createRange();
      range.setStart(t, at);
      range.setEnd(t, at + words.length);
      doc.getSelection()!.removeAllRanges();
      doc.getSelection()!.addRange(range);
      return range.toString();
    }
    return null;
  }, words);
  expect(got).toBe(words);
}

/** What the visible frame draws: highlights' text, then notes' as `note:` text (the CSS Custom Highlight registry). */
function drawn(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const frame = Array.from(document.querySelectorAll<HTMLIFrameElement>('iframe.chapter-view__frame')).find((f) => getComputedStyle(f).visibility !== 'hidden')!;
    const registry = (frame.contentWindow as unknown as { CSS: { highlights: Map<string, Set<Range>> } }).CSS.highlights;
    return [...(registry.get('lectern-highlight') ?? [])]
      .map((r) => r.toString())
      .sort()
      .concat([...(registry.get('lectern-note') ?? [])].map((r) => `note:${r.toString()}`));
  });
}

describe('highlights and notes across a new edition (import --replace)', () => {
  let browser: Browser;
  const email = `reimport-${stamp}@example.com`;
  const password = 'a long enough password';
  const dataDir = inject('dataDir');
  let book: { book_id: string; chapters: { label: string; web_url: string; url: string }[] };
  let chapterUrl = '';

  const sessions = signedInContexts(() => browser);
  const open = (viewport: { width: number; height: number }) => sessions.open(email, password, viewport);

  beforeAll(async () => {
    const first = path.join(dataDir, `keeper-${stamp}-1.epub`);
    fs.writeFileSync(first, edition(false));
    importBook(dataDir, first);
    lecternCli(dataDir, ['users:create', '--email', email, '--password', password, '--status', 'subscriber']);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await sessions.closeAll();
    await browser?.close();
  });

  it('keeps moved highlights on their words, orphans deleted ones, and exports all of them', async () => {
    // The reader annotates the first edition.
    const { page, dialogs } = await open({ width: 1280, height: 800 });
    const list = await (await page.request.get('/api/v1/book/?sort=recent&page_size=100')).json();
    const summary = list.results.find((b: { title: string }) => b.title === TITLE);
    expect(summary, `"${TITLE}" in the catalog`).toBeTruthy();
    book = await (await page.request.get(summary.api_url)).json();
    chapterUrl = book.chapters.find((c) => c.label === 'The Keeper')!.web_url;
    await page.goto(chapterUrl);
    await shown(page).getByText(A).waitFor();
    expect(await shown(page).getByText('storms came in').count()).toBe(1);

    const adder = page.getByRole('toolbar', { name: 'Annotate the selection' });
    await select(page, A);
    await adder.getByRole('button', { name: 'Add Highlight' }).click();
    await expect.poll(() => adder.count()).toBe(0);

    await select(page, B);
    await adder.getByRole('button', { name: 'Add Note' }).click();
    const editor = page.getByRole('dialog', { name: 'Add note' });
    await expect.poll(() => editor.locator('blockquote').textContent()).toBe(B);
    await editor.getByPlaceholder(ANNOTATION_MESSAGES.notePlaceholder).fill('Waves counted, as the log says');
    await editor.getByPlaceholder(ANNOTATION_MESSAGES.notePlaceholder).press('Enter');
    await expect.poll(() => editor.count()).toBe(0);

    await select(page, C);
    await adder.getByRole('button', { name: 'Add Highlight' }).click();
    await expect.poll(() => adder.count()).toBe(0);
    await expect.poll(() => drawn(page)).toEqual([A, C].sort().concat(`note:${B}`));

    // The operator publishes the corrected edition under the same book id.
    const second = path.join(dataDir, `keeper-${stamp}-2.epub`);
    fs.writeFileSync(second, edition(true));
    const printed = lecternCli(dataDir, ['import', second, '--replace', book.book_id]);
    expect(printed).toContain(`replaced  ${book.book_id}`);
    // The command line is a process of its own: the server hears of the new edition within a second
    // (services/catalog-changes.ts), not when its cache's minute runs out.
    const chapterApi = book.chapters.find((c) => c.label === 'The Keeper')!.url;
    await expect.poll(async () => (await (await page.request.get(chapterApi)).json()).content, { timeout: 5_000 }).toContain(INSERTED);

    // A fresh browser on a desktop, then on a phone: the new text, A and B on their words, C orphaned.
    for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
      const fresh = await open(viewport);
      await fresh.page.goto(chapterUrl);
      await shown(fresh.page).locator('#lectern-root p').first().waitFor();
      await expect.poll(() => shown(fresh.page).getByText(INSERTED).count(), { message: `the new edition's paragraph at ${viewport.width}px`, timeout: 5_000 }).toBe(1);
      expect(await shown(fresh.page).getByText('gales came in').count()).toBe(1);
      await expect.poll(() => drawn(fresh.page), { message: `what is drawn at ${viewport.width}px`, timeout: 5_000 }).toEqual([A, `note:${B}`]);

      await fresh.page.getByRole('button', { name: 'Notes and highlights' }).click();
      const panel = fresh.page.getByRole('complementary', { name: 'Notes and highlights' });
      await expect.poll(() => panel.locator('.reader-notes__quote').allTextContents()).toEqual(expect.arrayContaining([A, B, C]));
      const orphaned = panel.getByRole('listitem').filter({ hasText: ANNOTATION_MESSAGES.orphaned });
      await expect.poll(() => orphaned.locator('.reader-notes__quote').allTextContents()).toEqual([C]);
      expect(await seriousViolations(fresh.page)).toEqual([]);
      expect(fresh.dialogs).toEqual([]);
    }

    const markdown = await (await page.request.get(`/api/v2/annotations/${encodeURIComponent(book.book_id)}/export/?format=markdown`)).text();
    for (const quote of [A, B, C]) expect(markdown).toContain(quote);
    expect(markdown).toContain('Waves counted, as the log says');
    expect(dialogs).toEqual([]);
    // two browsers and a phone on a loaded machine: more than the suite's minute
  }, 120_000);
});
