/**
 * docs/decisions.md "Media players: support, `?t=` in the app, leaving a part, new editions" in Chromium, on a course
 * of two short parts made with ffmpeg and imported with the command line: the browser's back and forward between parts
 * settle the part left (its played interval is posted as usage of that part and its position kept), an address with
 * `?t=` reached again by back seeks there again, and a player whose media a blocker stops shows the video-failure page
 * pointing to the operator's support address (global setup's SUPPORT_EMAIL), at 1280 and 390 px, axe clean.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { importBook, lecternCli, signIn } from '../scripts/fresh-server.ts';
import { launchBrowser, seriousViolations } from './browser.ts';

const baseURL = inject('baseURL');
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const SHOTS = process.env.E2E_SHOTS_DIR;
const COURSE = 'Harbour Pilot Course';

interface Detail {
  book_id: string;
  title_safe: string;
  chapters: { full_path: string; label: string }[];
}

function makeCourse(dir: string): string {
  const course = path.join(dir, COURSE);
  fs.mkdirSync(course, { recursive: true });
  for (const [file, freq] of [['01-the-channel.mp4', 440], ['02-the-buoys.mp4', 660]] as const) {
    execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y',
      '-f', 'lavfi', '-i', 'testsrc=size=320x180:rate=10:duration=8',
      '-f', 'lavfi', '-i', `sine=frequency=${freq}:duration=8`,
      '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-preset', 'ultrafast', '-c:a', 'aac', '-b:a', '48k', '-shortest', '-movflags', '+faststart', path.join(course, file)], { stdio: 'pipe' });
  }
  return course;
}

const readerPath = (d: Detail, i: number) => `/library/view/${encodeURIComponent(d.title_safe)}/${encodeURIComponent(d.book_id)}/${d.chapters[i]!.full_path.split('/').map(encodeURIComponent).join('/')}`;
const heading = (page: Page) => page.getByRole('heading', { level: 1 }).textContent();
const waitReady = (page: Page, part: string) =>
  page.waitForFunction((p) => {
    const v = document.querySelector('video');
    return !!v && (v.getAttribute('src') ?? '').includes(p) && v.readyState >= 1;
  }, part);
const waitTime = (page: Page, min: number, max = Number.MAX_SAFE_INTEGER) =>
  page.waitForFunction(([lo, hi]) => {
    const v = document.querySelector('video');
    return !!v && v.currentTime >= lo && v.currentTime < hi;
  }, [min, max] as const);
/** Plays the part on show from the page's key until at least `seconds` have played. */
async function playTo(page: Page, seconds: number) {
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press(' ');
  await waitTime(page, seconds);
}

async function shot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

describe('media players: leaving a part, ?t= again, the failure page', () => {
  let browser: Browser;
  let course: Detail;
  const email = `media-nav-${Date.now()}@example.com`;
  const password = 'a long enough password';
  const contexts: BrowserContext[] = [];

  async function open(viewport: { width: number; height: number }): Promise<Page> {
    const context = await browser.newContext({ baseURL, viewport });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    await signIn(page, email, password);
    return page;
  }

  beforeAll(async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-media-nav-e2e-'));
    importBook(inject('dataDir'), makeCourse(dir));
    lecternCli(inject('dataDir'), ['users:create', '--email', email, '--password', password, '--status', 'subscriber']);
    browser = await launchBrowser();
    const context = await browser.newContext({ baseURL });
    contexts.push(context);
    const list = await (await context.request.get(`/api/v1/book/?page_size=100&q=${encodeURIComponent(COURSE)}`)).json();
    const found = (list.results as { title: string; api_url: string }[]).find((b) => b.title === COURSE)!;
    course = await (await context.request.get(found.api_url)).json();
  }, 120_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
  });

  it('back and forward between parts log the part left and keep its position; back to a ?t= address seeks there again (1280 px)', async () => {
    const page = await open(DESKTOP);
    const usage: { chapter: string; start_percentage: number; end_percentage: number }[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/v1/usage-event/') && r.method() === 'POST') usage.push(...(r.postDataJSON() as typeof usage));
    });
    const [first, second] = course.chapters.map((c) => c.full_path) as [string, string];
    const played = (part: string) => usage.filter((e) => e.chapter.endsWith(`/chapter/${part}`));
    const saved = (part: string) => page.evaluate((key) => (JSON.parse(localStorage.getItem('reader_positions') ?? '{}') as Record<string, { progression: number }>)[key]?.progression ?? 0, `${course.book_id}/${part}`);

    await page.goto(`${readerPath(course, 0)}?t=2`);
    await waitReady(page, first);
    await waitTime(page, 2, 3);
    await page.getByRole('button', { name: 'Next chapter' }).click();
    await expect.poll(() => heading(page)).toBe(`Video 2 of 2 from ${COURSE}`);
    await waitReady(page, second);
    await playTo(page, 1.5);

    // the browser's back button, while the second part plays: no pause of ours, no button
    await page.goBack();
    await expect.poll(() => heading(page)).toBe(`Video 1 of 2 from ${COURSE}`);
    await expect.poll(() => played(second).length).toBeGreaterThan(0);
    expect(played(second).every((e) => e.start_percentage < e.end_percentage && e.end_percentage >= 15)).toBe(true);
    expect(await saved(second)).toBeGreaterThanOrEqual(15);
    // the address again has ?t=2: the part opens there again (it is under 15 s in: no saved position to resume)
    await waitReady(page, first);
    await waitTime(page, 2, 3);

    // and forward, while the first part plays: its interval from 2 s on is the first part's
    const before = played(first).length;
    await playTo(page, 4);
    await page.goForward();
    await expect.poll(() => heading(page)).toBe(`Video 2 of 2 from ${COURSE}`);
    await expect.poll(() => played(first).length).toBeGreaterThan(before);
    expect(played(first).at(-1)!.end_percentage).toBeGreaterThanOrEqual(50);
    expect(await saved(first)).toBeGreaterThanOrEqual(50);
  });

  for (const [name, viewport] of [['1280', DESKTOP], ['390', PHONE]] as const) {
    it(`a player stopped by a blocker shows the failure page, pointing to support (${name} px)`, async () => {
      const page = await open(viewport);
      // as an ad blocker does: the browser refuses the part's requests (a new session, then the failure page)
      await page.route('**/api/v1/media/**', (route) => route.abort('blockedbyclient'));
      await page.goto(readerPath(course, 1));
      const alert = page.getByRole('alert');
      await expect.poll(() => alert.getByRole('heading').textContent()).toBe('The video could not be played');
      const link = alert.getByRole('link', { name: 'support@lectern.test' });
      await expect.poll(() => link.getAttribute('href')).toBe(`mailto:support@lectern.test?subject=${encodeURIComponent(`Video could not be played: ${COURSE} / ${course.chapters[1]!.label}`)}`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      await shot(page, `media-failure-${name}`);
      expect(await seriousViolations(page)).toEqual([]);
    });
  }
});
