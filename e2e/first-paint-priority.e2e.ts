/**
 * What the first paint must not wait for, as Chromium and Lighthouse see it (docs/decisions.md "The start files at
 * low priority" and "The reader's titles in its page"):
 * - the start files (the entry, the chunks and stylesheets preloaded beside it, a route's own) are asked for at a
 *   priority Chromium does not give a render-blocking file: VeryHigh for anything, High for a script. At those,
 *   Lighthouse counted each of them that came before the first paint into its FCP;
 * - the reader's page paints the toolbar's titles itself, so the largest paint of the page is there from the first
 *   paint and the app's toolbar, the same titles at the same sizes, is no larger one after it.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, signInAsDemo } from './browser.ts';

interface Asked {
  url: string;
  priority: string;
  type: string;
}

describe('the first paint waits for no file of the app', () => {
  let browser: Browser;
  let chapterUrl = '';
  beforeAll(async () => {
    browser = await launchBrowser();
    const context = await browser.newContext({ baseURL: inject('baseURL') });
    const page = await context.newPage();
    await signInAsDemo(page);
    const list = await (await page.request.get('/api/v1/book/?page_size=50')).json();
    const book = list.results.find((b: { title: string }) => /Moby/.test(b.title));
    const detail = (await (await page.request.get(book.api_url)).json()) as { chapters: { web_url: string }[] };
    chapterUrl = new URL(detail.chapters[Math.floor(detail.chapters.length / 2)]!.web_url, inject('baseURL')).pathname;
    await context.close();
  });
  afterAll(() => browser?.close());

  it.each(['/home/', '/library/', '/search/?q=whale', 'reader'])('%s asks for its start files at a priority that does not hold the paint', async (address) => {
    const context = await browser.newContext({ baseURL: inject('baseURL'), viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signInAsDemo(page);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    const asked: Asked[] = [];
    cdp.on('Network.requestWillBeSent', (e) => {
      if (new URL(e.request.url).pathname.startsWith('/assets/')) asked.push({ url: e.request.url, priority: e.request.initialPriority, type: e.type ?? '' });
    });
    const path = address === 'reader' ? chapterUrl : address;
    const html = await (await page.request.get(path)).text();
    const named = [...html.slice(0, html.indexOf('</head>')).matchAll(/<(?:script|link)\b[^>]*\s(?:src|href)="(\/assets\/[^"]+)"[^>]*>/g)].filter((m) => !/\sdisabled\b/.test(m[0])).map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(3);
    await page.goto(path);
    await page.locator('header.topbar').waitFor();
    for (const file of named) {
      const request = asked.find((a) => new URL(a.url).pathname === file);
      expect(request, `${file} asked for`).toBeDefined();
      expect(request!.priority, `${file} (${request!.type})`).not.toBe('VeryHigh');
      if (request!.type === 'Script') expect(request!.priority, file).not.toBe('High');
    }
    await context.close();
  });

  // 412 px: Lighthouse's mobile screen. (At 1280 px the app paints a larger candidate that is no heading while the
  // chapter loads, docs/performance.md: the widths here are the ones Lighthouse's mobile score is taken at.)
  it.each([390, 412])("at %i px, the reader's page paints the toolbar's titles, and the app's are no larger paint after them", async (width) => {
    const context = await browser.newContext({ baseURL: inject('baseURL'), viewport: { width, height: 844 } });
    await context.addInitScript(() => {
      // (the element is read as the entry is made: by the time the observer hears of it the app may have replaced it)
      const seen: { id: string; tag: string; size: number; time: number }[] = [];
      (window as unknown as { __lcp: typeof seen }).__lcp = seen;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries() as (PerformanceEntry & { element: Element | null; id: string; size: number })[]) {
          seen.push({ id: e.id, tag: e.element?.tagName ?? '', size: e.size, time: e.startTime });
        }
      }).observe({ type: 'largest-contentful-paint', buffered: true });
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signInAsDemo(page);
    const html = await (await page.request.get(chapterUrl)).text();
    const written = /<h1 class="boot__chapter" id="boot-chapter-heading">([^<]*)<\/h1>/.exec(html)?.[1];
    await page.goto(chapterUrl);
    const heading = page.locator('h1#chapter-heading');
    await heading.filter({ hasText: /\S/ }).waitFor();
    const label = (await heading.innerText()).trim();
    expect(label).toMatch(/Chapter/);
    // what the page drew before the app: the same titles
    expect(written).toBe(label);
    await page.evaluate(() => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))));
    const entries = await page.evaluate(() => (window as unknown as { __lcp: { id: string; tag: string; size: number; time: number }[] }).__lcp);
    // the page's heading was a largest paint, and none came after it: not the app's toolbar heading (the same
    // titles at the same size), nor anything else the app painted (the chapter's frame is not the page's)
    expect(entries.some((e) => e.id === 'boot-chapter-heading'), JSON.stringify(entries)).toBe(true);
    expect(entries.at(-1)?.id, JSON.stringify(entries)).toBe('boot-chapter-heading');
    // and the app's heading is no larger than the page's was: its text's box at most the page's heading's size
    const boot = entries.find((e) => e.id === 'boot-chapter-heading')!;
    const area = await heading.evaluate((h) => {
      const range = document.createRange();
      range.selectNodeContents(h);
      const r = range.getBoundingClientRect();
      return Math.min(r.width, h.getBoundingClientRect().width) * r.height;
    });
    expect(area).toBeLessThanOrEqual(boot.size * 1.02);
    await context.close();
  });
});
