/**
 * Fixed layout in Chromium (docs/decisions.md "Fixed layout and flow"): the pre-paginated fixture of
 * packages/server/test/fixtures/fixed-layout.ts is imported with the operators' command line and read at 1280x800 and
 * 390x844: one page per spine item in its own frame, scaled to fit inside the screen; on the desktop two pages side by
 * side on their page-spread sides (the cover alone on the right, the centre page alone), on the phone one; keys turn by
 * spreads; the position survives a reload and a return to the book; zoom enlarges the page on the phone. Its hostile
 * variant runs nothing. The device-sized fixture (W3C lay-fxl-xhtml-icb_device_sizes): a page whose viewport is
 * device-width x device-height is a frame the size of the stage, unscaled, at both sizes and after a resize;
 * device-width beside a number and device-height alone take their half of a spread; a first page with no side is the
 * cover, alone on the right. Screenshots of the device page go to E2E_SHOTS_DIR when it is set.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { deviceSizedEpub, fixedLayoutEpub, COVER_WORDS, DEVICE_WORDS, OVERLAY_WORDS } from '../packages/server/test/fixtures/fixed-layout.ts';
import { importBook } from '../scripts/fresh-server.ts';
import { imagesSettled, openPage, signInAsDemo } from './browser.ts';

interface ChapterInfo {
  full_path: string;
  web_url: string;
  label: string;
}

let bookId = '';
let hostileId = '';
let deviceId = '';
const SHOTS = process.env.E2E_SHOTS_DIR;

beforeAll(() => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-fixed-'));
  const file = path.join(folder, 'fixed.epub');
  fs.writeFileSync(file, fixedLayoutEpub());
  const out = importBook(inject('dataDir'), file);
  bookId = /imported\s+(\S+)\s+"Fixed Layout Fixture"/.exec(out)?.[1] ?? '';
  const hostileFile = path.join(folder, 'fixed-hostile.epub');
  fs.writeFileSync(hostileFile, fixedLayoutEpub({ hostile: true }));
  hostileId = /imported\s+(\S+)\s+"Fixed Layout Hostile"/.exec(importBook(inject('dataDir'), hostileFile))?.[1] ?? '';
  const deviceFile = path.join(folder, 'device.epub');
  fs.writeFileSync(deviceFile, deviceSizedEpub());
  deviceId = /imported\s+(\S+)\s+"Device Sized Fixture"/.exec(importBook(inject('dataDir'), deviceFile))?.[1] ?? '';
  fs.rmSync(folder, { recursive: true, force: true });
  if (!bookId || !hostileId || !deviceId) throw new Error(`the fixtures were not imported: ${out}`);
});

interface FrameInfo {
  href: string;
  side: string;
  left: number;
  top: number;
  right: number;
  bottom: number;
  /** what the page's own document holds */
  text: string;
}

/** The page frames on show, left to right, with their boxes in the app's window. */
function frames(page: Page): Promise<FrameInfo[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLIFrameElement>('iframe.fixed-layout__page'))
      .filter((f) => f.style.visibility !== 'hidden' && f.contentDocument?.body)
      .map((f) => {
        const r = f.getBoundingClientRect();
        return { href: f.dataset.href ?? '', side: f.dataset.side ?? '', left: r.left, top: r.top, right: r.right, bottom: r.bottom, text: f.contentDocument!.body.textContent ?? '' };
      })
      .sort((a, b) => a.left - b.left),
  );
}

/** Waits until exactly these pages are drawn (in order, left to right). */
async function showing(page: Page, hrefs: string[]): Promise<FrameInfo[]> {
  await page.waitForFunction(
    (want) => {
      const shown = Array.from(document.querySelectorAll<HTMLIFrameElement>('iframe.fixed-layout__page'))
        .filter((f) => f.style.visibility === 'visible' && f.contentDocument?.body)
        .sort((a, b) => a.getBoundingClientRect().left - b.getBoundingClientRect().left)
        .map((f) => f.dataset.href);
      return shown.join('|') === want.join('|');
    },
    hrefs,
    { timeout: 15_000 },
  );
  return frames(page);
}

/** A page frame's own layout: its viewport in its CSS pixels, and where an element of it is (frame coordinates). */
const inside = (page: Page, href: string, id: string) =>
  page.evaluate(
    ([href, id]) => {
      const frame = document.querySelector<HTMLIFrameElement>(`iframe.fixed-layout__page[data-href="${href}"]`)!;
      const doc = frame.contentDocument!;
      const r = doc.getElementById(id)!.getBoundingClientRect();
      return { innerWidth: doc.defaultView!.innerWidth, innerHeight: doc.defaultView!.innerHeight, transform: frame.style.transform, el: { left: r.left, top: r.top, right: r.right, bottom: r.bottom } };
    },
    [href, id] as const,
  );

/** The stage the pages are drawn on, in the app's window. */
const stageBox = (page: Page) =>
  page.evaluate(() => {
    const r = document.querySelector('.fixed-layout__stage')!.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height };
  });

const desktop = { width: 1280, height: 800 };
const phone = { width: 390, height: 844 };

for (const viewport of [desktop, phone]) {
  const wide = viewport.width >= 800;
  describe(`fixed layout at ${viewport.width}x${viewport.height}`, () => {
    let browser: Browser;
    let page: Page;
    let chapters: ChapterInfo[];
    const at = (fullPath: string) => chapters.find((c) => c.full_path === fullPath)!.web_url;

    beforeAll(async () => {
      ({ browser, page } = await openPage(viewport));
      await signInAsDemo(page);
      chapters = (await (await page.request.get(`/api/v1/book/${bookId}/`)).json()).chapters;
    });
    afterAll(() => browser?.close());

    it('shows one page per spine item, each scaled to fit inside the screen', async () => {
      await page.goto(at('pages/p2.xhtml'));
      const shown = await showing(page, wide ? ['pages/p2.xhtml', 'images/p3.png.xhtml'] : ['pages/p2.xhtml']);
      const stage = await stageBox(page);
      for (const f of shown) {
        expect(f.left).toBeGreaterThanOrEqual(stage.left - 0.5);
        expect(f.right).toBeLessThanOrEqual(stage.right + 0.5);
        expect(f.top).toBeGreaterThanOrEqual(stage.top - 0.5);
        expect(f.bottom).toBeLessThanOrEqual(stage.bottom + 0.5);
        // contain: the page fills the stage's height or its share of the width
        const share = wide ? stage.width / 2 : stage.width;
        expect(Math.max((f.bottom - f.top) / stage.height, (f.right - f.left) / share)).toBeGreaterThan(0.95);
      }
      // each frame holds its own page: the text of page 2 in the first only
      expect(shown[0]!.text).toContain(OVERLAY_WORDS);
      if (wide) expect(shown[1]!.text).not.toContain(OVERLAY_WORDS);
    });

    it("keeps the book's absolute positioning: the text laid over the picture", async () => {
      await page.goto(at('pages/p2.xhtml'));
      await showing(page, wide ? ['pages/p2.xhtml', 'images/p3.png.xhtml'] : ['pages/p2.xhtml']);
      const placed = await page.evaluate(() => {
        const doc = document.querySelector<HTMLIFrameElement>('iframe.fixed-layout__page[data-href="pages/p2.xhtml"]')!.contentDocument!;
        const over = doc.getElementById('over')!;
        const picture = doc.querySelector('img.picture')!;
        const o = over.getBoundingClientRect();
        const p = picture.getBoundingClientRect();
        return { position: doc.defaultView!.getComputedStyle(over).position, inside: o.left >= p.left && o.right <= p.right && o.top >= p.top && o.bottom <= p.bottom, left: o.left, top: o.top, width: doc.documentElement.clientWidth, height: doc.documentElement.clientHeight };
      });
      // the page is laid out at its viewport (600x800) and scaled from outside: the book's coordinates hold
      expect(placed).toMatchObject({ position: 'absolute', inside: true, left: 90, top: 300, width: 600, height: 800 });
    });

    it(wide ? 'puts the cover alone on the right and the centre page alone in the middle' : 'shows the cover and the centre page one at a time', async () => {
      await page.goto(at('pages/p1.xhtml'));
      const [cover] = await showing(page, ['pages/p1.xhtml']);
      const stage = await stageBox(page);
      const middle = (stage.left + stage.right) / 2;
      if (wide) {
        expect(cover!.side).toBe('right');
        expect(cover!.left).toBeGreaterThanOrEqual(middle - 1);
      } else {
        expect(Math.abs((cover!.left + cover!.right) / 2 - middle)).toBeLessThan(2);
      }
      expect(cover!.text).toContain(COVER_WORDS);
      await page.goto(at('pages/p4.xhtml'));
      const [centre] = await showing(page, ['pages/p4.xhtml']);
      expect(centre!.side).toBe('center');
      expect(Math.abs((centre!.left + centre!.right) / 2 - middle)).toBeLessThan(2);
      // a double-wide page: wider than it is high on screen too
      expect(centre!.right - centre!.left).toBeGreaterThan(centre!.bottom - centre!.top);
    });

    it('turns by spreads with the keys, and back', async () => {
      await page.goto(at('pages/p1.xhtml'));
      await showing(page, ['pages/p1.xhtml']);
      const steps = wide
        ? [['pages/p2.xhtml', 'images/p3.png.xhtml'], ['pages/p4.xhtml'], ['pages/p5.xhtml']]
        : [['pages/p2.xhtml'], ['images/p3.png.xhtml'], ['pages/p4.xhtml']];
      for (const step of steps) {
        await page.keyboard.press('ArrowRight');
        await showing(page, step);
        await page.waitForURL((url) => decodeURIComponent(url.pathname).endsWith(step[0]!));
      }
      await page.keyboard.press('ArrowLeft');
      await showing(page, steps[steps.length - 2]!);
      // the footer counts spreads
      const footer = await page.locator('.reader-footer__text').textContent();
      expect(footer).toBe(wide ? 'Page 3 of 4' : 'Page 3 of 5');
    });

    it('keeps the position across a reload and on returning to the book', async () => {
      await page.goto(at('pages/p4.xhtml'));
      await showing(page, ['pages/p4.xhtml']);
      // No wait for the position's 500 ms debounce: leaving the page (pagehide) stores it at once.
      await page.reload();
      await showing(page, ['pages/p4.xhtml']);
      // the footer counts the whole book's spreads after a reload too (it said "Page 1 of 1" until the next turn)
      await expect.poll(() => page.locator('.reader-footer__text').textContent()).toBe(wide ? 'Page 3 of 4' : 'Page 4 of 5');
      const bookUrl = at('pages/p4.xhtml').replace(/pages\/p4\.xhtml$/, '');
      await page.goto(bookUrl);
      await showing(page, ['pages/p4.xhtml']);
      expect(decodeURIComponent(new URL(page.url()).pathname)).toMatch(/pages\/p4\.xhtml$/);
    });

    // W3C lay-fxl-xhtml-icb_device_sizes: the page's initial containing block is the display
    it('draws a device-width x device-height page as a frame the size of the stage, unscaled', async () => {
      const device = (await (await page.request.get(`/api/v1/book/${deviceId}/`)).json()).chapters as ChapterInfo[];
      await page.goto(device.find((c) => c.full_path === 'pages/d2.xhtml')!.web_url);
      const [frame] = await showing(page, ['pages/d2.xhtml']);
      const stage = await stageBox(page);
      expect(frame!.side).toBe('center');
      expect(frame!.text).toContain(DEVICE_WORDS);
      for (const [a, b] of [[frame!.left, stage.left], [frame!.top, stage.top], [frame!.right, stage.right], [frame!.bottom, stage.bottom]] as const) expect(Math.abs(a - b)).toBeLessThanOrEqual(1);
      // unscaled: the page's own viewport is the frame's size on screen, and its bottom-right corner is the stage's
      const own = await inside(page, 'pages/d2.xhtml', 'bottom-right');
      expect(own.transform).toBe('scale(1)');
      expect(Math.abs(own.innerWidth - stage.width)).toBeLessThanOrEqual(1);
      expect(Math.abs(own.innerHeight - stage.height)).toBeLessThanOrEqual(1);
      expect(own.el).toEqual({ left: own.innerWidth - 40, top: own.innerHeight - 40, right: own.innerWidth, bottom: own.innerHeight });
      // nothing to scroll: the canvas is the stage
      expect(await page.evaluate(() => { const s = document.querySelector('.fixed-layout__stage')!; return [s.scrollWidth - s.clientWidth, s.scrollHeight - s.clientHeight]; })).toEqual([0, 0]);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `fixed-layout-device-${viewport.width}.png`) });
      // a resize lays the page out again at the new stage's size
      await page.setViewportSize({ width: viewport.width - 100, height: viewport.height - 100 });
      await page.waitForFunction(() => {
        const s = document.querySelector('.fixed-layout__stage')!.getBoundingClientRect();
        const f = document.querySelector<HTMLIFrameElement>('iframe.fixed-layout__page[data-href="pages/d2.xhtml"]')!;
        return Math.abs(f.contentWindow!.innerWidth - s.width) <= 1 && Math.abs(f.contentWindow!.innerHeight - s.height) <= 1;
      }, null, { timeout: 15_000 });
      await page.setViewportSize(viewport);
      await page.waitForFunction(() => {
        const s = document.querySelector('.fixed-layout__stage')!.getBoundingClientRect();
        const f = document.querySelector<HTMLIFrameElement>('iframe.fixed-layout__page[data-href="pages/d2.xhtml"]')!;
        return Math.abs(f.contentWindow!.innerWidth - s.width) <= 1 && Math.abs(f.contentWindow!.innerHeight - s.height) <= 1;
      }, null, { timeout: 15_000 });
    });

    it(wide ? 'puts device-sized pages in a spread at half the stage each, and a first page with no side alone on the right' : 'shows the device-sized pages one at a time across the stage', async () => {
      const device = (await (await page.request.get(`/api/v1/book/${deviceId}/`)).json()).chapters as ChapterInfo[];
      const url = (p: string) => device.find((c) => c.full_path === p)!.web_url;
      await page.goto(url('pages/d1.xhtml'));
      const [cover] = await showing(page, ['pages/d1.xhtml']);
      let stage = await stageBox(page);
      const middle = (stage.left + stage.right) / 2;
      // the book's first page has no side: it is the cover, on the right of the first spread
      if (wide) expect([cover!.side, cover!.left >= middle - 1]).toEqual(['right', true]);
      else expect(cover!.side).toBe('center');
      await page.goto(url('pages/d3.xhtml'));
      let shown = await showing(page, wide ? ['pages/d3.xhtml', 'pages/d4.xhtml'] : ['pages/d3.xhtml']);
      const slot = wide ? Math.floor(stage.width / 2) : stage.width;
      // device-width, height=600: the slot's width, 600 high, unscaled where 600 fits, centred on the height (on the
      // desktop the zoom buttons' strip leaves this book's stage under 600 px: fitted to its height there).
      // The strip is decided once the whole spine is known, which may come after the first pages show: read the
      // stage and the page's scale together until they agree, then measure that settled stage.
      const scaleOf = (transform: string) => Number(/^scale\(([\d.]+)\)$/.exec(transform)?.[1]);
      const fitOf = (height: number) => Math.min(1, Math.floor(height) / 600);
      await expect
        .poll(async () => {
          const [now, own] = [await stageBox(page), await inside(page, 'pages/d3.xhtml', 'wide-words')];
          return Math.abs(scaleOf(own.transform) - fitOf(now.height));
        })
        .toBeLessThan(0.005);
      stage = await stageBox(page);
      shown = await frames(page);
      const fit = fitOf(stage.height);
      const wideOwn = await inside(page, 'pages/d3.xhtml', 'wide-words');
      expect(scaleOf(wideOwn.transform)).toBeCloseTo(fit, 2);
      expect(Math.abs(wideOwn.innerWidth * fit - slot)).toBeLessThanOrEqual(1);
      expect(wideOwn.innerHeight).toBe(600);
      expect(Math.abs(shown[0]!.left - stage.left)).toBeLessThanOrEqual(1);
      expect(Math.abs((shown[0]!.top + shown[0]!.bottom) / 2 - (stage.top + stage.bottom) / 2)).toBeLessThanOrEqual(1);
      if (!wide) {
        await page.goto(url('pages/d4.xhtml'));
        await showing(page, ['pages/d4.xhtml']);
      }
      // height=device-height alone: the width follows the device; the slot's whole box, its corner at the stage's
      const highOwn = await inside(page, 'pages/d4.xhtml', 'd4-bottom-right');
      expect(highOwn.transform).toBe('scale(1)');
      expect(Math.abs(highOwn.innerWidth - slot)).toBeLessThanOrEqual(1);
      expect(Math.abs(highOwn.innerHeight - stage.height)).toBeLessThanOrEqual(1);
      const high = (await frames(page)).find((f) => f.href === 'pages/d4.xhtml')!;
      expect(Math.abs(high.right - (wide ? middle + slot : stage.right))).toBeLessThanOrEqual(1);
      expect(Math.abs(high.bottom - stage.bottom)).toBeLessThanOrEqual(1);
    });

    it('zooms in and back with the zoom buttons (the zoomed page pans by scrolling)', async () => {
      await page.goto(at('pages/p2.xhtml'));
      await showing(page, wide ? ['pages/p2.xhtml', 'images/p3.png.xhtml'] : ['pages/p2.xhtml']);
      const before = (await frames(page))[0]!;
      await page.getByRole('button', { name: 'Zoom in' }).click();
      await page.getByRole('button', { name: 'Zoom in' }).click();
      await page.waitForFunction(() => {
        const s = document.querySelector('.fixed-layout__stage')!;
        return s.scrollWidth > s.clientWidth + 10 && s.scrollHeight > s.clientHeight + 10;
      });
      const zoomed = (await frames(page))[0]!;
      expect(zoomed.bottom - zoomed.top).toBeCloseTo((before.bottom - before.top) * 2, 0);
      // a zoomed page turns with the keys still, and a new spread starts fitted
      await page.getByRole('button', { name: 'Fit the page to the screen' }).click();
      await page.waitForFunction(() => {
        const s = document.querySelector('.fixed-layout__stage')!;
        return s.scrollWidth <= s.clientWidth + 1;
      });
    });
  });
}

describe('the hostile fixed-layout book', () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    ({ browser, page } = await openPage(desktop));
    await signInAsDemo(page);
  });
  afterAll(() => browser?.close());

  it('runs nothing of the book: no script, no on* handler, no javascript: URL in HTML or CSS', async () => {
    const chapters: ChapterInfo[] = (await (await page.request.get(`/api/v1/book/${hostileId}/`)).json()).chapters;
    expect(chapters).toHaveLength(5);
    for (const c of chapters) {
      await page.goto(c.web_url);
      await page.waitForFunction((href) => !!document.querySelector(`iframe.fixed-layout__page[data-href="${href}"]`), c.full_path);
      await imagesSettled(page);
      const state = await page.evaluate(() => ({
        pwned: (window as unknown as { __pwned?: unknown }).__pwned ?? null,
        scripts: Array.from(document.querySelectorAll<HTMLIFrameElement>('iframe.fixed-layout__page')).map((f) => f.contentDocument?.querySelectorAll('script, [onload], [onerror]').length ?? -1),
        sandbox: Array.from(document.querySelectorAll<HTMLIFrameElement>('iframe.fixed-layout__page')).map((f) => f.getAttribute('sandbox')),
      }));
      expect(state.pwned).toBeNull();
      expect(state.scripts.every((n) => n === 0)).toBe(true);
      expect(state.sandbox.every((s) => s === 'allow-same-origin')).toBe(true);
    }
    // a click on the javascript: link goes nowhere
    await page.goto(chapters[1]!.web_url);
    const link = page.frameLocator('iframe.fixed-layout__page[data-href="pages/p2.xhtml"]').locator('#bad-link');
    if ((await link.count()) > 0) await link.click({ force: true }).catch(() => undefined);
    await imagesSettled(page);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned ?? null)).toBeNull();
  });
});
