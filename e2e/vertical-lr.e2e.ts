/**
 * Vertical writing read left to right, and sideways (docs/decisions.md "Vertical
 * writing"): a small book of Latin text (this machine has no CJK or Mongolian font; the layout is the same) whose
 * chapters are in `writing-mode: vertical-lr` (as Mongolian is written), `sideways-lr`, `sideways-rl`, and a
 * horizontal chapter holding one vertical-lr block, read at desktop and phone widths. A vertical-lr chapter is paged
 * in columns one screen high stacked downwards, page 1's first line at the LEFT edge, the right arrow on; a
 * sideways-lr one's pages stack upwards; a sideways-rl one is paged as vertical-rl; the mixed one as any horizontal
 * chapter.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { READING_MESSAGES } from '@lectern/core';
import { epubBook } from '../packages/server/test/ingest/helpers.ts';
import { importBook } from '../scripts/fresh-server.ts';
import { openPage, signInAsDemo } from './browser.ts';
import { type ChapterInfo, currentSearchHit, drawnHighlight, highlightSelection, inFrame, keepsPlace, openChapter, openNote, searchAndFollow, selectStart } from './reader-steps.ts';

const TITLE = 'Vertical Left To Right Fixture';
const PARAGRAPHS = 60;
const NOTE = 'A note of the left to right vertical book.';
const WORD = 'zenith';
const FOUND = 37;

/** A paragraph whose number comes back every few words, so that any snippet of it is found in it only. */
const paragraph = (prefix: string, n: number, word = 'steppe') =>
  `<p id="${prefix}${n}">Paragraph ${n}: the herdsmen ${n} rode on across the wide ${word} ${n}, and the evening wind ${n} carried their songs ${n} far over the grass ${n}.</p>`;
const numbered = (prefix: string, extra = '') =>
  Array.from({ length: PARAGRAPHS }, (_, i) => (i === 0 ? paragraph(prefix, 1).replace('</p>', `${extra}</p>`) : paragraph(prefix, i + 1, prefix === 'm' && i + 1 === FOUND ? WORD : 'steppe'))).join('');

let bookId = '';

beforeAll(() => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-vertical-lr-'));
  const file = path.join(folder, 'vertical-lr.epub');
  fs.writeFileSync(
    file,
    epubBook({
      identifier: 'urn:uuid:5a1e0c3e-0000-4000-8000-0000000000c1',
      title: TITLE,
      manifest: [
        '<item id="lr" href="lr.css" media-type="text/css"/>',
        '<item id="slr" href="slr.css" media-type="text/css"/>',
        '<item id="srl" href="srl.css" media-type="text/css"/>',
      ],
      files: {
        // the book's stylesheet on html, as such books do it (and its legacy spellings)
        'lr.css': 'html { -epub-writing-mode: vertical-lr; -webkit-writing-mode: vertical-lr; writing-mode: vertical-lr; }\np { margin: 0; text-indent: 1em; }\n',
        'slr.css': 'html { writing-mode: sideways-lr; }\np { margin: 0; text-indent: 1em; }\n',
        'srl.css': 'html { writing-mode: sideways-rl; }\np { margin: 0; text-indent: 1em; }\n',
      },
      chapters: [
        {
          path: 'lr.xhtml',
          label: 'Left To Right',
          head: '<link rel="stylesheet" href="lr.css"/>',
          body: `<h1>Steppe</h1>${numbered('m', `<a epub:type="noteref" id="lr-ref" href="#lr-note">1</a>`)}<aside epub:type="footnote" id="lr-note"><p>${NOTE}</p></aside>`,
        },
        { path: 'slr.xhtml', label: 'Sideways Left', head: '<link rel="stylesheet" href="slr.css"/>', body: `<h1>Upwards</h1>${numbered('s')}` },
        { path: 'srl.xhtml', label: 'Sideways Right', head: '<link rel="stylesheet" href="srl.css"/>', body: `<h1>Downwards</h1>${numbered('r')}` },
        {
          path: 'mixed.xhtml',
          label: 'Mixed',
          body: `<h1>Mixed</h1>${paragraph('h', 1)}<div id="tall" style="writing-mode: vertical-lr; height: 12em;">${paragraph('t', 1)}</div>${Array.from({ length: PARAGRAPHS }, (_, i) => paragraph('h', i + 2)).join('')}`,
        },
      ],
    }),
  );
  bookId = new RegExp(`imported\\s+(\\S+)\\s+"${TITLE}"`).exec(importBook(inject('dataDir'), file))?.[1] ?? '';
  fs.rmSync(folder, { recursive: true, force: true });
  if (!bookId) throw new Error('the vertical-lr fixture was not imported');
});

interface InView {
  /** the paragraphs (ids) with a line inside the frame, in the order their lines are read across the page */
  ids: string[];
  scrollTop: number;
  scrollLeft: number;
  /** on a page boundary of the strip (whole frame heights) */
  aligned: boolean;
  vertical: boolean;
  rtlClass: boolean;
  writingMode: string;
  overflowX: boolean;
  width: number;
  height: number;
}

/** What the page on screen shows; `lr`: its lines are read left to right (else right to left). */
function inView(page: Page, lr = true): Promise<InView> {
  return inFrame(
    page,
    (doc, lr: boolean) => {
      const w = doc.documentElement.clientWidth;
      const h = doc.documentElement.clientHeight;
      const seen = (r: DOMRect) => (r.width > 0 || r.height > 0) && r.top + r.height / 2 >= 0 && r.top + r.height / 2 < h && r.left + r.width / 2 >= 0 && r.left + r.width / 2 < w;
      const ids = Array.from(doc.querySelectorAll('#lectern-root p[id], #lectern-root h1'))
        .map((el) => ({ id: el.id || el.tagName.toLowerCase(), rects: Array.from(el.getClientRects()).filter(seen) }))
        .filter((e) => e.rects.length > 0)
        .sort((a, b) => (lr ? Math.min(...a.rects.map((r) => r.left)) - Math.min(...b.rects.map((r) => r.left)) : Math.max(...b.rects.map((r) => r.right)) - Math.max(...a.rects.map((r) => r.right))))
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
        width: w,
        height: h,
      };
    },
    lr,
  );
}

/** The box of characters `from`..`from + 1` of an element's first text. */
function glyph(page: Page, id: string, from = 0) {
  return inFrame(
    page,
    (doc, { id, from }: { id: string; from: number }) => {
      const text = doc.getElementById(id)!.firstChild as Text;
      const range = doc.createRange();
      range.setStart(text, from);
      range.setEnd(text, from + 1);
      const r = range.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    },
    { id, from },
  );
}

/** Scroll mode of a left-to-right vertical chapter: how far along it is, from its left end. */
const sidewaysPercentage = (v: { scrollLeft: number }, s: { sw: number; cw: number }) => (100 * v.scrollLeft) / (s.sw - s.cw);

/** The number of a numbered paragraph id (m12 -> 12; others 0). */
const numberOf = (id: string) => Number(/^[msrh](\d+)$/.exec(id)?.[1] ?? 0);

/** The stored position of a chapter (the Locator the reader keeps). */
const locatorOf = (page: Page, href: string) =>
  page.evaluate((href) => Object.values(JSON.parse(localStorage.getItem('reader_positions') ?? '{}') as Record<string, { href: string; progression: number; text?: { before: string; highlight: string } }>).find((p) => p.href === href) ?? null, href);

/** Where on the page the snippet of a Locator is found (every place in view). */
function placesOf(page: Page, kept: { before: string; highlight: string }) {
  return inFrame(
    page,
    (doc, kept: { before: string; highlight: string }) => {
      const walker = doc.createTreeWalker(doc.getElementById('lectern-root')!, NodeFilter.SHOW_TEXT);
      const width = doc.documentElement.clientWidth;
      const height = doc.documentElement.clientHeight;
      const seen: { left: number; right: number; top: number; bottom: number }[] = [];
      for (let t = walker.nextNode() as Text | null; t; t = walker.nextNode() as Text | null) {
        for (let at = t.data.indexOf(kept.before + kept.highlight); at >= 0; at = t.data.indexOf(kept.before + kept.highlight, at + 1)) {
          const range = doc.createRange();
          range.setStart(t, at + kept.before.length);
          range.setEnd(t, at + kept.before.length + 1);
          const r = range.getBoundingClientRect();
          if (r.right > 0 && r.left < width && r.top >= 0 && r.bottom <= height) seen.push({ left: r.left, right: r.right, top: r.top, bottom: r.bottom });
        }
      }
      return { seen, width, height };
    },
    kept,
  );
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  describe(`vertical-lr and sideways writing at ${viewport.width}x${viewport.height}`, () => {
    let browser: Browser;
    let page: Page;
    let chapters: ChapterInfo[];
    const footer = () => page.locator('.reader-footer__text').textContent();
    const countOf = async () => Number(/of (\d+)$/.exec((await footer()) ?? '')?.[1]);

    async function mode(name: 'Pages' | 'Scroll') {
      await page.getByRole('button', { name: 'Display settings' }).click();
      await page.getByRole('button', { name }).click();
      await page.keyboard.press('Escape');
    }

    beforeAll(async () => {
      ({ browser, page } = await openPage(viewport));
      await signInAsDemo(page);
      const detail = await (await page.request.get(`/api/v1/book/${bookId}/`)).json();
      chapters = detail.chapters as ChapterInfo[];
      expect(chapters.map((c) => c.label)).toEqual(['Left To Right', 'Sideways Left', 'Sideways Right', 'Mixed']);
    });
    afterAll(() => browser?.close());

    it('pages a vertical-lr chapter: page 1 starts at the left, the right arrow goes on and the left back, a reload keeps the page', async () => {
      const [first, second] = chapters as [ChapterInfo, ChapterInfo];
      await openChapter(page, first);
      await mode('Pages');
      await page.keyboard.press('Home');
      await expect.poll(footer).toMatch(/^Page 1 of \d+$/);
      const count = await countOf();
      expect(count).toBeGreaterThan(2);

      // Page 1: vertical lines from the LEFT edge, the heading first, then the first paragraph to its right; nothing
      // wider than the frame (the pages stack downwards, one screen each).
      const one = await inView(page);
      expect(one.writingMode).toBe('vertical-lr');
      expect(one.vertical).toBe(true);
      expect(one.rtlClass).toBe(false);
      expect(one.overflowX).toBe(false);
      expect(one.scrollTop).toBe(0);
      expect(one.ids.slice(0, 3)).toEqual(['h1', 'm1', 'm2']);
      const h1 = await inFrame(page, (doc) => {
        const r = doc.querySelector('#lectern-root h1')!.getBoundingClientRect();
        return { left: r.left, right: r.right };
      }, null);
      const g1 = await glyph(page, 'm1', 0);
      const g2 = await glyph(page, 'm1', 1);
      // the heading is the leftmost line, near the left edge; the first paragraph starts to its right, at the top
      expect(h1.left).toBeGreaterThanOrEqual(0);
      expect(h1.left).toBeLessThan(80);
      expect(g1.left).toBeGreaterThanOrEqual(h1.right - 1);
      expect(g1.left).toBeLessThan(200);
      expect(g1.top).toBeLessThan(100);
      // the line runs downwards: the second character under the first, in the same line
      expect(g2.top).toBeGreaterThanOrEqual(g1.bottom - 1);
      expect(Math.abs(g2.left - g1.left)).toBeLessThan(2);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      await page.screenshot({ path: path.join(os.tmpdir(), `lectern-vertical-lr-1-${viewport.width}.png`) });

      // The right arrow: page 2, the lines after those of page 1.
      await page.keyboard.press('ArrowRight');
      await expect.poll(footer).toBe(`Page 2 of ${count}`);
      const two = await inView(page);
      expect(two.aligned).toBe(true);
      expect(two.scrollTop).toBeGreaterThan(0);
      expect(two.overflowX).toBe(false);
      expect(two.ids).not.toContain('m1');
      expect(Math.min(...two.ids.map(numberOf))).toBeGreaterThan(Math.max(...one.ids.map(numberOf)) - 1);
      // the position kept is the top of the page's first (leftmost) line
      await expect.poll(async () => (await locatorOf(page, first.full_path))?.progression ?? 0).toBeCloseTo(100 / (count - 1), 1);
      const kept = (await locatorOf(page, first.full_path))!.text!;
      expect(kept.highlight.length).toBeGreaterThan(0);
      const where = await placesOf(page, kept);
      const leftmost = where.seen.sort((a, b) => a.left - b.left)[0]!;
      expect(leftmost.left).toBeGreaterThanOrEqual(0);
      expect(leftmost.left).toBeLessThan(120);
      expect(leftmost.top).toBeLessThan(120);
      await page.screenshot({ path: path.join(os.tmpdir(), `lectern-vertical-lr-2-${viewport.width}.png`) });

      // The left arrow back, the right arrow on again; a tap on the right of the page on, on the left back.
      await page.keyboard.press('ArrowLeft');
      await expect.poll(footer).toBe(`Page 1 of ${count}`);
      expect((await inView(page)).ids.slice(0, 2)).toEqual(['h1', 'm1']);
      await page.keyboard.press('ArrowRight');
      await expect.poll(footer).toBe(`Page 2 of ${count}`);
      const frameBox = (await page.locator('iframe.chapter-view__frame').boundingBox())!;
      await page.mouse.click(frameBox.x + frameBox.width - 20, frameBox.y + frameBox.height / 2);
      await expect.poll(footer).toBe(`Page 3 of ${count}`);
      await page.mouse.click(frameBox.x + 20, frameBox.y + frameBox.height / 2);
      await expect.poll(footer).toBe(`Page 2 of ${count}`);

      // A reload keeps the page.
      await page.reload();
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
      await expect.poll(footer).toBe(`Page 2 of ${count}`);
      expect((await inView(page)).ids).toEqual(two.ids);

      // A larger font, and back, keep the place; so does a shorter window.
      const held = two.ids.find((id) => numberOf(id) > 0)!;
      await keepsPlace(page, { held, count, viewport, smaller: { width: viewport.width, height: viewport.height - 80 }, inView: () => inView(page) });

      // A footnote opens over the page, across the foot of the frame, the page kept.
      await page.keyboard.press('Home');
      await expect.poll(footer).toBe(`Page 1 of ${count}`);
      const note = await openNote(page, 'lr-ref');
      expect(await note.innerText()).toContain(NOTE);
      expect(await note.evaluate((el) => getComputedStyle(el).writingMode)).toBe('horizontal-tb');
      const sheet = (await note.boundingBox())!;
      expect(sheet.width).toBeGreaterThan(100);
      expect(sheet.x + sheet.width).toBeLessThanOrEqual(viewport.width);
      expect(await footer()).toBe(`Page 1 of ${count}`);
      await note.getByRole('button', { name: READING_MESSAGES.closeNote }).click();
      await expect.poll(() => note.count()).toBe(0);
      expect((await inView(page)).scrollTop).toBe(0);

      // A highlight: the adder by the selection, inside the screen, the highlight where the words are.
      const selected = await selectStart(page, 'm2', 9);
      await highlightSelection(page, viewport);
      const ours = () => drawnHighlight(page, selected.text);
      await expect.poll(ours).not.toBeNull();
      expect((await ours())!.left).toBeCloseTo(selected.left, 0);
      expect((await ours())!.top).toBeCloseTo(selected.top, 0);

      // The search jump lands on the passage's page, and the footer says that page.
      await searchAndFollow(page, WORD);
      await expect.poll(async () => (await inView(page)).ids, { timeout: 15_000 }).toContain(`m${FOUND}`);
      const found = await currentSearchHit(page);
      expect(found!.left).toBeGreaterThanOrEqual(0);
      expect(found!.right).toBeLessThanOrEqual(viewport.width);
      expect(found!.top).toBeGreaterThanOrEqual(0);
      expect(found!.bottom).toBeLessThanOrEqual(found!.height);
      const jumped = await inFrame(page, (doc) => Math.round(doc.scrollingElement!.scrollTop / doc.documentElement.clientHeight) + 1, null);
      expect(jumped).toBeGreaterThan(1);
      await expect.poll(footer).toBe(`Page ${jumped} of ${count}`);

      // Scroll mode: the chapter scrolls sideways from its LEFT end, lines as high as the frame.
      await mode('Scroll');
      await page.keyboard.press('Home');
      await expect.poll(async () => (await inView(page)).scrollLeft).toBe(0);
      const scrolled = await inFrame(page, (doc) => {
        const s = doc.scrollingElement!;
        return { sw: s.scrollWidth, cw: s.clientWidth, sh: s.scrollHeight, ch: s.clientHeight };
      }, null);
      expect(scrolled.sw).toBeGreaterThan(scrolled.cw * 2);
      expect(scrolled.sh).toBeLessThanOrEqual(scrolled.ch + 1);
      expect((await inView(page)).ids.slice(0, 2)).toEqual(['h1', 'm1']);
      await page.keyboard.press('PageDown');
      await expect.poll(async () => (await inView(page)).scrollLeft).toBeGreaterThan(scrolled.cw / 2);
      expect((await inView(page)).ids).not.toContain('m1');
      await expect.poll(footer).toMatch(/^[1-9]\d?%$/);
      // the right arrow and a mouse wheel turned down move it on, rightwards
      let before = (await inView(page)).scrollLeft;
      await page.keyboard.press('ArrowRight');
      await expect.poll(async () => (await inView(page)).scrollLeft).toBeGreaterThan(before + 20);
      before = (await inView(page)).scrollLeft;
      const scrollBox = (await page.locator('iframe.chapter-view__frame').boundingBox())!;
      await page.mouse.move(scrollBox.x + scrollBox.width / 2, scrollBox.y + scrollBox.height / 2);
      await page.mouse.wheel(0, 300);
      await expect.poll(async () => (await inView(page)).scrollLeft).toBeGreaterThan(before + 100);
      await page.screenshot({ path: path.join(os.tmpdir(), `lectern-vertical-lr-scroll-${viewport.width}.png`) });
      // the place kept is the top of the leftmost line wholly in view, and a reload brings it back to the left edge
      const progression = sidewaysPercentage(await inView(page), scrolled);
      await expect.poll(async () => Math.abs(((await locatorOf(page, first.full_path))?.progression ?? -10) - progression)).toBeLessThan(1);
      const keptScrolled = (await locatorOf(page, first.full_path))!.text!;
      const placed = (await placesOf(page, keptScrolled)).seen.sort((a, b) => a.left - b.left)[0]!;
      expect(placed.left).toBeGreaterThanOrEqual(0);
      expect(placed.left).toBeLessThan(80);
      expect(placed.top).toBeLessThan(120);
      await page.reload();
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
      await expect.poll(async () => (await inView(page)).scrollLeft).toBeGreaterThan(scrolled.cw / 2);
      await expect
        .poll(async () => (await placesOf(page, keptScrolled)).seen.sort((a, b) => a.left - b.left)[0]?.left ?? -1)
        .toBeGreaterThanOrEqual(0);
      expect((await placesOf(page, keptScrolled)).seen.sort((a, b) => a.left - b.left)[0]!.left).toBeLessThan(40);
      await mode('Pages');

      // The page after the last is the next chapter; back from its first page is this one at its last page.
      await page.keyboard.press('End');
      await expect.poll(footer).toBe(`Page ${count} of ${count}`);
      expect((await inView(page)).ids).toContain(`m${PARAGRAPHS}`);
      const completed = await page.evaluate(() => performance.getEntriesByName('reader:chapter-complete').length);
      await page.keyboard.press('ArrowRight');
      await page.waitForURL((u) => decodeURIComponent(u.pathname).endsWith(`/${second.full_path}`));
      await page.waitForFunction((label) => document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')?.contentDocument?.title === label, second.label);
      // the chapter wholly in and laid out (a key before that is undone when the rest goes in)
      await page.waitForFunction((n) => performance.getEntriesByName('reader:chapter-complete').length > n, completed);
      expect((await inView(page)).writingMode).toBe('sideways-lr');
      // (at the place the account last read it, which the other tests of the file may have left at its end; that place
      // may arrive after the chapter is drawn and move the page again, so Home is pressed until page 1 holds)
      await expect
        .poll(async () => {
          await page.keyboard.press('Home');
          return footer();
        }, { timeout: 10_000 })
        .toMatch(/^Page 1 of \d+$/);
      await page.keyboard.press('ArrowLeft');
      await page.waitForURL((u) => decodeURIComponent(u.pathname).endsWith(`/${first.full_path}`));
      await page.waitForFunction((label) => document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')?.contentDocument?.title === label, first.label);
      await expect.poll(footer, { timeout: 10_000 }).toBe(`Page ${count} of ${count}`);
      expect((await inView(page)).ids).toContain(`m${PARAGRAPHS}`);
    });

    it('pages a sideways-lr chapter: page 1 at the left with its lines read upwards, later pages above it, a reload keeps the page', async () => {
      const sideways = chapters[1]!;
      await openChapter(page, sideways);
      await mode('Pages');
      await page.keyboard.press('Home');
      await expect.poll(footer).toMatch(/^Page 1 of \d+$/);
      const count = await countOf();
      expect(count).toBeGreaterThan(2);
      const one = await inView(page);
      expect(one.writingMode).toBe('sideways-lr');
      expect(one.vertical).toBe(true);
      expect(one.overflowX).toBe(false);
      expect(one.scrollTop).toBe(0);
      expect(one.ids.slice(0, 2)).toEqual(['h1', 's1']);
      // the first line's first letters at its foot, the next above it
      const g1 = await glyph(page, 's1', 0);
      const g2 = await glyph(page, 's1', 1);
      expect(g1.left).toBeLessThan(200);
      expect(g1.bottom).toBeGreaterThan(one.height - 100);
      expect(g2.bottom).toBeLessThanOrEqual(g1.top + 1);
      await page.screenshot({ path: path.join(os.tmpdir(), `lectern-sideways-lr-1-${viewport.width}.png`) });

      await page.keyboard.press('ArrowRight');
      await expect.poll(footer).toBe(`Page 2 of ${count}`);
      const two = await inView(page);
      // the strip runs upwards: page 2 is above page 1
      expect(two.scrollTop).toBeLessThan(0);
      expect(two.aligned).toBe(true);
      expect(two.ids).not.toContain('s1');
      expect(Math.min(...two.ids.map(numberOf))).toBeGreaterThan(Math.max(...one.ids.map(numberOf)) - 1);
      await expect.poll(async () => (await locatorOf(page, sideways.full_path))?.progression ?? 0).toBeCloseTo(100 / (count - 1), 1);
      const kept = (await locatorOf(page, sideways.full_path))!.text!;
      const where = await placesOf(page, kept);
      const leftmost = where.seen.sort((a, b) => a.left - b.left)[0]!;
      expect(leftmost.left).toBeLessThan(120);
      expect(leftmost.bottom).toBeGreaterThan(where.height - 120);
      await page.screenshot({ path: path.join(os.tmpdir(), `lectern-sideways-lr-2-${viewport.width}.png`) });

      await page.keyboard.press('ArrowLeft');
      await expect.poll(footer).toBe(`Page 1 of ${count}`);
      await page.keyboard.press('ArrowRight');
      await expect.poll(footer).toBe(`Page 2 of ${count}`);
      await page.reload();
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
      await expect.poll(footer).toBe(`Page 2 of ${count}`);
      expect((await inView(page)).ids).toEqual(two.ids);
      await page.keyboard.press('End');
      await expect.poll(footer).toBe(`Page ${count} of ${count}`);
      expect((await inView(page)).ids).toContain(`s${PARAGRAPHS}`);
    });

    it('pages a sideways-rl chapter as vertical-rl: page 1 at the right, the left arrow on', async () => {
      await openChapter(page, chapters[2]!);
      await mode('Pages');
      await page.keyboard.press('Home');
      await expect.poll(footer).toMatch(/^Page 1 of \d+$/);
      const count = await countOf();
      const one = await inView(page, false);
      expect(one.writingMode).toBe('sideways-rl');
      expect(one.vertical).toBe(true);
      expect(one.overflowX).toBe(false);
      expect(one.ids.slice(0, 2)).toEqual(['h1', 'r1']);
      const g1 = await glyph(page, 'r1', 0);
      expect(g1.right).toBeGreaterThan(one.width - 200);
      expect(g1.top).toBeLessThan(100);
      await page.keyboard.press('ArrowLeft');
      await expect.poll(footer).toBe(`Page 2 of ${count}`);
      const two = await inView(page, false);
      expect(two.scrollTop).toBeGreaterThan(0);
      expect(two.ids).not.toContain('r1');
      await page.keyboard.press('ArrowRight');
      await expect.poll(footer).toBe(`Page 1 of ${count}`);
    });

    it('pages a horizontal chapter that holds a vertical-lr block as a horizontal one', async () => {
      await openChapter(page, chapters[3]!);
      await mode('Pages');
      await page.keyboard.press('Home');
      await expect.poll(footer).toMatch(/^Page 1 of \d+$/);
      const count = await countOf();
      expect(count).toBeGreaterThan(1);
      const laid = await inFrame(page, (doc) => {
        const s = doc.scrollingElement!;
        return {
          body: doc.defaultView!.getComputedStyle(doc.body).writingMode,
          block: doc.defaultView!.getComputedStyle(doc.getElementById('tall')!).writingMode,
          vertical: doc.documentElement.classList.contains('lectern-vertical'),
          scrollWidth: s.scrollWidth,
          clientWidth: s.clientWidth,
          scrollHeight: s.scrollHeight,
          clientHeight: s.clientHeight,
        };
      }, null);
      expect(laid).toMatchObject({ body: 'horizontal-tb', block: 'vertical-lr', vertical: false });
      // columns side by side, one frame high
      expect(laid.scrollWidth).toBeGreaterThan(laid.clientWidth);
      expect(laid.scrollHeight).toBeLessThanOrEqual(laid.clientHeight + 1);
      await page.keyboard.press('ArrowRight');
      await expect.poll(footer).toBe(`Page 2 of ${count}`);
      // (the footer turns to page 2 while the page still slides there: its place is read once the slide has landed)
      await expect.poll(() => inFrame(page, (doc) => doc.scrollingElement!.scrollLeft - doc.documentElement.clientWidth, null)).toBe(0);
      expect(await inFrame(page, (doc) => doc.scrollingElement!.scrollTop, null)).toBe(0);
    });
  });
}
