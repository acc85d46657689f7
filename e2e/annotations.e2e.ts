/**
 * Highlights and notes (docs/decisions.md "Annotations in the reader") as a reader makes them in a real sample book:
 * select words, highlight them, add a note with markdown and tags, see both again in a fresh browser (a phone), open
 * the viewer, edit the note, clear it behind the §8 confirm, undo the highlight. A note's markdown is shown as text and
 * safe markup only: the `<img onerror>` written in it stays text and nothing runs.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ANNOTATION_MESSAGES } from '@lectern/core';
import { lecternCli } from '../scripts/fresh-server.ts';
import { imagesSettled, launchBrowser, seriousViolations, signedInContexts } from './browser.ts';

const shown = (page: Page) => page.frameLocator('iframe.chapter-view__frame:not(.chapter-view__spare)');

/** Selects `length` characters of the first long text of the chapter (in view at the top of the chapter). */
async function selectWords(page: Page, skip: number, length: number): Promise<string> {
  return page.evaluate(
    ([skip, length]) => {
      const frame = Array.from(document.querySelectorAll<HTMLIFrameElement>('iframe.chapter-view__frame')).find((f) => getComputedStyle(f).visibility !== 'hidden')!;
      const doc = frame.contentDocument!;
      const walker = doc.createTreeWalker(doc.getElementById('lectern-root')!, NodeFilter.SHOW_TEXT);
      let t = walker.nextNode() as Text | null;
      while (t && t.length < 120) t = walker.nextNode() as Text | null;
      const range = doc.createRange();
      range.setStart(t!, skip);
      range.setEnd(t!, skip + length);
      doc.getSelection()!.removeAllRanges();
      doc.getSelection()!.addRange(range);
      return range.toString();
    },
    [skip, length] as const,
  );
}

/** Clicks the middle of the first drawn range that holds `text` (the Highlight API paints it: no element to click). */
async function clickOn(page: Page, text: string) {
  const point = await page.evaluate((text) => {
    const frame = Array.from(document.querySelectorAll<HTMLIFrameElement>('iframe.chapter-view__frame')).find((f) => getComputedStyle(f).visibility !== 'hidden')!;
    const doc = frame.contentDocument!;
    const walker = doc.createTreeWalker(doc.getElementById('lectern-root')!, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode() as Text | null; t; t = walker.nextNode() as Text | null) {
      const at = t.data.indexOf(text);
      if (at < 0) continue;
      const range = doc.createRange();
      range.setStart(t, at + Math.floor(text.length / 2));
      range.setEnd(t, at + Math.floor(text.length / 2) + 1);
      const r = range.getBoundingClientRect();
      const f = frame.getBoundingClientRect();
      return { x: f.left + r.left + r.width / 2, y: f.top + r.top + r.height / 2 };
    }
    return null;
  }, text);
  expect(point, `"${text}" on the page`).not.toBeNull();
  await page.mouse.click(point!.x, point!.y);
}

describe('highlights and notes in the reader', () => {
  let browser: Browser;
  const email = `notes-${Date.now()}@example.com`;
  const password = 'a long enough password';
  let chapterUrl = '';

  const sessions = signedInContexts(() => browser);
  const open = (viewport: { width: number; height: number }) => sessions.open(email, password, viewport);

  beforeAll(async () => {
    lecternCli(inject('dataDir'), ['users:create', '--email', email, '--password', password, '--status', 'subscriber']);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await sessions.closeAll();
    await browser?.close();
  });

  it('highlights, adds a note with markdown and tags, and finds both again in a fresh browser', async () => {
    const { page, dialogs } = await open({ width: 1280, height: 800 });
    const list = await (await page.request.get('/api/v1/book/?page_size=50')).json();
    const summary = list.results.find((b: { title: string }) => /War of the Worlds/.test(b.title));
    const book = await (await page.request.get(summary.api_url)).json();
    chapterUrl = book.chapters.find((c: { label: string }) => /Chapter 1\b/.test(c.label)).web_url;
    await page.goto(chapterUrl);
    await shown(page).locator('#lectern-root p').first().waitFor();

    // A highlight: select, Add Highlight.
    const highlighted = await selectWords(page, 0, 24);
    const adder = page.getByRole('toolbar', { name: 'Annotate the selection' });
    await adder.getByRole('button', { name: 'Add Highlight' }).click();
    await expect.poll(() => adder.count()).toBe(0);

    // A note: select other words, Add Note, markdown and tags, Enter saves.
    const noted = await selectWords(page, 40, 30);
    await adder.getByRole('button', { name: 'Add Note' }).click();
    const editor = page.getByRole('dialog', { name: 'Add note' });
    await expect.poll(() => editor.locator('blockquote').textContent()).toBe(noted);
    const note = editor.getByPlaceholder(ANNOTATION_MESSAGES.notePlaceholder);
    await note.fill('A **bold** guess, see [the notes](https://example.com/notes) <img src=x onerror=alert(1)>');
    await editor.getByLabel('Tags').fill('martians  opening');
    expect(await seriousViolations(page)).toEqual([]);
    await note.press('Enter');
    await expect.poll(() => editor.count()).toBe(0);

    // The notes panel lists both under their chapter, filters by tag, and exports them.
    await page.getByRole('button', { name: 'Notes and highlights' }).click();
    const panel = page.getByRole('complementary', { name: 'Notes and highlights' });
    await panel.getByRole('region', { name: /Chapter 1/ }).waitFor();
    await expect.poll(() => panel.locator('.reader-notes__quote').allTextContents()).toEqual(expect.arrayContaining([highlighted, noted]));
    await panel.getByLabel('Tag').selectOption('martians');
    await expect.poll(() => panel.locator('.reader-notes__quote').allTextContents()).toEqual([noted]);
    const markdown = await (await page.request.get(`/api/v2/annotations/${encodeURIComponent(book.book_id)}/export/?format=markdown`)).text();
    expect(markdown).toContain(noted.split('\n')[0]!.trim());
    expect(markdown).toContain(highlighted.split('\n')[0]!.trim());
    await panel.getByRole('button', { name: 'Close notes' }).click();

    // A fresh browser, a phone: both are there; the viewer shows the note as markup, never as HTML.
    const phone = await open({ width: 390, height: 844 });
    await phone.page.goto(chapterUrl);
    await shown(phone.page).locator('#lectern-root p').first().waitFor();
    await expect.poll(() => phone.page.evaluate(() => {
      const frame = Array.from(document.querySelectorAll<HTMLIFrameElement>('iframe.chapter-view__frame')).find((f) => getComputedStyle(f).visibility !== 'hidden')!;
      const registry = (frame.contentWindow as unknown as { CSS: { highlights: Map<string, Set<Range>> } }).CSS.highlights;
      return [...(registry.get('lectern-highlight') ?? [])].map((r) => r.toString()).concat([...(registry.get('lectern-note') ?? [])].map((r) => `note:${r.toString()}`));
    })).toEqual([highlighted, `note:${noted}`]);
    await clickOn(phone.page, noted.slice(5, 20));
    const viewer = phone.page.getByRole('dialog', { name: 'Note' });
    await viewer.waitFor();
    expect(await viewer.locator('strong').textContent()).toBe('bold');
    expect(await viewer.getByRole('link', { name: 'the notes' }).getAttribute('href')).toBe('https://example.com/notes');
    expect(await viewer.locator('img').count()).toBe(0);
    expect(await viewer.textContent()).toContain('<img src=x onerror=alert(1)>');
    expect(await viewer.getByRole('list', { name: 'Tags' }).textContent()).toBe('martiansopening');
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await seriousViolations(phone.page)).toEqual([]);

    // Edit the note there.
    await viewer.getByRole('button', { name: 'Edit Note' }).click();
    const edit = phone.page.getByRole('dialog', { name: 'Edit note' });
    await edit.getByPlaceholder(ANNOTATION_MESSAGES.notePlaceholder).fill('Changed on the phone');
    // §6's boxes: anyone may view, others of the library may edit; the admin box is for admins only.
    expect(await edit.getByLabel('Public (anyone can read this note)').isChecked()).toBe(false);
    expect(await edit.getByLabel('Other readers can change who may see and edit it').count()).toBe(0);
    await edit.getByLabel('Other readers of this library can edit it').check();
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => edit.count()).toBe(0);
    await clickOn(phone.page, noted.slice(5, 20));
    await expect.poll(() => phone.page.getByRole('dialog', { name: 'Note' }).textContent()).toContain('Changed on the phone');
    const stored = await phone.page.evaluate(async (bookId) => {
      const token = await (await fetch('/auth/token')).text();
      const found = await (await fetch(`/nest/api/a/book/${encodeURIComponent(bookId)}/search?limit=50`, { headers: { 'x-annotator-auth-token': token } })).json();
      return found.rows.find((a: { text: string }) => a.text === 'Changed on the phone')?.permissions;
    }, book.book_id);
    expect(stored).toEqual({ read: [], update: ['group:__consumer__'], delete: [], admin: [] });

    // Clear the note behind the confirm: it stays a highlight.
    await phone.page.getByRole('dialog', { name: 'Note' }).getByRole('button', { name: 'Delete Note' }).click();
    await phone.page.getByText(ANNOTATION_MESSAGES.deleteConfirm).waitFor();
    await phone.page.getByRole('button', { name: ANNOTATION_MESSAGES.deleteYes }).click();
    await phone.page.keyboard.press('Escape');
    await clickOn(phone.page, noted.slice(5, 20));
    const asHighlight = phone.page.getByRole('dialog', { name: 'Highlight' });
    await asHighlight.waitFor();

    // Undo it: gone, for the first browser too.
    await asHighlight.getByRole('button', { name: 'Undo Highlight' }).click();
    await expect.poll(() => asHighlight.count()).toBe(0);
    await page.reload();
    await shown(page).locator('#lectern-root p').first().waitFor();
    await expect.poll(() => page.evaluate(() => {
      const frame = Array.from(document.querySelectorAll<HTMLIFrameElement>('iframe.chapter-view__frame')).find((f) => getComputedStyle(f).visibility !== 'hidden')!;
      const registry = (frame.contentWindow as unknown as { CSS: { highlights: Map<string, Set<Range>> } }).CSS.highlights;
      return [...(registry.get('lectern-highlight') ?? [])].map((r) => r.toString()).concat([...(registry.get('lectern-note') ?? [])].map((r) => `note:${r.toString()}`));
    })).toEqual([highlighted]);
    expect(dialogs).toEqual([]);
  });

  it('shows hostile notes, tags and quotes as text in the viewer and the notes panel, and runs none of them', async () => {
    const { page, dialogs } = await open({ width: 1280, height: 800 });
    const list = await (await page.request.get('/api/v1/book/?page_size=50')).json();
    const summary = list.results.find((b: { title: string }) => /War of the Worlds/.test(b.title));
    const book = await (await page.request.get(summary.api_url)).json();
    const chapter = book.chapters.find((c: { label: string }) => /Chapter 2\b/.test(c.label));
    await page.goto(chapter.web_url);
    await shown(page).locator('#lectern-root p').first().waitFor();
    const quote = await selectWords(page, 10, 20);
    const hostileText = '<script>window.__pwned = 1</script> [click](javascript:alert(1)) <svg onload=alert(2)> ![x](https://evil.example/x.png)';
    const hostileTags = ['<img/src=x/onerror=alert(3)>', '"><b>bold</b>'];
    const hostileQuote = '<img src=x onerror=alert(4)><iframe src="javascript:alert(5)">';
    // Made as any store client could make them: straight to the store with the token.
    const made = await page.evaluate(
      async ({ bookId, href, quote, hostileText, hostileTags, hostileQuote }) => {
        const token = await (await fetch('/auth/token')).text();
        const post = (body: object) =>
          fetch(`/nest/api/a/book/${encodeURIComponent(bookId)}/${href}/annotations/`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-annotator-auth-token': token }, body: JSON.stringify(body) });
        const a = await post({ quote, text: hostileText, tags: hostileTags, fragment: '<img src=x onerror=alert(6)><p>frag</p>' });
        const b = await post({ quote: hostileQuote, text: hostileQuote, tags: [] });
        return [a.status, b.status];
      },
      { bookId: book.book_id, href: chapter.full_path, quote, hostileText, hostileTags, hostileQuote },
    );
    expect(made).toEqual([200, 200]);
    await page.reload();
    await shown(page).locator('#lectern-root p').first().waitFor();
    await clickOn(page, quote.slice(4, 14));
    const viewer = page.getByRole('dialog', { name: 'Note' });
    await viewer.waitFor();
    expect(await viewer.textContent()).toContain('<script>window.__pwned = 1</script>');
    // Nothing of the note became markup (the viewer's own buttons carry icons: only the note's parts are looked at).
    expect(await viewer.locator('.annotation-viewer__note, .annotation-viewer__tags').locator('script, svg, img, iframe, b, a[href^="javascript"]').count()).toBe(0);
    expect(await viewer.locator('.annotation-viewer__note').textContent()).toContain('[click](javascript:alert(1))');
    expect(await viewer.getByRole('list', { name: 'Tags' }).textContent()).toBe(hostileTags.join(''));
    await page.keyboard.press('Escape');

    await page.getByRole('button', { name: 'Notes and highlights' }).click();
    const panel = page.getByRole('complementary', { name: 'Notes and highlights' });
    await expect.poll(() => panel.locator('.reader-notes__quote').allTextContents()).toEqual(expect.arrayContaining([quote, hostileQuote]));
    expect(await panel.locator('.reader-notes__quote, .reader-notes__text, .reader-notes__tags').locator('script, svg, img, iframe, b, a[href^="javascript"]').count()).toBe(0);
    expect(await panel.textContent()).toContain(ANNOTATION_MESSAGES.orphaned);
    expect(await panel.getByLabel('Tag').locator('option').allTextContents()).toEqual(expect.arrayContaining(hostileTags));
    await imagesSettled(page);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
  });
});
