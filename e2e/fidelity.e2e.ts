/**
 * Reading fidelity in Chromium (issue 12, the importer's half): the fixture book of
 * packages/server/test/fixtures/fidelity.ts is imported into the running app with the operators' command line, then
 * read at desktop and phone widths: the book's styles apply (computed style), the font obfuscated by the IDPF
 * algorithm and the Adobe one actually load (FontFaceSet), MathML and SVG are on the page with a box, an image spine
 * item and an SVG content document show, and none of the hostile variants beside them runs or applies.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Dialog, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { READING_MESSAGES } from '@lectern/core';
import { fidelityEpub, FIDELITY_TITLE, NOTE_TEXT, STYLED_COLOR } from '../packages/server/test/fixtures/fidelity.ts';
import { unzipSync } from 'fflate';
import { minimalEpub3, xhtml } from '../packages/server/test/ingest/helpers.ts';
import { importBook } from '../scripts/fresh-server.ts';
import { openPage, signInAsDemo } from './browser.ts';

interface ChapterInfo {
  full_path: string;
  web_url: string;
  label: string;
}

let bookId = '';
let rtlBookId = '';

beforeAll(() => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-fidelity-'));
  const file = path.join(folder, 'fidelity.epub');
  fs.writeFileSync(file, fidelityEpub());
  const out = importBook(inject('dataDir'), file);
  bookId = /imported\s+(\S+)\s+"Fidelity Fixture"/.exec(out)?.[1] ?? '';
  // A right-to-left book (page-progression-direction rtl) with a chapter long enough for several pages.
  const rtlFile = path.join(folder, 'rtl.epub');
  const opf = new TextDecoder()
    .decode(unzipSync(minimalEpub3())['OEBPS/content.opf']!)
    .replace('<spine>', '<spine page-progression-direction="rtl">')
    .replace('A Small Book', 'Right To Left Fixture')
    .replace('urn:uuid:5a1e0c3e-0000-4000-8000-000000000001', 'urn:uuid:5a1e0c3e-0000-4000-8000-0000000000bb');
  const long = `<h1>One</h1>${'<p>A paragraph of the long first chapter, long enough to fill a few pages of the reader.</p>'.repeat(120)}`;
  fs.writeFileSync(rtlFile, minimalEpub3({ 'OEBPS/content.opf': opf, 'OEBPS/text/chapter 1.xhtml': xhtml('Chapter One', long) }));
  rtlBookId = /imported\s+(\S+)\s+"Right To Left Fixture"/.exec(importBook(inject('dataDir'), rtlFile))?.[1] ?? '';
  fs.rmSync(folder, { recursive: true, force: true });
  if (!bookId) throw new Error(`the fixture was not imported: ${out}`);
});

/** Opens a chapter and waits until the reader says it is on screen. */
async function openChapter(page: Page, chapter: ChapterInfo): Promise<void> {
  await page.goto(chapter.web_url);
  await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
  await page.waitForFunction((label) => document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')?.contentDocument?.title === label, chapter.label);
}

/** Runs in the app's window: the frame's document is same-origin (the reader writes it). */
const inFrame = <T, A>(page: Page, fn: (doc: Document, arg: A) => T | Promise<T>, arg: A): Promise<T> =>
  page.evaluate(
    async ({ source, arg }) => {
      const doc = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentDocument!;
      // eslint-disable-next-line no-new-func
      return (new Function('doc', 'arg', `return (${source})(doc, arg);`) as (d: Document, a: unknown) => T)(doc, arg);
    },
    { source: fn.toString(), arg },
  );

function box(page: Page, selector: string) {
  return inFrame(
    page,
    (doc, sel: string) => {
      const el = doc.querySelector(sel);
      if (!el) return null;
      const r = el.getBoundingClientRect();
      return { width: r.width, height: r.height };
    },
    selector,
  );
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  describe(`reading fidelity at ${viewport.width}x${viewport.height}`, () => {
    let browser: Browser;
    let page: Page;
    let chapters: ChapterInfo[];
    const dialogs: string[] = [];
    const byLabel = (label: string) => chapters.find((c) => c.label === label)!;

    beforeAll(async () => {
      ({ browser, page } = await openPage(viewport));
      page.on('dialog', (d: Dialog) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      await signInAsDemo(page);
      const detail = await (await page.request.get(`/api/v1/book/${bookId}/`)).json();
      expect(detail.title).toBe(FIDELITY_TITLE);
      chapters = detail.chapters;
    });
    afterAll(() => browser?.close());

    it("applies the book's styles: inline <style>, style=\"\", the linked and the imported sheet, EPUB properties", async () => {
      await openChapter(page, byLabel('Styles'));
      const styles = await inFrame(
        page,
        (doc) => {
          const cs = (id: string) => doc.defaultView!.getComputedStyle(doc.getElementById(id)!);
          return {
            styled: cs('styled').color,
            smallCaps: cs('styled').fontVariantCaps,
            vertical: cs('vertical').writingMode,
            inlineWeight: cs('inline').fontWeight,
            lastLine: cs('from-sheet').textAlignLast,
            underline: cs('from-sheet').getPropertyValue('text-underline-position'),
            letters: cs('imported').letterSpacing,
            hostilePosition: cs('hostile-css').position,
            hostileBackground: cs('hostile-css').backgroundImage,
            bodyDisplay: cs('lectern-root').display,
            bodyBackground: doc.defaultView!.getComputedStyle(doc.body).backgroundColor,
          };
        },
        null,
      );
      expect(styles).toMatchObject({
        styled: STYLED_COLOR,
        smallCaps: 'small-caps',
        vertical: 'vertical-rl',
        inlineWeight: '700',
        lastLine: 'center',
        underline: 'under',
        letters: '3px',
        // Hostile: position: fixed made static, url(javascript:) dropped, body { display: none } outranked.
        hostilePosition: 'static',
        hostileBackground: 'none',
        bodyDisplay: 'block',
      });
      // The reader's theme still wins over the book (day palette, white).
      expect(styles.bodyBackground).toBe('rgb(255, 255, 255)');
      await page.screenshot({ path: path.join(os.tmpdir(), `lectern-fidelity-styles-${viewport.width}.png`) });
    });

    it("lets the reader's font size scale the book's text, its absolute sizes included", async () => {
      await openChapter(page, byLabel('Styles'));
      const sizes = () =>
        inFrame(page, (doc) => ['styled', 'absolute-size'].map((id) => parseFloat(doc.defaultView!.getComputedStyle(doc.getElementById(id)!).fontSize)), null);
      const before = await sizes();
      expect(before[1]).toBeCloseTo(16, 1); // 12pt
      await page.getByRole('button', { name: 'Display settings', exact: true }).click();
      await page.getByRole('button', { name: 'Increase font size' }).click();
      await expect.poll(async () => (await sizes())[0]).toBeGreaterThan(before[0]!);
      const after = await sizes();
      // The book's 12pt grows by the same factor as the reader's text.
      expect(after[1]! / before[1]!).toBeCloseTo(after[0]! / before[0]!, 2);
      await page.getByRole('button', { name: 'Decrease font size' }).click();
      await expect.poll(async () => (await sizes())[0]).toBeCloseTo(before[0]!, 1);
      await page.keyboard.press('Escape');
    });

    it('loads the embedded fonts, the IDPF- and Adobe-obfuscated ones included', async () => {
      await openChapter(page, byLabel('Styles'));
      const fonts = await inFrame(
        page,
        async (doc) => {
          const families = ['Lectern Plain', 'Lectern Idpf', 'Lectern Adobe'];
          await Promise.all(families.map((f) => doc.fonts.load(`16px "${f}"`).catch(() => [])));
          await doc.fonts.ready;
          const faces = Array.from(doc.fonts as unknown as Iterable<FontFace>);
          return Object.fromEntries(
            families.map((f) => [f, { status: faces.find((face) => face.family.replace(/"/g, '') === f)?.status ?? 'missing', check: doc.fonts.check(`16px "${f}"`) }]),
          );
        },
        null,
      );
      for (const family of ['Lectern Plain', 'Lectern Idpf', 'Lectern Adobe']) expect(fonts[family], family).toEqual({ status: 'loaded', check: true });
    });

    it('shows MathML and inline SVG with a box, and the images inside SVG and <picture>', async () => {
      await openChapter(page, byLabel('Equations'));
      // An image has no box until it has loaded.
      await page.waitForFunction(() => {
        const doc = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentDocument!;
        return ['pictured', 'climbing'].every((id) => (doc.getElementById(id) as HTMLImageElement | null)?.complete);
      });
      for (const selector of ['#quadratic', '#quadratic mfrac', '#diagram-inline', '#svg-rect', '#svg-image', '#pictured', '#climbing']) {
        const b = await box(page, selector);
        expect(b, selector).not.toBeNull();
        expect(b!.width, selector).toBeGreaterThan(0);
        expect(b!.height, selector).toBeGreaterThan(0);
      }
      const images = await inFrame(page, (doc) => ['pictured', 'climbing'].map((id) => (doc.getElementById(id) as HTMLImageElement).naturalWidth), null);
      expect(images).toEqual([240, 240]);
      expect(await inFrame(page, (doc) => (doc.querySelector('#quadratic') as Element).namespaceURI, null)).toBe('http://www.w3.org/1998/Math/MathML');
    });

    it('shows an image spine item and an SVG content document', async () => {
      await openChapter(page, byLabel('Plate'));
      await page.waitForFunction(() => (document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentDocument!.querySelector('#lectern-root img') as HTMLImageElement | null)?.naturalWidth === 240);
      const plate = await box(page, '#lectern-root img');
      expect(plate!.width).toBeGreaterThan(100);
      await openChapter(page, byLabel('Diagram'));
      const diagram = await box(page, '#diagram-rect');
      expect(diagram!.width).toBeGreaterThan(0);
      expect(diagram!.height).toBeGreaterThan(0);
    });

    it('keeps a right-to-left chapter right to left, and a foreign spine item shows its fallback', async () => {
      await openChapter(page, byLabel('Right to left'));
      expect(await inFrame(page, (doc) => doc.defaultView!.getComputedStyle(doc.getElementById('rtl-text')!).direction, null)).toBe('rtl');
      await openChapter(page, byLabel('Fallback'));
      expect(await box(page, '#fallback-text')).not.toBeNull();
    });

    it("shows the title page's creators each in their own direction and language", async () => {
      await page.goto(`/library/book/${bookId}/`);
      const arabic = page.locator('.title-page__byline bdi', { hasText: 'كاتب الاختبار' });
      await arabic.waitFor();
      expect(await arabic.getAttribute('dir')).toBe('rtl');
      expect(await arabic.getAttribute('lang')).toBe('ar');
      expect(await arabic.evaluate((el) => getComputedStyle(el).direction)).toBe('rtl');
      expect(await page.locator('.title-page__title').getAttribute('lang')).toBe('en');
    });

    it('opens a footnote in a pop-up over the page and closes it, the page kept', async () => {
      await openChapter(page, byLabel('Notes'));
      const frame = page.frameLocator('iframe.chapter-view__frame');
      const note = frame.locator('.lectern-note');
      const scrolled = () => inFrame(page, (doc) => [doc.scrollingElement!.scrollTop, doc.scrollingElement!.scrollLeft], null);
      const before = await scrolled();
      // the aside the book hides shows in the pop-up, with a box, as a dialog
      await frame.locator('#ref1').click();
      await expect.poll(() => note.count()).toBe(1);
      expect(await note.getAttribute('role')).toBe('dialog');
      expect(await note.innerText()).toContain(NOTE_TEXT);
      const shown = await note.boundingBox();
      expect(shown!.width).toBeGreaterThan(100);
      expect(shown!.width).toBeLessThanOrEqual(viewport.width);
      expect(await scrolled()).toEqual(before);
      await page.screenshot({ path: path.join(os.tmpdir(), `lectern-fidelity-note-${viewport.width}.png`) });
      // Escape closes it and gives the keyboard back to the link
      await page.keyboard.press('Escape');
      await expect.poll(() => note.count()).toBe(0);
      expect(await inFrame(page, (doc) => doc.activeElement?.id ?? null, null)).toBe('ref1');
      // a DPUB-ARIA note, closed by its button
      await frame.locator('#ref2').click();
      await expect.poll(() => note.count()).toBe(1);
      expect(await note.innerText()).toContain('The second note, in a div.');
      await note.getByRole('button', { name: READING_MESSAGES.closeNote }).click();
      await expect.poll(() => note.count()).toBe(0);
      // what the book hides (hidden="") takes no room
      expect(await box(page, '#hidden-para')).toEqual({ width: 0, height: 0 });
      // the chapter's sound has visible controls and its file loads
      await expect.poll(() => inFrame(page, (doc) => (doc.getElementById('tone') as HTMLAudioElement).readyState, null), { timeout: 10_000 }).toBeGreaterThan(0);
      const tone = await box(page, '#tone');
      expect(tone!.width).toBeGreaterThan(50);
      // a same-chapter link that is not a note opens nothing
      await frame.locator('#plain-link').click();
      await new Promise((r) => setTimeout(r, 300));
      expect(await note.count()).toBe(0);
    });

    it('goes to a printed page from the contents, and to the start of the text', async () => {
      await openChapter(page, byLabel('Styles'));
      await page.getByRole('button', { name: 'Table of contents' }).click();
      const panel = page.getByRole('complementary', { name: 'Table of contents' });
      const field = panel.getByLabel(READING_MESSAGES.goToPage);
      await field.fill('99');
      await panel.getByRole('button', { name: 'Go' }).click();
      await panel.getByRole('alert').getByText(READING_MESSAGES.noSuchPage('99', 'i', '7')).waitFor();
      await page.screenshot({ path: path.join(os.tmpdir(), `lectern-fidelity-pages-${viewport.width}.png`) });
      await field.fill('7');
      await panel.getByRole('button', { name: 'Go' }).click();
      await page.waitForURL((u) => u.pathname.endsWith('/text/notes.xhtml') && u.hash === '#later');
      await page.waitForFunction(() => document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')?.contentDocument?.title === 'Notes');
      await page.getByRole('button', { name: 'Table of contents' }).click();
      await panel.getByRole('link', { name: READING_MESSAGES.startOfText }).click();
      await page.waitForURL((u) => u.pathname.endsWith('/text/styles.xhtml'));
    });

    it('turns the pages of a right-to-left book the other way: the left arrow goes forward', async () => {
      expect(rtlBookId).not.toBe('');
      const detail = await (await page.request.get(`/api/v1/book/${rtlBookId}/`)).json();
      await openChapter(page, { ...detail.chapters[0], label: detail.chapters[0].label });
      await page.getByRole('button', { name: 'Display settings' }).click();
      await page.getByRole('button', { name: 'Pages' }).click();
      await page.keyboard.press('Escape');
      const footer = () => page.locator('.reader-footer__text').textContent();
      await expect.poll(footer).toMatch(/^Page \d+ of \d+$/);
      await page.keyboard.press('Home');
      await expect.poll(footer).toMatch(/^Page 1 of \d+$/);
      await page.keyboard.press('ArrowLeft');
      await expect.poll(footer).toMatch(/^Page 2 of \d+$/);
      await page.keyboard.press('ArrowRight');
      await expect.poll(footer).toMatch(/^Page 1 of \d+$/);
      // back to scrolling for what follows
      await page.getByRole('button', { name: 'Display settings' }).click();
      await page.getByRole('button', { name: 'Scroll' }).click();
      await page.keyboard.press('Escape');
    });

    it('ran nothing of the hostile variants', async () => {
      await openChapter(page, byLabel('Equations'));
      expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned ?? null)).toBeNull();
      expect(dialogs).toEqual([]);
      const found = await inFrame(
        page,
        (doc) => Array.from(doc.querySelectorAll('script, iframe, foreignObject, annotation-xml, maction, animate, set')).map((e) => e.tagName),
        null,
      );
      expect(found).toEqual([]);
      await page.screenshot({ path: path.join(os.tmpdir(), `lectern-fidelity-${viewport.width}.png`) });
    });
  });
}
