/**
 * `rendition:flow scrolled-continuous` in Chromium (docs/decisions.md "`scrolled-continuous` reads as one scroll"), at
 * 1280x800 and 390x844, signed in and anonymous, axe clean: the book opens in scroll mode with its chapters stacked in
 * one scroller (ContinuousView). The wheel alone carries the reader down across two chapter boundaries, the end of
 * one chapter right above the start of the next, and back up, the previous chapter drawn in above as it comes; the
 * chapter under the top of the view is the one read (the address, the position saved), and a reload keeps the place.
 * An anonymous reader's sample ends the stack with the usual message (packages/server/test/fixtures/continuous.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chapterEnd, CONTINUOUS_HEADINGS, CONTINUOUS_TITLE, continuousEpub } from '../packages/server/test/fixtures/continuous.ts';
import { importBook } from '../scripts/fresh-server.ts';
import { openPage, seriousViolations, signInAsDemo } from './browser.ts';

let bookId = '';
const SHOTS = process.env.E2E_SHOTS_DIR;

beforeAll(() => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-continuous-'));
  const file = path.join(folder, 'continuous.epub');
  fs.writeFileSync(file, continuousEpub());
  const out = importBook(inject('dataDir'), file);
  bookId = new RegExp(`imported\\s+(\\S+)\\s+"${CONTINUOUS_TITLE}"`).exec(out)?.[1] ?? '';
  fs.rmSync(folder, { recursive: true, force: true });
  if (!bookId) throw new Error(`the continuous book was not imported: ${out}`);
});

interface Shown {
  /** The heading of the chapter under the top of the view, and how far down it the view's top is (px). */
  heading: string;
  within: number;
  /** The chapter frames in the stack, top to bottom (their chapter's heading). */
  stack: string[];
  path: string;
  /** The chapter of the address is the frame under the top. */
  addressed: boolean;
}

async function shown(page: Page): Promise<Shown> {
  return page.evaluate(() => {
    const scroller = document.querySelector<HTMLElement>('.chapter-stack__scroller');
    const frames = Array.from(document.querySelectorAll<HTMLIFrameElement>('iframe.chapter-stack__frame'));
    const y = (scroller?.scrollTop ?? 0) + 1;
    const under = frames.filter((f) => f.offsetTop <= y).pop() ?? frames[0];
    const headingOf = (f: HTMLIFrameElement | undefined) => f?.contentDocument?.querySelector('h1')?.textContent ?? '';
    return {
      heading: under && under.style.visibility !== 'hidden' ? headingOf(under) : '',
      within: under && scroller ? scroller.scrollTop - under.offsetTop : 0,
      stack: frames.map(headingOf),
      path: location.pathname,
      addressed: !!under && under.classList.contains('chapter-view__frame'),
    };
  });
}

/** Whether `text` of the chapter headed `heading` is on screen, in the stack's view. */
async function inView(page: Page, heading: string, text: string): Promise<boolean> {
  return page.evaluate(
    ([heading, text]) => {
      const scroller = document.querySelector<HTMLElement>('.chapter-stack__scroller')!;
      const view = scroller.getBoundingClientRect();
      for (const f of Array.from(document.querySelectorAll<HTMLIFrameElement>('iframe.chapter-stack__frame'))) {
        const doc = f.contentDocument;
        if (doc?.querySelector('h1')?.textContent !== heading) continue;
        const el = Array.from(doc.querySelectorAll('h1, p')).find((p) => p.textContent === text);
        if (!el) return false;
        const r = el.getBoundingClientRect();
        const top = f.getBoundingClientRect().top + r.top;
        return top + r.height > view.top && top < view.bottom;
      }
      return false;
    },
    [heading, text] as const,
  );
}

/** One wheel turn at a time until the chapter under the top is `heading` (none once it is). */
async function wheelUntil(page: Page, heading: string, deltaY: number) {
  await expect
    .poll(
      async () => {
        const now = await shown(page);
        if (now.heading !== heading) await page.mouse.wheel(0, deltaY);
        return now.heading;
      },
      { timeout: 30_000, interval: 100 },
    )
    .toBe(heading);
}

/**
 * How far below the top of the stack's view the words `highlight` begin (px), in the chapter headed `heading` (the
 * chapters share their sentences), or null when it is not in the stack.
 */
async function wordsTop(page: Page, heading: string, highlight: string): Promise<number | null> {
  return page.evaluate(([heading, words]) => {
    const scroller = document.querySelector<HTMLElement>('.chapter-stack__scroller')!;
    for (const f of Array.from(document.querySelectorAll<HTMLIFrameElement>('iframe.chapter-stack__frame'))) {
      const doc = f.contentDocument;
      if (!doc?.body || doc.querySelector('h1')?.textContent !== heading) continue;
      const walker = doc.createTreeWalker(doc.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const at = node.textContent!.indexOf(words);
        if (at < 0) continue;
        const range = doc.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + 1);
        return f.getBoundingClientRect().top + range.getBoundingClientRect().top - scroller.getBoundingClientRect().top;
      }
    }
    return null;
  }, [heading, highlight] as const);
}

/** How far the top of the stack's view is below the second chapter's top (px; negative above it). */
async function fromBoundary(page: Page): Promise<number> {
  return page.evaluate((heading) => {
    const scroller = document.querySelector<HTMLElement>('.chapter-stack__scroller')!;
    const frames = Array.from(document.querySelectorAll<HTMLIFrameElement>('iframe.chapter-stack__frame'));
    const second = frames.find((f) => f.contentDocument?.querySelector('h1')?.textContent === heading);
    return second ? scroller.scrollTop - second.offsetTop : NaN;
  }, CONTINUOUS_HEADINGS[1]);
}

/** The positions the reader's browser saves, last first: their chapter and words (the Locator's highlight, its first 20 characters). */
function savedPlaces(page: Page): { href: string; words: string }[] {
  const saved: { href: string; words: string }[] = [];
  page.on('response', (r) => {
    if (!r.url().includes('/position/') || r.request().method() !== 'PUT' || !r.ok()) return;
    const { locator } = r.request().postDataJSON() as { locator: { href: string; text?: { highlight?: string } } };
    saved.unshift({ href: locator.href, words: (locator.text?.highlight ?? '').slice(0, 20) });
  });
  return saved;
}

async function chapterUrls(page: Page): Promise<string[]> {
  const chapters = (await (await page.request.get(`/api/v1/book/${bookId}/`)).json()).chapters as { web_url: string }[];
  return chapters.map((c) => c.web_url);
}

async function overStage(page: Page) {
  const stage = (await page.locator('.reader-stage').boundingBox())!;
  await page.mouse.move(stage.x + stage.width / 2, stage.y + stage.height / 2);
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  describe(`a scrolled-continuous book at ${viewport.width}x${viewport.height}, signed in`, () => {
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      ({ browser, page } = await openPage(viewport));
      await signInAsDemo(page);
    });
    afterAll(() => browser?.close());

    it('reads as one scroll across two chapter boundaries and back; the chapter under the top is the one read, and a reload keeps it', async () => {
      const urls = await chapterUrls(page);
      await page.goto(urls[0]!);
      await expect.poll(async () => (await shown(page)).heading, { timeout: 15_000 }).toBe(CONTINUOUS_HEADINGS[0]);
      // the book's flow: scroll mode, the chapters stacked
      await page.locator('.chapter-view--scroll.chapter-stack').waitFor();
      await overStage(page);

      // Down into the second chapter: the address follows, and the first chapter's end is right above its heading.
      await wheelUntil(page, CONTINUOUS_HEADINGS[1], 400);
      await expect.poll(async () => (await shown(page)).path).toBe(new URL(urls[1]!, 'http://x').pathname);
      await expect.poll(async () => (await shown(page)).addressed).toBe(true);
      // (150 px above the boundary: the chapter's end is its last line and the root's bottom padding, 3rem, below it)
      await page.mouse.wheel(0, -((await shown(page)).within + 150));
      await expect.poll(() => inView(page, CONTINUOUS_HEADINGS[0], chapterEnd(1))).toBe(true);
      expect(await inView(page, CONTINUOUS_HEADINGS[1], CONTINUOUS_HEADINGS[1])).toBe(true);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `continuous-boundary-${viewport.width}.png`) });
      expect(await seriousViolations(page)).toEqual([]);

      // On across the second boundary: the third chapter is read, and its place is the one saved.
      const saved = page.waitForResponse(
        (r) => r.url().includes('/position/') && r.request().method() === 'PUT' && r.ok() && (r.request().postDataJSON() as { locator: { href: string } }).locator.href === 'text/reach-3.xhtml',
        { timeout: 30_000 },
      );
      await wheelUntil(page, CONTINUOUS_HEADINGS[2], 400);
      await page.mouse.wheel(0, 300);
      await saved;
      await expect.poll(async () => (await shown(page)).path).toBe(new URL(urls[2]!, 'http://x').pathname);

      // A reload opens the third chapter where the reader was.
      await expect.poll(async () => (await shown(page)).within).toBeGreaterThan(0);
      const before = await shown(page);
      await page.reload();
      await expect.poll(async () => (await shown(page)).heading, { timeout: 15_000 }).toBe(CONTINUOUS_HEADINGS[2]);
      await expect.poll(async () => Math.abs((await shown(page)).within - before.within)).toBeLessThan(80);
      await expect.poll(async () => (await shown(page)).addressed).toBe(true);

      // Back up across both boundaries: each chapter above is drawn in as it comes, the place kept.
      await overStage(page);
      await wheelUntil(page, CONTINUOUS_HEADINGS[1], -400);
      await wheelUntil(page, CONTINUOUS_HEADINGS[0], -400);
      await expect.poll(async () => (await shown(page)).path).toBe(new URL(urls[0]!, 'http://x').pathname);
      const back = await shown(page);
      expect(back.stack.slice(0, 2)).toEqual([CONTINUOUS_HEADINGS[0], CONTINUOUS_HEADINGS[1]]);
      expect(await seriousViolations(page)).toEqual([]);
    });
    it('reads on to the book’s end without a jump back when a chapter far above is let go', async () => {
      const urls = await chapterUrls(page);
      await page.goto(urls[0]!);
      await expect.poll(async () => (await shown(page)).heading, { timeout: 15_000 }).toBe(CONTINUOUS_HEADINGS[0]);
      await page.locator('.chapter-view--scroll.chapter-stack').waitFor();
      await overStage(page);
      // The place read as (chapter, px into it): it only moves forward while the wheel goes down. Near the book's
      // end the first chapter goes from the stack (far above), and the view must stay on the words it shows.
      let last: [number, number] = [0, -Infinity];
      const back: string[] = [];
      await expect
        .poll(
          async () => {
            const now = await shown(page);
            const at: [number, number] = [CONTINUOUS_HEADINGS.indexOf(now.heading as (typeof CONTINUOUS_HEADINGS)[number]), now.within];
            if (at[0] >= 0) {
              if (at[0] < last[0] || (at[0] === last[0] && at[1] < last[1] - 2)) back.push(`${last.join(':')} -> ${at.join(':')}`);
              last = at;
            }
            if (await inView(page, CONTINUOUS_HEADINGS[2], chapterEnd(3))) return true;
            await page.mouse.wheel(0, 400);
            return false;
          },
          { timeout: 60_000, interval: 100 },
        )
        .toBe(true);
      expect(back).toEqual([]);
      // the first chapter was let go on the way (else this test shows nothing)
      expect((await shown(page)).stack).not.toContain(CONTINUOUS_HEADINGS[0]);
    });

    it('a sideways move on the first chapter neither turns nor goes Back to the chapter read before it', async () => {
      const urls = await chapterUrls(page);
      await page.goto(urls[2]!);
      await expect.poll(async () => (await shown(page)).heading, { timeout: 15_000 }).toBe(CONTINUOUS_HEADINGS[2]);
      // a touch screen at 390 px (a finger's swipe), the pointer's wheel at 1280 (a trackpad's)
      const touch = viewport.width < 600 ? await browser.newContext({ baseURL: inject('baseURL'), viewport, isMobile: true, hasTouch: true, storageState: await page.context().storageState() }) : null;
      const p = touch ? await touch.newPage() : page;
      try {
        if (touch) await p.goto(urls[2]!);
        await p.goto(urls[0]!);
        await expect.poll(async () => (await shown(p)).heading, { timeout: 15_000 }).toBe(CONTINUOUS_HEADINGS[0]);
        await p.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
        const stage = (await p.locator('.reader-stage').boundingBox())!;
        const at = { x: Math.round(stage.x + stage.width / 2), y: Math.round(stage.y + stage.height / 2) };
        const cdp = touch ? await p.context().newCDPSession(p) : null;
        for (const dx of [240, -240, 0]) {
          const dy = dx ? 0 : -300; // last, the finger (the wheel) goes down the page
          if (cdp) {
            const from = { x: at.x - dx / 2, y: at.y - dy / 2 };
            await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [from] });
            for (let i = 1; i <= 8; i++) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: from.x + (dx * i) / 8, y: from.y + (dy * i) / 8 }] });
            await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
          } else {
            // (the pointer moved off and back: the browser's wheel sequence before ends, as a trackpad's does when lifted)
            await p.mouse.move(at.x, at.y + 40);
            await p.mouse.move(at.x, at.y);
            await p.mouse.wheel(-dx * 2.5, -dy);
          }
        }
        // the stack scrolled down in the same page (a finger's fling may carry it into the second chapter)
        await expect.poll(async () => (await shown(p)).within > 0 || (await shown(p)).heading === CONTINUOUS_HEADINGS[1]).toBe(true);
        expect([CONTINUOUS_HEADINGS[0], CONTINUOUS_HEADINGS[1]]).toContain((await shown(p)).heading);
        expect(await p.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
      } finally {
        await touch?.close();
      }
    });

    it('a reload at a chapter boundary puts the same words at the top: near the end of the first chapter, at the start of the second', async () => {
      const urls = await chapterUrls(page);
      await page.goto(urls[0]!);
      await expect.poll(async () => (await shown(page)).heading, { timeout: 15_000 }).toBe(CONTINUOUS_HEADINGS[0]);
      await overStage(page);
      const saved = savedPlaces(page);
      await wheelUntil(page, CONTINUOUS_HEADINGS[1], 400);
      // A screen's worth of the second chapter laid out below, so the stack can scroll past the boundary.
      await expect.poll(async () => (await shown(page)).stack.slice(0, 2)).toEqual([CONTINUOUS_HEADINGS[0], CONTINUOUS_HEADINGS[1]]);

      // The place 200 px above the boundary (in the first chapter's last screen), then 120 px into the second chapter.
      for (const [href, heading, by] of [
        ['text/reach-1.xhtml', CONTINUOUS_HEADINGS[0], -200],
        ['text/reach-2.xhtml', CONTINUOUS_HEADINGS[1], 120],
      ] as const) {
        // (the wheel's scroll is animated: the place is where it ends)
        await page.mouse.wheel(0, by - (await fromBoundary(page)));
        await expect.poll(async () => Math.abs((await fromBoundary(page)) - by)).toBeLessThan(30);
        expect((await shown(page)).heading).toBe(heading);
        // the last place saved is the one at the top (the saves of the way there came before it)
        let words = '';
        await expect
          .poll(
            async () => {
              const last = saved[0];
              words = last?.href === href ? last.words : '';
              const top = words ? await wordsTop(page, heading, words) : null;
              return top !== null && top >= -4 && top < 40;
            },
            { timeout: 15_000 },
          )
          .toBe(true);
        const before = (await wordsTop(page, heading, words))!;
        await page.reload();
        await expect.poll(async () => (await shown(page)).heading, { timeout: 15_000 }).toBe(heading);
        // the neighbour across the boundary laid out, the words where they were (not a screen off)
        await expect.poll(async () => (await shown(page)).stack.length, { timeout: 15_000 }).toBeGreaterThan(1);
        await expect.poll(async () => Math.abs(((await wordsTop(page, heading, words)) ?? 1e6) - before), { timeout: 15_000 }).toBeLessThan(16);
        await overStage(page);
        // back to the boundary for the next place
        const now = await shown(page);
        if (now.heading === CONTINUOUS_HEADINGS[0]) await wheelUntil(page, CONTINUOUS_HEADINGS[1], 400);
      }
    });
  });

  describe(`a scrolled-continuous book at ${viewport.width}x${viewport.height}, anonymous`, () => {
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      ({ browser, page } = await openPage(viewport));
    });
    afterAll(() => browser?.close());

    it('reads the sample as one scroll; the locked chapter ends the stack with its message; a reload keeps the place', async () => {
      const urls = await chapterUrls(page);
      await page.goto(urls[0]!);
      await expect.poll(async () => (await shown(page)).heading, { timeout: 15_000 }).toBe(CONTINUOUS_HEADINGS[0]);
      await overStage(page);
      const locked = page.locator('.chapter-stack__locked');
      // down until the message is on screen (it is in the stack, below the sample, once the next chapter was refused)
      const lockedInView = () =>
        page.evaluate(() => {
          const el = document.querySelector('.chapter-stack__locked');
          const view = document.querySelector('.chapter-stack__scroller')?.getBoundingClientRect();
          return !!el && !!view && el.getBoundingClientRect().top < view.bottom;
        });
      await expect
        .poll(
          async () => {
            if (await lockedInView()) return true;
            await page.mouse.wheel(0, 400);
            return false;
          },
          { timeout: 30_000, interval: 100 },
        )
        .toBe(true);
      expect(await locked.getByRole('alert').innerText()).not.toBe('');
      expect(await locked.getByRole('link', { name: 'Sign in' }).isVisible()).toBe(true);
      // the end of the sample right above the message; the address stays on the sample
      expect(await inView(page, CONTINUOUS_HEADINGS[0], chapterEnd(1))).toBe(true);
      expect((await shown(page)).path).toBe(new URL(urls[0]!, 'http://x').pathname);
      expect(await seriousViolations(page)).toEqual([]);

      // back up a little, then a reload: the same place
      const stored = await page.evaluate(() => JSON.stringify(localStorage));
      await page.mouse.wheel(0, -300);
      await expect.poll(async () => (await shown(page)).within).toBeGreaterThan(0);
      // (the position is stored 500 ms after the last move: reader.md §9)
      await page.waitForFunction((was) => JSON.stringify(localStorage) !== was, stored);
      const before = await shown(page);
      await page.reload();
      await expect.poll(async () => (await shown(page)).heading, { timeout: 15_000 }).toBe(CONTINUOUS_HEADINGS[0]);
      await expect.poll(async () => Math.abs((await shown(page)).within - before.within)).toBeLessThan(80);
    });
  });
}
