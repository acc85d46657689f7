/**
 * Media players bench (docs/decisions.md "Media players"): the time from pressing play to the first frame on screen, in
 * the app's video screen against a plain page holding only `<video src>` of the same stream (the same URL, session
 * included, from the same server), in Chromium at 1280x800. The goal is at most 1.2x.
 *
 * A 60 s 640x360 H.264/AAC course part is made with ffmpeg and imported into a fresh server. Each run opens its page,
 * waits until the video has its metadata (both preload it), then presses play — the app's space key, the anchor's
 * button that calls play() — and takes the time from that key or click event to the first frame the video presents
 * (requestVideoFrameCallback). The browser's cache is off (each run fetches the ranges afresh). App and anchor runs
 * alternate in one browser; the first pair is a warm-up. The anchor page is served by the bench process itself
 * (Playwright's route), not by the app. Prints median and range of each and of the per-round ratio.
 *
 *   npm run build --silent && npx tsx bench/media-first-frame.ts        (ROUNDS=9 by default, at least 5)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM_LAUNCH, importBook, signIn, startFreshServer } from '../scripts/fresh-server.ts';
import { median, summary } from './stats.ts';

const ROUNDS = Math.max(5, Number(process.env.ROUNDS ?? 9));
const TITLE = 'First Frame Bench Course';

function makeCourse(dir: string): string {
  const folder = path.join(dir, TITLE);
  fs.mkdirSync(folder, { recursive: true });
  execFileSync('ffmpeg', [
    '-hide_banner', '-loglevel', 'error', '-y',
    '-f', 'lavfi', '-i', 'testsrc=size=640x360:rate=25:duration=60',
    '-f', 'lavfi', '-i', 'sine=frequency=440:duration=60',
    '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-preset', 'veryfast', '-c:a', 'aac', '-shortest', '-movflags', '+faststart',
    path.join(folder, '01-part.mp4'),
  ]);
  return folder;
}

/** Arms the measurement: the press (key or click) and the first frame presented after it. */
async function arm(page: Page) {
  await page.evaluate(() => {
    const w = window as unknown as { __press?: number; __frame?: number };
    w.__press = undefined;
    w.__frame = undefined;
    // (no named functions in here: tsx would wrap them in a helper the page does not have)
    window.addEventListener('keydown', (e) => void (w.__press ??= e.timeStamp), { capture: true, once: true });
    window.addEventListener('click', (e) => void (w.__press ??= e.timeStamp), { capture: true, once: true });
    // only a frame presented after the press counts (one presented before it, from loading, asks for the next)
    const video = document.querySelector('video')!;
    const ww = w as typeof w & { __onFrame?: (now: number) => void };
    ww.__onFrame = (now: number) => {
      if (w.__press === undefined || now < w.__press) video.requestVideoFrameCallback(ww.__onFrame!);
      else w.__frame = now;
    };
    video.requestVideoFrameCallback(ww.__onFrame);
  });
}

/** readyState of the video at each press, per side: what the browser had buffered when play was pressed. */
const readyStates: Record<'app' | 'plain', number[]> = { app: [], plain: [] };

async function measured(page: Page): Promise<number> {
  await page.waitForFunction(() => (window as unknown as { __frame?: number }).__frame !== undefined, null, { timeout: 30_000 });
  return page.evaluate(() => {
    const w = window as unknown as { __press: number; __frame: number };
    return w.__frame - w.__press;
  });
}

async function main() {
  const fresh = await startFreshServer({ dataDirPrefix: 'lectern-bench-media-', timeoutMs: 170_000 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-bench-media-files-'));
  importBook(fresh.dataDir, makeCourse(dir));
  fs.rmSync(dir, { recursive: true, force: true });
  const browser = await chromium.launch(CHROMIUM_LAUNCH);
  try {
    const context = await browser.newContext({ baseURL: fresh.base, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await signIn(page, fresh.email, fresh.password);
    const list = await (await page.request.get(`/api/v1/book/?page_size=100&q=${encodeURIComponent(TITLE)}`)).json();
    const book = (list.results as { title: string; api_url: string }[]).find((b) => b.title === TITLE);
    if (!book) throw new Error(`${TITLE} was not imported`);
    const detail = await (await page.request.get(book.api_url)).json();
    const appUrl: string = detail.chapters[0].web_url;
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });

    // The anchor: the same stream, session included, in a page of nothing but a video and a play button.
    let streamUrl = '';
    /** where the app's video stood when play was pressed (it resumes at the last run's position): the anchor's too */
    let startAt = 0;
    const anchorPath = '/__bench/plain-video.html';
    await page.route(`**${anchorPath}`, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><html lang="en"><title>plain video</title><body style="margin:0"><video src="${streamUrl}" preload="metadata" controls width="640" height="360"></video><button id="play" type="button">Play</button><script src="/__bench/plain-video.js"></script></body></html>`,
      }),
    );
    await page.route('**/__bench/plain-video.js', (route) =>
      route.fulfill({ contentType: 'text/javascript', body: `document.getElementById('play').addEventListener('click', () => document.querySelector('video').play());` }),
    );

    const runApp = async (): Promise<number> => {
      await page.goto(appUrl);
      await page.waitForFunction(() => /\?ks=/.test(document.querySelector('video')?.getAttribute('src') ?? '') && (document.querySelector('video')?.readyState ?? 0) >= 1);
      // past the resume check (500 ms after ready), so that it does not overlap the press
      await page.waitForTimeout(800);
      streamUrl = (await page.locator('video').getAttribute('src'))!;
      startAt = await page.locator('video').evaluate((v: HTMLVideoElement) => v.currentTime);
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await arm(page);
      readyStates.app.push(await page.locator('video').evaluate((v: HTMLVideoElement) => v.readyState));
      await page.keyboard.press(' ');
      return measured(page);
    };
    const runAnchor = async (): Promise<number> => {
      await page.goto(anchorPath);
      await page.waitForFunction(() => (document.querySelector('video')?.readyState ?? 0) >= 1);
      await page.evaluate(
        (t) =>
          new Promise<void>((resolve) => {
            const v = document.querySelector('video')!;
            if (t <= 0) return resolve();
            v.addEventListener('seeked', () => resolve(), { once: true });
            v.currentTime = t;
          }),
        startAt,
      );
      await page.waitForTimeout(800);
      await arm(page);
      readyStates.plain.push(await page.locator('video').evaluate((v: HTMLVideoElement) => v.readyState));
      await page.click('#play');
      return measured(page);
    };

    const app: number[] = [];
    const plain: number[] = [];
    for (let i = 0; i < ROUNDS + 1; i++) {
      const a = await runApp();
      const p = await runAnchor();
      if (i === 0) continue; // warm-up
      app.push(a);
      plain.push(p);
    }
    const ratios = app.map((a, i) => a / plain[i]!);
    console.log(`rounds: ${ROUNDS} (plus one warm-up), alternating; cache off; 60 s 640x360 H.264/AAC part`);
    console.log(`app video screen   play -> first frame: ${summary(app, 1)} ms  [${app.map((x) => x.toFixed(0)).join(', ')}]`);
    console.log(`plain <video src>  play -> first frame: ${summary(plain, 1)} ms  [${plain.map((x) => x.toFixed(0)).join(', ')}]`);
    console.log(`readyState at the press (app / plain): ${readyStates.app.join(',')} / ${readyStates.plain.join(',')}`);
    console.log(`ratio app/plain (per round): ${summary(ratios)}; of the medians ${(median(app) / median(plain)).toFixed(2)}`);
  } finally {
    await browser.close();
    await fresh.stop();
  }
}

await main();
