/**
 * A scripted book read as one scroll (docs/decisions.md "A scripted book read as one scroll"), at 1280x800 and 390x844,
 * axe clean: a `rendition:flow scrolled-continuous` title imported with --allow-scripts, its scripts allowed by its
 * reader, stacks its chapters' pages of the scripted origin in one scroller. Each page says its height (the app cannot
 * look into it) and its frame takes it; a height past the bound, which the first chapter's script tells as a hostile
 * book would, is refused. The wheel alone carries the reader from chapter 1 into chapter 2 with no page turn (the same
 * scroller, the end of one page right above the next), each chapter's script has run, the address and the saved
 * position follow the chapter under the top of the view, and a reload comes back to the same place.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SCRIPTED_FRAME_MAX_HEIGHT, SCRIPTS_CONSENT_MESSAGES } from '@lectern/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { HOSTILE_HEIGHT, partRan, SCRIPTED_CONTINUOUS_TITLE, scriptedContinuousEpub } from '../packages/server/test/fixtures/scripted.ts';
import { importBook, lecternCli } from '../scripts/fresh-server.ts';
import { launchBrowser, seriousViolations, signedInContexts } from './browser.ts';

const SCREENS = path.join(import.meta.dirname, '..', '.tmp', 'screens');
const PART = (n: number) => `text/part-${n}.xhtml`;
const page$ = (page: Page, n: number) => page.frameLocator(`iframe.chapter-stack__frame--scripted[data-href="${PART(n)}"]`);

interface Shown {
  /** The chapter under the top of the stack's view, and how far down it the view's top is (px). */
  href: string;
  within: number;
  /** The stacked frames, top to bottom: chapter, top, height. */
  frames: { href: string; top: number; height: number }[];
  path: string;
}

async function shown(page: Page): Promise<Shown> {
  return page.evaluate(() => {
    const scroller = document.querySelector<HTMLElement>('.chapter-stack__scroller');
    const frames = Array.from(document.querySelectorAll<HTMLIFrameElement>('iframe.chapter-stack__frame')).filter((f) => f.style.visibility !== 'hidden');
    const y = (scroller?.scrollTop ?? 0) + 1;
    const under = frames.filter((f) => f.offsetTop <= y).pop();
    return {
      href: under?.dataset.href ?? '',
      within: under && scroller ? scroller.scrollTop - under.offsetTop : 0,
      frames: frames.map((f) => ({ href: f.dataset.href ?? '', top: f.offsetTop, height: f.offsetHeight })),
      path: location.pathname,
    };
  });
}

/** One wheel turn at a time until the chapter under the top of the view is `href`. */
async function wheelUntil(page: Page, href: string, deltaY: number) {
  await expect
    .poll(
      async () => {
        const now = await shown(page);
        if (now.href !== href) await page.mouse.wheel(0, deltaY);
        return now.href;
      },
      { timeout: 30_000, interval: 100 },
    )
    .toBe(href);
}

/** The bottom of a chapter's last paragraph, in its page (px from the page's top). */
const endOf = (page: Page, n: number) => page$(page, n).locator('#end').evaluate((el) => el.getBoundingClientRect().bottom + window.scrollY);

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  describe(`a scripted scrolled-continuous book at ${viewport.width}x${viewport.height}`, () => {
    let browser: Browser;
    const sessions = signedInContexts(() => browser);
    const email = `scripted-continuous-${viewport.width}-${Date.now()}@example.com`;
    const password = 'a long enough password';
    let bookId = '';

    beforeAll(async () => {
      const dataDir = inject('dataDir');
      const file = path.join(dataDir, `scripted-continuous-${viewport.width}-${Date.now()}.epub`);
      fs.writeFileSync(file, scriptedContinuousEpub());
      const out = importBook(dataDir, file, ['--allow-scripts']);
      bookId = new RegExp(`(?:imported|updated)\\s+(\\S+)\\s+"${SCRIPTED_CONTINUOUS_TITLE}"`).exec(out)?.[1] ?? '';
      if (!bookId) throw new Error(`the scripted continuous book was not imported: ${out}`);
      lecternCli(dataDir, ['users:create', '--email', email, '--password', password, '--status', 'subscriber']);
      browser = await launchBrowser();
    });
    afterAll(async () => {
      await sessions.closeAll();
      await browser?.close();
    });

    it('scrolls from chapter 1 into chapter 2 without a page turn, its scripts run, and a reload keeps the place', async () => {
      const { page } = await sessions.open(email, password, viewport);
      const chapters = (await (await page.request.get(`/api/v1/book/${bookId}/`)).json()).chapters as { web_url: string }[];
      await page.goto(chapters[0]!.web_url);
      const dialog = page.getByRole('dialog', { name: SCRIPTS_CONSENT_MESSAGES.title });
      await dialog.getByRole('button', { name: SCRIPTS_CONSENT_MESSAGES.allow }).click();
      await dialog.waitFor({ state: 'detached' });

      // The first chapter's page, on the scripted origin, stacked: its script ran.
      await expect.poll(() => page$(page, 1).locator('#ran').textContent(), { timeout: 15_000 }).toBe(partRan(1));
      await expect.poll(async () => (await shown(page)).href, { timeout: 15_000 }).toBe(PART(1));
      expect(await page.locator('iframe.scripted-chapter__frame').count()).toBe(0);
      await page.evaluate(() => ((window as unknown as { stack?: Element }).stack = document.querySelector('.chapter-stack__scroller')!));

      // Its script then told a height past the bound (and one below zero): refused, the frame as tall as its text.
      await page$(page, 1).locator('body[data-told="yes"]').waitFor();
      await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
      expect(HOSTILE_HEIGHT).toBeGreaterThan(SCRIPTED_FRAME_MAX_HEIGHT);
      const first = (await shown(page)).frames.find((f) => f.href === PART(1))!;
      const end1 = await endOf(page, 1);
      expect(first.height).toBeGreaterThanOrEqual(end1);
      expect(first.height - end1).toBeLessThan(120);

      // The wheel alone, over the page: into the second chapter, the address following, the same scroller (no turn).
      const stage = (await page.locator('.reader-stage').boundingBox())!;
      await page.mouse.move(stage.x + stage.width / 2, stage.y + stage.height / 2);
      await wheelUntil(page, PART(2), 400);
      await expect.poll(() => new URL(page.url()).pathname).toBe(new URL(chapters[1]!.web_url, page.url()).pathname);
      expect(await page.evaluate(() => (window as unknown as { stack?: Element }).stack === document.querySelector('.chapter-stack__scroller'))).toBe(true);
      await expect.poll(() => page$(page, 2).locator('#ran').textContent(), { timeout: 15_000 }).toBe(partRan(2));

      // The end of the first chapter right above the second's heading: the frames meet, each as tall as its text.
      const now = await shown(page);
      const [one, two] = [now.frames.find((f) => f.href === PART(1))!, now.frames.find((f) => f.href === PART(2))!];
      expect(one.top + one.height).toBe(two.top);
      expect(one.height - (await endOf(page, 1))).toBeLessThan(120);
      await page.mouse.wheel(0, -(now.within + 150));
      // (the wheel's scroll is animated: where it ends) the view's top 150 px above the boundary, part 1's end in view
      await expect.poll(async () => Math.abs((await shown(page)).within - (one.height - 150)), { timeout: 10_000 }).toBeLessThan(30);
      expect((await shown(page)).href).toBe(PART(1));
      fs.mkdirSync(SCREENS, { recursive: true });
      await page.screenshot({ path: path.join(SCREENS, `scripted-continuous-boundary-${viewport.width}.png`) });
      expect(await seriousViolations(page)).toEqual([]);

      // Into the second chapter a little way: that place is the one saved (a fraction of the chapter, from the stack's scroll).
      const saved = page.waitForResponse(
        (r) => {
          if (!r.url().includes('/position/') || r.request().method() !== 'PUT' || !r.ok()) return false;
          const { locator } = r.request().postDataJSON() as { locator: { href: string; progression: number } };
          return locator.href === PART(2) && locator.progression > 0.05;
        },
        { timeout: 30_000 },
      );
      await wheelUntil(page, PART(2), 400);
      await page.mouse.wheel(0, 600);
      await saved;
      // the place at rest is the one this browser keeps (reader.md §9: stored 500 ms after the last move), as a percentage
      await expect.poll(async () => (await shown(page)).within, { timeout: 10_000 }).toBeGreaterThan(300);
      await expect
        .poll(
          () =>
            page.evaluate(
              ([bookId, href]) => {
                const s = document.querySelector<HTMLElement>('.chapter-stack__scroller')!;
                const f = document.querySelector<HTMLIFrameElement>(`iframe[data-href="${href}"]`)!;
                const now = ((s.scrollTop - f.offsetTop) / (f.offsetHeight - s.clientHeight)) * 100;
                const kept = (JSON.parse(localStorage.getItem('reader_positions') ?? '{}') as Record<string, { progression: number }>)[`${bookId}/${href}`];
                return !!kept && Math.abs(kept.progression - now) < 0.1;
              },
              [bookId, PART(2)] as const,
            ),
          { timeout: 10_000 },
        )
        .toBe(true);
      const before = await shown(page);

      // A reload: no question (remembered), the second chapter under the top, the same place, its script run.
      await page.reload();
      await expect.poll(() => page$(page, 2).locator('#ran').textContent(), { timeout: 15_000 }).toBe(partRan(2));
      await expect.poll(async () => (await shown(page)).href, { timeout: 15_000 }).toBe(PART(2));
      await expect.poll(async () => (await shown(page)).frames.length, { timeout: 15_000 }).toBeGreaterThan(1);
      await expect.poll(async () => Math.abs((await shown(page)).within - before.within), { timeout: 15_000 }).toBeLessThan(40);
      expect(await dialog.count()).toBe(0);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await page.screenshot({ path: path.join(SCREENS, `scripted-continuous-reload-${viewport.width}.png`) });
      expect(await seriousViolations(page)).toEqual([]);
    });
  });
}
