/**
 * The reader in a real browser against the real server and sample library: decryption, paged reading across a
 * chapter end, preferences kept across a reload, usage events kept offline and delivered once back online, the
 * anonymous sign-in gate, and axe on the reader with its panels open. At desktop and phone sizes. Also the errors
 * reader.md §8 quotes, each brought about in the browser: a key request that fails, a key that does not open the
 * chapter, a block answer with no chapter item yet, a store token that cannot be had, and a browser that cannot
 * annotate.
 */
import path from 'node:path';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, openPage, seriousViolations, signInAsDemo } from './browser.ts';

const baseURL = inject('baseURL');

interface ChapterInfo {
  full_path: string;
  web_url: string;
  as_sample: boolean;
  is_public: boolean;
  label: string;
}

const signIn = signInAsDemo;

async function warOfTheWorlds(page: Page): Promise<{ bookId: string; chapters: ChapterInfo[] }> {
  const list = await (await page.request.get('/api/v1/book/?page_size=50')).json();
  const book = list.results.find((b: { title: string }) => /War of the Worlds/.test(b.title));
  const detail = await (await page.request.get(book.api_url)).json();
  return { bookId: book.book_id, chapters: detail.chapters };
}

const frameOf = (page: Page) => page.frameLocator('iframe.chapter-view__frame');

/** The block answer for one chapter (not a prefetch of the next one). */
function blockFor(page: Page, href: string): Promise<Response> {
  return page.waitForResponse((r) => {
    if (!r.url().includes('/nest/epub/block/') || r.request().method() !== 'POST') return false;
    const body = r.request().postDataJSON() as { hrefs?: unknown };
    return body?.hrefs === href;
  });
}

async function footerText(page: Page) {
  return (await page.locator('.reader-footer__text').textContent()) ?? '';
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 375, height: 812 },
]) {
  describe(`the reader at ${viewport.width}x${viewport.height}`, () => {
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let bookId = '';
    let chapters: ChapterInfo[] = [];
    let long: ChapterInfo;
    let nextOfLong: ChapterInfo;

    beforeAll(async () => {
      browser = await launchBrowser();
      context = await browser.newContext({ baseURL, viewport });
      page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await signIn(page);
      ({ bookId, chapters } = await warOfTheWorlds(page));
      // Chapter 1 - The Eve of the War: the first chapter of real text, and the one after it.
      const i = chapters.findIndex((c) => /Chapter 1\b/.test(c.label));
      long = chapters[i]!;
      nextOfLong = chapters[i + 1]!;
    });
    afterAll(() => browser?.close());

    it('decrypts the chapter in the browser: the block answer is crypt64 and the frame shows the text', async () => {
      const block = blockFor(page, long.full_path);
      await page.goto(long.web_url);
      const answer = await (await block).json();
      expect(answer[0].resources[0].encoding).toBe('crypt64');
      expect(answer[0].resources[0].content).not.toMatch(/Martian|<p/);
      await expect.poll(async () => (await frameOf(page).locator('body').innerText()).length).toBeGreaterThan(3000);
      expect(await frameOf(page).locator('body').innerText()).toMatch(/o one would have believed/);
      // The key is kept in local storage (reader.md §3).
      expect(await page.evaluate(() => localStorage.getItem('reader_key'))).toMatch(/"key"/);
    });

    it('opens a chapter from the contents in the same frame, still sandboxed, with the focus on the new chapter', async () => {
      await page.getByRole('button', { name: 'Table of contents' }).click();
      const toc = page.getByRole('complementary', { name: 'Table of contents' });
      await page.evaluate(() => performance.clearMarks('reader:chapter-painted'));
      await toc.getByRole('link', { name: nextOfLong.label }).first().click();
      await page.waitForURL((u) => u.pathname.endsWith(`/${nextOfLong.full_path}`));
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
      // The frame now holds the next chapter, and the chapter has the focus (keys page it at once).
      await expect.poll(() => frameOf(page).locator('title').textContent()).toBe(nextOfLong.label);
      expect(await frameOf(page).locator('body').innerText()).not.toMatch(/o one would have believed/);
      await expect.poll(() => page.evaluate(() => document.activeElement?.classList.contains('chapter-view__frame'))).toBe(true);
      // Written documents keep the frame's sandbox and the chapter CSP: a script put into the chapter never runs.
      expect(await frameOf(page).locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content')).toContain("script-src 'none'");
      const ran = await page.evaluate(async () => {
        const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!;
        const doc = frame.contentDocument!;
        const script = doc.createElement('script');
        script.textContent = 'parent.__chapterScriptRan = true';
        doc.body.append(script);
        const img = doc.createElement('img');
        img.setAttribute('onerror', 'parent.__chapterScriptRan = true');
        // The test's own listener hears the image fail: the attribute's handler, had it been allowed, ran then.
        const failed = new Promise((r) => img.addEventListener('error', r, { once: true }));
        img.src = 'data:,broken';
        doc.body.append(img);
        await failed;
        return (window as { __chapterScriptRan?: boolean }).__chapterScriptRan ?? false;
      });
      expect(ran).toBe(false);
      await page.goto(long.web_url);
      await frameOf(page).locator('body').waitFor();
    });

    it('switches to paged mode and pages past the end of the chapter into the next one, and back to its end', async () => {
      await page.getByRole('button', { name: 'Display settings' }).click();
      await page.getByRole('button', { name: 'Pages' }).click();
      expect(await page.getByRole('button', { name: 'Pages' }).getAttribute('aria-pressed')).toBe('true');
      await page.keyboard.press('Escape');
      // The server may remember an earlier visit (top_percentage): Home goes to the first page.
      await expect.poll(() => footerText(page)).toMatch(/^Page \d+ of \d+$/);
      await page.keyboard.press('Home');
      await expect.poll(() => footerText(page)).toMatch(/^Page 1 of \d+$/);
      const count = Number(/of (\d+)/.exec(await footerText(page))![1]);
      expect(count).toBeGreaterThan(3);
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => footerText(page)).toBe(`Page 2 of ${count}`);
      // Swipe-free, key-driven: to the last page, then one more.
      for (let i = 2; i < count; i++) await page.keyboard.press('ArrowRight');
      await expect.poll(() => footerText(page)).toBe(`Page ${count} of ${count}`);
      await page.evaluate(() => performance.clearMarks('reader:chapter-painted'));
      await page.keyboard.press('ArrowRight');
      await page.waitForURL((u) => u.pathname.endsWith(`/${nextOfLong.full_path}`));
      // The next chapter opens where this reader last was in it (the server's top_percentage, reader.md §4
      // priority 4; an earlier test may have read it to the end): once it is on screen, Home goes to its first page.
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
      await expect.poll(() => footerText(page)).toMatch(/^Page \d+ of \d+$/);
      await page.keyboard.press('Home');
      await expect.poll(() => footerText(page)).toMatch(/^Page 1 of \d+$/);
      // Before the first page: the previous chapter, at its end (100%).
      await page.keyboard.press('ArrowLeft');
      await page.waitForURL((u) => u.pathname.endsWith(`/${long.full_path}`));
      await expect.poll(() => footerText(page)).toBe(`Page ${count} of ${count}`);
      // Read back a page, then reload: the chapter opens at that page, not at its end again (the history entry
      // forgot "coming back").
      await page.keyboard.press('ArrowLeft');
      await expect.poll(() => footerText(page)).toBe(`Page ${count - 1} of ${count}`);
      // No wait for the position's 500 ms debounce: leaving the page (pagehide) stores it at once.
      await page.reload();
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
      await expect.poll(() => footerText(page)).toBe(`Page ${count - 1} of ${count}`);
    });

    it('prepares the next chapter in the hidden frame while this one is read, and reading on swaps it in', async () => {
      // How many frames the page holds when the chapter is written: the spare is made only once the chapter is on
      // screen, not in the commit that brings it (making a frame is a long task's worth of work on a phone).
      await page.addInitScript(() => {
        const mark = performance.mark.bind(performance);
        performance.mark = (name: string, options?: PerformanceMarkOptions) => {
          if (name === 'reader:document-written') (window as unknown as { framesAtWrite?: number }).framesAtWrite ??= document.querySelectorAll('iframe').length;
          return mark(name, options);
        };
      });
      await page.goto(long.web_url);
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
      expect(await page.evaluate(() => (window as unknown as { framesAtWrite?: number }).framesAtWrite)).toBe(1);
      // The reader moves in the chapter (a page turned): the next one is prefetched about 1 s later and prepared
      // after ~2 s (useNextChapterGate.ts; unmoved, only after 5 s of quiet), and the spare frame holds it.
      await page.keyboard.press('ArrowRight');
      const spare = page.locator('iframe.chapter-view__spare');
      await expect
        .poll(() => spare.evaluate((f: HTMLIFrameElement) => f.contentDocument?.title ?? ''), { timeout: 15_000 })
        .toBe(nextOfLong.label);
      // Hidden, out of the tab order and the accessibility tree, and sandboxed as the chapter frame is.
      expect(await spare.getAttribute('aria-hidden')).toBe('true');
      expect(await spare.getAttribute('tabindex')).toBe('-1');
      expect(await spare.evaluate((f) => getComputedStyle(f).visibility)).toBe('hidden');
      expect(await spare.getAttribute('sandbox')).toBe('allow-same-origin');
      expect(await spare.evaluate((f: HTMLIFrameElement) => f.contentDocument?.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content'))).toContain("script-src 'none'");
      await spare.evaluate((f) => (f.dataset.wasSpare = 'yes'));
      await page.evaluate(() => performance.clearMarks());
      await page.getByRole('link', { name: 'Next chapter' }).click();
      await page.waitForURL((u) => u.pathname.endsWith(`/${nextOfLong.full_path}`));
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
      // The prepared frame is now the chapter frame: swapped in, not written again.
      const shown = page.locator('iframe.chapter-view__frame');
      expect(await shown.getAttribute('data-was-spare')).toBe('yes');
      expect(await page.evaluate(() => performance.getEntriesByName('reader:document-swapped').length)).toBe(1);
      expect(await page.evaluate(() => performance.getEntriesByName('reader:document-written').length)).toBe(0);
      expect(await shown.evaluate((f) => getComputedStyle(f).visibility)).toBe('visible');
      expect(await shown.getAttribute('title')).toBe(nextOfLong.label);
      expect(await frameOf(page).locator('title').textContent()).toBe(nextOfLong.label);
      // The chapter left behind is the spare now, hidden.
      expect(await spare.evaluate((f: HTMLIFrameElement) => [f.contentDocument?.title, getComputedStyle(f).visibility])).toEqual([long.label, 'hidden']);
      // It reads as any chapter: keys page it (paged mode, from the test before).
      await page.keyboard.press('Home');
      await expect.poll(() => footerText(page)).toMatch(/^Page 1 of \d+$/);
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => footerText(page)).toMatch(/^Page 2 of \d+$/);
      // The tests after this one read the first chapter.
      await page.goto(long.web_url);
      await frameOf(page).locator('body').waitFor();
    });

    it('keeps night mode and a larger font across a reload', async () => {
      await page.getByRole('button', { name: 'Display settings' }).click();
      await page.getByRole('button', { name: 'Night' }).click();
      await page.getByRole('button', { name: 'Increase font size' }).click();
      await expect.poll(() => frameOf(page).locator('html').getAttribute('class')).toContain('night-mode');
      const size = await frameOf(page).locator('body').evaluate((b) => getComputedStyle(b).fontSize);
      expect(parseFloat(size)).toBeCloseTo(18 * 1.1, 0);
      await page.reload();
      await frameOf(page).locator('body').waitFor();
      await expect.poll(() => frameOf(page).locator('html').getAttribute('class')).toContain('night-mode');
      expect(parseFloat(await frameOf(page).locator('body').evaluate((b) => getComputedStyle(b).fontSize))).toBeCloseTo(18 * 1.1, 0);
      const cookie = (await context.cookies()).find((c) => c.name === 'reader_preferences');
      expect(decodeURIComponent(cookie!.value)).toContain('night-mode');
      await page.getByRole('button', { name: 'Display settings' }).click();
      expect(await page.getByRole('button', { name: 'Night' }).getAttribute('aria-pressed')).toBe('true');
      expect(await page.getByRole('button', { name: 'Pages' }).getAttribute('aria-pressed')).toBe('true');
    });

    it('hides and shows the top bar and the chapter bar, and keeps the choice across a reload', async () => {
      await page.keyboard.press('Escape');
      const frameHeight = () => page.locator('iframe.chapter-view__frame').evaluate((f) => f.getBoundingClientRect().height);
      const before = await frameHeight();
      await page.getByRole('button', { name: 'Display settings' }).click();
      await page.getByRole('button', { name: 'Top bar' }).click();
      await page.getByRole('button', { name: 'Chapter bar' }).click();
      expect(await page.getByRole('button', { name: 'Top bar' }).getAttribute('aria-pressed')).toBe('false');
      await expect.poll(() => page.getByRole('navigation', { name: 'Chapters' }).count()).toBe(0);
      await expect.poll(frameHeight).toBeGreaterThan(before + 60);
      // The contents and settings buttons stay reachable, floating over the chapter.
      await page.keyboard.press('Escape');
      expect(await page.getByRole('button', { name: 'Table of contents' }).isVisible()).toBe(true);
      expect(await page.locator('.reader-toolbar__titles').isVisible()).toBe(false);
      await page.reload();
      await frameOf(page).locator('body').waitFor();
      await expect.poll(() => page.getByRole('navigation', { name: 'Chapters' }).count()).toBe(0);
      await page.getByRole('button', { name: 'Display settings' }).click();
      await page.getByRole('button', { name: 'Top bar' }).click();
      await page.getByRole('button', { name: 'Chapter bar' }).click();
      await page.getByRole('navigation', { name: 'Chapters' }).waitFor();
      expect(await page.locator('.reader-toolbar__titles').isVisible()).toBe(true);
      await expect.poll(frameHeight).toBeCloseTo(before, 0);
      await page.keyboard.press('Escape');
    });

    it('saves the chapter to a playlist from its dropdown, and takes it out again', async () => {
      const chapterUrl = `/api/v1/book/${bookId}/chapter/${long.full_path}`;
      const holders = async () => {
        const res = await page.request.get('/nest/api/api/v2/collections/', { headers: { Accept: 'application/json; version=v2' } });
        const list = (await res.json()) as { name: string; content: { api_url: string }[] }[];
        return list.filter((p) => p.content.some((c) => c.api_url === chapterUrl)).map((p) => p.name);
      };
      expect(await holders()).toEqual([]);
      await page.getByRole('toolbar', { name: 'Reader' }).getByRole('button', { name: 'Add to Playlist' }).click();
      const entry = page.getByRole('menuitemcheckbox').first();
      const name = ((await entry.textContent()) ?? '').trim();
      expect(await entry.getAttribute('aria-checked')).toBe('false');
      await entry.click();
      await expect.poll(() => entry.getAttribute('aria-checked')).toBe('true');
      // The queue shows its feedback while the change is in flight (the entry is busy): then it takes a click again.
      await expect.poll(() => entry.getAttribute('aria-busy')).toBeNull();
      await expect.poll(holders).toHaveLength(1);
      expect(name).toContain((await holders())[0]);
      await entry.click();
      await expect.poll(() => entry.getAttribute('aria-checked')).toBe('false');
      await expect.poll(holders).toEqual([]);
      await page.keyboard.press('Escape');
    });

    it('has no serious accessibility violations with the settings and the contents open', async () => {
      const v = await seriousViolations(page);
      if (v.length) console.log(JSON.stringify(v, null, 1).slice(0, 3000));
      expect(v).toEqual([]);
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: 'Table of contents' }).click();
      const toc = page.getByRole('complementary', { name: 'Table of contents' });
      await toc.getByRole('link', { name: /Chapter 1 - The Eve of the War/ }).waitFor();
      expect(await toc.locator('[aria-current="page"]').count()).toBeGreaterThan(0);
      expect(await toc.getByRole('button', { name: /to your queue/ }).count()).toBeGreaterThan(0);
      expect(await seriousViolations(page)).toEqual([]);
      // Opening a chapter from the contents closes the panel.
      await toc.getByRole('link', { name: /Chapter 2 - The Falling Star/ }).click();
      await page.waitForURL(/main\d+\.xml$/);
      await expect.poll(() => page.locator('aside.toc').getAttribute('aria-hidden')).toBe('true');
      // Back to scroll mode and day for the next visitor of this context.
      await page.getByRole('button', { name: 'Display settings' }).click();
      await page.getByRole('button', { name: 'Reset' }).click();
      await page.keyboard.press('Escape');
    });
  });
}

const SHOTS = process.env.E2E_SHOTS_DIR;

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  describe(`the reader's errors (reader.md §8) at ${viewport.width} px`, () => {
    let browser: Browser;
    let chapter: ChapterInfo;

    /** A signed-in reader in a browser of their own: nothing kept from another test (no stored key). */
    async function reader(setup?: (context: BrowserContext) => Promise<unknown>): Promise<Page> {
      const context = await browser.newContext({ baseURL, viewport });
      await setup?.(context);
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await signIn(page);
      return page;
    }
    /**
     * The chapter's page without the reader's key in its boot data (`lectern-boot`, routes/web.ts), as when the reader
     * comes to the chapter from another screen of the app: the reader must then ask GET /nest/key/ for it.
     */
    const withoutPageKey = (context: BrowserContext) =>
      context.route(
        (url) => url.pathname === new URL(chapter.web_url, baseURL).pathname,
        async (route) => {
          const response = await route.fetch();
          const html = (await response.text()).replace(/(<script type="application\/json" id="lectern-boot">)(.*?)(<\/script>)/s, (_m, open: string, json: string, close: string) => {
            const data = JSON.parse(json) as { reader?: { key?: unknown } };
            if (data.reader) delete data.reader.key;
            return open + JSON.stringify(data).replace(/</g, '\\u003c') + close;
          });
          // the body is sent as text: the answer's own coding and length no longer apply
          const headers = Object.fromEntries(Object.entries(response.headers()).filter(([name]) => name !== 'content-encoding' && name !== 'content-length'));
          await route.fulfill({ status: response.status(), headers, body: html });
        },
      );
    const alert = (page: Page, text: string) => page.getByRole('alert').filter({ has: page.getByText(text, { exact: true }) });
    const shot = async (page: Page, name: string) => {
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `reader-error-${name}-${viewport.width}.png`) });
    };

    beforeAll(async () => {
      browser = await launchBrowser();
      const page = await reader();
      const { chapters } = await warOfTheWorlds(page);
      chapter = chapters.find((c) => /Chapter 1\b/.test(c.label))!;
      await page.context().close();
    });
    afterAll(() => browser?.close());

    it('says "Unable to decrypt content" when the key request fails, and shows nothing of the chapter', async () => {
      const page = await reader(async (c) => {
        await withoutPageKey(c);
        await c.route('**/nest/key/', (route) => route.fulfill({ status: 503, contentType: 'application/json', body: '{"detail":"down"}' }));
      });
      await page.goto(chapter.web_url);
      await alert(page, 'Unable to decrypt content').waitFor();
      expect(await page.locator('iframe.chapter-view__frame').count()).toBe(0);
      await shot(page, 'key');
      expect(await seriousViolations(page)).toEqual([]);
      await page.context().close();
    });

    it('says "This chapter could not be decrypted." when the key does not open it, and shows nothing of the chapter', async () => {
      // The server's key, one character changed: the chapter's checksum cannot match (asking again gets the same).
      const page = await reader(async (c) => {
        await withoutPageKey(c);
        await c.route('**/nest/key/', async (route) => {
          const response = await route.fetch();
          const { key } = (await response.json()) as { key: string };
          await route.fulfill({ response, json: { key: (key[0] === 'A' ? 'B' : 'A') + key.slice(1) } });
        });
      });
      const keys = page.waitForResponse((r) => r.url().endsWith('/nest/key/'));
      await page.goto(chapter.web_url);
      expect((await keys).status()).toBe(200);
      await alert(page, 'This chapter could not be decrypted.').waitFor();
      expect(await page.locator('iframe.chapter-view__frame').count()).toBe(0);
      expect(await page.locator('body').innerText()).not.toMatch(/o one would have believed/);
      await shot(page, 'checksum');
      await page.context().close();
    });

    it('says "This book is still loading, please retry in a moment." when no chapter item exists yet; Try again reads it', async () => {
      let empty = true;
      const page = await reader((c) =>
        c.route('**/nest/epub/block/', (route) => (empty ? route.fulfill({ status: 200, contentType: 'application/json', body: '[]' }) : route.fallback())),
      );
      await page.goto(chapter.web_url);
      const loading = alert(page, 'This book is still loading, please retry in a moment.');
      await loading.waitFor();
      await shot(page, 'loading');
      empty = false;
      await loading.getByRole('button', { name: 'Try again' }).click();
      await expect.poll(async () => (await frameOf(page).locator('body').innerText()).length).toBeGreaterThan(3000);
      expect(await loading.count()).toBe(0);
      await page.context().close();
    });

    it('says "Couldn\'t get auth token:" and why when the annotation store\'s token cannot be had', async () => {
      const page = await reader((c) => c.route('**/auth/token', (route) => route.fulfill({ status: 500, contentType: 'text/plain', body: 'boom' })));
      await page.goto(chapter.web_url);
      const notice = page.locator('.annotation-notice p').filter({ hasText: "Couldn't get auth token:" });
      await notice.waitFor();
      expect(await notice.innerText()).toMatch(/^Couldn't get auth token: 500\b/);
      await shot(page, 'token');
      await page.context().close();
    });

    it('says "Sorry your current browser does not support the Annotator" where the browser cannot annotate, and asks nothing of the store', async () => {
      // A browser that cannot find the text under a tap (no caretPositionFromPoint nor caretRangeFromPoint).
      const page = await reader((c) =>
        c.addInitScript(() => {
          const proto = Document.prototype as unknown as Record<string, unknown>;
          delete proto.caretPositionFromPoint;
          delete proto.caretRangeFromPoint;
        }),
      );
      const storeCalls: string[] = [];
      page.on('request', (r) => {
        if (/\/auth\/token|\/nest\/api\/a\//.test(r.url())) storeCalls.push(r.url());
      });
      await page.goto(chapter.web_url);
      const notice = page.locator('.annotation-notice p');
      await notice.filter({ hasText: 'Sorry your current browser does not support the Annotator' }).waitFor();
      expect(await notice.innerText()).toBe('Sorry your current browser does not support the Annotator');
      // the chapter is read as ever
      await expect.poll(async () => (await frameOf(page).locator('body').innerText()).length).toBeGreaterThan(3000);
      await shot(page, 'unsupported');
      expect(storeCalls).toEqual([]);
      await page.context().close();
    });
  });
}

describe('usage events survive an outage', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    browser = await launchBrowser();
    context = await browser.newContext({ baseURL, viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page);
  });
  afterAll(() => browser?.close());

  it('keeps events read offline (is_offline) and sends them when the connection is back', async () => {
    const { bookId, chapters } = await warOfTheWorlds(page);
    const chapter = chapters.find((c) => /Chapter 3\b/.test(c.label))!;
    await page.goto(chapter.web_url);
    await expect.poll(async () => (await frameOf(page).locator('body').innerText()).length).toBeGreaterThan(3000);
    await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);

    await context.setOffline(true);
    await page.keyboard.press('PageDown');
    await page.keyboard.press('PageDown');
    // Reading is logged at most every 15 s (reader.md §9 usage update interval): the page's clock is moved on by that
    // much. Only Date.now, which the usage tracker reads, so that no timer of the page fires early (page.clock
    // installed for the whole reader left this test hanging).
    await page.evaluate((ms) => {
      const real = Date.now.bind(Date);
      Date.now = () => real() + ms;
    }, 15_500);
    await page.keyboard.press('PageDown');
    const stored = await expect
      .poll(
        async () => {
          const raw = await page.evaluate(() => {
            const k = Object.keys(localStorage).find((key) => key.startsWith('reader_usage_events:'));
            return k ? localStorage.getItem(k) : null;
          });
          return raw ? (JSON.parse(raw) as { usage_uuid: string; is_offline?: boolean; chapter: string }[]) : [];
        },
        { timeout: 10_000 },
      )
      .toSatisfy((events: { is_offline?: boolean }[]) => events.length > 0 && events.every((e) => e.is_offline === true));
    void stored;
    const pending = await page.evaluate(() => {
      const k = Object.keys(localStorage).find((key) => key.startsWith('reader_usage_events:'))!;
      return JSON.parse(localStorage.getItem(k)!) as { usage_uuid: string; chapter: string; end_percentage: number }[];
    });
    expect(pending.some((e) => e.chapter.endsWith(`/chapter/${chapter.full_path}`))).toBe(true);

    // Back online: the `online` event sends them, the server acknowledges, the browser forgets them.
    const delivered = page.waitForResponse((r) => r.url().includes('/api/v1/usage-event/') && r.request().method() === 'POST' && r.status() === 200);
    await context.setOffline(false);
    const ack = await (await delivered).json();
    for (const e of pending) expect(ack.accepted).toContain(e.usage_uuid);
    await expect
      .poll(() => page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('reader_usage_events:') && localStorage.getItem(k)).length))
      .toBe(0);
    const progress = await (await page.request.get(`/api/v1/book/${bookId}/chapter-progress/?page_size=50`)).json();
    const row = progress.results.find((r: { full_path: string }) => r.full_path === chapter.full_path);
    expect(row?.top_percentage).toBeGreaterThan(0);
  });
});

describe('an anonymous visitor in the reader', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ browser, page } = await openPage({ width: 375, height: 812 }));
  });
  afterAll(() => browser?.close());

  it('reads a sample chapter in plain text and is asked to sign in on a locked one', async () => {
    const { chapters } = await warOfTheWorlds(page);
    const sample = chapters.find((c) => c.as_sample)!;
    const locked = chapters.find((c) => !c.as_sample && !c.is_public)!;
    const block = blockFor(page, sample.full_path);
    await page.goto(sample.web_url);
    expect((await (await block).json())[0].resources[0].encoding).toBeNull();
    await expect.poll(async () => (await frameOf(page).locator('body').innerText()).length).toBeGreaterThan(100);

    await page.goto(locked.web_url);
    await page.getByText('You must be signed in to read this book.').waitFor();
    expect(await page.locator('iframe.chapter-view__frame').count()).toBe(0);
    const signIn = page.getByRole('link', { name: 'Sign in' }).last();
    expect(await signIn.getAttribute('href')).toMatch(/^\/login\/\?next=/);
    expect(await seriousViolations(page)).toEqual([]);
  });
});
