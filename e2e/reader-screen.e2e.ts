/**
 * The reader as a person sees it: nothing wider than a phone's screen in any chapter of any sample book, code that
 * scrolls sideways, justification only where the language hyphenates, night mode over the whole page, an immersive
 * view, brightness over everything, the F and G keys inside the chapter, an offline chapter that says so and comes
 * back by itself, and one queue for the contents and the chapter's playlist menu.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ANNOTATION_MESSAGES, LIVE_TRAINING_MESSAGES } from '@lectern/core';
import { DEVICE_TITLE, deviceSizedEpub, FIXED_TITLE, fixedLayoutEpub } from '../packages/server/test/fixtures/fixed-layout.ts';
import { importBook, lecternCli } from '../scripts/fresh-server.ts';
import { launchBrowser, signInAsDemo } from './browser.ts';

const baseURL = inject('baseURL');
const frameOf = (page: Page) => page.frameLocator('iframe.chapter-view__frame');

interface ChapterInfo {
  full_path: string;
  web_url: string;
  label: string;
}
interface BookInfo {
  title: string;
  api_url: string;
  content_format: string;
}

async function books(page: Page): Promise<BookInfo[]> {
  return (await (await page.request.get('/api/v1/book/?page_size=50')).json()).results;
}

async function chaptersOf(page: Page, book: BookInfo): Promise<ChapterInfo[]> {
  return (await (await page.request.get(book.api_url)).json()).chapters;
}

async function worlds(page: Page): Promise<ChapterInfo[]> {
  return chaptersOf(page, (await books(page)).find((b) => /War of the Worlds/.test(b.title))!);
}

/** Opens a chapter and waits until it is painted (or its PDF page is drawn). */
async function openChapter(page: Page, chapter: ChapterInfo, pdf = false): Promise<void> {
  const path = new URL(chapter.web_url, baseURL).pathname;
  // Reading on through the chapter bar is an in-app navigation (much quicker than loading the app again).
  const next = page.locator('a[rel="next"]');
  if ((await next.count()) === 1 && (await next.getAttribute('href')) === path) {
    await page.evaluate(() => performance.clearMarks('reader:chapter-painted'));
    await next.evaluate((a: HTMLAnchorElement) => a.click());
  } else {
    await page.goto(chapter.web_url);
  }
  await page.waitForURL((u) => u.pathname === path);
  if (pdf) await page.getByRole('img', { name: 'Page 1' }).waitFor();
  else await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
}

/** What sticks out of a 390 px screen: the page, the chapter bar's next link, the settings button, the frame's page. */
async function overflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const w = window.innerWidth;
    if (document.documentElement.scrollWidth > w) out.push(`page ${document.documentElement.scrollWidth}px`);
    for (const sel of ['.reader-toolbar__settings', '.reader-footer__link--next', '.reader-toolbar__chapter']) {
      const el = document.querySelector(sel);
      const r = el?.getBoundingClientRect();
      if (r && r.width && r.right > w + 0.5) out.push(`${sel} ends at ${Math.round(r.right)}px`);
    }
    const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame');
    const doc = frame?.contentDocument;
    // A chapter in vertical writing scrolls sideways in scroll mode (its reading direction): nothing of it may be
    // taller than the frame instead.
    const vertical = doc?.body && /^(vertical|sideways)-(rl|lr)$/.test(getComputedStyle(doc.body).writingMode);
    if (frame && doc?.documentElement.classList.contains('lectern-scroll')) {
      if (!vertical && doc.documentElement.scrollWidth > frame.clientWidth + 1) out.push(`chapter ${doc.documentElement.scrollWidth}px in a ${frame.clientWidth}px frame`);
      if (vertical && doc.documentElement.scrollHeight > frame.clientHeight + 1) out.push(`vertical chapter ${doc.documentElement.scrollHeight}px tall in a ${frame.clientHeight}px frame`);
    }
    return out;
  });
}

describe('at 390 px', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    browser = await launchBrowser();
    context = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signInAsDemo(page);
  });
  afterAll(() => browser?.close());

  it('nothing in the reader is wider than the screen, in every chapter of every sample book', async () => {
    const offenders: string[] = [];
    const samples = (await books(page)).filter((b) => !/Hostile/.test(b.title));
    expect(samples.length).toBeGreaterThanOrEqual(4);
    let seen = 0;
    for (const book of samples) {
      const media = book.content_format === 'video' || book.content_format === 'audiobook';
      for (const chapter of await chaptersOf(page, book)) {
        if (media) {
          // A video course or an audiobook opens the players (e2e/media.e2e.ts); here only their width is judged.
          await page.goto(chapter.web_url);
          await page.locator('.media-app video, .media-app audio').waitFor({ state: 'attached' });
          const wide = await page.evaluate(() => document.documentElement.scrollWidth);
          if (wide > 390) offenders.push(`${book.title} / ${chapter.label || chapter.full_path}: the page is ${wide} px wide`);
          continue;
        }
        await openChapter(page, chapter, book.content_format === 'document');
        seen += 1;
        for (const o of await overflow(page)) offenders.push(`${book.title} / ${chapter.label || chapter.full_path}: ${o}`);
      }
    }
    expect(seen).toBeGreaterThan(100);
    expect(offenders).toEqual([]);
  }, 600_000);

  it('ellipsises a long chapter title and keeps the chapter bar and the settings on screen', async () => {
    const moby = (await books(page)).find((b) => /^Moby-Dick/.test(b.title))!;
    // (the longest label: the titles have a line of their own on a phone, where EXTRACTS' now fits)
    const chapter = (await chaptersOf(page, moby)).reduce((a, b) => (b.label.length > a.label.length ? b : a));
    await openChapter(page, chapter);
    const title = page.locator('.reader-toolbar__chapter');
    expect(await title.evaluate((h) => getComputedStyle(h).textOverflow)).toBe('ellipsis');
    expect(await title.evaluate((h) => h.scrollWidth > h.clientWidth)).toBe(true);
    expect(await page.getByRole('link', { name: /Next chapter/ }).isVisible()).toBe(true);
    const settings = (await page.getByRole('button', { name: 'Display settings' }).boundingBox())!;
    expect(settings.x + settings.width).toBeLessThanOrEqual(390);
    await page.screenshot({ path: '/tmp/reader-390-extracts.png' });
  });

  it('scrolls code sideways in its own box instead of wrapping it', async () => {
    await openChapter(page, (await worlds(page)).find((c) => /Chapter 1\b/.test(c.label))!);
    const result = await page.evaluate(() => {
      const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!;
      const doc = frame.contentDocument!;
      const pre = doc.createElement('pre');
      pre.textContent = `$ ${'a-very-long-command --with --many --options '.repeat(6)}\nnext line`;
      doc.getElementById('lectern-root')!.prepend(pre);
      const style = frame.contentWindow!.getComputedStyle(pre);
      const lines = Math.round(pre.getBoundingClientRect().height / parseFloat(style.lineHeight || '20'));
      const out = { whiteSpace: style.whiteSpace, overflowX: style.overflowX, scrolls: pre.scrollWidth > pre.clientWidth, page: doc.documentElement.scrollWidth <= frame.clientWidth, lines };
      pre.remove();
      return out;
    });
    expect(result).toMatchObject({ overflowX: 'auto', scrolls: true, page: true });
    expect(result.whiteSpace).toMatch(/^pre$/);
    expect(result.lines).toBeLessThanOrEqual(3);
  });

  it('justifies a paragraph only when its language hyphenates in this browser', async () => {
    // Alice, The War of the Worlds and Moby-Dick all ask for justified paragraphs in their stylesheets.
    await openChapter(page, (await worlds(page)).find((c) => /Chapter 1\b/.test(c.label))!);
    const { align, hyphenates, lang } = await page.evaluate(() => {
      const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!;
      const doc = frame.contentDocument!;
      const lang = doc.documentElement.lang;
      // Whether this browser hyphenates the language: a narrow box of long words, hyphenated or not.
      const probe = document.createElement('div');
      probe.lang = lang;
      probe.style.cssText = 'position:absolute;left:-9999px;width:4em;font:16px serif;hyphens:manual';
      probe.textContent = 'characteristically incomprehensibilities internationalization';
      document.body.append(probe);
      const manual = probe.offsetHeight;
      probe.style.hyphens = 'auto';
      const auto = probe.offsetHeight;
      probe.remove();
      const p = Array.from(doc.querySelectorAll('#lectern-root p')).find((el) => (el.textContent ?? '').length > 200)!;
      return { align: frame.contentWindow!.getComputedStyle(p).textAlign, hyphenates: auto > manual, lang };
    });
    expect(lang).toMatch(/^en/);
    if (hyphenates) expect(align).toBe('justify');
    else expect(align).not.toBe('justify');
  });
});

describe('display and keys', () => {
  let browser: Browser;
  let page: Page;
  let chapter: ChapterInfo;

  beforeAll(async () => {
    browser = await launchBrowser();
    page = await (await browser.newContext({ baseURL, viewport: { width: 1280, height: 800 } })).newPage();
    page.setDefaultTimeout(15_000);
    await signInAsDemo(page);
    chapter = (await worlds(page)).find((c) => /Chapter 2\b/.test(c.label))!;
    await openChapter(page, chapter);
  });
  afterAll(() => browser?.close());

  const fontSize = () => frameOf(page).locator('body').evaluate((b) => parseFloat(getComputedStyle(b).fontSize));

  it('takes F and G with the focus inside the chapter frame', async () => {
    await page.locator('iframe.chapter-view__frame').evaluate((f: HTMLIFrameElement) => f.contentWindow!.focus());
    expect(await page.evaluate(() => document.activeElement?.classList.contains('chapter-view__frame'))).toBe(true);
    const before = await fontSize();
    await page.keyboard.press('g');
    await expect.poll(fontSize).toBeGreaterThan(before);
    await page.keyboard.press('f');
    await page.keyboard.press('f');
    await expect.poll(fontSize).toBeLessThan(before);
    await page.keyboard.press('g');
    await expect.poll(fontSize).toBeCloseTo(before, 1);
  });

  it('themes the whole page in night and cloudy mode, the site header too', async () => {
    const headerBg = () => page.locator('header.topbar').evaluate((h) => getComputedStyle(h).backgroundColor);
    const day = await headerBg();
    await page.getByRole('button', { name: 'Display settings' }).click();
    await page.getByRole('button', { name: 'Night' }).click();
    await page.keyboard.press('Escape');
    const luminance = (rgb: string) => {
      const [r, g, b] = rgb.match(/[\d.]+/g)!.map(Number);
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    await expect.poll(async () => luminance(await headerBg())).toBeLessThan(80);
    expect(luminance(await page.locator('.topbar__logo').evaluate((l) => getComputedStyle(l).color))).toBeGreaterThan(150);
    await page.screenshot({ path: '/tmp/reader-1280-night.png' });
    await page.getByRole('button', { name: 'Display settings' }).click();
    await page.getByRole('button', { name: 'Cloudy' }).click();
    await page.keyboard.press('Escape');
    await expect.poll(headerBg).not.toBe(day);
    await page.getByRole('button', { name: 'Display settings' }).click();
    await page.getByRole('button', { name: 'Day' }).click();
    await page.keyboard.press('Escape');
    await expect.poll(headerBg).toBe(day);
  });

  it('dims everything on screen with the brightness slider, the site header too, not only the chapter', async () => {
    const header = (await page.locator('header.topbar').boundingBox())!;
    const settingsClosed = () => expect.poll(() => page.locator('section.reader-settings').getAttribute('aria-hidden')).toBe('true');
    const mean = async () => {
      // What is painted over the site header, as the person sees it.
      const png = await page.screenshot({ clip: { x: 0, y: header.y, width: 1280, height: header.height } });
      return page.evaluate(async (b64) => {
        const img = new Image();
        img.src = `data:image/png;base64,${b64}`;
        await img.decode();
        const c = document.createElement('canvas');
        c.width = img.width;
        c.height = img.height;
        const ctx = c.getContext('2d')!;
        ctx.drawImage(img, 0, 0);
        const d = ctx.getImageData(0, 0, c.width, c.height).data;
        let sum = 0;
        for (let i = 0; i < d.length; i += 4) sum += d[i]! + d[i + 1]! + d[i + 2]!;
        return sum / (d.length / 4) / 3;
      }, png.toString('base64'));
    };
    const full = await mean();
    await page.getByRole('button', { name: 'Display settings' }).click();
    await page.getByRole('slider', { name: /Brightness/ }).focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('Escape');
    await settingsClosed();
    await expect.poll(mean).toBeLessThan(full * 0.6);
    await page.getByRole('button', { name: 'Display settings' }).click();
    await page.getByRole('button', { name: 'Reset' }).click();
    await page.keyboard.press('Escape');
    await settingsClosed();
    await expect.poll(mean).toBeCloseTo(full, 0);
  });

  it('hides every bar with a tap in the middle of the page, and shows them again with another', async () => {
    const bars = async () => ({
      header: await page.locator('header.topbar').evaluate((h) => {
        const r = h.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return !!hit && h.contains(hit);
      }),
      toolbar: await page.getByRole('toolbar', { name: 'Reader' }).isVisible(),
      footer: await page.getByRole('navigation', { name: 'Chapters' }).isVisible(),
    });
    expect(await bars()).toEqual({ header: true, toolbar: true, footer: true });
    const frame = (await page.locator('iframe.chapter-view__frame').boundingBox())!;
    await page.mouse.click(frame.x + frame.width / 2, frame.y + frame.height / 2);
    await expect.poll(bars).toEqual({ header: false, toolbar: false, footer: false });
    // The chapter takes the whole screen.
    await expect.poll(async () => (await page.locator('iframe.chapter-view__frame').boundingBox())!.height).toBeGreaterThan(790);
    await page.screenshot({ path: '/tmp/reader-1280-immersive.png' });
    const full = (await page.locator('iframe.chapter-view__frame').boundingBox())!;
    await page.mouse.click(full.x + full.width / 2, full.y + full.height / 2);
    await expect.poll(bars).toEqual({ header: true, toolbar: true, footer: true });
    // And with the key, from the app or from inside the chapter.
    await page.keyboard.press('h');
    await expect.poll(bars).toEqual({ header: false, toolbar: false, footer: false });
    await page.keyboard.press('h');
    await expect.poll(bars).toEqual({ header: true, toolbar: true, footer: true });
    // With the focus in the chapter, Tab reaches the way back, which then shows itself.
    await page.keyboard.press('h');
    await expect.poll(bars).toEqual({ header: false, toolbar: false, footer: false });
    await page.locator('iframe.chapter-view__frame').evaluate((f: HTMLIFrameElement) => f.contentWindow!.focus());
    await page.keyboard.press('Tab');
    const back = page.getByRole('button', { name: 'Show the bars' });
    await expect.poll(() => back.evaluate((b) => b === document.activeElement && getComputedStyle(b).opacity === '1')).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(bars).toEqual({ header: true, toolbar: true, footer: true });
    // What the immersive view covers is out of the tab order: walking every stop never lands in the header,
    // the skip link or the footer, and they come back when the bars do.
    await page.keyboard.press('h');
    await expect.poll(bars).toEqual({ header: false, toolbar: false, footer: false });
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    const stops: string[] = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      stops.push(
        await page.evaluate(() => {
          const a = document.activeElement;
          if (!a || a === document.body) return 'body';
          return a.closest('header.topbar, .skip-link, footer.shell__footer') ? 'covered' : a.tagName;
        }),
      );
    }
    expect(stops).not.toContain('covered');
    await page.keyboard.press('Escape');
    await expect.poll(bars).toEqual({ header: true, toolbar: true, footer: true });
    expect(await page.locator('header.topbar').evaluate((h) => h.hasAttribute('inert'))).toBe(false);
  });
});

describe('offline past the prefetched chapter', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    browser = await launchBrowser();
    context = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 } });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signInAsDemo(page);
  });
  afterAll(() => browser?.close());

  it('says so, and loads the chapter once the connection is back (by itself, and with Retry)', async () => {
    const chapters = await worlds(page);
    const from = chapters.findIndex((c) => /Chapter 4\b/.test(c.label));
    await openChapter(page, chapters[from]!);
    // The contents are fetched on first show: once while online, as a reader would have.
    await page.getByRole('button', { name: 'Table of contents' }).click();
    await page.getByRole('complementary', { name: 'Table of contents' }).getByRole('link', { name: chapters[from]!.label }).first().waitFor();
    await page.keyboard.press('Escape');
    await context.setOffline(true);
    // A chapter further on, chosen in the contents: not prefetched.
    const far = chapters[from + 4]!;
    await page.getByRole('button', { name: 'Table of contents' }).click();
    await page.getByRole('complementary', { name: 'Table of contents' }).getByRole('link', { name: far.label }).first().click();
    const message = page.getByText('You are offline; this chapter will load when you are back');
    await message.waitFor();
    await page.screenshot({ path: '/tmp/reader-390-offline.png' });
    const retry = page.getByRole('button', { name: 'Retry' });
    await retry.click();
    await message.waitFor(); // still offline: still said
    await context.setOffline(false);
    await expect.poll(() => frameOf(page).locator('title').textContent(), { timeout: 15_000 }).toBe(far.label);
    expect(await message.count()).toBe(0);

    // Offline again, one chapter further, then Retry once back (the event may come before the button is pressed).
    await context.setOffline(true);
    const further = chapters[from + 6]!;
    await page.getByRole('button', { name: 'Table of contents' }).click();
    await page.getByRole('complementary', { name: 'Table of contents' }).getByRole('link', { name: further.label }).first().click();
    await message.waitFor();
    await context.setOffline(false);
    if (await retry.count()) await retry.click().catch(() => undefined);
    await expect.poll(() => frameOf(page).locator('title').textContent(), { timeout: 15_000 }).toBe(further.label);
  });
});

describe('the queue in the reader', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchBrowser();
    page = await (await browser.newContext({ baseURL, viewport: { width: 1280, height: 800 } })).newPage();
    page.setDefaultTimeout(15_000);
    await signInAsDemo(page);
  });
  afterAll(() => browser?.close());

  it('is the same in the contents and in the chapter playlist menu', async () => {
    const chapter = (await worlds(page)).find((c) => /Chapter 5\b/.test(c.label))!;
    await openChapter(page, chapter);
    const menuButton = page.getByRole('toolbar', { name: 'Reader' }).locator('.card-controls button[aria-haspopup]');
    const queueEntry = async () => {
      await menuButton.click();
      const entry = page.getByRole('menuitemcheckbox', { name: /Queue/ });
      const checked = await entry.getAttribute('aria-checked');
      await page.keyboard.press('Escape');
      return checked;
    };
    expect(await queueEntry()).toBe('false');
    // Added from the contents: the menu says so at once.
    await page.getByRole('button', { name: 'Table of contents' }).click();
    const toc = page.getByRole('complementary', { name: 'Table of contents' });
    await toc.getByRole('button', { name: `Add ${chapter.label} to your queue` }).click();
    await toc.getByRole('button', { name: `Remove ${chapter.label} from your queue` }).waitFor();
    await page.keyboard.press('Escape');
    // At once: the same cache entry, not a second copy that a later refresh brings into line.
    await expect.poll(queueEntry, { timeout: 1000 }).toBe('true');
    // Taken out from the menu: the contents say so.
    await menuButton.click();
    const entry = page.getByRole('menuitemcheckbox', { name: /Queue/ });
    await entry.click();
    await expect.poll(() => entry.getAttribute('aria-checked')).toBe('false');
    await expect.poll(() => entry.getAttribute('aria-busy')).toBeNull();
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Table of contents' }).click();
    await toc.getByRole('button', { name: `Add ${chapter.label} to your queue` }).waitFor({ timeout: 2000 });
  });
});

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const SHOTS = process.env.E2E_SHOTS_DIR;

/**
 * docs/decisions.md "The reader on a phone gives the screen to the text": on a phone the reader gives the screen to the
 * text. The book's title is readable in full, the live-training banner is one slim line, a notice sits over the chapter
 * and not over the chapter bar or the toolbar, the fixed-layout zoom buttons cover no page, and the notes panel keeps
 * its export buttons together; the same on the desktop.
 */
describe.each([
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
])('the reader gives the screen to the text at $width px', (viewport) => {
  let browser: Browser;
  let page: Page;
  let courseId = '';
  const dataDir = inject('dataDir');

  /** A book of the suite's library by its title, imported from `make` when it is not there yet. */
  async function bookByTitle(title: string, make: () => Uint8Array): Promise<BookInfo & { book_id: string }> {
    // every page of the catalog: the suite's shared library may hold more than a page by the time this runs
    const find = async () => {
      for (let url: string | null = '/api/v1/book/?page_size=100'; url; ) {
        const answer = (await (await page.request.get(url)).json()) as { results: (BookInfo & { book_id: string })[]; next: string | null };
        const hit = answer.results.find((b) => b.title === title);
        if (hit) return hit;
        url = answer.next;
      }
      return undefined;
    };
    const there = await find();
    if (there) return there;
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-screen-'));
    const file = path.join(folder, 'book.epub');
    fs.writeFileSync(file, make());
    importBook(dataDir, file);
    fs.rmSync(folder, { recursive: true, force: true });
    return (await find())!;
  }

  beforeAll(async () => {
    // A live session about to start: every signed-in reader's reader shows the banner.
    const added = lecternCli(dataDir, ['live:course-add', '--title', 'Observing Mars Together', '--description', 'Three evenings at the telescope.', '--topic', 'Astronomy']);
    courseId = /course (\d+)/.exec(added)![1]!;
    const start = new Date(Date.now() + 10 * 60_000).toISOString();
    lecternCli(dataDir, ['live:event-add', courseId, '--start', start, '--minutes', '90', '--join', 'https://meet.example.com/mars', '--presenter', 'Percival Lowell']);
    browser = await launchBrowser();
    const phone = viewport.width < 600;
    page = await (await browser.newContext({ baseURL, viewport, ...(phone ? { isMobile: true, hasTouch: true } : {}) })).newPage();
    page.setDefaultTimeout(15_000);
    await signInAsDemo(page);
  });
  afterAll(async () => {
    await browser?.close();
    // the other specs share this server: leave no banner behind
    if (courseId) lecternCli(dataDir, ['live:remove', courseId]);
  });

  it("shows the book's title in full, the live-training banner as one slim line, and the chapter the rest", async () => {
    const chapter = (await worlds(page)).find((c) => /Chapter 1\b/.test(c.label))!;
    await openChapter(page, chapter);
    const banner = page.getByRole('region', { name: LIVE_TRAINING_MESSAGES.startingSoon });
    await banner.waitFor();
    // (its entrance animation over)
    await page.waitForFunction(() => document.querySelector('.live-banner')!.getAnimations().length === 0);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `reader-room-${viewport.width}.png`) });
    const title = page.locator('.reader-toolbar__book');
    expect(await title.textContent()).toBe('The War of the Worlds');
    // in full: not cut to "The War …"
    expect(await title.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    expect(await title.isVisible()).toBe(true);
    const bannerBox = (await banner.boundingBox())!;
    expect(bannerBox.height).toBeLessThanOrEqual(48);
    // and still says what it is and leads to the course, and can be dismissed
    expect(await banner.getByRole('link', { name: LIVE_TRAINING_MESSAGES.goToCourse }).isVisible()).toBe(true);
    expect(await banner.getByRole('button', { name: LIVE_TRAINING_MESSAGES.dismiss }).isVisible()).toBe(true);
    const stage = (await page.locator('.reader-stage').boundingBox())!;
    // the text's share of the screen: everything but the site's bar, the reader's bars and that line
    expect(stage.height / viewport.height).toBeGreaterThan(viewport.width < 600 ? 0.68 : 0.7);
  });

  it('keeps a notice over the chapter, clear of the chapter bar and the toolbar', async () => {
    // A highlight the server refuses: the reader says so in a notice for a few seconds.
    await page.route('**/nest/api/a/**/annotations/', (route) => (route.request().method() === 'POST' ? route.fulfill({ status: 500, body: '{}' }) : route.fallback()));
    await page.evaluate(() => {
      const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!;
      const doc = frame.contentDocument!;
      const walker = doc.createTreeWalker(doc.getElementById('lectern-root')!, NodeFilter.SHOW_TEXT);
      let t = walker.nextNode() as Text | null;
      while (t && t.length < 120) t = walker.nextNode() as Text | null;
      const range = doc.createRange();
      range.setStart(t!, 0);
      range.setEnd(t!, 20);
      doc.getSelection()!.removeAllRanges();
      doc.getSelection()!.addRange(range);
    });
    await page.getByRole('toolbar', { name: 'Annotate the selection' }).getByRole('button', { name: 'Add Highlight' }).click();
    const notice = page.locator('.annotation-notice p');
    await notice.waitFor();
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `reader-notice-${viewport.width}.png`) });
    const box = (await notice.boundingBox())!;
    const footer = (await page.locator('.reader-footer').boundingBox())!;
    const toolbar = (await page.getByRole('toolbar', { name: 'Reader' }).boundingBox())!;
    const stage = (await page.locator('.reader-stage').boundingBox())!;
    expect(overlaps(box, footer), 'the notice covers the chapter bar').toBe(false);
    expect(overlaps(box, toolbar), 'the notice covers the toolbar').toBe(false);
    expect(box.y).toBeGreaterThanOrEqual(stage.y);
    expect(box.y + box.height).toBeLessThanOrEqual(stage.y + stage.height);
    await page.unroute('**/nest/api/a/**/annotations/');

    // A playlist change the server refuses: the error bar, under the toolbar rather than over it.
    // (adding to the queue, by its own address or as a playlist's content; what the menu reads still answers)
    const collections = (url: URL) => url.pathname === '/api/v1/queue-simple/' || url.pathname.endsWith('/add-content/');
    await page.route(collections, (route) => (route.request().method() === 'POST' ? route.fulfill({ status: 500, body: '{}' }) : route.fallback()));
    await page.keyboard.press('Escape');
    await page.getByRole('toolbar', { name: 'Reader' }).locator('.card-controls button[aria-haspopup]').click();
    await page.getByRole('menuitemcheckbox', { name: /Queue/ }).click();
    const bar = page.locator('.error-bar');
    await bar.waitFor();
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `reader-error-bar-${viewport.width}.png`) });
    const barBox = (await bar.boundingBox())!;
    expect(overlaps(barBox, (await page.getByRole('toolbar', { name: 'Reader' }).boundingBox())!), 'the error bar covers the toolbar').toBe(false);
    expect(overlaps(barBox, (await page.locator('.reader-footer').boundingBox())!), 'the error bar covers the chapter bar').toBe(false);
    await page.unroute(collections);
    await page.keyboard.press('Escape');
  });

  it('keeps the notes export buttons together on one row', async () => {
    await page.getByRole('button', { name: ANNOTATION_MESSAGES.notesHeading }).click();
    const panel = page.getByRole('complementary', { name: ANNOTATION_MESSAGES.notesHeading });
    const markdown = panel.getByRole('link', { name: /Markdown/ });
    const json = panel.getByRole('link', { name: /JSON/ });
    await json.waitFor();
    await page.waitForFunction(() => document.querySelector('.reader-notes')!.getAnimations().every((a) => a.playState !== 'running'));
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `reader-notes-${viewport.width}.png`) });
    const [m, j, p] = [(await markdown.boundingBox())!, (await json.boundingBox())!, (await panel.boundingBox())!];
    // JSON beside Markdown, not on a row of its own
    expect(Math.abs(m.y - j.y)).toBeLessThanOrEqual(1);
    expect(j.x).toBeGreaterThan(m.x + m.width - 1);
    expect(j.x + j.width).toBeLessThanOrEqual(p.x + p.width);
    await page.keyboard.press('Escape');
  });

  it('puts the fixed-layout zoom buttons where they cover no page', async () => {
    const problems: string[] = [];
    for (const [title, make] of [[FIXED_TITLE, () => fixedLayoutEpub()], [DEVICE_TITLE, deviceSizedEpub]] as const) {
      const book = await bookByTitle(title, make);
      const first = (await chaptersOf(page, book))[0]!;
      await page.goto(first.web_url);
      await page.waitForFunction(() => Array.from(document.querySelectorAll<HTMLIFrameElement>('iframe.fixed-layout__page')).some((f) => f.style.visibility === 'visible'));
      // The zoom strip is placed once the whole spine is known, which may come after the first page shows (the
      // page then shrinks to make room): measure until the layout has settled, failing if it never stops covering.
      const measure = async (): Promise<string[]> => {
        const found: string[] = [];
        const zoom = (await page.getByRole('group', { name: 'Zoom' }).boundingBox())!;
        const pages = await page.evaluate(() =>
          Array.from(document.querySelectorAll<HTMLIFrameElement>('iframe.fixed-layout__page'))
            .filter((f) => f.style.visibility !== 'hidden')
            .map((f) => {
              const r = f.getBoundingClientRect();
              return { x: r.left, y: r.top, width: r.width, height: r.height };
            }),
        );
        if (!pages.length) found.push(`${title}: no page shows`);
        for (const p of pages) if (overlaps(zoom, p)) found.push(`${title}: the zoom buttons (${JSON.stringify(zoom)}) cover a page (${JSON.stringify(p)})`);
        // and they stay on screen, above the chapter bar
        const footer = (await page.locator('.reader-footer').boundingBox())!;
        if (overlaps(zoom, footer)) found.push(`${title}: the zoom buttons cover the chapter bar`);
        return found;
      };
      await expect.poll(measure, { timeout: 10_000 }).toEqual([]).catch(() => undefined);
      problems.push(...(await measure()));
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `reader-fxl-${title.split(' ')[0]}-${viewport.width}.png`) });
    }
    expect(problems).toEqual([]);
  });
});
