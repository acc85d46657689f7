/**
 * EPUB 3 layout (docs/decisions.md "Fixed layout and flow") in Chromium, at 1280x800 and 390x844, axe clean
 * (packages/server/test/fixtures/ epub-layout.ts): a reflowable item of a fixed-layout book sits on its page-spread
 * side of a wide stage and takes the whole screen of a phone; a rendition:align-x-center item is centred (W3C
 * lay-reflow-align-x-center), the item before it is not; soft hyphens (&shy;) are where a long word breaks. Screenshots
 * go to E2E_SHOTS_DIR when it is set.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { centredEpub, mixedSpreadEpub, REFLOWED_WORDS } from '../packages/server/test/fixtures/epub-layout.ts';
import { importBook } from '../scripts/fresh-server.ts';
import { openPage, seriousViolations, signInAsDemo } from './browser.ts';

interface ChapterInfo {
  full_path: string;
  web_url: string;
}

let mixedId = '';
let centredId = '';
const SHOTS = process.env.E2E_SHOTS_DIR;

beforeAll(() => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-layout-'));
  const imported = (name: string, bytes: Uint8Array, title: string) => {
    const file = path.join(folder, name);
    fs.writeFileSync(file, bytes);
    const out = importBook(inject('dataDir'), file);
    const id = new RegExp(`imported\\s+(\\S+)\\s+"${title}"`).exec(out)?.[1];
    if (!id) throw new Error(`${name} was not imported: ${out}`);
    return id;
  };
  mixedId = imported('mixed.epub', mixedSpreadEpub(), 'Mixed Spread Fixture');
  centredId = imported('centred.epub', centredEpub(), 'Centred Page Fixture');
  fs.rmSync(folder, { recursive: true, force: true });
});

/** Waits for the chapter frame to show a document holding `selector`, and answers with that frame's document. */
async function chapterHolding(page: Page, selector: string): Promise<void> {
  await page.waitForFunction((sel) => {
    const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame');
    return !!frame && frame.style.visibility !== 'hidden' && !!frame.contentDocument?.querySelector(sel);
  }, selector);
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  const wide = viewport.width >= 800;
  describe(`EPUB 3 layout at ${viewport.width}x${viewport.height}`, () => {
    let browser: Browser;
    let page: Page;
    const urlOf = async (bookId: string, fullPath: string) =>
      ((await (await page.request.get(`/api/v1/book/${bookId}/`)).json()).chapters as ChapterInfo[]).find((c) => c.full_path === fullPath)!.web_url;
    const shot = async (name: string) => {
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `epub-layout-${name}-${viewport.width}.png`) });
    };

    beforeAll(async () => {
      ({ browser, page } = await openPage(viewport));
      await signInAsDemo(page);
    });
    afterAll(() => browser?.close());

    it(wide ? 'puts a reflowable item of a fixed-layout book on its page-spread side' : 'gives a reflowable item of a fixed-layout book the whole screen', async () => {
      await page.goto(await urlOf(mixedId, 'text.xhtml'));
      await chapterHolding(page, '#reflowed');
      // the side is known once the spine (the contents) is in: wait for the view to settle on it
      if (wide) await page.waitForSelector('.chapter-view[data-side="left"]');
      const box = await page.evaluate(() => {
        const view = document.querySelector('.chapter-view')!;
        const stage = view.parentElement!.getBoundingClientRect();
        const r = view.getBoundingClientRect();
        const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!;
        return { left: r.left, right: r.right, stageLeft: stage.left, stageRight: stage.right, side: view.getAttribute('data-side'), text: frame.contentDocument!.body.textContent ?? '' };
      });
      expect(box.text).toContain(REFLOWED_WORDS);
      if (wide) {
        // the left half of the stage, the right half empty
        expect(box.side).toBe('left');
        expect(box.left).toBeCloseTo(box.stageLeft, 0);
        expect(box.right).toBeCloseTo((box.stageLeft + box.stageRight) / 2, 0);
      } else {
        expect(box.side).toBeNull();
        expect(box.right - box.left).toBeCloseTo(box.stageRight - box.stageLeft, 0);
      }
      await shot('mixed');
      expect(await seriousViolations(page)).toEqual([]);
    });

    it('centres an align-x-center item, and only that one', async () => {
      const lineOf = () =>
        page.evaluate(() => {
          const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!;
          const doc = frame.contentDocument!;
          const line = doc.getElementById('line')!;
          const range = doc.createRange();
          range.selectNodeContents(line);
          const rects = Array.from(range.getClientRects());
          const first = rects[0]!;
          return { align: doc.defaultView!.getComputedStyle(line).textAlign, middle: (first.left + first.right) / 2, frame: doc.documentElement.clientWidth / 2 };
        });
      await page.goto(await urlOf(centredId, 'c1.xhtml'));
      await chapterHolding(page, 'h2');
      const plain = await lineOf();
      expect(plain.align).not.toBe('center');
      await page.goto(await urlOf(centredId, 'c2.xhtml'));
      await page.waitForFunction(() => document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')?.contentDocument?.querySelector('h2')?.textContent === 'Centred');
      const centred = await lineOf();
      expect(centred.align).toBe('center');
      // its first line's middle is the frame's middle (the column is centred already)
      expect(Math.abs(centred.middle - centred.frame)).toBeLessThan(2);
      await shot('centred');
      expect(await seriousViolations(page)).toEqual([]);
    });

    it('breaks a long word at its soft hyphens', async () => {
      await page.goto(await urlOf(centredId, 'c3.xhtml'));
      await chapterHolding(page, '#soft');
      const breaks = await page.evaluate(() => {
        const doc = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentDocument!;
        const text = doc.getElementById('soft')!.firstChild as Text;
        const range = doc.createRange();
        const tops: number[] = [];
        for (let i = 0; i < text.length; i++) {
          range.setStart(text, i);
          range.setEnd(text, i + 1);
          // the last box: a character that starts a line also has an empty box at the end of the line before
          const boxes = range.getClientRects();
          tops.push(boxes[boxes.length - 1]?.top ?? 0);
        }
        // the character before each line break
        const before: string[] = [];
        for (let i = 1; i < tops.length; i++) if (tops[i]! > tops[i - 1]! + 1) before.push(text.data[i - 1]!);
        return { before, kept: text.data.split('\u00ad').length - 1 };
      });
      // the importer keeps the seven soft hyphens, and the word breaks at some of them and nowhere else
      expect(breaks.kept).toBe(7);
      expect(breaks.before.length).toBeGreaterThan(0);
      expect(breaks.before.every((c) => c === '\u00ad')).toBe(true);
      await shot('soft-hyphens');
    });
  });
}
