/**
 * The reader's two in-browser budgets of DESIGN.md "Reader engine" that no other spec measures:
 * - a hostile chapter (`<script>`, `onerror`, `javascript:` links, `body{display:none}`) runs no script and cannot
 *   restyle the app: the book "Hostile Chapter Fixture" that e2e/global-setup.ts imports;
 * - a font-size or width change back and forth eight times leaves the same first visible character: War of the
 *   Worlds, Chapter 1, in scroll and in paged mode.
 */
import type { Browser, BrowserContext, Dialog, Page } from 'playwright-core';
import { READING_MESSAGES } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPage, seriousViolations, signInAsDemo } from './browser.ts';

const HOSTILE_BOOK = 'Hostile Chapter Fixture';

interface ChapterInfo {
  full_path: string;
  web_url: string;
  label: string;
}

const frameOf = (page: Page) => page.frameLocator('iframe.chapter-view__frame');

async function chaptersOf(page: Page, title: RegExp): Promise<ChapterInfo[]> {
  const list = await (await page.request.get('/api/v1/book/?page_size=50')).json();
  const book = list.results.find((b: { title: string }) => title.test(b.title));
  if (!book) throw new Error(`no book matches ${title}`);
  return (await (await page.request.get(book.api_url)).json()).chapters;
}

/** Opens a chapter and waits until the reader says it is on screen (the `reader:chapter-painted` mark). */
async function openChapter(page: Page, chapter: ChapterInfo): Promise<void> {
  // page.goto loads a new document (even for the URL already open), so the mark found is this chapter's.
  await page.goto(chapter.web_url);
  await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
}

/** What a script of the book would have left behind in the app's window, if any had run. */
function traces(page: Page) {
  return page.evaluate(() => {
    const w = window as unknown as { __pwned?: unknown; __messages?: unknown[] };
    const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame');
    const fw = frame?.contentWindow as (Window & { __pwned?: unknown }) | null | undefined;
    return {
      pwned: w.__pwned ?? null,
      framePwned: fw?.__pwned ?? null,
      title: document.title,
      name: window.name,
      messages: w.__messages ?? [],
    };
  });
}

/** Computed styles of the app's own chrome that a book's CSS would want to change. */
function appStyles(page: Page) {
  return page.evaluate(() => {
    const props = ['display', 'visibility', 'opacity', 'position', 'z-index', 'background-color', 'color', 'font-family', 'font-size', 'transform', 'filter'];
    const out: Record<string, Record<string, string>> = {};
    for (const selector of ['html', 'body', '.reader-app', '.reader-toolbar', '.reader-toolbar__chapter', '.reader-footer', '.reader-stage', 'iframe.chapter-view__frame']) {
      const el = document.querySelector(selector);
      if (!el) {
        out[selector] = { missing: 'true' };
        continue;
      }
      const cs = getComputedStyle(el);
      out[selector] = Object.fromEntries(props.map((p) => [p, cs.getPropertyValue(p)]));
    }
    return out;
  });
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 375, height: 812 },
]) {
  describe(`a hostile chapter at ${viewport.width}x${viewport.height}`, () => {
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let hostile: ChapterInfo;
    let plain: ChapterInfo;
    let baseline: Awaited<ReturnType<typeof appStyles>>;
    const dialogs: string[] = [];
    const popups: Page[] = [];

    beforeAll(async () => {
      ({ browser, page } = await openPage(viewport));
      context = page.context();
      // Any alert/confirm/prompt, from the app or from any frame, is a script of the book that ran.
      page.on('dialog', (d: Dialog) => {
        dialogs.push(`${d.type()}: ${d.message()}`);
        void d.dismiss();
      });
      context.on('page', (p) => popups.push(p));
      // The external link of the chapter opens a tab (reader.md §2); the suite has no network, so answer it here.
      await context.route('https://example.com/**', (route) => route.fulfill({ contentType: 'text/html', body: '<title>Elsewhere</title>elsewhere' }));
      // A message posted by a book script to the app would land here.
      await context.addInitScript(() => {
        const w = window as unknown as { __messages: unknown[] };
        w.__messages = [];
        window.addEventListener('message', (e) => {
          if (typeof e.data === 'string' && e.data.includes('pwned')) w.__messages.push(e.data);
        });
      });
      await signInAsDemo(page);
      const chapters = await chaptersOf(page, new RegExp(`^${HOSTILE_BOOK}$`));
      hostile = chapters.find((c) => c.label === 'A Hostile Chapter')!;
      plain = chapters.find((c) => c.label === 'A Plain Chapter')!;
      expect(hostile).toBeTruthy();
      // The app's chrome as a plain book leaves it: what the hostile chapter must not change.
      const worlds = await chaptersOf(page, /War of the Worlds/);
      await openChapter(page, worlds.find((c) => /Chapter 1\b/.test(c.label))!);
      baseline = await appStyles(page);
      // The app titles the page after the chapter and book (a book script would have written "PWNED …" there).
      expect(await page.title()).toMatch(/ · The War of the Worlds · Lectern$/);
    });
    afterAll(() => browser?.close());

    it('is sanitised: no script, handler, javascript: URL, frame, object, form or style element reaches the frame', async () => {
      await openChapter(page, hostile);
      await frameOf(page).locator('#readable').waitFor({ state: 'attached' });
      const found = await page.evaluate(() => {
        const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!;
        const doc = frame.contentDocument!;
        const root = doc.getElementById('lectern-root')!;
        const handlers: string[] = [];
        const urls: string[] = [];
        for (const el of Array.from(doc.querySelectorAll('*'))) {
          for (const a of Array.from(el.attributes)) {
            if (/^on/i.test(a.name)) handlers.push(`${el.tagName}[${a.name}]`);
            // What the browser would make of the URL: it strips tabs and newlines before it reads the scheme.
            const v = a.value.replace(/[\t\n\r]/g, '').trim();
            if (/^(href|src|action|formaction|data|xlink:href|poster|background)$/i.test(a.name) && /^(javascript|vbscript|data:text)/i.test(v)) urls.push(`${el.tagName}[${a.name}=${a.value}]`);
          }
        }
        return {
          sandbox: frame.getAttribute('sandbox'),
          csp: doc.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') ?? '',
          elements: Array.from(root.querySelectorAll('script, iframe, frame, object, embed, form, input, button, style, link, meta, base')).map((e) => e.tagName),
          // The reader's own <base> only (the chapter's <base href="https://evil.example/"> is gone).
          bases: Array.from(doc.querySelectorAll('base')).map((b) => b.getAttribute('href')),
          styleAttributes: Array.from(root.querySelectorAll('[style]')).map((e) => `${e.tagName}: ${e.getAttribute('style')}`),
          handlers,
          urls,
        };
      });
      expect(found.sandbox).toBe('allow-same-origin');
      expect(found.csp).toContain("script-src 'none'");
      expect(found.elements).toEqual([]);
      expect(found.bases).toHaveLength(1);
      expect(found.bases[0]).toContain(`/chapter/${hostile.full_path}`);
      // The style attribute goes through the book-CSS sanitiser (ingest/css.ts): the book's own display and
      // colours stay, but nothing is positioned fixed or absolute over the page and no url() leaves the book.
      for (const s of found.styleAttributes) expect(s).not.toMatch(/position: (fixed|absolute)|url\(|expression|javascript/);
      expect(found.handlers).toEqual([]);
      expect(found.urls).toEqual([]);
    });

    it('runs no script: inline, external, handlers, javascript: links, and none injected after the chapter is written', async () => {
      // The broken picture has fired its error event (the reader marks it) and the good one has loaded: their
      // onerror / onload handlers would have run by now.
      await frameOf(page).locator('img.lectern-image-failed#broken').waitFor({ state: 'attached' });
      await expect.poll(() => frameOf(page).locator('#pixel').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
      const url = page.url();
      // Clicks and hovers on elements that carried handlers, and on every javascript:/data: link. Dispatched, not
      // clicked with the mouse: whether a script runs must not depend on layout.
      for (const id of ['#clicky', '#top', '#js-link', '#js-link-mixed', '#js-link-tab', '#data-link']) {
        for (const type of ['mouseover', 'click']) await frameOf(page).locator(id).dispatchEvent(type);
      }
      // The same attacks written straight into the frame (the sanitiser bypassed): the frame's sandbox and CSP,
      // and the reader's link handling, still stop them.
      await page.evaluate(() => {
        const doc = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentDocument!;
        const root = doc.getElementById('lectern-root')!;
        const pwn = (how: string) => `top.__pwned=(top.__pwned||[]).concat('${how}');top.document.title='PWNED ${how}';top.name='pwned';`;
        const script = doc.createElement('script');
        script.textContent = pwn('injected-script');
        root.append(script);
        const img = doc.createElement('img');
        img.id = 'injected-img';
        img.setAttribute('onerror', pwn('injected-onerror'));
        img.src = 'data:,broken';
        root.append(img);
        const link = doc.createElement('a');
        link.id = 'injected-js-link';
        link.href = `javascript:${pwn('injected-js-link')}alert('pwned')`;
        link.textContent = 'An injected javascript: link';
        root.prepend(link);
        const inner = doc.createElement('iframe');
        inner.id = 'injected-frame';
        inner.srcdoc = `<script>${pwn('injected-srcdoc')}</script>`;
        root.append(inner);
      });
      await frameOf(page).locator('#injected-js-link').dispatchEvent('click');
      // The injected picture's error has fired (the reader marks it too), and the injected frame has loaded.
      await frameOf(page).locator('img.lectern-image-failed#injected-img').waitFor({ state: 'attached' });
      await expect
        .poll(() => page.evaluate(() => document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentDocument!.querySelector<HTMLIFrameElement>('#injected-frame')?.contentDocument?.readyState))
        .toBe('complete');

      expect(page.url()).toBe(url);
      expect(dialogs).toEqual([]);
      expect(popups).toEqual([]);
      expect(await traces(page)).toEqual({ pwned: null, framePwned: null, title: `A Hostile Chapter · ${HOSTILE_BOOK} · Lectern`, name: '', messages: [] });
    });

    it('cannot restyle the app: toolbar, footer, stage and page keep the styles a plain book leaves them', async () => {
      const styles = await appStyles(page);
      expect(styles).toEqual(baseline);
      expect(await page.locator('.reader-toolbar').isVisible()).toBe(true);
      expect(await page.locator('.reader-footer').isVisible()).toBe(true);
      expect(await page.locator('#chapter-heading').textContent()).toBe('A Hostile Chapter');
      // The toolbar still works.
      await page.getByRole('button', { name: 'Display settings', exact: true }).click();
      await page.getByRole('button', { name: 'Increase font size' }).waitFor();
      expect(await page.locator('.reader-settings').isVisible()).toBe(true);
      await page.keyboard.press('Escape');
      await expect.poll(() => page.locator('.reader-settings').getAttribute('aria-hidden')).toBe('true');
      // The reader's palette wins over the book's red page inside the frame too.
      const backgrounds = await page.evaluate(() => {
        const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!;
        const doc = frame.contentDocument!;
        const win = frame.contentWindow!;
        return [win.getComputedStyle(doc.documentElement).backgroundColor, win.getComputedStyle(doc.body).backgroundColor];
      });
      expect(backgrounds).toEqual(['rgb(255, 255, 255)', 'rgb(255, 255, 255)']);
    });

    // The book's linked stylesheet (kept by the sanitiser, served as written) says body { display: none }: the reading
    // CSS keeps the body and the chapter root shown whatever a book's stylesheet says.
    it('shows the chapter text although the book\'s stylesheet says body { display: none }', async () => {
      // The chapter is readable: the book's `body { display: none }` (in its <style> and in its linked stylesheet, both
      // kept in the book's cascade layer) loses to the reader's !important rule, and its full-page red
      // overlay (position: fixed; inset: 0; z-index: max) is neutralised to position: static. The marker paragraph's
      // own display: none is the book's to make (books hide page-number spans and print-only parts that way).
      const text = await page.evaluate(() => {
        const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!;
        const doc = frame.contentDocument!;
        const win = frame.contentWindow!;
        const p = doc.getElementById('clicky')!;
        const r = p.getBoundingClientRect();
        const hit = doc.elementFromPoint(r.left + 5, r.top + r.height / 2);
        return {
          bodyDisplay: win.getComputedStyle(doc.body).display,
          overlayPosition: win.getComputedStyle(doc.getElementById('readable')!).position,
          pVisible: p.checkVisibility({ visibilityProperty: true, opacityProperty: true }),
          size: { width: r.width, height: r.height },
          onTop: hit === p || p.contains(hit),
          innerText: doc.body.innerText.includes('Filler paragraph 1:'),
        };
      });
      expect(text.innerText).toBe(true);
      expect(text.bodyDisplay).not.toBe('none');
      expect(text.overlayPosition).toBe('static');
      expect(text.pVisible).toBe(true);
      expect(text.size.height).toBeGreaterThan(0);
      // Nothing of the book's (its fixed, full-page red overlay) covers the text.
      expect(text.onTop).toBe(true);
      expect(await frameOf(page).locator('#clicky').isVisible()).toBe(true);
    });

    it('asks before an external link leaves, opens it in a new tab with no opener, and an in-book link in the reader', async () => {
      const url = page.url();
      // Dispatched for the same reason as above (the chapter is hidden today); the reader handles the click.
      await frameOf(page).locator('#external').dispatchEvent('click');
      const ask = page.getByRole('alertdialog', { name: READING_MESSAGES.leaveTitle });
      await ask.waitFor();
      expect(await ask.innerText()).toContain('https://example.com/elsewhere');
      // staying opens nothing
      await ask.getByRole('button', { name: READING_MESSAGES.stay }).click();
      await ask.waitFor({ state: 'detached' });
      expect(context.pages()).toHaveLength(1);
      await frameOf(page).locator('#external').dispatchEvent('click');
      const opened = context.waitForEvent('page');
      await page.getByRole('alertdialog', { name: READING_MESSAGES.leaveTitle }).getByRole('button', { name: READING_MESSAGES.openLink }).click();
      const tab = await opened;
      await tab.waitForURL('https://example.com/elsewhere');
      expect(await tab.evaluate(() => window.opener)).toBeNull();
      await tab.close();
      popups.length = 0;
      expect(page.url()).toBe(url);

      await page.evaluate(() => performance.clearMarks('reader:chapter-painted'));
      await frameOf(page).locator('#next').dispatchEvent('click');
      await page.waitForURL((u) => u.pathname.endsWith(`/${plain.full_path}`));
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
      await expect.poll(() => frameOf(page).locator('body').innerText()).toContain('Nothing to see here.');
      expect(dialogs).toEqual([]);
      expect(await traces(page)).toEqual({ pwned: null, framePwned: null, title: `A Plain Chapter · ${HOSTILE_BOOK} · Lectern`, name: '', messages: [] });
    });

    it('has no serious accessibility violations with the hostile chapter open', async () => {
      await openChapter(page, hostile);
      await frameOf(page).locator('#readable').waitFor({ state: 'attached' });
      expect(await seriousViolations(page)).toEqual([]);
      expect(dialogs).toEqual([]);
    });
  });
}

/**
 * The first character in view, read from the frame the way a reader sees it: in scroll mode the first character
 * (in document order) whose glyph box is at least half inside the top of the frame; in paged mode the first
 * character of the page in view. `at` is the index of its text node in #lectern-root, its offset there and the 30
 * characters from it; `top` is where its glyph box starts (CSS px from the top of the frame).
 */
async function firstVisible(page: Page): Promise<{ at: { index: number; offset: number; text: string }; top: number }> {
  const found = await page.evaluate(() => {
    const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!;
    const doc = frame.contentDocument!;
    const root = doc.getElementById('lectern-root')!;
    const paged = doc.documentElement.classList.contains('lectern-paged');
    const width = doc.documentElement.clientWidth;
    const inView = (r: DOMRect) => (paged ? r.left + r.width / 2 >= 0 : r.top + r.height / 2 >= 0);
    const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const range = doc.createRange();
    let index = -1;
    for (let n = walker.nextNode() as Text | null; n; n = walker.nextNode() as Text | null) {
      index++;
      if (!n.data.trim()) continue;
      range.selectNodeContents(n);
      if (!Array.from(range.getClientRects()).some(inView)) continue;
      for (let offset = 0; offset < n.length; offset++) {
        if (/\s/.test(n.data[offset]!)) continue;
        range.setStart(n, offset);
        range.setEnd(n, offset + 1);
        const r = range.getClientRects()[0];
        if (!r || !inView(r)) continue;
        if (paged ? r.left >= width : r.top >= frame.clientHeight) return null;
        return { at: { index, offset, text: n.data.slice(offset, offset + 30) }, top: r.top };
      }
    }
    return null;
  });
  if (!found) throw new Error('no character in view');
  return found;
}

/** Resolves after the frame's next animation frame: its scroll events have been dispatched by then. */
function nextFrame(page: Page) {
  return page.evaluate(
    () => new Promise<void>((resolve) => document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentWindow!.requestAnimationFrame(() => resolve())),
  );
}

/**
 * Scroll mode: scrolls into the middle of the chapter, to a line inside a long paragraph (so the line above is the
 * same paragraph's, with no gap between them), placed so that its glyphs start `glyphTop` px below the top of the
 * frame. Returns the first visible character, which is that line's first.
 */
async function scrollToLine(page: Page, glyphTop: number) {
  const target = await page.evaluate((glyphTop) => {
    const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!;
    const doc = frame.contentDocument!;
    const s = doc.scrollingElement!;
    const walker = doc.createTreeWalker(doc.getElementById('lectern-root')!, NodeFilter.SHOW_TEXT);
    const range = doc.createRange();
    const topOf = (n: Text, offset: number) => {
      range.setStart(n, offset);
      range.setEnd(n, offset + 1);
      return (range.getClientRects()[0]?.top ?? NaN) + s.scrollTop;
    };
    let index = -1;
    for (let n = walker.nextNode() as Text | null; n; n = walker.nextNode() as Text | null) {
      index++;
      if (n.length < 600 || topOf(n, 0) < s.scrollHeight / 2) continue;
      // The start of the line that holds the paragraph's 300th character (a few lines into it).
      const line = topOf(n, 300);
      let offset = 300;
      while (offset > 0 && Math.abs(topOf(n, offset - 1) - line) < 2) offset--;
      s.scrollTop = Math.round(line - glyphTop);
      return { index, offset };
    }
    return null;
  }, glyphTop);
  expect(target).not.toBeNull();
  await nextFrame(page);
  const first = await firstVisible(page);
  expect(first.at).toMatchObject(target!);
  expect(Math.abs(first.top - glyphTop)).toBeLessThanOrEqual(1);
  return first;
}

/** The settings the frame's one style element carries now (font size factor and column width in ch). */
function frameSettings(page: Page) {
  return page.evaluate(() => {
    const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!;
    const css = frame.contentDocument!.getElementById('lectern-settings')?.textContent ?? '';
    return { font: /--lectern-font-size:\s*([\d.]+)/.exec(css)?.[1] ?? '', column: /--lectern-column:\s*([\d.]+)ch/.exec(css)?.[1] ?? '' };
  });
}

/** Column width (ch) for a slider position: columnWidthFromSlider of @lectern/core, position / 152 * 100, tidied. */
const columnOf = (position: number) => String(Math.round((position / 152) * 100 * 1000) / 1000);

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 375, height: 812 },
]) {
  describe(`the first visible character across font and width changes at ${viewport.width}x${viewport.height}`, () => {
    let browser: Browser;
    let page: Page;
    let chapter: ChapterInfo;

    beforeAll(async () => {
      ({ browser, page } = await openPage(viewport));
      // Page turns without their slide animation: the test waits on the footer, never on time.
      await page.emulateMedia({ reducedMotion: 'reduce' });
      await signInAsDemo(page);
      chapter = (await chaptersOf(page, /War of the Worlds/)).find((c) => /Chapter 1\b/.test(c.label))!;
    });
    afterAll(() => browser?.close());

    const fontUp = () => page.getByRole('button', { name: 'Increase font size' });
    const fontDown = () => page.getByRole('button', { name: 'Decrease font size' });
    const column = () => page.getByRole('slider', { name: /Column width/ });
    const footer = () => page.locator('.reader-footer__text').textContent();

    /**
     * Waits until the frame carries these settings (applyPrefs writes them and restores the position in one go),
     * then for the frame's next animation frame, where the controller ends its restore: a scroll the test makes
     * before that would be taken for the restore's own and ignored (the reader would keep its previous position).
     */
    async function settled(font: string, col: string) {
      await expect.poll(() => frameSettings(page)).toEqual({ font, column: col });
      await nextFrame(page);
    }

    /**
     * Opens the chapter and the display settings, with the column slider on one of its own positions: the default,
     * 65 ch, lies between two (99/152 is 65.132 ch), so the slider could never bring it back exactly. Returns the
     * slider position.
     */
    async function openWithSettings(): Promise<number> {
      await openChapter(page, chapter);
      await expect.poll(async () => (await frameOf(page).locator('body').innerText()).length).toBeGreaterThan(3000);
      await page.getByRole('button', { name: 'Display settings', exact: true }).click();
      await fontUp().waitFor();
      const col = Number(await column().inputValue());
      await column().focus();
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('ArrowRight');
      await settled('1', columnOf(col));
      return col;
    }

    /**
     * Eight font-size round trips (one step up and back), one excursion eight steps up and back, and eight
     * column-width round trips (ten slider steps narrower and back): after every return to the starting values the
     * same character must be the first in view.
     */
    async function roundTrips(start: Awaited<ReturnType<typeof firstVisible>>['at'], col: number) {
      const colText = columnOf(col);
      for (let i = 0; i < 8; i++) {
        await fontUp().click();
        await settled('1.1', colText);
        await fontDown().click();
        await settled('1', colText);
        expect((await firstVisible(page)).at, `after font round trip ${i + 1}`).toEqual(start);
      }
      for (let i = 0; i < 8; i++) await fontUp().click();
      await settled('1.8', colText);
      for (let i = 0; i < 8; i++) await fontDown().click();
      await settled('1', colText);
      expect((await firstVisible(page)).at, 'after eight steps up and eight down').toEqual(start);
      for (let i = 0; i < 8; i++) {
        await column().focus();
        for (let k = 0; k < 10; k++) await page.keyboard.press('ArrowLeft');
        await settled('1', columnOf(col - 10));
        for (let k = 0; k < 10; k++) await page.keyboard.press('ArrowRight');
        await settled('1', colText);
        expect((await firstVisible(page)).at, `after width round trip ${i + 1}`).toEqual(start);
      }
    }

    it('scroll mode, in the middle of the chapter with the top line fully in view', async () => {
      const col = await openWithSettings();
      const start = await scrollToLine(page, 1);
      await roundTrips(start.at, col);
    });

    // The line above the first readable one still reaches a few pixels into the frame (only its descenders show):
    // FrameController.captureRange() skips it, so a font change does not bring that line back into view.
    it('scroll mode, with only the descenders of the line above in view', async () => {
      const col = await openWithSettings();
      const start = await scrollToLine(page, 12);
      await fontUp().click();
      await settled('1.1', columnOf(col));
      await fontDown().click();
      await settled('1', columnOf(col));
      expect((await firstVisible(page)).at, 'after one font round trip').toEqual(start.at);
    });

    // Paged mode on a page wider than the text column: the probe for the first character in view is placed by the
    // width of one column fragment of the chapter root, not by its bounding box (which spans every page).
    it(`paged mode, on a page in the middle of the chapter`, async () => {
      const col = await openWithSettings();
      await page.getByRole('button', { name: 'Pages' }).click();
      await page.keyboard.press('Escape');
      await expect.poll(footer).toMatch(/^Page \d+ of \d+$/);
      await page.keyboard.press('Home');
      await expect.poll(footer).toMatch(/^Page 1 of \d+$/);
      const count = Number(/of (\d+)/.exec((await footer()) ?? '')![1]);
      expect(count).toBeGreaterThan(4);
      const middle = Math.floor(count / 2);
      for (let i = 1; i < middle; i++) await page.keyboard.press('ArrowRight');
      await expect.poll(footer).toBe(`Page ${middle} of ${count}`);
      const start = await firstVisible(page);
      expect(start.at.text.trim().length).toBeGreaterThan(10);
      await page.getByRole('button', { name: 'Display settings', exact: true }).click();
      await fontUp().waitFor();
      await roundTrips(start.at, col);
      await expect.poll(footer).toBe(`Page ${middle} of ${count}`);
      // Back to the defaults (scroll mode) for whoever reads next in this browser.
      await page.getByRole('button', { name: 'Reset' }).click();
      await page.keyboard.press('Escape');
    });
  });
}
