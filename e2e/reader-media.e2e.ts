/**
 * A book's own sound and video in a chapter (docs/decisions.md "A book's iframes"), in Chromium at 1280 and 390 px: the
 * fixture of packages/server/test/fixtures/media.ts (MP3, M4A and Opus <audio>, a <video> with WebM and MP4 sources) is
 * imported with the operators' command line and read. Every player is laid out with its controls (an <audio> was 0 px
 * high in the chapter frame), the MP3 plays when its play button is pressed, the others and the video play, and the
 * server answers the players' range requests with 206 Partial Content.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MEDIA_AUDIO, MEDIA_TITLE, mediaEpub } from '../packages/server/test/fixtures/media.ts';
import { CHROMIUM_LAUNCH, importBook } from '../scripts/fresh-server.ts';
import { signInAsDemo } from './browser.ts';

const baseURL = inject('baseURL');
const SHOTS = process.env.E2E_SHOTS_DIR;

let chapterUrl = '';
let bookId = '';

beforeAll(() => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-media-'));
  const file = path.join(folder, 'media.epub');
  fs.writeFileSync(file, mediaEpub());
  const out = importBook(inject('dataDir'), file);
  bookId = new RegExp(`imported\\s+(\\S+)\\s+"${MEDIA_TITLE}"`).exec(out)?.[1] ?? '';
  fs.rmSync(folder, { recursive: true, force: true });
  if (!bookId) throw new Error(`the media fixture was not imported: ${out}`);
});

interface PlayerBox {
  id: string;
  tag: string;
  controls: boolean;
  width: number;
  height: number;
}

/** The chapter frame's players with their laid-out size. */
function players(page: Page): Promise<PlayerBox[]> {
  return page.evaluate(() => {
    const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!;
    return Array.from(frame.contentDocument!.querySelectorAll<HTMLMediaElement>('audio, video')).map((el) => {
      const r = el.getBoundingClientRect();
      return { id: el.id, tag: el.tagName.toLowerCase(), controls: el.controls, width: r.width, height: r.height };
    });
  });
}

/** Resolves once the player has played on past its start ('playing', then a 'timeupdate' with time gone by). */
async function played(page: Page, id: string, start: () => Promise<unknown>): Promise<number> {
  await page.evaluate((id) => {
    const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!;
    const el = frame.contentDocument!.getElementById(id) as HTMLMediaElement;
    (window as unknown as Record<string, Promise<number>>)[`__played_${id}`] = new Promise((resolve) => {
      el.addEventListener('playing', () => {
        const onTime = () => {
          if (el.currentTime > 0) {
            el.removeEventListener('timeupdate', onTime);
            resolve(el.currentTime);
          }
        };
        el.addEventListener('timeupdate', onTime);
      }, { once: true });
    });
  }, id);
  await start();
  return page.evaluate((id) => (window as unknown as Record<string, Promise<number>>)[`__played_${id}`]!, id);
}

const playInFrame = (page: Page, id: string) =>
  page.evaluate((id) => {
    const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!;
    return (frame.contentDocument!.getElementById(id) as HTMLMediaElement).play();
  }, id);

describe.each([
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
])('sound and video in a chapter at $width px', (viewport) => {
  let browser: Browser;
  let page: Page;
  /** The status of every answer to a request for the book's audio or video, with the Range it asked for. */
  const mediaAnswers: { url: string; range: string | undefined; status: number }[] = [];

  beforeAll(async () => {
    // Playing without a press (the video, the second and third sound) as a reader's later presses would.
    browser = await chromium.launch({ ...CHROMIUM_LAUNCH, args: [...CHROMIUM_LAUNCH.args, '--autoplay-policy=no-user-gesture-required'] });
    const context = await browser.newContext({ baseURL, viewport, ...(viewport.width < 600 ? { isMobile: true, hasTouch: true } : {}) });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('response', (r) => {
      if (/\/chapter\/(audio|video)\//.test(r.url())) mediaAnswers.push({ url: r.url(), range: r.request().headers().range, status: r.status() });
    });
    await signInAsDemo(page);
    const book = await (await page.request.get(`/api/v1/book/${bookId}/`)).json();
    chapterUrl = book.chapters.find((c: { label: string }) => c.label === 'Listen and Watch').web_url;
  });
  afterAll(() => browser?.close());

  it('lays every player out with its controls, inside the column', async () => {
    await page.goto(chapterUrl);
    await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
    const boxes = await players(page);
    expect(boxes.map((b) => b.id)).toEqual([...MEDIA_AUDIO.map((a) => a.id), 'clip']);
    const frameWidth = await page.locator('iframe.chapter-view__frame').evaluate((f) => f.clientWidth);
    for (const b of boxes) {
      expect(b.controls, b.id).toBe(true);
      // Chromium's own player is 300x54 on a plain page; 0 px high had nothing to press.
      expect(b.height, `${b.id} height`).toBeGreaterThanOrEqual(b.tag === 'audio' ? 30 : 90);
      expect(b.width, `${b.id} width`).toBeGreaterThanOrEqual(150);
      expect(b.width, `${b.id} within the frame`).toBeLessThanOrEqual(frameWidth);
    }
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `reader-media-${viewport.width}.png`) });
  });

  it("plays the MP3 when its play button is pressed", async () => {
    const box = await page.evaluate(() => {
      const frame = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!;
      const f = frame.getBoundingClientRect();
      const r = frame.contentDocument!.getElementById('speech-mp3')!.getBoundingClientRect();
      return { x: f.left + r.left, y: f.top + r.top, width: r.width, height: r.height, frameBottom: f.bottom };
    });
    expect(box.y + box.height).toBeLessThanOrEqual(box.frameBottom);
    // Chromium's play button is the first control, at the player's left end.
    const time = await played(page, 'speech-mp3', () => page.mouse.click(box.x + 20, box.y + box.height / 2));
    expect(time).toBeGreaterThan(0);
  });

  it('plays the M4A, the Opus and the video', async () => {
    for (const id of ['speech-m4a', 'speech-opus', 'clip']) {
      const time = await played(page, id, () => playInFrame(page, id));
      expect(time, id).toBeGreaterThan(0);
    }
  });

  it('has the players fetch their files in ranges the server answers with 206', async () => {
    // The browser's own requests for the players' files: asked by range, answered in part.
    const ranged = mediaAnswers.filter((a) => a.range);
    expect(ranged.length).toBeGreaterThan(0);
    expect(ranged.filter((a) => a.status !== 206)).toEqual([]);
    // And as a client asks for one part of a file.
    for (const a of MEDIA_AUDIO) {
      const url = `/api/v1/book/${bookId}/chapter/${a.path}`;
      const whole = await page.request.get(url);
      expect(whole.status()).toBe(200);
      expect(whole.headers()['accept-ranges']).toBe('bytes');
      const size = (await whole.body()).length;
      const part = await page.request.get(url, { headers: { range: 'bytes=100-199' } });
      expect(part.status(), a.path).toBe(206);
      expect(part.headers()['content-range']).toBe(`bytes 100-199/${size}`);
      expect(part.headers()['content-type']).toBe(a.type);
      expect((await part.body()).equals((await whole.body()).subarray(100, 200))).toBe(true);
      const tail = await page.request.get(url, { headers: { range: 'bytes=-10' } });
      expect(tail.status()).toBe(206);
      expect(tail.headers()['content-range']).toBe(`bytes ${size - 10}-${size - 1}/${size}`);
      const beyond = await page.request.get(url, { headers: { range: `bytes=${size + 10}-` } });
      expect(beyond.status()).toBe(416);
    }
  });
});
