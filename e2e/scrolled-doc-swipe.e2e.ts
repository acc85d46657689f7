/**
 * A `rendition:flow scrolled-doc` book in Chromium (docs/decisions.md "Sideways swipes in scroll mode"): each chapter
 * is its own vertical scroll, and a deliberate sideways move turns the chapter — a horizontal wheel (a trackpad) at
 * 1280x800, a finger's swipe (touch emulated through the DevTools protocol) at 390x844. Leftwards goes on in a
 * left-to-right book, rightwards in a right-to-left one; back on the first chapter does nothing (not even the
 * browser's history, though the reader came from a later chapter); a vertical scroll drifting sideways scrolls; a
 * move over the wide code block scrolls the block while it can still go that way, and turns once it cannot.
 * Every address the page goes to is kept, so a turn too many shows (packages/server/test/fixtures/scrolled-doc.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SCROLLED_DOC_HEADINGS as HEADINGS, SCROLLED_DOC_RTL_TITLE, SCROLLED_DOC_TITLE, scrolledDocEpub, WIDE_CODE_ID } from '../packages/server/test/fixtures/scrolled-doc.ts';
import { importBook } from '../scripts/fresh-server.ts';
import { launchBrowser, signInAsDemo } from './browser.ts';

const books: Record<'ltr' | 'rtl', string> = { ltr: '', rtl: '' };

beforeAll(() => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-scrolled-doc-'));
  for (const [key, title, rtl] of [
    ['ltr', SCROLLED_DOC_TITLE, false],
    ['rtl', SCROLLED_DOC_RTL_TITLE, true],
  ] as const) {
    const file = path.join(folder, `${key}.epub`);
    fs.writeFileSync(file, scrolledDocEpub(rtl));
    const out = importBook(inject('dataDir'), file);
    books[key] = new RegExp(`imported\\s+(\\S+)\\s+"${title}"`).exec(out)?.[1] ?? '';
    if (!books[key]) throw new Error(`the scrolled-doc book was not imported: ${out}`);
  }
  fs.rmSync(folder, { recursive: true, force: true });
});

const pathOf = (url: string) => new URL(url, 'http://x').pathname;

async function chapterPaths(page: Page, bookId: string): Promise<string[]> {
  const chapters = (await (await page.request.get(`/api/v1/book/${bookId}/`)).json()).chapters as { web_url: string }[];
  return chapters.map((c) => pathOf(c.web_url));
}

/** The heading of the chapter on show. */
const heading = (page: Page) =>
  page.evaluate(() => document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')?.contentDocument?.querySelector('h1')?.textContent ?? '');

async function open(page: Page, address: string, title: string) {
  await page.goto(address);
  await expect.poll(() => heading(page)).toBe(title);
}

/** Every address the page goes to from now on (pushes and replaces), each change once. */
function addresses(page: Page): string[] {
  const seen: string[] = [];
  page.on('framenavigated', (f) => {
    const now = pathOf(f.url());
    if (f === page.mainFrame() && seen.at(-1) !== now) seen.push(now);
  });
  return seen;
}

/** How far the chapter on show is scrolled down, and its wide code block sideways (and how far it can go). */
const scrolled = (page: Page) =>
  page.evaluate((id) => {
    const doc = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentDocument!;
    const code = doc.getElementById(id);
    return { down: doc.scrollingElement!.scrollTop, code: code?.scrollLeft ?? 0, codeRoom: code ? code.scrollWidth - code.clientWidth : 0 };
  }, WIDE_CODE_ID);

/** The middle of the stage, and of the wide code block (in the page's coordinates). */
async function points(page: Page) {
  return page.evaluate((id) => {
    const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!;
    const stage = document.querySelector('.reader-stage')!.getBoundingClientRect();
    const f = frame.getBoundingClientRect();
    const code = frame.contentDocument!.getElementById(id)?.getBoundingClientRect();
    return {
      stage: { x: Math.round(stage.left + stage.width / 2), y: Math.round(stage.top + stage.height / 2) },
      code: code ? { x: Math.round(f.left + code.left + Math.min(code.width, f.width) / 2), y: Math.round(f.top + code.top + code.height / 2) } : null,
    };
  }, WIDE_CODE_ID);
}

/** The wide code block scrolled to its right end (as far as a reader could drag it). */
async function codeToItsEnd(page: Page) {
  await page.evaluate((id) => {
    const code = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentDocument!.getElementById(id)!;
    code.scrollLeft = code.scrollWidth;
  }, WIDE_CODE_ID);
  await expect.poll(async () => (await scrolled(page)).code).toBeGreaterThan(0);
}

describe('a scrolled-doc book at 1280x800: a sideways wheel turns the chapter', () => {
  let browser: Browser;
  let page: Page;
  // A wheel gesture ends after a pause (paging.ts): the page's clock stands still, and each gesture is a second on.
  // The browser's own wheel sequence ends when the pointer moves off by more than a few pixels (as a trackpad's ends
  // when the fingers lift): each gesture starts with a move to its point.
  let clock = Date.now();
  const gesture = async (at: { x: number; y: number }, dx: number, dy: number) => {
    clock += 1000;
    await page.clock.setFixedTime(clock);
    await page.mouse.move(at.x, at.y + 40);
    await page.mouse.move(at.x, at.y);
    await page.mouse.wheel(dx, dy);
  };

  beforeAll(async () => {
    browser = await launchBrowser();
    page = await (await browser.newContext({ baseURL: inject('baseURL'), viewport: { width: 1280, height: 800 } })).newPage();
    page.setDefaultTimeout(15_000);
    await signInAsDemo(page);
  });
  afterAll(() => browser?.close());

  it('on and back, not before the first chapter, not on a drifting scroll, not while the code block can scroll', async () => {
    const paths = await chapterPaths(page, books.ltr);
    // the reader was last in the third chapter, and comes to the first
    await open(page, paths[2]!, HEADINGS[2]);
    await open(page, paths[0]!, HEADINGS[0]);
    await page.locator('.chapter-view--scroll').waitFor();
    const seen = addresses(page);
    const { stage } = await points(page);

    // back on the first chapter: nothing before it
    await gesture(stage, -600, 0);
    // a vertical scroll drifting sideways scrolls the chapter
    await gesture(stage, 80, 400);
    await expect.poll(async () => (await scrolled(page)).down).toBeGreaterThan(0);
    expect(await heading(page)).toBe(HEADINGS[0]);
    // on: the second chapter
    await gesture(stage, 600, 0);
    await expect.poll(() => heading(page)).toBe(HEADINGS[1]);

    // over the wide code block, the block scrolls while it can
    const { code } = await points(page);
    expect(code).not.toBeNull();
    await gesture(code!, 600, 0);
    await expect.poll(async () => (await scrolled(page)).code).toBeGreaterThan(0);
    expect(await heading(page)).toBe(HEADINGS[1]);
    // at its end, the same move turns the chapter
    await codeToItsEnd(page);
    await gesture(code!, 600, 0);
    await expect.poll(() => heading(page)).toBe(HEADINGS[2]);
    // and back
    await gesture(stage, -600, 0);
    await expect.poll(() => heading(page)).toBe(HEADINGS[1]);
    expect(seen).toEqual([paths[1], paths[2], paths[1]]);
  });

  it('mirrored in a right-to-left book: rightwards goes on, leftwards back', async () => {
    const paths = await chapterPaths(page, books.rtl);
    await open(page, paths[0]!, HEADINGS[0]);
    const seen = addresses(page);
    const { stage } = await points(page);
    await gesture(stage, 600, 0); // back: nothing before the first chapter
    await gesture(stage, -600, 0);
    await expect.poll(() => heading(page)).toBe(HEADINGS[1]);
    await gesture(stage, 600, 0);
    await expect.poll(() => heading(page)).toBe(HEADINGS[0]);
    expect(seen).toEqual([paths[1], paths[0]]);
  });
});

describe('a scrolled-doc book at 390x844 on a touch screen: a finger’s sideways swipe turns the chapter', () => {
  let browser: Browser;
  let page: Page;
  let cdp: CDPSession;

  /** A finger from one point to another, in 8 moves. */
  async function swipe(from: { x: number; y: number }, to: { x: number; y: number }) {
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [from] });
    for (let i = 1; i <= 8; i++) {
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: from.x + ((to.x - from.x) * i) / 8, y: from.y + ((to.y - from.y) * i) / 8 }] });
    }
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  }
  const sideways = (at: { x: number; y: number }, dx: number) => swipe({ x: at.x - dx / 2, y: at.y }, { x: at.x + dx / 2, y: at.y });

  beforeAll(async () => {
    browser = await launchBrowser();
    page = await (await browser.newContext({ baseURL: inject('baseURL'), viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })).newPage();
    page.setDefaultTimeout(15_000);
    cdp = await page.context().newCDPSession(page);
    await signInAsDemo(page);
  });
  afterAll(() => browser?.close());

  it('on and back, not before the first chapter, not on a drifting scroll, not while the code block can scroll', async () => {
    const paths = await chapterPaths(page, books.ltr);
    await open(page, paths[2]!, HEADINGS[2]);
    await open(page, paths[0]!, HEADINGS[0]);
    await page.locator('.chapter-view--scroll').waitFor();
    const seen = addresses(page);
    const { stage } = await points(page);

    // left to right on the first chapter: nothing before it
    await sideways(stage, 240);
    // a finger pulling the text up, drifting 70 px sideways, scrolls
    await swipe({ x: stage.x - 35, y: stage.y + 200 }, { x: stage.x + 35, y: stage.y - 150 });
    await expect.poll(async () => (await scrolled(page)).down).toBeGreaterThan(0);
    expect(await heading(page)).toBe(HEADINGS[0]);
    // right to left: the second chapter
    await sideways(stage, -240);
    await expect.poll(() => heading(page)).toBe(HEADINGS[1]);

    // over the wide code block, the block scrolls while it can
    const { code } = await points(page);
    expect(code).not.toBeNull();
    await sideways(code!, -240);
    await expect.poll(async () => (await scrolled(page)).code).toBeGreaterThan(0);
    expect(await heading(page)).toBe(HEADINGS[1]);
    await codeToItsEnd(page);
    await sideways(code!, -240);
    await expect.poll(() => heading(page)).toBe(HEADINGS[2]);
    // and back
    await sideways(stage, 240);
    await expect.poll(() => heading(page)).toBe(HEADINGS[1]);
    expect(seen).toEqual([paths[1], paths[2], paths[1]]);
  });

  it('mirrored in a right-to-left book: left to right goes on, right to left back', async () => {
    const paths = await chapterPaths(page, books.rtl);
    await open(page, paths[0]!, HEADINGS[0]);
    const seen = addresses(page);
    const { stage } = await points(page);
    await sideways(stage, -240); // back: nothing before the first chapter
    await sideways(stage, 240);
    await expect.poll(() => heading(page)).toBe(HEADINGS[1]);
    await sideways(stage, -240);
    await expect.poll(() => heading(page)).toBe(HEADINGS[0]);
    expect(seen).toEqual([paths[1], paths[0]]);
  });
});
