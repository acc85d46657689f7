/**
 * A long chapter (docs/decisions.md "Long chapters in slices"): a chapter of 400,000
 * characters wrapped in a <section>, read at 1280x800 and 390x844, each width its own copy of the book (the
 * account's progress in one copy does not move where the other opens). The first screen shows while the rest of
 * the chapter is still going in, then the whole chapter is there, word for word; a reader resuming deep in it lands
 * on the same words (the slice holding them goes first, and they stay in view while the slices before them go in);
 * a search hit and a highlight in its last part work once the whole chapter is in.
 * What the first screen held is read when the reader marks it (`reader:first-screen`), in the same task: an init
 * script wraps performance.mark. No timings are asserted.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page, Request, Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { longChapterEpub } from '../packages/server/test/fixtures/long-chapter.ts';
import { importBook, lecternCli, signIn } from '../scripts/fresh-server.ts';
import { openPage, signInAsDemo } from './browser.ts';
import { currentSearchHit, drawnHighlight, highlightSelection, inFrame, searchAndFollow } from './reader-steps.ts';

const desktop = { width: 1280, height: 800 };
const phone = { width: 390, height: 844 };

const DEEP = 'Here the resumed reader lands, on a paragraph about quintessential lanterns kept deep in the afternoon.';
const LATE_SEARCH = 'The word xylophonic appears only here, near the end of the long afternoon.';
const LATE_HIGHLIGHT = 'Near the end, this paragraph is the one highlighted in the last part of the long chapter.';

const books: Record<number, string> = {};
const EXPIRED_PASSWORD = 'a long enough password for an expired reader';
const SHOTS = path.join(import.meta.dirname, '..', '.tmp', 'screens');
fs.mkdirSync(SHOTS, { recursive: true });

beforeAll(() => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-long-'));
  for (const [i, viewport] of [desktop, phone].entries()) {
    const title = `Long Chapter Fixture ${viewport.width}`;
    const file = path.join(folder, `long-${viewport.width}.epub`);
    const book = longChapterEpub({
      chars: 400_000,
      title,
      uuid: `5a1ce5a1-0000-4000-8000-00000000040${i}`,
      wrap: true,
      markers: [
        { at: 0, html: '<p><a id="to-late" href="#late-search">To the late part</a></p>' },
        { at: 0.6, html: `<p id="deep-place">${DEEP}</p>` },
        { at: 0.96, html: `<p id="late-search">${LATE_SEARCH}</p>` },
        { at: 0.97, html: `<p id="late-highlight">${LATE_HIGHLIGHT}</p>` },
      ],
    });
    fs.writeFileSync(file, book.bytes);
    const out = importBook(inject('dataDir'), file);
    books[viewport.width] = new RegExp(`imported\\s+(\\S+)\\s+"${title}"`).exec(out)?.[1] ?? '';
    if (!books[viewport.width]) throw new Error(`the long chapter was not imported: ${out}`);
  }
  fs.rmSync(folder, { recursive: true, force: true });
});

interface FirstScreen {
  visible: boolean;
  /** characters of text in the frame when the first screen was marked */
  text: number;
  /** where each element asked for was, against the frame's viewport (null: not in the document yet) */
  boxes: Record<string, { top: number; bottom: number } | null>;
  height: number;
}

/**
 * Before any script of the app: when the reader marks its first screen, the chapter frame's state then (which of
 * `ids` are where, how much text is in). Read back with `firstScreen`.
 */
async function recordFirstScreen(page: Page, ids: string[], click?: string) {
  await page.addInitScript(({ watch, click }) => {
    if (window.top !== window) return;
    const w = window as unknown as { __firstScreen?: FirstScreen };
    const mark = performance.mark.bind(performance);
    performance.mark = ((name: string, options?: PerformanceMarkOptions) => {
      // (the latest test's script wraps the others' and runs first: its record is the one kept)
      // (the reader's own first screen: the page may have painted one of its own before, detail 'page')
      if (name === 'reader:first-screen' && !w.__firstScreen && options?.detail !== 'page') {
        const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame');
        const doc = frame?.contentDocument;
        const boxes: FirstScreen['boxes'] = {};
        for (const id of watch) {
          const r = doc?.getElementById(id)?.getBoundingClientRect();
          boxes[id] = r ? { top: r.top, bottom: r.bottom } : null;
        }
        w.__firstScreen = {
          visible: !!frame && getComputedStyle(frame).visibility === 'visible',
          text: doc?.body?.textContent?.length ?? 0,
          boxes,
          height: doc?.documentElement.clientHeight ?? 0,
        };
        // (in the same task: the reader's click lands while the rest of the chapter is still going in)
        if (click) (doc?.getElementById(click) as HTMLElement | null)?.click();
      }
      return mark(name, options);
    }) as typeof performance.mark;
  }, { watch: ids, click });
}

const firstScreen = async (page: Page): Promise<FirstScreen> => {
  await page.waitForFunction(() => !!(window as unknown as { __firstScreen?: unknown }).__firstScreen);
  return page.evaluate(() => (window as unknown as { __firstScreen: FirstScreen }).__firstScreen);
};

const whole = (page: Page) => page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0, null, { timeout: 30_000 });

/** Where the element `id` is against the chapter frame's viewport. */
const boxOf = (page: Page, id: string) =>
  inFrame(
    page,
    (doc, arg: string) => {
      const r = doc.getElementById(arg)!.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: doc.documentElement.clientHeight, width: doc.documentElement.clientWidth };
    },
    id,
  );

for (const viewport of [desktop, phone]) {
  describe(`a long chapter at ${viewport.width}x${viewport.height}`, () => {
    let browser: Browser;
    let page: Page;
    let chapters: { full_path: string; web_url: string; url: string; as_sample: boolean; is_public: boolean }[];
    let chapterText = '';
    const long = () => chapters.find((c) => c.full_path.endsWith('text/ch2.xhtml'))!;
    const short = () => chapters.find((c) => c.full_path.endsWith('text/ch1.xhtml'))!;

    beforeAll(async () => {
      ({ browser, page } = await openPage(viewport));
      page.setDefaultTimeout(30_000);
      await signInAsDemo(page);
      chapters = (await (await page.request.get(`/api/v1/book/${books[viewport.width]}/`)).json()).chapters;
      // The chapter's text as the chapter route gives it: what the frame must hold once it is whole.
      const content = ((await (await page.request.get(long().url, { headers: { Accept: 'application/json' } })).json()) as { content: string }).content;
      chapterText = await page.evaluate((html) => new DOMParser().parseFromString(html, 'text/html').querySelector('section.chapter')!.textContent ?? '', content);
    });
    afterAll(() => browser?.close());

    it('shows its first screen while the rest goes in, then the whole chapter, word for word', async () => {
      await recordFirstScreen(page, ['deep-place']);
      await page.goto(long().web_url);
      const first = await firstScreen(page);
      expect(first.visible).toBe(true);
      // Not all of it yet: the rest goes in after the first screen.
      expect(first.text).toBeGreaterThan(1000);
      expect(first.text).toBeLessThan(chapterText.length / 2);
      expect(first.boxes['deep-place']).toBeNull();
      // The chapter's opening is what shows.
      const heading = await inFrame(page, (doc) => doc.querySelector('h1')!.getBoundingClientRect().top, null);
      expect(heading).toBeGreaterThanOrEqual(0);
      await whole(page);
      const inFrameText = await inFrame(page, (doc) => doc.querySelector('section.chapter')!.textContent ?? '', null);
      expect(inFrameText.length).toBe(chapterText.length);
      expect(inFrameText === chapterText).toBe(true);
      expect(await inFrame(page, (doc) => doc.querySelectorAll('section.chapter').length, null)).toBe(1);
      // Still at its start, and the footer's figure is the whole chapter's.
      expect(await page.locator('.reader-footer__text').textContent()).toBe('0%');
    });

    it('is asked for once on a page load, by the page itself before the app has started, and that answer is the one shown', async () => {
      const asked: string[] = [];
      const onRequest = (r: Request) => {
        const u = new URL(r.url());
        if (u.pathname === '/nest/epub/block/' && r.method() === 'POST' && (r.postData() ?? '').includes(long().full_path.split('/').pop()!)) asked.push('chapter');
      };
      // Any script the page's CSP refused (the early request's inline script is allowed by its hash, nothing else).
      await page.addInitScript(() => {
        if (window.top !== window) return;
        const w = window as unknown as { __csp: string[] };
        w.__csp = [];
        document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
      });
      // The chapter workers this page load starts: one, the page's own, which the app takes as its worker.
      const workers: Worker[] = [];
      const onWorker = (w: Worker) => void (w.url().includes('chapter.worker') && workers.push(w));
      page.context().on('request', onRequest);
      let csp = '';
      try {
        await page.goto('about:blank');
        page.on('worker', onWorker);
        const response = await page.goto(long().web_url);
        csp = (await response!.allHeaders())['content-security-policy'] ?? '';
        await whole(page);
      } finally {
        page.context().off('request', onRequest);
        page.off('worker', onWorker);
      }
      expect(workers).toHaveLength(1);
      // The worker's one script of its own is its client's schemas (zod, half its code), asked for beside the page's
      // answer: the page's first screen does not wait for it (page-first-screen.e2e.ts holds it back).
      const workerFetched = await workers[0]!.evaluate(() => performance.getEntriesByType('resource').map((r) => new URL(r.name).pathname));
      expect(workerFetched.filter((p) => p.endsWith('.js'))).toEqual([expect.stringMatching(/^\/assets\/schemas-[\w-]+\.js$/)]);
      // One request: the chapter is not asked for twice (the next chapter is prepared later, under its own name).
      expect(asked).toEqual(['chapter']);
      // Sent by the page's early script: under way before the reader asked for its chapter (the app started, routed
      // and rendered), and the reader took that answer.
      const timing = await page.evaluate(() => ({
        block: (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter((r) => new URL(r.name).pathname === '/nest/epub/block/').map((r) => r.startTime),
        asked: performance.getEntriesByName('reader:chapter-asked')[0]?.startTime ?? -1,
        // the page's script started the worker and the worker answered the block it was handed (id 0)
        pageWorker: performance.getEntriesByName('reader:page-worker').length,
        answered: performance.getEntriesByName('reader:page-worker-answered').length,
        csp: (window as unknown as { __csp: string[] }).__csp,
      }));
      expect({ pageWorker: timing.pageWorker, answered: timing.answered }).toEqual({ pageWorker: 1, answered: 1 });
      expect(timing.block).toHaveLength(1);
      expect(timing.asked).toBeGreaterThan(0);
      expect(timing.block[0]!).toBeLessThan(timing.asked);
      // The page's policy runs no inline script but the server's own, each by its hash, and refused nothing.
      expect(/(?:^|;)\s*script-src ([^;]*)/.exec(csp)?.[1]).toMatch(/^'self'( 'sha256-[A-Za-z0-9+/=]+')+$/);
      // (zod probes once whether `new Function` is allowed, and the policy says no: its `eval` report is expected)
      expect(timing.csp.filter((v) => !v.endsWith(' eval'))).toEqual([]);
      // And it is the chapter, whole.
      const text = await inFrame(page, (doc) => doc.querySelector('section.chapter')!.textContent ?? '', null);
      expect(text === chapterText).toBe(true);
      await page.screenshot({ path: path.join(SHOTS, `long-chapter-early-${viewport.width}.png`) });
    });

    it('still shows a locked chapter\'s message, from the one request the page made', async () => {
      const email = `long-expired-${viewport.width}@example.com`;
      lecternCli(inject('dataDir'), ['users:create', '--email', email, '--password', EXPIRED_PASSWORD, '--status', 'expired']);
      const context = await browser.newContext({ baseURL: inject('baseURL'), viewport });
      try {
        const reader = await context.newPage();
        reader.setDefaultTimeout(30_000);
        await signIn(reader, email, EXPIRED_PASSWORD);
        const answers: Promise<{ error: string | null }>[] = [];
        reader.on('response', (r) => {
          if (new URL(r.url()).pathname === '/nest/epub/block/') answers.push(r.json().then((items: { error: string | null }[]) => items[0]!));
        });
        // (the long chapter, unless the importer took it for the book's sample)
        const locked = chapters.find((c) => !c.as_sample && !c.is_public)!;
        await reader.goto(locked.web_url);
        const alert = reader.locator('.reader-message__text[role="alert"]');
        await alert.waitFor();
        const settled = await Promise.all(answers);
        expect(settled).toHaveLength(1);
        expect(settled[0]!.error).toBeTruthy();
        expect((await alert.textContent())?.trim()).toBe(settled[0]!.error);
        await reader.screenshot({ path: path.join(SHOTS, `long-chapter-locked-${viewport.width}.png`) });
      } finally {
        await context.close();
      }
    });

    it('resumes at a place deep in the chapter: the slice holding it first, and it stays in view', async () => {
      // Read to the deep paragraph; the place is stored once the reader stops there.
      await inFrame(page, (doc) => doc.getElementById('deep-place')!.scrollIntoView(), null);
      await expect.poll(() => page.evaluate(() => localStorage.getItem('reader_positions') ?? ''), { timeout: 10_000 }).toContain('Here the resumed reader lands');
      const footer = Number.parseInt((await page.locator('.reader-footer__text').textContent()) ?? '', 10);
      expect(footer).toBeGreaterThan(50);
      await recordFirstScreen(page, ['deep-place']);
      await page.goto(long().web_url);
      const first = await firstScreen(page);
      expect(first.visible).toBe(true);
      expect(first.text).toBeLessThan(chapterText.length / 2);
      const box = first.boxes['deep-place'];
      expect(box).not.toBeNull();
      expect(box!.top).toBeGreaterThanOrEqual(-1);
      expect(box!.top).toBeLessThan(first.height);
      await whole(page);
      const after = await boxOf(page, 'deep-place');
      expect(after.top).toBeGreaterThanOrEqual(-1);
      expect(after.top).toBeLessThan(after.height);
      // The footer's figure is the whole chapter's again (within the few pixels the place is put back at).
      await expect.poll(async () => Math.abs(Number.parseInt((await page.locator('.reader-footer__text').textContent()) ?? '', 10) - footer)).toBeLessThanOrEqual(1);
    });

    it('resumes there in paged mode too, on the page holding the place', async () => {
      await page.evaluate(() => {
        const prefs = JSON.parse(localStorage.getItem('reader_preferences') ?? '{}') as Record<string, unknown>;
        localStorage.setItem('reader_preferences', JSON.stringify({ ...prefs, pagination: 'page' }));
      });
      try {
        await recordFirstScreen(page, ['deep-place']);
        await page.goto(long().web_url);
        const first = await firstScreen(page);
        expect(first.text).toBeLessThan(chapterText.length / 2);
        await whole(page);
        await expect.poll(() => page.locator('.reader-footer__text').textContent()).toMatch(/^Page \d+ of \d+$/);
        const [, index, count] = /^Page (\d+) of (\d+)$/.exec((await page.locator('.reader-footer__text').textContent())!)!.map(Number);
        expect(index! / count!).toBeGreaterThan(0.5);
        // The deep paragraph is on the page on show (its box starts within the frame's width).
        const box = await boxOf(page, 'deep-place');
        expect(box.right).toBeGreaterThan(0);
        expect(box.left).toBeLessThan(box.width);
      } finally {
        await page.evaluate(() => {
          const prefs = JSON.parse(localStorage.getItem('reader_preferences') ?? '{}') as Record<string, unknown>;
          localStorage.setItem('reader_preferences', JSON.stringify({ ...prefs, pagination: 'scroll' }));
        });
      }
    });

    it('jumps to a search hit in the last part of the chapter', async () => {
      await page.goto(short().web_url);
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
      await searchAndFollow(page, 'xylophonic');
      await expect.poll(() => currentSearchHit(page), { timeout: 30_000 }).not.toBeNull();
      const hit = (await currentSearchHit(page))!;
      expect(hit.text?.toLowerCase()).toBe('xylophonic');
      expect(hit.top).toBeGreaterThanOrEqual(0);
      expect(hit.bottom).toBeLessThanOrEqual(hit.height);
    });

    it('highlights in the last part, and draws the highlight there again when the chapter is opened anew', async () => {
      await page.goto(long().web_url);
      await whole(page);
      const quote = await inFrame(
        page,
        (doc) => {
          const p = doc.getElementById('late-highlight')!;
          p.scrollIntoView();
          const text = p.firstChild as Text;
          const range = doc.createRange();
          range.setStart(text, 0);
          range.setEnd(text, 30);
          doc.getSelection()!.removeAllRanges();
          doc.getSelection()!.addRange(range);
          return range.toString();
        },
        null,
      );
      await highlightSelection(page, viewport);
      await expect.poll(() => drawnHighlight(page, quote)).not.toBeNull();
      // A new visit: the highlight is anchored in the whole chapter (it is drawn only once the last part is in).
      await page.goto(long().web_url);
      await whole(page);
      await inFrame(page, (doc) => doc.getElementById('late-highlight')!.scrollIntoView(), null);
      await expect.poll(() => drawnHighlight(page, quote), { timeout: 15_000 }).not.toBeNull();
    });

    it('follows a link clicked before the rest is in to its target once it is in', async () => {
      await recordFirstScreen(page, ['to-late', 'late-search'], 'to-late');
      // (opened at the link, whatever place the tests before left stored; a new load, not a hash change)
      await page.goto('about:blank');
      await page.goto(`${long().web_url}#to-late`);
      const first = await firstScreen(page);
      // The link was there and clicked; its target was not in the document yet.
      expect(first.boxes['to-late']).not.toBeNull();
      expect(first.boxes['late-search']).toBeNull();
      await whole(page);
      await expect
        .poll(async () => {
          const box = await boxOf(page, 'late-search');
          return box.top >= -1 && box.top < box.height && box.left >= -1 && box.left < box.width;
        })
        .toBe(true);
    });
  });
}
