/**
 * Reading fidelity in Chromium (docs/decisions.md "Reading fidelity: the importer's half"): the fixture book of
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
import { openPage, painted, signInAsDemo } from './browser.ts';
import { type ChapterInfo, currentSearchHit, drawnHighlight, highlightSelection, inFrame, keepsPlace, openChapter, openNote, searchAndFollow, selectStart } from './reader-steps.ts';

let bookId = '';
let rtlBookId = '';
/** The right-to-left fixture's paragraphs per chapter, and its footnote. */
const RTL_PARAGRAPHS = 120;
const RTL_NOTE = 'A note of the right to left book.';
/** The one paragraph of the first chapter with a word of its own, for the search jump. */
const RTL_FOUND = 77;
const RTL_WORD = 'lodestar';
/** The vertical chapter's paragraphs (Japanese, its stylesheet puts html in writing-mode: vertical-rl). */
const VERTICAL_PARAGRAPHS = 70;
/**
 * The search jump's paragraph: a Japanese sentence with a word of its own, found inside its run of characters (the
 * in-book search takes each Chinese or Japanese character as a word; core's CJK_CHARACTERS).
 */
const VERTICAL_WORD = '北極星';
/** (with its reading in ruby, as Japanese books give one: the search reads the base text, and goes on past it) */
const VERTICAL_PASSAGE = `冬の長い夜、北の港の年老いた船乗りたちは岸壁から動かぬ一つの星を見上げ、それを<ruby>${VERTICAL_WORD}<rp>(</rp><rt>ほっきょくせい</rt><rp>)</rp></ruby>と呼んだ。猫もそれを見ていた。`;
const VERTICAL_QUERY = `${VERTICAL_WORD}と呼んだ`;
const VERTICAL_FOUND = 41;

/**
 * The paragraphs (ids) of the chapter on show whose middle is inside the frame, in document order, and where the
 * viewport is scrolled to: what the page on screen shows.
 */
function pageInView(page: Page): Promise<{ ids: string[]; scrollLeft: number; aligned: boolean; rtl: boolean }> {
  return page.evaluate(() => {
    const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!;
    const doc = frame.contentDocument!;
    const ids = Array.from(doc.querySelectorAll('#lectern-root p[id], #lectern-root h1'))
      .filter((el) => Array.from(el.getClientRects()).some((r) => r.width > 0 && r.left + r.width / 2 >= 0 && r.left + r.width / 2 < frame.clientWidth))
      .map((el) => el.id || el.tagName.toLowerCase());
    const scrollLeft = doc.scrollingElement!.scrollLeft;
    // on a page boundary (not mid-slide, not between two pages after a re-layout)
    const aligned = Math.abs(scrollLeft / doc.documentElement.clientWidth - Math.round(scrollLeft / doc.documentElement.clientWidth)) < 0.01;
    return { ids, scrollLeft, aligned, rtl: doc.documentElement.classList.contains('lectern-rtl') };
  });
}

/**
 * What a page of the vertical chapter shows: its paragraphs (ids) with a line inside the frame, right to left (the
 * order they are read in), the offsets, and whether the frame's document is wider than the frame.
 */
function verticalInView(page: Page): Promise<{ ids: string[]; scrollTop: number; scrollLeft: number; aligned: boolean; vertical: boolean; rtlClass: boolean; writingMode: string; overflowX: boolean }> {
  return page.evaluate(() => {
    const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!;
    const doc = frame.contentDocument!;
    const w = doc.documentElement.clientWidth;
    const h = doc.documentElement.clientHeight;
    const inView = (r: DOMRect) => r.height > 0 && r.top + r.height / 2 >= 0 && r.top + r.height / 2 < h && r.left + r.width / 2 >= 0 && r.left + r.width / 2 < w;
    const ids = Array.from(doc.querySelectorAll('#lectern-root p[id], #lectern-root h1'))
      .map((el) => ({ id: el.id || el.tagName.toLowerCase(), rects: Array.from(el.getClientRects()).filter(inView) }))
      .filter((e) => e.rects.length > 0)
      .sort((a, b) => Math.max(...b.rects.map((r) => r.right)) - Math.max(...a.rects.map((r) => r.right)))
      .map((e) => e.id);
    const s = doc.scrollingElement!;
    return {
      ids,
      scrollTop: s.scrollTop,
      scrollLeft: s.scrollLeft,
      aligned: Math.abs(s.scrollTop / h - Math.round(s.scrollTop / h)) < 0.01,
      vertical: doc.documentElement.classList.contains('lectern-vertical'),
      rtlClass: doc.documentElement.classList.contains('lectern-rtl'),
      writingMode: doc.defaultView!.getComputedStyle(doc.body).writingMode,
      overflowX: s.scrollWidth > s.clientWidth + 1,
    };
  });
}

/** The number of a numbered paragraph id (p12 -> 12; others 0). */
const numberOf = (id: string) => Number(/^[pqv](\d+)$/.exec(id)?.[1] ?? 0);

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
    .replace('urn:uuid:5a1e0c3e-0000-4000-8000-000000000001', 'urn:uuid:5a1e0c3e-0000-4000-8000-0000000000bb')
    .replace('<itemref idref="ch2"/>', '<itemref idref="ch2"/><itemref idref="ch3"/><itemref idref="ch4"/><itemref idref="ch5"/>')
    .replace(
      '<item id="css"',
      '<item id="ch3" href="text/ch3.xhtml" media-type="application/xhtml+xml"/><item id="ch4" href="text/ch4.xhtml" media-type="application/xhtml+xml"/><item id="ch5" href="text/ch5.xhtml" media-type="application/xhtml+xml"/><item id="vcss" href="styles/vertical.css" media-type="text/css"/><item id="css"',
    );
  // Two long chapters of numbered paragraphs (p1… and q1…), so a page's words say where in the chapter it is; a
  // footnote on the first page.
  const numbered = (prefix: string, count: number, what: string) =>
    Array.from({ length: count }, (_, i) => `<p id="${prefix}${i + 1}">${what} ${i + 1}: a paragraph long enough to fill a few pages of the ${prefix === 'p' && i + 1 === RTL_FOUND ? RTL_WORD : 'reader'}.</p>`).join('');
  const long = `<h1>One</h1><p id="opening">The opening words of the right to left book<a epub:type="noteref" id="rtl-ref" href="#rtl-note">1</a>.</p>${numbered('p', RTL_PARAGRAPHS, 'First chapter')}<aside epub:type="footnote" id="rtl-note"><p>${RTL_NOTE}</p></aside>`;
  fs.writeFileSync(
    rtlFile,
    minimalEpub3({
      'OEBPS/content.opf': opf,
      'OEBPS/nav/toc.xhtml': new TextDecoder()
        .decode(unzipSync(minimalEpub3())['OEBPS/nav/toc.xhtml']!)
        .replace(
          '<li><a href="../text/ch2.xhtml">Part Two</a></li>',
          '<li><a href="../text/ch2.xhtml">Part Two</a></li><li><a href="../text/ch3.xhtml">Part Three</a></li><li><a href="../text/ch4.xhtml">Part Four</a></li><li><a href="../text/ch5.xhtml">Part Five</a></li>',
        ),
      'OEBPS/text/chapter 1.xhtml': xhtml('Chapter One', long),
      'OEBPS/text/ch2.xhtml': xhtml('Chapter Two', `<h1>Two</h1>${numbered('q', RTL_PARAGRAPHS, 'Second chapter')}`),
      // A chapter written right to left (its html says dir="rtl"): its lines start at the right too.
      'OEBPS/text/ch3.xhtml': `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" dir="rtl" lang="ar" xml:lang="ar"><head><title>الفصل الثالث</title></head>
<body><h1>ثلاثة</h1>${Array.from({ length: RTL_PARAGRAPHS }, (_, i) => `<p id="a${i + 1}">الفقرة ${i + 1}: نص عربي طويل بما يكفي لملء بضع صفحات من القارئ.</p>`).join('')}</body></html>`,
      // A Japanese chapter in vertical writing, as such books do it (AozoraEpub3's html.vrtl): a class on the
      // document's own html (put back on the frame's: the importer keeps only body content) and the stylesheet's
      // rule for it (with the -epub- and -webkit- spellings), lines top to bottom, following each other right to left; long enough for several pages,
      // each paragraph's number in it every few words so that any snippet of it is found in that paragraph only.
      'OEBPS/styles/vertical.css': '.vrtl { -epub-writing-mode: vertical-rl; -webkit-writing-mode: vertical-rl; writing-mode: vertical-rl; }\nbody.p-text { line-height: 1.8; }\np { margin: 0; text-indent: 1em; }\n',
      'OEBPS/text/ch4.xhtml': `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" class="vrtl" lang="ja" xml:lang="ja"><head><title>第四部</title><link rel="stylesheet" type="text/css" href="../styles/vertical.css"/></head>
<body class="p-text"><h1>第四部</h1>${Array.from({ length: VERTICAL_PARAGRAPHS }, (_, i) => (i + 1 === VERTICAL_FOUND ? `<p id="v${i + 1}">第${i + 1}段。${VERTICAL_PASSAGE}</p>` : `<p id="v${i + 1}">第${i + 1}段。吾輩は猫である${i + 1}。名前はまだ無い${i + 1}。どこで生れたかとんと見当がつかぬ${i + 1}。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している${i + 1}。</p>`)).join('')}</body></html>`,
      'OEBPS/text/ch5.xhtml': xhtml('Chapter Five', '<h1>Five</h1><p id="after-vertical">The chapter after the vertical one.</p>'),
    }),
  );
  rtlBookId = /imported\s+(\S+)\s+"Right To Left Fixture"/.exec(importBook(inject('dataDir'), rtlFile))?.[1] ?? '';
  fs.rmSync(folder, { recursive: true, force: true });
  if (!bookId) throw new Error(`the fixture was not imported: ${out}`);
});

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
            // styled through the classes and id of the chapter's own html and body, put back on the frame's
            fromRoot: [cs('from-root').textDecorationLine, cs('from-root').letterSpacing],
            bodyWordSpacing: doc.defaultView!.getComputedStyle(doc.body).wordSpacing,
            // the book's typeface on its html reaches the text (the reader has no typeface setting to win with)
            textFont: cs('from-root').fontFamily,
            readerClasses: doc.documentElement.className,
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
        fromRoot: ['underline', '2px'],
        bodyWordSpacing: '1px',
        textFont: '"Lectern Adobe", serif',
      });
      expect(styles.readerClasses.split(' ')).toContain('book-root');
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
      await painted(page);
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

    it('lays a right-to-left book out right to left in paged mode: the left arrow goes on, into the next chapter and back', async () => {
      expect(rtlBookId).not.toBe('');
      const detail = await (await page.request.get(`/api/v1/book/${rtlBookId}/`)).json();
      const [first, second] = detail.chapters as ChapterInfo[];
      await openChapter(page, first!);
      await page.getByRole('button', { name: 'Display settings' }).click();
      await page.getByRole('button', { name: 'Pages' }).click();
      await page.keyboard.press('Escape');
      const footer = () => page.locator('.reader-footer__text').textContent();
      await expect.poll(footer).toMatch(/^Page \d+ of \d+$/);
      await page.keyboard.press('Home');
      await expect.poll(footer).toMatch(/^Page 1 of \d+$/);
      const count = Number(/of (\d+)$/.exec((await footer()) ?? '')?.[1]);
      expect(count).toBeGreaterThan(2);

      // Page 1 is the chapter's first words, at the start of a strip that runs right to left: the rest is to its left.
      const one = await pageInView(page);
      expect(one.rtl).toBe(true);
      expect(one.scrollLeft).toBe(0);
      expect(one.ids.slice(0, 2)).toEqual(['h1', 'opening']);
      const lastLeft = await inFrame(page, (doc, id: string) => doc.getElementById(id)!.getBoundingClientRect().left, `p${RTL_PARAGRAPHS}`);
      expect(lastLeft).toBeLessThan(0);
      // the words keep their own direction (an English book turning right to left)
      expect(await inFrame(page, (doc) => doc.defaultView!.getComputedStyle(doc.getElementById('opening')!).direction, null)).toBe('ltr');

      // A footnote opens over the page and the page stays.
      const note = await openNote(page, 'rtl-ref');
      expect(await note.innerText()).toContain(RTL_NOTE);
      const sheet = (await note.boundingBox())!;
      expect(sheet.x).toBeGreaterThanOrEqual(0);
      expect(sheet.x + sheet.width).toBeLessThanOrEqual(viewport.width);
      await page.keyboard.press('Escape');
      await expect.poll(() => note.count()).toBe(0);
      expect((await pageInView(page)).scrollLeft).toBe(0);

      // The left arrow: page 2, later words, the first page now off to the right.
      await page.keyboard.press('ArrowLeft');
      await expect.poll(footer).toBe(`Page 2 of ${count}`);
      const two = await pageInView(page);
      expect(two.scrollLeft).toBeLessThan(0);
      expect(two.ids).not.toContain('opening');
      expect(Math.min(...two.ids.map(numberOf))).toBeGreaterThan(Math.max(...one.ids.map(numberOf)) - 1);
      expect(await inFrame(page, (doc) => doc.getElementById('opening')!.getBoundingClientRect().left, null)).toBeGreaterThanOrEqual(viewport.width - 1);
      await page.screenshot({ path: path.join(os.tmpdir(), `lectern-fidelity-rtl-${viewport.width}.png`) });

      // A highlight on page 2: the adder by the selection, the highlight drawn there, and there again after a turn.
      const chosen = two.ids.filter((id) => numberOf(id) > 0)[1]!;
      const selected = await selectStart(page, chosen, 20);
      expect(selected.left).toBeGreaterThanOrEqual(0);
      expect(selected.right).toBeLessThanOrEqual(viewport.width);
      await highlightSelection(page, viewport);
      // (the demo account's highlight made at the other width is drawn too, on its own words)
      const ours = () => drawnHighlight(page, selected.text);
      await expect.poll(ours).not.toBeNull();
      expect((await ours())!.left).toBeCloseTo(selected.left, 0);
      await page.keyboard.press('ArrowLeft');
      await expect.poll(footer).toBe(`Page 3 of ${count}`);
      expect((await ours())!.left).toBeGreaterThanOrEqual(viewport.width - 1);
      await page.keyboard.press('ArrowRight');
      await expect.poll(footer).toBe(`Page 2 of ${count}`);
      expect((await ours())!.left).toBeCloseTo(selected.left, 0);

      await page.keyboard.press('ArrowRight');
      await expect.poll(footer).toBe(`Page 1 of ${count}`);
      expect((await pageInView(page)).ids).toContain('opening');

      // A reload keeps the page (the position saved as a Locator, found again and paged to).
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('ArrowLeft');
      await expect.poll(footer).toBe(`Page 3 of ${count}`);
      const three = await pageInView(page);
      const saved = (100 * 2) / (count - 1);
      await expect
        .poll(() => page.evaluate((href) => Object.values(JSON.parse(localStorage.getItem('reader_positions') ?? '{}') as Record<string, { href: string; progression: number }>).find((p) => p.href === href)?.progression ?? null, first!.full_path))
        .toBeCloseTo(saved, 1);
      await page.reload();
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
      await expect.poll(footer).toBe(`Page 3 of ${count}`);
      expect((await pageInView(page)).ids).toEqual(three.ids);

      // A larger font, and back, and a narrower window keep the place: the paragraph read first stays on the page.
      const held = three.ids.find((id) => numberOf(id) > 0)!;
      await keepsPlace(page, { held, count, viewport, smaller: { width: viewport.width - 60, height: viewport.height }, inView: () => pageInView(page) });

      // The search jump lands on the passage's page.
      await searchAndFollow(page, RTL_WORD);
      await expect.poll(async () => (await pageInView(page)).ids, { timeout: 15_000 }).toContain(`p${RTL_FOUND}`);
      const found = await currentSearchHit(page);
      expect(found!.left).toBeGreaterThanOrEqual(0);
      expect(found!.right).toBeLessThanOrEqual(viewport.width);
      await expect.poll(async () => Number(/^Page (\d+)/.exec((await footer()) ?? '')?.[1])).toBeGreaterThan(3);
      expect(await inFrame(page, (doc) => Math.round(-doc.scrollingElement!.scrollLeft / doc.documentElement.clientWidth) + 1, null)).toBe(Number(/^Page (\d+)/.exec((await footer()) ?? '')?.[1]));

      // The page after the last is the next chapter, from its first page.
      await page.keyboard.press('End');
      await expect.poll(footer).toBe(`Page ${count} of ${count}`);
      expect((await pageInView(page)).ids).toContain(`p${RTL_PARAGRAPHS}`);
      await page.evaluate(() => performance.clearMarks('reader:chapter-painted'));
      await page.keyboard.press('ArrowLeft');
      await page.waitForURL((u) => decodeURIComponent(u.pathname).endsWith(`/${second!.full_path}`));
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
      await page.waitForFunction((label) => document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')?.contentDocument?.title === label, second!.label);
      await expect.poll(footer).toMatch(/^Page 1 of \d+$/);
      await expect.poll(async () => (await pageInView(page)).ids.slice(0, 2)).toEqual(['h1', 'q1']);
      // …and back from its first page is the previous chapter at its last page.
      // (the keyboard went with the chapter: the frame that showed the first one may be the hidden spare now)
      expect(await page.evaluate(() => document.activeElement?.classList.contains('chapter-view__frame'))).toBe(true);
      await page.keyboard.press('ArrowRight');
      await page.waitForURL((u) => decodeURIComponent(u.pathname).endsWith(`/${first!.full_path}`));
      await page.waitForFunction((label) => document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')?.contentDocument?.title === label, first!.label);
      await expect.poll(footer).toBe(`Page ${count} of ${count}`);
      const last = await pageInView(page);
      expect(last.ids).toContain(`p${RTL_PARAGRAPHS}`);
      expect(last.scrollLeft).toBeLessThan(0);

      // back to scrolling for what follows
      await page.getByRole('button', { name: 'Display settings' }).click();
      await page.getByRole('button', { name: 'Scroll' }).click();
      await page.keyboard.press('Escape');
    });

    it("keeps a right-to-left chapter's lines right to left on right-to-left pages, and its first words", async () => {
      const detail = await (await page.request.get(`/api/v1/book/${rtlBookId}/`)).json();
      const third = (detail.chapters as ChapterInfo[])[2]!;
      expect(third.label).toBe('Part Three');
      await openChapter(page, third);
      await page.getByRole('button', { name: 'Display settings' }).click();
      await page.getByRole('button', { name: 'Pages' }).click();
      await page.keyboard.press('Escape');
      const footer = () => page.locator('.reader-footer__text').textContent();
      await page.keyboard.press('Home');
      await expect.poll(footer).toMatch(/^Page 1 of \d+$/);
      const one = await pageInView(page);
      expect(one.rtl).toBe(true);
      expect(one.ids.slice(0, 2)).toEqual(['h1', 'a1']);
      // the paragraphs are right to left, their lines start at the right of the column
      const a1 = await inFrame(
        page,
        (doc) => {
          const p = doc.getElementById('a1')!;
          const range = doc.createRange();
          range.setStart(p.firstChild!, 0);
          range.setEnd(p.firstChild!, 1);
          return { direction: doc.defaultView!.getComputedStyle(p).direction, first: range.getBoundingClientRect().right, box: p.getBoundingClientRect().right };
        },
        null,
      );
      expect(a1.direction).toBe('rtl');
      expect(a1.first).toBeGreaterThan(a1.box - 4);
      // On page 2, the position kept is the first words of the page: the start of its first line, at the right.
      await page.keyboard.press('ArrowLeft');
      await expect.poll(footer).toMatch(/^Page 2 of \d+$/);
      const two = await pageInView(page);
      const locator = () =>
        page.evaluate((href) => Object.values(JSON.parse(localStorage.getItem('reader_positions') ?? '{}') as Record<string, { href: string; progression: number; text?: { highlight: string } }>).find((p) => p.href === href) ?? null, third.full_path);
      // (page 2's position, not the one kept when the chapter opened in scroll mode: that one is more than 0 too)
      const pages = Number(/of (\d+)$/.exec((await footer()) ?? '')?.[1]);
      await expect.poll(async () => (await locator())?.progression ?? 0).toBeCloseTo(100 / (pages - 1), 1);
      // (every paragraph ends with the same words: a snippet taken from a line's end, its left, is found on page 1)
      const kept = (await locator())!.text!.highlight;
      const where = await inFrame(
        page,
        (doc, kept: string) => {
          const walker = doc.createTreeWalker(doc.getElementById('lectern-root')!, NodeFilter.SHOW_TEXT);
          for (let t = walker.nextNode() as Text | null; t; t = walker.nextNode() as Text | null) {
            const at = t.data.indexOf(kept);
            if (at < 0) continue;
            const range = doc.createRange();
            range.setStart(t, at);
            range.setEnd(t, at + 1);
            const r = range.getBoundingClientRect();
            // the first line of the page: no line of the chapter's text above it on this page
            return { right: r.right, top: r.top, width: doc.documentElement.clientWidth, id: t.parentElement!.id };
          }
          return null;
        },
        kept,
      );
      expect(where).not.toBeNull();
      expect(two.ids).toContain(where!.id);
      expect(where!.right).toBeGreaterThan(where!.width / 2);
      expect(where!.right).toBeLessThanOrEqual(where!.width);
      await page.reload();
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
      await expect.poll(footer).toMatch(/^Page 2 of \d+$/);
      expect((await pageInView(page)).ids).toEqual(two.ids);
      await page.screenshot({ path: path.join(os.tmpdir(), `lectern-fidelity-rtl-arabic-${viewport.width}.png`) });
      await page.getByRole('button', { name: 'Display settings' }).click();
      await page.getByRole('button', { name: 'Scroll' }).click();
      await page.keyboard.press('Escape');
    });

    it('pages a chapter in vertical writing: one screen of vertical lines read right to left, on into the next chapter and back', async () => {
      const detail = await (await page.request.get(`/api/v1/book/${rtlBookId}/`)).json();
      const chapters = detail.chapters as ChapterInfo[];
      const fourth = chapters[3]!;
      const fifth = chapters[4]!;
      expect(fourth.label).toBe('Part Four');
      await openChapter(page, fourth);
      await page.getByRole('button', { name: 'Display settings' }).click();
      await page.getByRole('button', { name: 'Pages' }).click();
      await page.keyboard.press('Escape');
      const footer = () => page.locator('.reader-footer__text').textContent();
      await page.keyboard.press('Home');
      await expect.poll(footer).toMatch(/^Page 1 of \d+$/);
      const count = Number(/of (\d+)$/.exec((await footer()) ?? '')?.[1]);
      expect(count).toBeGreaterThan(2);

      // Page 1: vertical lines from the right edge, the heading first, then the first paragraph to its left; nothing
      // wider than the frame (the pages stack downwards, one screen each).
      const one = await verticalInView(page);
      expect(one.writingMode).toBe('vertical-rl');
      expect(one.vertical).toBe(true);
      expect(one.rtlClass).toBe(false);
      expect(one.overflowX).toBe(false);
      expect(one.scrollTop).toBe(0);
      expect(one.ids.slice(0, 3)).toEqual(['h1', 'v1', 'v2']);
      const firstGlyph = await inFrame(
        page,
        (doc) => {
          const text = doc.getElementById('v1')!.firstChild as Text;
          const range = doc.createRange();
          range.setStart(text, 0);
          range.setEnd(text, 1);
          const r = range.getBoundingClientRect();
          const h1 = doc.querySelector('#lectern-root h1')!.getBoundingClientRect();
          range.setStart(text, 1);
          range.setEnd(text, 2);
          const second = range.getBoundingClientRect();
          return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, secondTop: second.top, secondLeft: second.left, h1Right: h1.right, h1Left: h1.left, width: doc.documentElement.clientWidth, height: doc.documentElement.clientHeight };
        },
        null,
      );
      // the heading is the rightmost line, near the right edge; the first paragraph starts to its left, at the top
      expect(firstGlyph.h1Right).toBeGreaterThan(firstGlyph.width - 80);
      expect(firstGlyph.h1Right).toBeLessThanOrEqual(firstGlyph.width);
      expect(firstGlyph.right).toBeLessThanOrEqual(firstGlyph.h1Left + 1);
      expect(firstGlyph.right).toBeGreaterThan(firstGlyph.width - 200);
      expect(firstGlyph.top).toBeLessThan(100);
      // the line runs downwards: the second character under the first, in the same line (whatever the font's
      // glyph box: this machine has no CJK font and draws boxes wider than tall)
      expect(firstGlyph.secondTop).toBeGreaterThanOrEqual(firstGlyph.bottom - 1);
      expect(Math.abs(firstGlyph.secondLeft - firstGlyph.left)).toBeLessThan(2);
      // the whole app stays inside the phone's width
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);

      // The left arrow (as in any right-to-left book): page 2, the lines after those of page 1.
      await page.keyboard.press('ArrowLeft');
      await expect.poll(footer).toBe(`Page 2 of ${count}`);
      const two = await verticalInView(page);
      expect(two.aligned).toBe(true);
      expect(two.scrollTop).toBeGreaterThan(0);
      expect(two.overflowX).toBe(false);
      expect(two.ids).not.toContain('v1');
      expect(Math.min(...two.ids.map(numberOf))).toBeGreaterThan(Math.max(...one.ids.map(numberOf)) - 1);
      // the position kept is the top of the page's first (rightmost) line
      const locator = () =>
        page.evaluate((href) => Object.values(JSON.parse(localStorage.getItem('reader_positions') ?? '{}') as Record<string, { href: string; progression: number; text?: { before: string; highlight: string } }>).find((p) => p.href === href) ?? null, fourth.full_path);
      await expect.poll(async () => (await locator())?.progression ?? 0).toBeCloseTo(100 / (count - 1), 1);
      const kept = (await locator())!.text!;
      expect(kept.highlight.length).toBeGreaterThan(0);
      // (the paragraphs repeat their words: of the places on this page the snippet is found, the rightmost is the top
      // of the page's first line, at the right edge)
      const where = await inFrame(
        page,
        (doc, kept: { before: string; highlight: string }) => {
          const walker = doc.createTreeWalker(doc.getElementById('lectern-root')!, NodeFilter.SHOW_TEXT);
          const width = doc.documentElement.clientWidth;
          const height = doc.documentElement.clientHeight;
          const seen: { right: number; top: number }[] = [];
          for (let t = walker.nextNode() as Text | null; t; t = walker.nextNode() as Text | null) {
            for (let at = t.data.indexOf(kept.before + kept.highlight); at >= 0; at = t.data.indexOf(kept.before + kept.highlight, at + 1)) {
              const range = doc.createRange();
              range.setStart(t, at + kept.before.length);
              range.setEnd(t, at + kept.before.length + 1);
              const r = range.getBoundingClientRect();
              if (r.right > 0 && r.left < width && r.top >= 0 && r.bottom <= height) seen.push({ right: r.right, top: r.top });
            }
          }
          return { seen, width, height };
        },
        kept,
      );
      const rightmost = where.seen.sort((a, b) => b.right - a.right)[0]!;
      expect(rightmost.right).toBeGreaterThan(where.width - 120);
      expect(rightmost.right).toBeLessThanOrEqual(where.width);
      expect(rightmost.top).toBeLessThan(120);
      await page.screenshot({ path: path.join(os.tmpdir(), `lectern-fidelity-vertical-${viewport.width}.png`) });

      // A tap on the left of the page goes on too, a tap on the right back.
      const frameBox = (await page.locator('iframe.chapter-view__frame').boundingBox())!;
      await page.mouse.click(frameBox.x + 20, frameBox.y + frameBox.height / 2);
      await expect.poll(footer).toBe(`Page 3 of ${count}`);
      await page.mouse.click(frameBox.x + frameBox.width - 20, frameBox.y + frameBox.height / 2);
      await expect.poll(footer).toBe(`Page 2 of ${count}`);

      // A reload keeps the page.
      await page.reload();
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
      await expect.poll(footer).toBe(`Page 2 of ${count}`);
      expect((await verticalInView(page)).ids).toEqual(two.ids);

      // A larger font, and back, keep the place: the first paragraph of the page stays in view.
      const held = two.ids.find((id) => numberOf(id) > 0)!;
      await keepsPlace(page, { held, count, viewport, smaller: { width: viewport.width, height: viewport.height - 80 }, inView: () => verticalInView(page) });

      // A highlight: the adder by the selection, inside the screen.
      const selected = await selectStart(page, held, 6);
      expect(selected.left).toBeGreaterThanOrEqual(0);
      expect(selected.right).toBeLessThanOrEqual(viewport.width);
      await highlightSelection(page, viewport);
      const ours = () => drawnHighlight(page, selected.text);
      await expect.poll(ours).not.toBeNull();
      expect((await ours())!.left).toBeCloseTo(selected.left, 0);

      // The search jump lands on the passage's page.
      await searchAndFollow(page, VERTICAL_QUERY, path.join(os.tmpdir(), `lectern-fidelity-vertical-search-${viewport.width}.png`));
      await expect.poll(async () => (await verticalInView(page)).ids, { timeout: 15_000 }).toContain(`v${VERTICAL_FOUND}`);
      const found = await currentSearchHit(page);
      // the words marked where they stand inside their sentence, which has no spaces: the ruby base, then on after it
      expect(found!.text).toBe(VERTICAL_WORD);
      expect(await inFrame(page, (doc) => Array.from(doc.querySelectorAll('mark.lectern-search-hit--current')).map((m) => m.textContent).join(''), null)).toBe(VERTICAL_QUERY);
      expect(found!.left).toBeGreaterThanOrEqual(0);
      expect(found!.right).toBeLessThanOrEqual(viewport.width);
      expect(found!.top).toBeGreaterThanOrEqual(0);
      expect(found!.bottom).toBeLessThanOrEqual(found!.height);
      // the footer says the page the frame shows
      const jumped = await inFrame(page, (doc) => Math.round(doc.scrollingElement!.scrollTop / doc.documentElement.clientHeight) + 1, null);
      expect(jumped).toBeGreaterThan(2);
      await expect.poll(footer).toBe(`Page ${jumped} of ${count}`);

      // The page after the last is the next chapter, from its first page…
      await page.keyboard.press('End');
      await expect.poll(footer).toBe(`Page ${count} of ${count}`);
      expect((await verticalInView(page)).ids).toContain(`v${VERTICAL_PARAGRAPHS}`);
      await page.evaluate(() => performance.clearMarks('reader:chapter-painted'));
      await page.keyboard.press('ArrowLeft');
      await page.waitForURL((u) => decodeURIComponent(u.pathname).endsWith(`/${fifth.full_path}`));
      await page.waitForFunction((label) => document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')?.contentDocument?.title === label, fifth.label);
      await expect.poll(footer).toMatch(/^Page 1 of \d+$/);
      // …and back from its first page is the vertical chapter at its last page, vertical again.
      await page.keyboard.press('ArrowRight');
      await page.waitForURL((u) => decodeURIComponent(u.pathname).endsWith(`/${fourth.full_path}`));
      await page.waitForFunction((label) => document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')?.contentDocument?.title === label, fourth.label);
      await expect.poll(footer).toBe(`Page ${count} of ${count}`);
      const last = await verticalInView(page);
      expect(last.vertical).toBe(true);
      expect(last.ids).toContain(`v${VERTICAL_PARAGRAPHS}`);

      // Scroll mode: the chapter scrolls sideways, from its right end, lines as high as the frame.
      await page.getByRole('button', { name: 'Display settings' }).click();
      await page.getByRole('button', { name: 'Scroll' }).click();
      await page.keyboard.press('Escape');
      await page.keyboard.press('Home');
      await expect.poll(async () => (await verticalInView(page)).scrollLeft).toBe(0);
      const scrolled = await inFrame(page, (doc) => {
        const s = doc.scrollingElement!;
        return { sw: s.scrollWidth, cw: s.clientWidth, sh: s.scrollHeight, ch: s.clientHeight };
      }, null);
      expect(scrolled.sw).toBeGreaterThan(scrolled.cw * 2);
      expect(scrolled.sh).toBeLessThanOrEqual(scrolled.ch + 1);
      expect((await verticalInView(page)).ids.slice(0, 2)).toEqual(['h1', 'v1']);
      await page.keyboard.press('PageDown');
      await expect.poll(async () => (await verticalInView(page)).scrollLeft).toBeLessThan(-scrolled.cw / 2);
      expect((await verticalInView(page)).ids).not.toContain('v1');
      // the footer's percentage is how far along the chapter is, from its right end
      await expect.poll(footer).toMatch(/^[1-9]\d?%$/);
      // a mouse wheel turned down moves it on, leftwards
      const before = (await verticalInView(page)).scrollLeft;
      const scrollBox = (await page.locator('iframe.chapter-view__frame').boundingBox())!;
      await page.mouse.move(scrollBox.x + scrollBox.width / 2, scrollBox.y + scrollBox.height / 2);
      await page.mouse.wheel(0, 300);
      await expect.poll(async () => (await verticalInView(page)).scrollLeft).toBeLessThan(before - 100);
      await page.screenshot({ path: path.join(os.tmpdir(), `lectern-fidelity-vertical-scroll-${viewport.width}.png`) });
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
