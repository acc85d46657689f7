/** Debian's Chromium driven by playwright-core, with the flags that work as root on a machine with no network. */
import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect, inject } from 'vitest';
import { CHROMIUM_LAUNCH, signIn } from '../scripts/fresh-server.ts';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch(CHROMIUM_LAUNCH);
}

/**
 * Every running animation of the app finished (a spinner's endless one excepted), then two painted frames: what a
 * screenshot or a contrast check sees is what stays. Bounded, because a page may animate for as long as it is shown.
 */
export async function animationsSettled(page: Page): Promise<void> {
  await page
    .waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity), null, {
      timeout: 3000,
    })
    .catch(() => undefined);
  await painted(page);
}

/**
 * Two animation frames of the page: whatever a click or a state change queued for the screen (a React render, a
 * handler a browser fires before painting) has happened. The wait of a test that checks something did NOT occur.
 */
export function painted(page: Page): Promise<void> {
  return page.evaluate(() => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))));
}

/**
 * Every image of the page and of its same-origin frames loaded or failed (so their load and error handlers, a
 * hostile book's `onerror` among them, have had their turn; a lazy one not yet near the view loads nothing), then
 * two painted frames.
 */
export async function imagesSettled(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const docs = [document, ...Array.from(document.querySelectorAll('iframe')).flatMap((f) => (f.contentDocument ? [f.contentDocument] : []))];
    return docs.every((d) => d.readyState === 'complete' && Array.from(d.images).every((img) => img.complete || img.loading === 'lazy'));
  });
  await painted(page);
}

/** Serious and critical axe violations of the app (chapter frames are book content, which axe cannot enter). */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Colour contrast is judged on what is painted: let fades and slide-ins finish first.
  await animationsSettled(page);
  let result = await new AxeBuilder({ page }).exclude('iframe').analyze();
  // A colour-contrast finding on a machine under load can be a frame caught mid-fade (the animation list can be
  // empty between a transition's end and its last paint): look once more after the animations and two more
  // painted frames; what stays is reported.
  if (result.violations.some((v) => v.id === 'color-contrast')) {
    await animationsSettled(page);
    result = await new AxeBuilder({ page }).exclude('iframe').analyze();
  }
  // The first few offending elements go into the message: a failure says where, not only how many.
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.length}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')})`);
}

/**
 * The app's first screen hydrated (or, for a page the server did not render, rendered) whole: the document's
 * `data-hydrated` mark (web app/hydration.tsx). What a test does on a server-rendered screen before this is done in
 * the gap before hydration, which the app keeps and replays for keys and typing only.
 */
export async function hydrated(page: Page): Promise<void> {
  await page.locator('html[data-hydrated]').waitFor({ state: 'attached' });
}

/** Signs the demo account printed at the server's first start in, through the sign-in page. */
export async function signInAsDemo(page: Page): Promise<void> {
  await signIn(page, inject('demoEmail'), inject('demoPassword'));
}

/** A browser and a page on the suite's server at the given size (and, if given, the browser's language). */
export async function openPage(viewport: { width: number; height: number }, locale?: string): Promise<{ browser: Browser; page: Page }> {
  const browser = await launchBrowser();
  const page = await (await browser.newContext({ baseURL: inject('baseURL'), viewport, ...(locale ? { locale } : {}) })).newPage();
  page.setDefaultTimeout(15_000);
  return { browser, page };
}

/**
 * Browser contexts of their own (a reader's second browser, a phone), each signed in; `closeAll` closes them.
 * A page's alerts and confirms are recorded in `dialogs` and dismissed.
 */
export function signedInContexts(browser: () => Browser) {
  const contexts: BrowserContext[] = [];
  return {
    async open(email: string, password: string, viewport: { width: number; height: number }): Promise<{ page: Page; dialogs: string[] }> {
      const context = await browser().newContext({ baseURL: inject('baseURL'), viewport });
      contexts.push(context);
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      const dialogs: string[] = [];
      page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      await signIn(page, email, password);
      return { page, dialogs };
    },
    async closeAll(): Promise<void> {
      for (const c of contexts.splice(0)) await c.close().catch(() => undefined);
    },
  };
}

/** The messages the suite's SMTP server has written so far, oldest first (a file appears whole: global-setup.ts). */
const mailFiles = (dir: string) =>
  fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .sort();

/** How long a spec waits for a mail before it fails saying so. */
const MAIL_WAIT_MS = 15_000;

export interface Mailbox {
  /** The newest message to `to` that arrived after the mailbox was opened, quoted-printable undone; waits for one. */
  next(to: string): Promise<string>;
}

/**
 * The suite's mailbox from now on: open it before the action that sends a mail, read it after. The app sends some
 * mail after its answer (a reset link), so the message may land after the page says it was sent, and an older one to
 * the same address (an earlier spec's) must not be taken for it. Waits on the folder's changes, not by polling.
 */
export function mailbox(): Mailbox {
  const dir = inject('mailDir');
  const before = new Set(mailFiles(dir));
  const newest = (to: string) =>
    mailFiles(dir)
      .filter((f) => !before.has(f))
      .reverse()
      .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
      .find((m) => m.includes(to));
  return {
    next: (to) =>
      new Promise<string>((resolve, reject) => {
        const done = (found: string | undefined, failure?: Error) => {
          watcher.close();
          clearTimeout(timer);
          if (found !== undefined) resolve(found.replace(/=\r?\n/g, '').replace(/=3D/g, '='));
          else reject(failure!);
        };
        const look = () => {
          const found = newest(to);
          if (found !== undefined) done(found);
        };
        // watched before the first look: a message landing between the two is not missed
        const watcher = fs.watch(dir, look);
        const timer = setTimeout(() => done(undefined, new Error(`no email for ${to} within ${MAIL_WAIT_MS / 1000} s`)), MAIL_WAIT_MS);
        look();
      }),
  };
}

/**
 * Presses the catalog's "Load more" until a card whose link matches `name` shows, as a reader would: the catalog
 * pages by 24, and once the suite's specs have imported their fixtures a sample-library title may be past page 1.
 */
export async function loadCatalogUntil(page: Page, name: string | RegExp) {
  const link = page.getByRole('link', { name }).first();
  const more = page.getByRole('button', { name: 'Load more' });
  await page.getByRole('article').first().waitFor();
  while ((await link.count()) === 0) {
    expect(await more.count(), `${String(name)} is in the catalog`).toBe(1);
    const shown = await page.getByRole('article').count();
    await more.click();
    await expect.poll(() => page.getByRole('article').count(), { timeout: 15_000 }).toBeGreaterThan(shown);
  }
  return link;
}


/** A largest-contentful-paint entry as the page saw it: the element's id and tag, the size, its box then. */
export interface LargestPaint {
  id: string;
  tag: string;
  size: number;
  box: number[];
}

/**
 * Keeps every largest-contentful-paint entry of the context's pages, read with {@link largestPaints}. The element is
 * read as the entry is made: by the time a test asks, the app may have replaced it.
 */
export async function observeLargestPaints(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const seen: { id: string; tag: string; size: number; box: number[] }[] = [];
    (window as unknown as { __lcp: typeof seen }).__lcp = seen;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as (PerformanceEntry & { element: Element | null; id: string; size: number })[]) {
        const r = e.element?.getBoundingClientRect();
        seen.push({ id: e.id, tag: e.element?.tagName ?? '', size: e.size, box: r ? [r.x, r.y, r.width, r.height] : [] });
      }
    }).observe({ type: 'largest-contentful-paint', buffered: true });
  });
}

/** The page's largest-contentful-paint entries so far, in order ({@link observeLargestPaints}). */
export function largestPaints(page: Page): Promise<LargestPaint[]> {
  return page.evaluate(() => (window as unknown as { __lcp: LargestPaint[] }).__lcp);
}

/**
 * Holds the app's entry chunk until `release` is called; the rest of the page loads as usual. `asked` resolves when
 * the page first asks for it; `urls` lists each time it did. (Routing turns the browser's cache off: the entry is
 * asked for again, not taken from an earlier visit.)
 */
export async function holdEntry(page: Page): Promise<{ release: () => void; asked: Promise<void>; urls: string[] }> {
  let release!: () => void;
  let asked!: () => void;
  const released = new Promise<void>((done) => (release = done));
  const askedFor = new Promise<void>((done) => (asked = done));
  const urls: string[] = [];
  await page.route(/\/assets\/index-[\w-]+\.js$/, async (route) => {
    urls.push(route.request().url());
    asked();
    await released;
    await route.continue();
  });
  return { release, asked: askedFor, urls };
}
