/**
 * The media players in Chromium (docs/decisions.md "Media players"), on a video course and an audiobook made here with
 * Debian's ffmpeg and imported with the operators' command line: a video played, sought with the arrow key and from its
 * transcript, its captions shown; paused, and resumed at that place in a second browser; played to its end and on into
 * the next part; the audiobook from chapter to chapter, and its sleep timer (on the page's clock, and at the end of a
 * chapter); a visitor's preview that ends with its message; a reader without rights told "Forbidden" and given the
 * preview; the screens at 1280 and 390 px, axe clean.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { importBook, signIn } from '../scripts/fresh-server.ts';
import { launchBrowser, seriousViolations } from './browser.ts';

const baseURL = inject('baseURL');
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const SHOTS = process.env.E2E_SHOTS_DIR;
const COURSE = 'Lighthouse Keeping Course';
const AUDIOBOOK = 'Tides Told Aloud';

interface Detail {
  book_id: string;
  title_safe: string;
  chapters: { full_path: string; label: string; web_url: string }[];
}

function ffmpeg(args: string[]) {
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args], { stdio: 'pipe' });
}

/** A course of two parts (20 s with captions, 4 s) and an audiobook of two chapters (20 s, 6 s), made with ffmpeg. */
function makeMedia(dir: string) {
  const course = path.join(dir, COURSE);
  fs.mkdirSync(course, { recursive: true });
  const video = (file: string, seconds: number, freq: number) =>
    ffmpeg([
      '-f', 'lavfi', '-i', `testsrc=size=320x180:rate=10:duration=${seconds}`,
      '-f', 'lavfi', '-i', `sine=frequency=${freq}:duration=${seconds}`,
      '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-preset', 'ultrafast', '-c:a', 'aac', '-b:a', '48k', '-shortest', '-movflags', '+faststart', file,
    ]);
  video(path.join(course, '01-welcome.mp4'), 20, 440);
  video(path.join(course, '02-the-lamp.mp4'), 4, 660);
  fs.writeFileSync(
    path.join(course, '01-welcome.vtt'),
    [
      'WEBVTT',
      '',
      '00:00:00.000 --> 00:00:05.000',
      'Welcome to the lighthouse.',
      '',
      '00:00:05.000 --> 00:00:10.000',
      'The lamp must be trimmed each evening.',
      '',
      '00:00:10.000 --> 00:00:15.000',
      'Fog signals sound every thirty seconds.',
      '',
      '00:00:15.000 --> 00:00:20.000',
      'Logbooks record every passing ship.',
      '',
    ].join('\n'),
  );
  const book = path.join(dir, AUDIOBOOK);
  fs.mkdirSync(book, { recursive: true });
  const audio = (file: string, seconds: number, freq: number) =>
    ffmpeg(['-f', 'lavfi', '-i', `sine=frequency=${freq}:duration=${seconds}`, '-c:a', 'libmp3lame', '-b:a', '32k', '-metadata', `album=${AUDIOBOOK}`, file]);
  audio(path.join(book, '01 First Tide.mp3'), 20, 330);
  audio(path.join(book, '02 Second Tide.mp3'), 6, 550);
  return { course, book };
}

function createReader(email: string, password: string, status: 'subscriber' | 'expired') {
  execFileSync(process.execPath, ['--import', 'tsx', 'packages/server/src/cli/main.ts', 'users:create', '--email', email, '--password', password, '--status', status], {
    cwd: path.resolve(import.meta.dirname, '..'),
    env: { ...process.env, DATA_DIR: inject('dataDir'), DATABASE_URL: '', LOG_LEVEL: 'silent' },
    stdio: 'pipe',
  });
}

async function detailOf(page: Page, title: string): Promise<Detail> {
  const list = await (await page.request.get(`/api/v1/book/?page_size=100&q=${encodeURIComponent(title)}`)).json();
  const found = (list.results as { title: string; api_url: string }[]).find((b) => b.title === title);
  if (!found) throw new Error(`${title} is not in the catalog`);
  return (await page.request.get(found.api_url)).json();
}

const readerPath = (d: Detail, i: number) => `/library/view/${encodeURIComponent(d.title_safe)}/${encodeURIComponent(d.book_id)}/${d.chapters[i]!.full_path.split('/').map(encodeURIComponent).join('/')}`;

const mediaTime = (page: Page, selector = 'video') => page.locator(selector).evaluate((m: HTMLMediaElement) => m.currentTime);
/** Waits until the media element's playhead is in [min, max). */
const waitTime = (page: Page, min: number, max = Number.MAX_SAFE_INTEGER, selector = 'video') =>
  page.waitForFunction(
    ([sel, lo, hi]) => {
      const m = document.querySelector<HTMLMediaElement>(sel);
      return !!m && m.currentTime >= lo && m.currentTime < hi;
    },
    [selector, min, max] as const,
  );

async function shot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

async function noSideScroll(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(page.viewportSize()!.width);
}

describe('media players', () => {
  let browser: Browser;
  let course: Detail;
  let audiobook: Detail;
  const email = `media-${Date.now()}@example.com`;
  const expiredEmail = `media-expired-${Date.now()}@example.com`;
  const password = 'a long enough password';
  const contexts: BrowserContext[] = [];

  async function open(viewport: { width: number; height: number }, who: string | null): Promise<Page> {
    const context = await browser.newContext({ baseURL, viewport });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    if (who) await signIn(page, who, password);
    return page;
  }

  beforeAll(async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-media-e2e-'));
    const made = makeMedia(dir);
    importBook(inject('dataDir'), made.course);
    importBook(inject('dataDir'), made.book);
    createReader(email, password, 'subscriber');
    createReader(expiredEmail, password, 'expired');
    browser = await launchBrowser();
    const page = await open(DESKTOP, null);
    course = await detailOf(page, COURSE);
    audiobook = await detailOf(page, AUDIOBOOK);
  }, 120_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
  });

  it('plays a video, seeks by key and transcript, shows captions, resumes in a second browser and goes on to the next part (1280 px)', async () => {
    const page = await open(DESKTOP, email);
    const usage: { product?: string; start_percentage: number; end_percentage: number }[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/v1/usage-event/') && r.method() === 'POST') usage.push(...(r.postDataJSON() as typeof usage));
    });
    await page.goto(readerPath(course, 0));
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(`Video 1 of 2 from ${COURSE}`);
    const video = page.locator('video');
    await expect.poll(() => video.getAttribute('src')).toMatch(/\/api\/v1\/media\/.+\?ks=/);
    await page.waitForFunction(() => (document.querySelector('video')?.readyState ?? 0) >= 1);

    // Space plays (the page's key, not the video's own: the focus is on the page).
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press(' ');
    await waitTime(page, 0.3);
    // Right arrow: 5 s on.
    const before = await mediaTime(page);
    await page.keyboard.press('ArrowRight');
    await waitTime(page, before + 4.5);

    // Captions: C shows them, and the cue being said is on the track.
    await page.keyboard.press('c');
    await expect.poll(() => page.getByRole('button', { name: 'Captions' }).getAttribute('aria-pressed')).toBe('true');
    await page.waitForFunction(() => {
      const t = document.querySelector('video')?.textTracks[0];
      return t?.mode === 'showing' && (t.activeCues?.length ?? 0) > 0;
    });

    // The transcript: a line seeks there and is marked as it is said.
    await page.getByRole('tab', { name: 'Transcript' }).click();
    const line = page.getByRole('button', { name: /Logbooks record every passing ship\./ });
    await line.click();
    await waitTime(page, 15, 19);
    await expect.poll(() => line.getAttribute('aria-current')).toBe('true');
    // Space on the line would choose it again (a button's own key): the page's space is for the player.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press(' ');
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.paused)).toBe(true);
    const pausedAt = await mediaTime(page);
    expect(pausedAt).toBeGreaterThanOrEqual(15);
    // The pause goes to the account (the position, debounced) and to usage (product video, within the rules).
    await page.waitForResponse((r) => r.url().includes('/position/') && r.request().method() === 'PUT' && r.ok(), { timeout: 10_000 });
    await expect.poll(() => usage.length).toBeGreaterThan(0);
    expect(usage.every((e) => e.product === 'video' && e.start_percentage < e.end_percentage && e.end_percentage - e.start_percentage <= 50)).toBe(true);
    await shot(page, 'media-video-1280');
    expect(await seriousViolations(page)).toEqual([]);

    // A second browser picks up where the first paused (at least 15 s in, after 500 ms).
    const second = await open(DESKTOP, email);
    await second.goto(readerPath(course, 0));
    await waitTime(second, Math.floor(pausedAt) - 1);
    // ... and plays to the end, then on into the next part.
    await second.locator('body').click({ position: { x: 5, y: 5 } });
    await second.keyboard.press(' ');
    await second.waitForURL((u) => u.pathname.endsWith(`/${course.chapters[1]!.full_path}`), { timeout: 20_000 });
    await expect.poll(() => second.getByRole('heading', { level: 1 }).textContent()).toBe(`Video 2 of 2 from ${COURSE}`);
    await waitTime(second, 0.2);
  }, 120_000);

  it('a search hit in the transcript opens the part at the second its words are said (?t=)', async () => {
    const page = await open(DESKTOP, email);
    const res = await page.request.get(`/api/v2/search/book/?query=fog&identifier=${encodeURIComponent(course.book_id)}&page=1`);
    expect(res.ok()).toBe(true);
    const hits = (await res.json()).results as { full_path: string; web_url: string }[];
    expect(hits.map((h) => h.full_path)).toEqual([course.chapters[0]!.full_path]);
    // 'Fog signals sound every thirty seconds.' is the cue at 00:00:10.000
    expect(new URL(hits[0]!.web_url, baseURL).searchParams.get('t')).toBe('10');
    await page.goto(hits[0]!.web_url);
    await waitTime(page, 9.9, 11);
    await page.getByRole('tab', { name: 'Transcript' }).click();
    await expect.poll(() => page.getByRole('button', { name: /Fog signals sound every thirty seconds\./ }).getAttribute('aria-current')).toBe('true');
  }, 60_000);

  it('the video screen at 390 px: the side panel is a dropdown, nothing wider than the phone, axe clean', async () => {
    const page = await open(PHONE, email);
    await page.goto(readerPath(course, 0));
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(`Video 1 of 2 from ${COURSE}`);
    const select = page.getByRole('combobox', { name: 'Video panel' });
    await select.selectOption('transcript');
    await expect.poll(() => page.getByRole('button', { name: /Fog signals sound/ }).isVisible()).toBe(true);
    await page.getByRole('button', { name: /Fog signals sound/ }).click();
    await waitTime(page, 10, 15);
    await select.selectOption('description');
    await noSideScroll(page);
    await shot(page, 'media-video-390');
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);

  it('an audiobook goes from chapter to chapter; the sleep timer stops at a chapter’s end or after its minutes (390 px)', async () => {
    const page = await open(PHONE, email);
    await page.clock.install();
    await page.goto(readerPath(audiobook, 0));
    const audio = page.locator('audio');
    await expect.poll(() => audio.getAttribute('src')).toMatch(/\?ks=/);
    await expect.poll(() => page.getByRole('navigation', { name: 'Chapters' }).getByRole('link').count()).toBe(2);
    await page.getByRole('button', { name: 'Play' }).click();
    await waitTime(page, 0.2, undefined, 'audio');
    await page.getByRole('button', { name: 'Forward 30 seconds' }).click(); // past the end: the chapter ends
    // "End of chapter" was not chosen: it goes on into the next chapter and keeps playing.
    await page.waitForURL((u) => u.pathname.endsWith(`/${encodeURIComponent(audiobook.chapters[1]!.full_path)}`) || u.pathname.endsWith(`/${audiobook.chapters[1]!.full_path}`));
    await expect.poll(() => page.locator('[aria-current="page"]').textContent()).toContain(audiobook.chapters[1]!.label);
    // (until the next chapter's stream is in, the element still holds the first one, ended)
    await expect.poll(() => audio.getAttribute('src')).toContain(encodeURIComponent(audiobook.chapters[1]!.full_path));
    await waitTime(page, 0.2, undefined, 'audio');
    await expect.poll(() => audio.evaluate((a: HTMLAudioElement) => a.paused)).toBe(false);

    // Sleep timer: 5 minutes on the page's clock.
    await page.getByRole('combobox', { name: 'Sleep timer' }).selectOption('5');
    await page.clock.fastForward('04:59');
    expect(await audio.evaluate((a: HTMLAudioElement) => a.paused)).toBe(false);
    await page.clock.fastForward('00:02');
    await expect.poll(() => audio.evaluate((a: HTMLAudioElement) => a.paused)).toBe(true);
    await expect.poll(() => page.getByText('The sleep timer paused playback.').count()).toBe(1);
    await shot(page, 'media-audio-390');
    await noSideScroll(page);
    expect(await seriousViolations(page)).toEqual([]);

    // Back to the first chapter with "End of chapter": it stops there instead of going on.
    await page.getByRole('button', { name: 'Previous chapter' }).click();
    await page.waitForURL((u) => u.pathname.endsWith(`/${encodeURIComponent(audiobook.chapters[0]!.full_path)}`) || u.pathname.endsWith(`/${audiobook.chapters[0]!.full_path}`));
    await page.getByRole('combobox', { name: 'Sleep timer' }).selectOption('end');
    await page.getByRole('button', { name: 'Play' }).click();
    await page.getByRole('button', { name: 'Forward 30 seconds' }).click();
    await expect.poll(() => page.getByText('The sleep timer paused playback.').count()).toBe(1);
    await expect.poll(() => audio.evaluate((a: HTMLAudioElement) => a.ended || a.paused)).toBe(true);
    expect(new URL(page.url()).pathname.endsWith(audiobook.chapters[1]!.full_path)).toBe(false);
  }, 90_000);

  it('the audiobook at 1280 px: Media Session knows the chapter and cover; axe clean', async () => {
    const page = await open(DESKTOP, email);
    await page.goto(readerPath(audiobook, 0));
    await expect.poll(() => page.locator('audio').getAttribute('src')).toMatch(/\?ks=/);
    const meta = await page.waitForFunction(() => {
      const m = navigator.mediaSession.metadata;
      return m ? { title: m.title, album: m.album } : null;
    });
    expect(await meta.jsonValue()).toEqual({ title: audiobook.chapters[0]!.label, album: AUDIOBOOK });
    await shot(page, 'media-audio-1280');
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);

  it('a visitor gets the preview, with no session and no usage, and its end says so', async () => {
    const page = await open(DESKTOP, null);
    const asked: string[] = [];
    page.on('request', (r) => asked.push(r.url()));
    await page.goto(readerPath(course, 0));
    const video = page.locator('video');
    await expect.poll(() => video.getAttribute('src')).toMatch(/\/api\/v1\/media\/[^/]+\/preview$/);
    await page.waitForFunction(() => (document.querySelector('video')?.readyState ?? 0) >= 1);
    const duration = await video.evaluate((v: HTMLVideoElement) => v.duration);
    expect(duration).toBeGreaterThan(1);
    await video.evaluate((v: HTMLVideoElement, d: number) => (v.currentTime = d - 1), duration);
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press(' ');
    await expect.poll(() => page.getByText('The preview has ended.').count(), { timeout: 15_000 }).toBe(1);
    expect(asked.some((u) => u.includes('kaltura_session') || u.includes('usage-event'))).toBe(false);
    await shot(page, 'media-preview-ended-1280');
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);

  it('a reader without rights is told "Forbidden" and gets the preview', async () => {
    const page = await open(DESKTOP, expiredEmail);
    await page.goto(readerPath(course, 0));
    const alert = page.getByRole('alert').filter({ hasText: 'Forbidden' });
    await expect.poll(() => alert.textContent()).toContain('You may not have permission to view this clip in full.');
    await expect.poll(() => page.locator('video').getAttribute('src')).toMatch(/\/preview$/);
    await shot(page, 'media-forbidden-1280');
  }, 60_000);
});
