/**
 * A long chapter's first screen painted by the page itself (docs/decisions.md "A long chapter's first screen painted
 * by the page"): with the app's entry held back (so no code of the app has run, let alone rendered), the chapter's
 * first screen is on screen, at the chapter's start or at the reader's stored place deep in it, in a frame of the
 * reader's sandbox and CSP; once the entry is let through, the reader's own first screen shows the same words at the
 * same place and the page's frame is gone. At 1280 and 390 px. The first screen's content is hostile where a
 * sanitised book can still be (text that reads as markup), and the frame runs nothing put into it.
 * No timings are asserted: the test waits on the page's and the reader's marks.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { longChapterEpub } from '../packages/server/test/fixtures/long-chapter.ts';
import { importBook, signIn } from '../scripts/fresh-server.ts';
import { holdEntry, launchBrowser } from './browser.ts';

const desktop = { width: 1280, height: 800 };
const phone = { width: 390, height: 844 };
const DEEP = 'Here the resumed reader lands, on a paragraph about quintessential lanterns kept deep in the afternoon.';
const HOSTILE_TEXT = '</script><script>parent.__pwned = 1</script><img src=x onerror="parent.__pwned = 2">';

/** One book per width and start (the account's position in one does not move where another opens). */
const books: Record<string, string> = {};
const key = (width: number, deep: boolean) => `${width}-${deep ? 'deep' : 'start'}`;

beforeAll(() => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-page-first-'));
  let n = 0;
  for (const viewport of [desktop, phone]) {
    for (const deep of [false, true]) {
      const title = `Page First Screen ${key(viewport.width, deep)}`;
      const file = path.join(folder, `${key(viewport.width, deep)}.epub`);
      const book = longChapterEpub({
        chars: 400_000,
        title,
        uuid: `5a1ce5a1-0000-4000-8000-0000000005${n++}0`,
        wrap: true,
        markers: [
          // (the importer drops the script and the handler; the text stays text)
          { at: 0, html: `<p id="hostile">${HOSTILE_TEXT.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</p><script>parent.__pwned = 3</script><img src="x.png" onerror="parent.__pwned = 4" alt="">` },
          { at: 0.6, html: `<p id="deep-place">${DEEP}</p>` },
        ],
      });
      fs.writeFileSync(file, book.bytes);
      const out = importBook(inject('dataDir'), file);
      books[key(viewport.width, deep)] = new RegExp(`imported\\s+(\\S+)\\s+"${title}"`).exec(out)?.[1] ?? '';
      if (!books[key(viewport.width, deep)]) throw new Error(`not imported: ${out}`);
    }
  }
  fs.rmSync(folder, { recursive: true, force: true });
});

interface Seen {
  /** the frame's box on the page */
  frame: { top: number; height: number; width: number };
  /** the watched element's box against the frame's viewport */
  place: { top: number; bottom: number };
  viewport: number;
}

/** Where `id` is in the frame `selector` holds, and the frame on the page. */
const seen = (page: Page, selector: string, id: string) =>
  page.evaluate(
    ({ selector, id }) => {
      const frame = document.querySelector<HTMLIFrameElement>(selector)!;
      const r = frame.getBoundingClientRect();
      const box = frame.contentDocument!.getElementById(id)!.getBoundingClientRect();
      return { frame: { top: r.top, height: r.height, width: r.width }, place: { top: box.top, bottom: box.bottom }, viewport: frame.contentDocument!.documentElement.clientHeight };
    },
    { selector, id },
  ) as Promise<Seen>;

const marked = (page: Page, name: string) => page.waitForFunction((n) => performance.getEntriesByName(n).length > 0, name, { timeout: 30_000 });

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

for (const viewport of [desktop, phone]) {
  describe(`a long chapter's first screen painted by the page at ${viewport.width}x${viewport.height}`, () => {
    for (const deep of [false, true]) {
      it(deep ? "resuming deep in it, at the reader's stored place" : 'from its start', async () => {
        const context: BrowserContext = await browser.newContext({ baseURL: inject('baseURL'), viewport });
        try {
          const page = await context.newPage();
          page.setDefaultTimeout(30_000);
          await signIn(page, inject('demoEmail'), inject('demoPassword'));
          const bookId = books[key(viewport.width, deep)]!;
          const chapters = (await (await page.request.get(`/api/v1/book/${bookId}/`)).json()).chapters as { full_path: string; web_url: string; url: string }[];
          const long = chapters.find((c) => c.full_path.endsWith('text/ch2.xhtml'))!;
          if (deep) {
            // The reader's place as it keeps it (shared/reading/position.ts): the words at the place, the share before.
            const content = ((await (await page.request.get(long.url, { headers: { Accept: 'application/json' } })).json()) as { content: string }).content;
            const text = await page.evaluate((html) => new DOMParser().parseFromString(html, 'text/html').body.textContent ?? '', content);
            const at = text.indexOf(DEEP);
            const stored = { [`${bookId}/${long.full_path}`]: { href: long.full_path, progression: (at / text.length) * 100, text: { before: text.slice(at - 32, at), highlight: DEEP.slice(0, 32), after: DEEP.slice(32, 64) }, at: Date.now() } };
            await page.evaluate((v) => localStorage.setItem('reader_positions', v), JSON.stringify(stored));
          }
          // The app's entry held back until the page's own first screen is painted: nothing of the app runs before.
          const entry = await holdEntry(page);
          await page.goto(long.web_url, { waitUntil: 'commit' });
          await marked(page, 'reader:page-first-screen');
          const before = await page.evaluate(() => ({
            rendered: performance.getEntriesByName('reader:rendered').length,
            app: !!document.querySelector('.reader-app'),
            pwned: (window as unknown as { __pwned?: unknown }).__pwned ?? null,
            visibility: getComputedStyle(document.getElementById('lectern-page-chapter')!).visibility,
            sandbox: document.getElementById('lectern-page-chapter')!.getAttribute('sandbox'),
            // (a picture of the first screen: nothing in it to focus, click or read twice)
            inert: (document.getElementById('lectern-page-chapter') as HTMLIFrameElement).inert,
            pointer: getComputedStyle(document.getElementById('lectern-page-chapter')!).pointerEvents,
            csp: (document.getElementById('lectern-page-chapter') as HTMLIFrameElement).contentDocument!.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') ?? '',
            hostile: (document.getElementById('lectern-page-chapter') as HTMLIFrameElement).contentDocument!.getElementById('hostile')?.textContent ?? null,
          }));
          expect(entry.urls.length).toBeGreaterThan(0);
          expect(before).toMatchObject({ rendered: 0, app: false, pwned: null, visibility: 'visible', sandbox: 'allow-same-origin', inert: true, pointer: 'none' });
          // (the chapter's opening holds the text that reads as markup: shown as text)
          if (!deep) expect(before.hostile).toBe(HOSTILE_TEXT);
          expect(before.csp).toContain("script-src 'none'");
          const watched = deep ? 'deep-place' : 'hostile';
          const pageSeen = await seen(page, '#lectern-page-chapter', watched);
          // On the first screen: the chapter's opening, or the stored place at the top of the view.
          if (deep) {
            expect(pageSeen.place.top).toBeGreaterThanOrEqual(0);
            expect(pageSeen.place.top).toBeLessThan(40);
          } else {
            expect(await page.evaluate(() => (document.getElementById('lectern-page-chapter') as HTMLIFrameElement).contentDocument!.querySelector('h1')!.getBoundingClientRect().top)).toBeGreaterThanOrEqual(0);
            // Nothing put into the page's frame runs: a handler, a script.
            const ran = await page.evaluate(async () => {
              const doc = (document.getElementById('lectern-page-chapter') as HTMLIFrameElement).contentDocument!;
              doc.body.insertAdjacentHTML('beforeend', '<img id="probe" src="/no-such-image.png" onerror="parent.__pwned = 5">');
              await new Promise((r) => doc.getElementById('probe')!.addEventListener('error', r, { once: true }));
              const s = doc.createElement('script');
              s.textContent = 'parent.__pwned = 6';
              doc.body.append(s);
              return (window as unknown as { __pwned?: unknown }).__pwned ?? null;
            });
            expect(ran).toBeNull();
          }

          // The app let in: its reader paints its own first screen where the page's was, and the page's frame goes.
          entry.release();
          await marked(page, 'reader:page-frame-released');
          await page.waitForFunction(() => performance.getEntriesByName('reader:first-screen').some((m) => (m as PerformanceMark).detail !== 'page'));
          expect(await page.locator('#lectern-page-chapter').count()).toBe(0);
          const readerSeen = await seen(page, 'iframe.chapter-view__frame', watched);
          // (within a pixel: the skeleton's toolbar and the reader's round their fractional line heights apart)
          expect(Math.abs(readerSeen.frame.top - pageSeen.frame.top)).toBeLessThan(1);
          expect(readerSeen.frame.width).toBe(pageSeen.frame.width);
          expect(Math.abs(readerSeen.place.top - pageSeen.place.top)).toBeLessThanOrEqual(1);
          expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned ?? null)).toBeNull();
        } finally {
          await context.close();
        }
      });
    }

    it('is not painted once the reader has been left before the worker answers', async () => {
      const context: BrowserContext = await browser.newContext({ baseURL: inject('baseURL'), viewport });
      try {
        const page = await context.newPage();
        page.setDefaultTimeout(30_000);
        await signIn(page, inject('demoEmail'), inject('demoPassword'));
        const bookId = books[key(viewport.width, false)]!;
        const chapters = (await (await page.request.get(`/api/v1/book/${bookId}/`)).json()).chapters as { full_path: string; web_url: string }[];
        const long = chapters.find((c) => c.full_path.endsWith('text/ch2.xhtml'))!;
        // The chapter worker's script held back until the app has drawn its reader and the reader has been left.
        let release!: () => void;
        const held = new Promise<void>((r) => (release = r));
        await page.route(/\/assets\/chapter\.worker-[\w-]+\.js$/, async (route: Route) => {
          await held;
          await route.continue();
        });
        await page.goto(long.web_url, { waitUntil: 'commit' });
        await page.locator('.reader-stage').waitFor();
        // (left within the app, as a link does: the router follows the history entry, the document stays)
        await page.evaluate(() => {
          history.pushState(null, '', '/');
          dispatchEvent(new PopStateEvent('popstate'));
        });
        await page.waitForFunction(() => !document.querySelector('.reader-stage'));
        release();
        await marked(page, 'reader:page-worker-answered');
        // (the worker posts the first screen before its answer: had the page painted it, it would be here now)
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        expect(await page.locator('#lectern-page-chapter').count()).toBe(0);
      } finally {
        await context.close();
      }
    });
  });
}

describe("the page's first screen follows a resize until the reader takes over", () => {
  it('a phone turned to landscape: the frame still covers the stage', async () => {
    const context: BrowserContext = await browser.newContext({ baseURL: inject('baseURL'), viewport: phone });
    // The resize listeners of the window, in the order added, and whether each is still on: the page's own is the first.
    await context.addInitScript(() => {
      const listeners: { listener: unknown; on: boolean }[] = [];
      (window as unknown as { __resize: typeof listeners }).__resize = listeners;
      const add = window.addEventListener.bind(window);
      const remove = window.removeEventListener.bind(window);
      window.addEventListener = ((type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions) => {
        if (type === 'resize') listeners.push({ listener, on: true });
        add(type, listener, options);
      }) as typeof window.addEventListener;
      window.removeEventListener = ((type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions) => {
        if (type === 'resize') for (const l of listeners) if (l.listener === listener) l.on = false;
        remove(type, listener, options);
      }) as typeof window.removeEventListener;
    });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      await signIn(page, inject('demoEmail'), inject('demoPassword'));
      const bookId = books[key(phone.width, false)]!;
      const chapters = (await (await page.request.get(`/api/v1/book/${bookId}/`)).json()).chapters as { full_path: string; web_url: string }[];
      const long = chapters.find((c) => c.full_path.endsWith('text/ch2.xhtml'))!;
      // The app's entry held back: the page's frame is all there is when the window turns.
      const entry = await holdEntry(page);
      await page.goto(long.web_url, { waitUntil: 'commit' });
      await marked(page, 'reader:page-first-screen');
      const box = () =>
        page.evaluate(() => {
          const r = document.getElementById('lectern-page-chapter')!.getBoundingClientRect();
          return { top: r.top, height: r.height, width: r.width, innerHeight };
        });
      const portrait = await box();
      // turned: the resize delivered (the page's own listener was added first, so it has run) and a frame drawn
      const resized = page.evaluate(() => new Promise<void>((r) => addEventListener('resize', () => requestAnimationFrame(() => r()), { once: true })));
      await page.setViewportSize({ width: phone.height, height: phone.width });
      await resized;
      const landscape = await box();
      expect(landscape.innerHeight).toBe(phone.width);
      expect(landscape.width).toBe(phone.height);
      // (below the skeleton's toolbar, above its footer, at the window's new height: not the portrait frame's)
      expect(landscape.height).toBeLessThan(portrait.height);
      expect(Math.abs(landscape.top + landscape.height + 49 - landscape.innerHeight)).toBeLessThan(1);

      // The app let in: the reader's stage is where the page's frame was.
      entry.release();
      await page.locator('.reader-stage').waitFor();
      const stage = await page.evaluate(() => {
        const r = document.querySelector('.reader-stage')!.getBoundingClientRect();
        return { top: r.top, height: r.height };
      });
      expect(Math.abs(stage.top - landscape.top)).toBeLessThan(1);
      expect(Math.abs(stage.height - landscape.height)).toBeLessThan(1);
      await marked(page, 'reader:page-frame-released');
      // released: the page's listener, which holds the removed frame's document, is off without waiting for a resize
      const pageListener = await page.evaluate(() => (window as unknown as { __resize: { on: boolean }[] }).__resize[0]);
      expect(pageListener).toEqual({ on: false });
    } finally {
      await context.close();
    }
  });
});

/** A reader address's long chapter, its address found as a signed-in reader. */
async function longChapterOf(page: Page, width: number): Promise<string> {
  await signIn(page, inject('demoEmail'), inject('demoPassword'));
  const bookId = books[key(width, false)]!;
  const chapters = (await (await page.request.get(`/api/v1/book/${bookId}/`)).json()).chapters as { full_path: string; web_url: string }[];
  return chapters.find((c) => c.full_path.endsWith('text/ch2.xhtml'))!.web_url;
}

describe("the page's first screen and the answer's schema check (chapter.worker.ts firstScreenUnchecked)", () => {
  it("is painted while the worker's schema code is still on its way, and the checked answer follows it", async () => {
    const context: BrowserContext = await browser.newContext({ baseURL: inject('baseURL'), viewport: desktop });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      const address = await longChapterOf(page, desktop.width);
      const entry = await holdEntry(page);
      // Every schemas chunk held: the app's (its entry is held too) and the worker's own, which it asks for itself.
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      const held: string[] = [];
      await context.route(/\/assets\/schemas-[\w-]+\.js$/, async (route: Route) => {
        held.push(new URL(route.request().url()).pathname);
        await released;
        await route.continue();
      });
      await page.goto(address, { waitUntil: 'commit' });
      await marked(page, 'reader:page-first-screen');
      const app = await page.evaluate(() => Array.from(document.querySelectorAll<HTMLLinkElement>('link[rel="modulepreload"]')).map((l) => new URL(l.href).pathname));
      // the worker's schema code asked for and still held while its first screen shows; its checked answer not given
      await expect.poll(() => held.filter((p) => !app.includes(p)).length).toBe(1);
      expect(await page.evaluate(() => performance.getEntriesByName('reader:page-worker-answered').length)).toBe(0);
      await page.locator('#lectern-page-chapter').waitFor();

      release();
      await marked(page, 'reader:page-worker-answered');
      // the chapter decrypted once: before the check, and that used again for the checked answer
      const worker = page.workers().find((w) => w.url().includes('chapter.worker'))!;
      expect(await worker.evaluate(() => performance.getEntriesByName('reader:worker-decrypted').length)).toBe(1);
      entry.release();
      await marked(page, 'reader:page-frame-released');
      await page.waitForFunction(() => performance.getEntriesByName('reader:first-screen').some((m) => (m as PerformanceMark).detail !== 'page'));
      expect(await page.locator('iframe.chapter-view__frame').isVisible()).toBe(true);
    } finally {
      await context.close();
    }
  });

  it('an answer the check refuses takes the first screen painted from it away, and the reader says so', async () => {
    const context: BrowserContext = await browser.newContext({ baseURL: inject('baseURL'), viewport: desktop });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      const address = await longChapterOf(page, desktop.width);
      // Every block answer (the page's and the reader's retries) with a field of the wrong type beside a chapter
      // that decrypts: what the first screen reads is sound, the answer as a whole is not.
      await context.route('**/nest/epub/block/', async (route: Route) => {
        const response = await route.fetch();
        const items = (await response.json()) as Record<string, unknown>[];
        items[0]!.is_system_book = 'not a boolean';
        await route.fulfill({ response, json: items });
      });
      const entry = await holdEntry(page);
      await page.goto(address, { waitUntil: 'commit' });
      await marked(page, 'reader:page-first-screen');
      entry.release();
      await page.getByText('Error, the machines failed. Please try again soon.').waitFor();
      await marked(page, 'reader:page-frame-released');
      expect(await page.locator('#lectern-page-chapter').count()).toBe(0);
      expect(await page.evaluate(() => performance.getEntriesByName('reader:first-screen').filter((m) => (m as PerformanceMark).detail !== 'page').length)).toBe(0);
    } finally {
      await context.close();
    }
  });
});

describe("the app's start on a long chapter's page (app/pageFirstScreenGate.ts)", () => {
  /** The app's wait as it ended (its mark's detail), or null when the app did not wait. */
  const waitOver = (page: Page) =>
    page.evaluate(() => {
      const m = performance.getEntriesByName('reader:app-start-waited')[0] as PerformanceMark | undefined;
      return m ? { why: m.detail as string, at: m.startTime } : null;
    });
  const ownFirstScreen = (page: Page) => page.waitForFunction(() => performance.getEntriesByName('reader:first-screen').some((m) => (m as PerformanceMark).detail !== 'page'));

  for (const viewport of [desktop, phone]) {
    it(`starts once the page's first screen is painted, at ${viewport.width} px`, async () => {
      const context: BrowserContext = await browser.newContext({ baseURL: inject('baseURL'), viewport });
      try {
        const page = await context.newPage();
        page.setDefaultTimeout(30_000);
        const address = await longChapterOf(page, viewport.width);
        await page.goto(address, { waitUntil: 'commit' });
        await ownFirstScreen(page);
        const wait = await waitOver(page);
        const at = (name: string) => page.evaluate((n) => performance.getEntriesByName(n)[0]?.startTime ?? null, name);
        expect(wait?.why).toBe('painted');
        // (the reader's first render after the page's screen, not beside it)
        expect(await at('reader:rendered')).toBeGreaterThanOrEqual((await at('reader:page-first-screen'))!);
        expect(await page.locator('#lectern-page-chapter').count()).toBe(0);
      } finally {
        await context.close();
      }
    });
  }

  it('starts as soon as the worker says no first screen is coming (paged reading)', async () => {
    const context: BrowserContext = await browser.newContext({ baseURL: inject('baseURL'), viewport: desktop });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      const address = await longChapterOf(page, desktop.width);
      await page.evaluate(() => {
        localStorage.setItem('reader_preferences', JSON.stringify({ pagination: 'page' }));
        localStorage.setItem('reader_pagination_chosen', '1');
      });
      await page.goto(address, { waitUntil: 'commit' });
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
      expect((await waitOver(page))?.why).toBe('none');
      expect(await page.evaluate(() => performance.getEntriesByName('reader:page-first-screen').length)).toBe(0);
    } finally {
      await context.close();
    }
  });

  it("does not wait on a short chapter's page", async () => {
    const context: BrowserContext = await browser.newContext({ baseURL: inject('baseURL'), viewport: desktop });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      await signIn(page, inject('demoEmail'), inject('demoPassword'));
      const chapters = (await (await page.request.get(`/api/v1/book/${books[key(desktop.width, false)]!}/`)).json()).chapters as { full_path: string; web_url: string }[];
      const short = chapters.find((c) => !c.full_path.endsWith('text/ch2.xhtml'))!;
      await page.goto(short.web_url, { waitUntil: 'commit' });
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
      // (the page's data does not call it long, and the page did start its worker: the app has removed the data's
      // element by now, so it is read from the page as served)
      const served = await (await page.request.get(short.web_url)).text();
      const reader = JSON.parse(/<script type="application\/json" id="lectern-boot">(.*?)<\/script>/s.exec(served)![1]!).reader as Record<string, unknown>;
      expect(reader).toMatchObject({ href: short.full_path, worker: expect.any(String) });
      expect(reader).not.toHaveProperty('long');
      expect(await page.evaluate(() => performance.getEntriesByName('reader:page-first-screen').length)).toBe(0);
      expect(await waitOver(page)).toBeNull();
    } finally {
      await context.close();
    }
  });
});
