/**
 * Hyphenation the book asks for where this Chromium has none (docs/decisions.md "Hyphenation where Chromium has no
 * patterns"), at 1280x800 and 390x844 (packages/server/test/fixtures/book-hyphens.ts): the paragraph the book's
 * stylesheet sets to `hyphens: auto` breaks its long words with a hyphen, the same words under the reader's default
 * only are left alone, and what reads the text back (the highlight's quote and its anchor, the search's mark, the
 * footnote's pop-up) sees the words without the inserted soft hyphens.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bookHyphensEpub, HYPHENS_ASKED_OWN, HYPHENS_MANUAL, HYPHENS_NOTE, HYPHENS_TITLE, HYPHENS_WORD } from '../packages/server/test/fixtures/book-hyphens.ts';
import { importBook } from '../scripts/fresh-server.ts';
import { openPage, signInAsDemo } from './browser.ts';
import { type ChapterInfo, currentSearchHit, highlightSelection, inFrame, openChapter, openNote, searchAndFollow } from './reader-steps.ts';

const SHY = '\u00ad';
let bookId = '';

beforeAll(() => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-hyphens-'));
  const file = path.join(folder, 'hyphens.epub');
  fs.writeFileSync(file, bookHyphensEpub());
  bookId = new RegExp(`imported\\s+(\\S+)\\s+"${HYPHENS_TITLE}"`).exec(importBook(inject('dataDir'), file))?.[1] ?? '';
  fs.rmSync(folder, { recursive: true, force: true });
  if (!bookId) throw new Error('the hyphens fixture was not imported');
});

/** The highlights the reader draws (CSS custom highlights), their text without soft hyphens. */
const drawnTexts = (page: Page) =>
  inFrame(
    page,
    (doc) => {
      const set = (doc.defaultView as unknown as { CSS: { highlights: Map<string, Set<Range>> } }).CSS.highlights.get('lectern-highlight');
      return (set ? Array.from(set) : []).map((range) => range.toString().replaceAll('\u00ad', ''));
    },
    null,
  );

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
describe(`hyphenation the book asks for, at ${viewport.width}x${viewport.height}`, () => {
  let browser: Browser;
  let page: Page;
  let chapter: ChapterInfo;

  beforeAll(async () => {
    ({ browser, page } = await openPage(viewport));
    await signInAsDemo(page);
    chapter = (await (await page.request.get(`/api/v1/book/${bookId}/`)).json()).chapters[0];
  });
  afterAll(() => browser?.close());

  it("breaks a long word with a hyphen where the book's CSS says hyphens: auto, and only there", async () => {
    await openChapter(page, chapter);
    const seen = await inFrame(
      page,
      (doc) => {
        // (the precondition: this Chromium cannot hyphenate English itself)
        const probe = doc.createElement('div');
        probe.style.cssText = 'position:absolute;width:4em;font:16px serif;hyphens:manual';
        probe.lang = 'en';
        probe.textContent = 'characteristically incomprehensibilities';
        doc.documentElement.append(probe);
        const manual = probe.offsetHeight;
        probe.style.hyphens = 'auto';
        const native = probe.offsetHeight > manual;
        probe.remove();
        // the character before each line break of the asked paragraph's words
        const asked = doc.getElementById('asked')!;
        const text = asked.firstChild as Text;
        const range = doc.createRange();
        const tops: number[] = [];
        for (let i = 0; i < text.length; i++) {
          range.setStart(text, i);
          range.setEnd(text, i + 1);
          const boxes = range.getClientRects();
          tops.push(boxes[boxes.length - 1]?.top ?? 0);
        }
        const before: string[] = [];
        for (let i = 1; i < tops.length; i++) if (tops[i]! > tops[i - 1]! + 1) before.push(text.data[i - 1]!);
        return {
          native,
          before,
          plain: doc.getElementById('plain')!.textContent!.includes('\u00ad'),
          heading: doc.querySelector('h2')!.textContent!.includes('\u00ad'),
          note: doc.getElementById('fn1')!.textContent!.includes('\u00ad'),
          manual: doc.getElementById('manual')!.textContent!,
          askedOwn: doc.getElementById('asked-own')!.textContent!,
        };
      },
      null,
    );
    expect(seen.native).toBe(false);
    // some line of the asked paragraph ends inside a word, at a soft hyphen (drawn as a hyphen)
    expect(seen.before).toContain(SHY);
    // the same words under the reader's own default are not touched, nor is the heading
    expect(seen.plain).toBe(false);
    expect(seen.heading).toBe(false);
    // the footnote's -epub-hyphens: auto was read as hyphens: auto
    expect(seen.note).toBe(true);
    // the paragraph the book hyphenated itself keeps its own soft hyphens and gets none more, and having it did not
    // keep the asked paragraph from being hyphenated (as in the W3C test css-epub-hyphens)
    expect(seen.manual).toBe(HYPHENS_MANUAL);
    // a paragraph the book asks to hyphenate but hyphenated itself is left as the book wrote it
    expect(seen.askedOwn).toBe(HYPHENS_ASKED_OWN);
  });

  it('shows the footnote in its pop-up without the inserted soft hyphens', async () => {
    const note = await openNote(page, 'ref1');
    const text = (await note.locator('.lectern-note__body').textContent()) ?? '';
    expect(text).toContain(HYPHENS_NOTE);
    expect(text).not.toContain(SHY);
    await page.keyboard.press('Escape');
    await expect.poll(() => note.count()).toBe(0);
  });

  it('highlights the hyphenated word with its plain quote, finds it again after a reload, and marks it in search', async () => {
    // select the word in the asked paragraph, soft hyphens and all
    const selected = await inFrame(
      page,
      (doc, word: string) => {
        const text = doc.getElementById('asked')!.firstChild as Text;
        const m = new RegExp([...word].join('\u00ad?')).exec(text.data)!;
        const range = doc.createRange();
        range.setStart(text, m.index);
        range.setEnd(text, m.index + m[0].length);
        doc.getSelection()!.removeAllRanges();
        doc.getSelection()!.addRange(range);
        return m[0];
      },
      HYPHENS_WORD,
    );
    expect(selected).toContain(SHY);
    await highlightSelection(page, viewport);
    await expect.poll(() => drawnTexts(page)).toContain(HYPHENS_WORD);
    await page.getByRole('button', { name: 'Notes and highlights' }).click();
    const panel = page.getByRole('complementary', { name: 'Notes and highlights' });
    await expect.poll(() => panel.locator('.reader-notes__quote').allTextContents()).toEqual([HYPHENS_WORD]);

    // anchored again on the hyphenated text of a fresh load
    await openChapter(page, chapter);
    await expect.poll(() => drawnTexts(page)).toContain(HYPHENS_WORD);

    await searchAndFollow(page, HYPHENS_WORD);
    await expect.poll(async () => (await currentSearchHit(page))?.text?.replaceAll(SHY, '') ?? null).toBe(HYPHENS_WORD);
  });
});
}
