/**
 * Read aloud in Chromium (docs/decisions.md "Read aloud"): the media-overlay fixture of
 * packages/server/test/fixtures/read-aloud.ts is imported with the operators' command line and read aloud. The
 * highlighted phrase follows the audio clock (sampled against the <audio> element's currentTime), the speed sets the
 * playbackRate, "Next phrase" moves on, and the end of chapter one goes on into chapter two, with the book's
 * media:active-class on the phrase. Skippability and escapability (chapter two: a page number, a two-row table, a
 * footnote): with "Skip extras" on (remembered across a reload) no skippable phrase is ever highlighted, and the audio
 * is sought past them; Escape (the E key and the button) inside the table moves the highlight to the phrase after it,
 * playing or paused. At 390 px the bar fits, with the escape button and the setting shown (a screenshot in
 * .tmp/screens/). The book's media:playback-active-class greys the text while playing (its rule on <html> reaches the
 * body) in day mode, not in night mode, and not once paused or stopped. A book without overlays is read by the
 * browser's speech synthesis: headless Chromium has no voice, so the test checks what it can (the utterances asked for,
 * with the book's language and the speed; the block highlighted; the sentence and the next block following `boundary`
 * and `end` events fired on those utterances; stop cancels).
 *
 * The audio element the player makes is found through a wrapper of HTMLMediaElement.play installed before the app
 * loads, and speechSynthesis.speak is recorded the same way (test instrumentation, not a stand-in: the real calls go
 * through).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { READ_ALOUD_MESSAGES } from '@lectern/core';
import { unzipSync } from 'fflate';
import { PHRASES, PHRASE_SECONDS, readAloudEpub } from '../packages/server/test/fixtures/read-aloud.ts';
import { minimalEpub3, xhtml } from '../packages/server/test/ingest/helpers.ts';
import { importBook } from '../scripts/fresh-server.ts';
import { openPage, seriousViolations, signInAsDemo } from './browser.ts';

const SCREENS = path.join(import.meta.dirname, '..', '.tmp', 'screens');
const M = READ_ALOUD_MESSAGES;

let bookId = '';
let speechBookId = '';

beforeAll(() => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-read-aloud-'));
  const file = path.join(folder, 'read-aloud.epub');
  fs.writeFileSync(file, readAloudEpub());
  const out = importBook(inject('dataDir'), file);
  bookId = /imported\s+(\S+)\s+"Read Aloud Fixture"/.exec(out)?.[1] ?? '';
  // A book without overlays, in German: read by the browser's voice.
  const speechFile = path.join(folder, 'speech.epub');
  const opf = new TextDecoder()
    .decode(unzipSync(minimalEpub3())['OEBPS/content.opf']!)
    .replace('A Small Book', 'Speech Fixture')
    .replace('<dc:language>en-GB</dc:language>', '<dc:language>de</dc:language>')
    .replace('urn:uuid:5a1e0c3e-0000-4000-8000-000000000001', 'urn:uuid:5a1e0c3e-0000-4000-8000-0000000000cc');
  const chapter = xhtml('Kapitel Eins', '<h1>Eins</h1><p id="first">Der erste Satz. Der zweite Satz.</p><p id="second">Ein zweiter Absatz.</p>');
  fs.writeFileSync(speechFile, minimalEpub3({ 'OEBPS/content.opf': opf, 'OEBPS/text/chapter 1.xhtml': chapter }));
  speechBookId = /imported\s+(\S+)\s+"Speech Fixture"/.exec(importBook(inject('dataDir'), speechFile))?.[1] ?? '';
  fs.rmSync(folder, { recursive: true, force: true });
  if (!bookId || !speechBookId) throw new Error(`the fixtures were not imported: ${out}`);
});

/**
 * Before the app: keep every media element that plays, and every utterance spoken or cancelled. `speak` false: the
 * utterances are kept but not handed to the machine's speech engine (which, without a voice, fails them at once).
 */
const INSTRUMENT = (forward = true) => {
  const w = window as unknown as { __media: HTMLMediaElement[]; __spoken: SpeechSynthesisUtterance[]; __cancels: number };
  w.__media = [];
  w.__spoken = [];
  w.__cancels = 0;
  const play = HTMLMediaElement.prototype.play;
  HTMLMediaElement.prototype.play = function (this: HTMLMediaElement) {
    if (!w.__media.includes(this)) w.__media.push(this);
    return play.call(this);
  };
  if (window.speechSynthesis) {
    const speak = speechSynthesis.speak.bind(speechSynthesis);
    const cancel = speechSynthesis.cancel.bind(speechSynthesis);
    speechSynthesis.speak = (u: SpeechSynthesisUtterance) => {
      w.__spoken.push(u);
      if (forward) speak(u);
    };
    speechSynthesis.cancel = () => {
      w.__cancels++;
      cancel();
    };
  }
};

/** The highlighted phrase in the chapter frame: the id of the element the read-aloud highlight covers. */
function highlighted(page: Page): Promise<{ id: string | null; text: string }> {
  return page.evaluate(() => {
    const doc = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')?.contentDocument;
    const win = doc?.defaultView as (Window & { CSS: { highlights: Map<string, Set<Range>> } }) | undefined;
    const set = win?.CSS.highlights.get('lectern-read-aloud');
    const range = set ? [...set][0] : undefined;
    if (!range) return { id: null, text: '' };
    const node = range.commonAncestorContainer;
    const element = (node.nodeType === 1 ? node : node.parentNode) as Element;
    return { id: element.closest('[id]')?.id ?? null, text: range.toString() };
  });
}

function audioClock(page: Page) {
  return page.evaluate(() => {
    const media = (window as unknown as { __media: HTMLMediaElement[] }).__media;
    const a = media[media.length - 1];
    return a ? { t: a.currentTime, rate: a.playbackRate, src: a.currentSrc, paused: a.paused } : null;
  });
}

/**
 * The playing clip's next `timeupdate` (or its pause or end); a frame when nothing plays. The pace of a loop that
 * samples the audio clock and the highlight together.
 */
function audioTick(page: Page) {
  return page.evaluate(
    () =>
      new Promise<void>((done) => {
        const playing = (window as unknown as { __media: HTMLMediaElement[] }).__media.find((m) => !m.paused && !m.ended);
        if (!playing) return void requestAnimationFrame(() => done());
        for (const type of ['timeupdate', 'pause', 'ended']) playing.addEventListener(type, () => done(), { once: true });
      }),
  );
}

async function openChapter(page: Page, book: string, fullPath: string, label: string, hash = '') {
  const detail = await (await page.request.get(`/api/v1/book/${book}/`)).json();
  const chapter = (detail.chapters as { full_path: string; web_url: string }[]).find((c) => c.full_path === fullPath)!;
  await page.goto(chapter.web_url + hash);
  await page.waitForFunction((l) => document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')?.contentDocument?.title === l, label);
}

describe('read aloud with media overlays, at 1280 px', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ browser, page } = await openPage({ width: 1280, height: 800 }));
    page.setDefaultTimeout(20_000);
    await page.addInitScript(INSTRUMENT, true);
    await signInAsDemo(page);
  });
  afterAll(() => browser?.close());

  it('highlights the phrase the audio clock is in, changes speed and skips, and goes on into the next chapter', async () => {
    await openChapter(page, bookId, 'text/one.xhtml', 'Chapter One');
    await page.getByRole('button', { name: READ_ALOUD_MESSAGES.button }).click();
    const bar = page.getByRole('region', { name: READ_ALOUD_MESSAGES.bar });
    await bar.getByText(READ_ALOUD_MESSAGES.narration).waitFor();
    await page.waitForFunction(() => (window as unknown as { __media: HTMLMediaElement[] }).__media.some((m) => !m.paused && m.currentTime > 0));
    // the play button became "Pause", and has the focus
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(READ_ALOUD_MESSAGES.pause);

    // Sample the clock and the highlight together: away from a phrase's edges, the phrase is the clock's.
    const phrases = PHRASES['text/one.xhtml'];
    const seen = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const [clock, mark] = await Promise.all([audioClock(page), highlighted(page)]);
      if (!clock || clock.src.endsWith('two.wav')) break;
      const into = clock.t / PHRASE_SECONDS;
      if (into - Math.floor(into) > 0.15 && into - Math.floor(into) < 0.85 && mark.id) {
        expect(mark.id, `at ${clock.t.toFixed(2)} s`).toBe(phrases[Math.floor(into)]);
        seen.add(mark.id);
      }
      if (seen.size >= 2) break;
      await audioTick(page);
    }
    expect(seen.size).toBeGreaterThanOrEqual(2);

    // Speed: the spec's speeds, and the audio's playbackRate follows.
    const options = await bar.getByRole('combobox').locator('option').allTextContents();
    expect(options).toEqual(['0.5×', '0.75×', '1×', '1.25×', '1.5×', '1.75×', '2×']);
    await bar.getByRole('combobox').selectOption('0.5');
    expect((await audioClock(page))!.rate).toBe(0.5);

    // Skip: pause, then "Next phrase" moves the highlight on; play resumes from that phrase's clip.
    await bar.getByRole('button', { name: READ_ALOUD_MESSAGES.pause }).click();
    const before = (await highlighted(page)).id!;
    const next = phrases[phrases.indexOf(before as (typeof phrases)[number]) + 1];
    if (next) {
      await bar.getByRole('button', { name: READ_ALOUD_MESSAGES.next }).click();
      expect((await highlighted(page)).id).toBe(next);
      await bar.getByRole('button', { name: READ_ALOUD_MESSAGES.play }).click();
      await page.waitForFunction(() => {
        const media = (window as unknown as { __media: HTMLMediaElement[] }).__media;
        return !media[media.length - 1]!.paused;
      });
      const clock = (await audioClock(page))!;
      expect(clock.t).toBeGreaterThanOrEqual(phrases.indexOf(next as (typeof phrases)[number]) * PHRASE_SECONDS - 0.05);
    }
    await bar.getByRole('combobox').selectOption('2');
    expect((await audioClock(page))!.rate).toBe(2);

    // The end of chapter one: chapter two opens, its narration plays, its phrases are highlighted.
    await page.waitForURL(/text\/two\.xhtml/, { timeout: 20_000 });
    await page.waitForFunction(() => {
      const media = (window as unknown as { __media: HTMLMediaElement[] }).__media;
      const a = media[media.length - 1];
      return !!a && a.currentSrc.endsWith('two.wav') && !a.paused;
    });
    await page.waitForFunction(() => {
      const doc = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')?.contentDocument;
      return !!doc?.querySelector('#two-1.-epub-media-overlay-active, #cell-1.-epub-media-overlay-active');
    });
    const mark = await highlighted(page);
    expect(PHRASES['text/two.xhtml']).toContain(mark.id);
    // the book's own style for its active class applies
    const colour = await page.evaluate(() => {
      const doc = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentDocument!;
      const el = doc.querySelector('.-epub-media-overlay-active')!;
      return doc.defaultView!.getComputedStyle(el).color;
    });
    expect(colour).toBe('rgb(200, 0, 0)');
    // the speed carried over
    expect((await audioClock(page))!.rate).toBe(2);

    // Stop: the sound stops, the highlight goes, the bar closes and the focus is back on its button.
    await bar.getByRole('button', { name: READ_ALOUD_MESSAGES.stop }).click();
    expect((await audioClock(page))!.paused).toBe(true);
    expect((await highlighted(page)).id).toBeNull();
    expect(await bar.count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(READ_ALOUD_MESSAGES.button);
  });

  it('brings a phrase off the screen into view, in scroll and in paged mode', async () => {
    const inView = () =>
      page.evaluate(() => {
        const doc = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentDocument!;
        const r = doc.getElementById('one-4')!.getBoundingClientRect();
        const win = doc.defaultView!;
        return r.top >= 0 && r.bottom <= win.innerHeight && r.left >= 0 && r.right <= win.innerWidth;
      });
    for (const mode of ['scroll', 'page'] as const) {
      if (mode === 'page') {
        await page.getByRole('button', { name: 'Display settings' }).click();
        await page.getByRole('button', { name: 'Pages', exact: true }).click();
        await page.keyboard.press('Escape');
      }
      await openChapter(page, bookId, 'text/one.xhtml', 'Chapter One');
      // back to its start (the place read aloud reached before is the reader's position: it opens there)
      await page.evaluate(() => {
        const doc = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentDocument!;
        doc.scrollingElement!.scrollTop = 0;
        doc.scrollingElement!.scrollLeft = 0;
      });
      await expect.poll(inView).toBe(false);
      await page.getByRole('button', { name: READ_ALOUD_MESSAGES.button }).click();
      const bar = page.getByRole('region', { name: READ_ALOUD_MESSAGES.bar });
      await bar.getByRole('button', { name: READ_ALOUD_MESSAGES.pause }).click();
      while ((await highlighted(page)).id !== 'one-4') await bar.getByRole('button', { name: READ_ALOUD_MESSAGES.next }).click();
      await expect
        .poll(
          () =>
            page.evaluate(() => {
              const doc = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentDocument!;
              const r = doc.getElementById('one-4')!.getBoundingClientRect();
              const win = doc.defaultView!;
              return { top: Math.round(r.top), bottom: Math.round(r.bottom), left: Math.round(r.left), right: Math.round(r.right), width: win.innerWidth, height: win.innerHeight, inView: r.top >= 0 && r.bottom <= win.innerHeight && r.left >= 0 && r.right <= win.innerWidth };
            }),
          { timeout: 5000 },
        )
        .toMatchObject({ inView: true });
      expect(await inView(), mode).toBe(true);
      await bar.getByRole('button', { name: READ_ALOUD_MESSAGES.stop }).click();
    }
  });

  it("greys the text in the book's colour for its playback-active class while playing, in day mode only", async () => {
    // the fixture's book.css: `.-epub-media-overlay-playing { color: rgb(150, 150, 150) }` (W3C mol-css's
    // `.rendered-with-mo { color: #999 }`), set on the chapter's <html> while playing
    const colours = () =>
      page.evaluate(() => {
        const doc = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentDocument!;
        const win = doc.defaultView!;
        const plain = doc.querySelectorAll('#lectern-root p')[1]!; // "Text the narration does not read"
        const active = doc.querySelector('.-epub-media-overlay-active');
        return {
          title: doc.title,
          playing: doc.documentElement.classList.contains('-epub-media-overlay-playing'),
          body: win.getComputedStyle(doc.body).color,
          plain: win.getComputedStyle(plain).color,
          active: active ? win.getComputedStyle(active).color : null,
        };
      });
    const mode = async (name: 'Day' | 'Night') => {
      await page.getByRole('button', { name: 'Display settings' }).click();
      await page.getByRole('button', { name, exact: true }).click();
      await page.keyboard.press('Escape');
    };
    const bar = page.getByRole('region', { name: M.bar });
    for (const [name, text] of [
      ['Day', 'rgb(27, 27, 27)'],
      ['Night', 'rgb(216, 220, 223)'],
    ] as const) {
      await mode(name);
      await openChapter(page, bookId, 'text/one.xhtml', 'Chapter One');
      await page.evaluate(() => {
        const doc = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentDocument!;
        doc.scrollingElement!.scrollTop = 0;
        doc.scrollingElement!.scrollLeft = 0;
      });
      await expect.poll(colours).toMatchObject({ playing: false, body: text, plain: text });
      await page.getByRole('button', { name: M.button }).click();
      await bar.getByRole('combobox').selectOption('0.5');
      // Day: the text greyed, the phrase read in the book's active colour; night keeps the theme's colours.
      const grey = name === 'Day' ? 'rgb(150, 150, 150)' : text;
      await expect.poll(colours).toMatchObject({ title: 'Chapter One', playing: true, body: grey, plain: grey, active: name === 'Day' ? 'rgb(200, 0, 0)' : text });
      // paused: the theme's colour again; playing again: grey
      await bar.getByRole('button', { name: M.pause }).click();
      await expect.poll(colours).toMatchObject({ playing: false, body: text, plain: text });
      await bar.getByRole('button', { name: M.play }).click();
      await expect.poll(colours).toMatchObject({ playing: true, plain: grey });
      // stopped: the theme's colour
      await bar.getByRole('button', { name: M.stop }).click();
      await expect.poll(colours).toMatchObject({ playing: false, body: text, plain: text, active: null });
    }
    await mode('Day');
  });

  it('stops when the reader is left', async () => {
    await openChapter(page, bookId, 'text/one.xhtml', 'Chapter One');
    await page.getByRole('button', { name: READ_ALOUD_MESSAGES.button }).click();
    await page.waitForFunction(() => (window as unknown as { __media: HTMLMediaElement[] }).__media.some((m) => !m.paused));
    await page.getByRole('link', { name: 'Read Aloud Fixture' }).click();
    await page.waitForURL((url) => !url.pathname.includes('/library/view/'));
    await page.waitForFunction(() => (window as unknown as { __media: HTMLMediaElement[] }).__media.every((m) => m.paused));
  });
});

/**
 * Records, in the app's window, every phrase element of the chapter frame that is given the book's active class and
 * every element the read-aloud highlight covers at each animation frame, until the page is left.
 */
function recordHighlights(page: Page) {
  return page.evaluate(() => {
    const w = window as unknown as { __marked: string[]; __sampled: string[] };
    w.__marked = [];
    w.__sampled = [];
    const doc = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentDocument!;
    const active = '-epub-media-overlay-active';
    new MutationObserver((records) => {
      for (const r of records) {
        const el = r.target as Element;
        if (el.id && !(r.oldValue ?? '').split(/\s+/).includes(active)) w.__marked.push(el.id);
      }
    }).observe(doc.body, { subtree: true, attributes: true, attributeFilter: ['class'], attributeOldValue: true });
    const sample = () => {
      const frameDoc = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')?.contentDocument;
      const set = (frameDoc?.defaultView as (Window & { CSS: { highlights: Map<string, Set<Range>> } }) | undefined)?.CSS.highlights.get('lectern-read-aloud');
      const range = set ? [...set][0] : undefined;
      if (range) {
        const node = range.commonAncestorContainer;
        const id = ((node.nodeType === 1 ? node : node.parentNode) as Element).closest('[id]')?.id;
        if (id && w.__sampled[w.__sampled.length - 1] !== id) w.__sampled.push(id);
      }
      requestAnimationFrame(sample);
    };
    requestAnimationFrame(sample);
  });
}

describe('skipping and escaping structures (chapter two: a page number, a table, a note), at 1280 px', () => {
  let browser: Browser;
  let page: Page;
  const skippable = ['page-2', 'cell-1', 'cell-2', 'cell-3', 'cell-4', 'note-1'];

  beforeAll(async () => {
    ({ browser, page } = await openPage({ width: 1280, height: 800 }));
    page.setDefaultTimeout(20_000);
    await page.addInitScript(INSTRUMENT, true);
    await signInAsDemo(page);
  });
  afterAll(() => browser?.close());

  const bar = () => page.getByRole('region', { name: M.bar });
  const escapeButton = (structure: string) => bar().getByRole('button', { name: M.escape(structure) });
  const status = () => bar().getByRole('status');
  const next = async (id: string) => {
    for (let i = 0; i < 12 && (await highlighted(page)).id !== id; i++) await bar().getByRole('button', { name: M.next }).click();
    expect((await highlighted(page)).id).toBe(id);
  };

  it('offers escape only inside the table and the note; E and the button go on after them, paused or playing', async () => {
    await openChapter(page, bookId, 'text/two.xhtml', 'Chapter Two');
    await page.getByRole('button', { name: M.button }).click();
    await bar().getByText(M.narration).waitFor();
    // off by default: the page number is read
    expect(await bar().getByRole('checkbox', { name: M.skip }).isChecked()).toBe(false);
    await bar().getByRole('button', { name: M.pause }).click();
    await next('two-1');
    expect(await bar().getByRole('button', { name: /^Skip to after/ }).count()).toBe(0);

    // Paused in the table's first cell: the button names the table; the E key leaves it (the focus is on "Next phrase").
    await next('cell-1');
    await escapeButton('table').waitFor();
    fs.mkdirSync(SCREENS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENS, 'read-aloud-bar-1280.png') });
    expect(await escapeButton('table').getAttribute('aria-keyshortcuts')).toBe('E');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(M.next);
    await page.keyboard.press('e');
    expect((await highlighted(page)).id).toBe('two-2');
    await expect.poll(() => status().textContent()).toBe(M.escaped('table'));
    expect(await escapeButton('table').count()).toBe(0);

    // The note: its own button, clicked.
    await next('note-1');
    await escapeButton('footnote').click();
    expect((await highlighted(page)).id).toBe('two-3');
    await expect.poll(() => status().textContent()).toBe(M.escaped('footnote'));

    // Playing, in the table's second row: escape leaves the whole table (not the row), and the audio goes with it.
    for (let i = 0; i < 12 && (await highlighted(page)).id !== 'cell-3'; i++) await bar().getByRole('button', { name: M.previous }).click();
    expect((await highlighted(page)).id).toBe('cell-3');
    await bar().getByRole('button', { name: M.play }).click();
    await bar().getByRole('button', { name: M.pause }).waitFor();
    await escapeButton('table').waitFor();
    await page.keyboard.press('E');
    await expect.poll(async () => (await highlighted(page)).id).toBe('two-2');
    await page.waitForFunction(() => {
      const media = (window as unknown as { __media: HTMLMediaElement[] }).__media;
      const a = media[media.length - 1]!;
      return !a.paused && a.currentTime >= 6 - 0.05;
    });
    await bar().getByRole('button', { name: M.stop }).click();
  });

  it('with "Skip extras" on (remembered across a reload), never highlights the page number, the table or the note', async () => {
    await openChapter(page, bookId, 'text/two.xhtml', 'Chapter Two');
    await page.getByRole('button', { name: M.button }).click();
    await bar().getByRole('button', { name: M.pause }).click();
    const box = bar().getByRole('checkbox', { name: M.skip });
    // a native checkbox, described by what it skips, operated by the keyboard
    expect(await box.getAttribute('aria-describedby')).toBeTruthy();
    await box.focus();
    await page.keyboard.press('Space');
    expect(await box.isChecked()).toBe(true);
    await expect.poll(() => status().textContent()).toBe(M.skipOn);
    expect(await page.evaluate(() => localStorage.getItem('lectern.readAloudSkip'))).toBe('1');
    await bar().getByRole('button', { name: M.stop }).click();

    // A new visit: the chapter from its top, the setting as it was left.
    await openChapter(page, bookId, 'text/two.xhtml', 'Chapter Two');
    await page.evaluate(() => {
      const doc = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentDocument!;
      doc.scrollingElement!.scrollTop = 0;
    });
    await recordHighlights(page);
    await page.getByRole('button', { name: M.button }).click();
    expect(await bar().getByRole('checkbox', { name: M.skip }).isChecked()).toBe(true);
    // Sample the clock and the highlight: two-2 is read from its own clip (the table's four seconds are not played).
    let sawTwo2 = false;
    for (let i = 0; i < 200 && !page.url().includes('three.xhtml'); i++) {
      const [clock, mark] = await Promise.all([audioClock(page), highlighted(page)]);
      expect(skippable, `at ${clock?.t.toFixed(2)} s`).not.toContain(mark.id);
      if (clock && clock.src.endsWith('two.wav') && mark.id === 'two-2' && clock.t - Math.floor(clock.t) > 0.15) {
        expect(Math.floor(clock.t)).toBe(6);
        sawTwo2 = true;
      }
      await audioTick(page);
    }
    // the end of chapter two: on into chapter three
    await page.waitForURL(/text\/three\.xhtml/);
    expect(sawTwo2).toBe(true);
    const { marked, sampled } = await page.evaluate(() => {
      const w = window as unknown as { __marked: string[]; __sampled: string[] };
      return { marked: w.__marked, sampled: w.__sampled };
    });
    expect(marked.filter((id) => skippable.includes(id))).toEqual([]);
    expect(marked).toEqual(expect.arrayContaining(['two-1', 'two-2', 'two-3']));
    expect(sampled.filter((id) => skippable.includes(id))).toEqual([]);
    expect(sampled).toEqual(expect.arrayContaining(['two-1', 'two-2', 'two-3']));
    await bar().getByRole('button', { name: M.stop }).click();
  });
});

describe('read aloud at 390 px', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ browser, page } = await openPage({ width: 390, height: 844 }));
    await page.addInitScript(INSTRUMENT, true);
    await signInAsDemo(page);
  });
  afterAll(() => browser?.close());

  it('fits the bar and the toolbar on a phone, every control whole and reachable, with no serious axe violation', async () => {
    await openChapter(page, bookId, 'text/one.xhtml', 'Chapter One');
    await page.getByRole('button', { name: READ_ALOUD_MESSAGES.button }).click();
    const bar = page.getByRole('region', { name: READ_ALOUD_MESSAGES.bar });
    await bar.waitFor();
    // by keyboard: Tab from the play button reaches "Next phrase"
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(READ_ALOUD_MESSAGES.next);
    await bar.getByRole('button', { name: READ_ALOUD_MESSAGES.stop }).click();

    // Chapter two, paused in the table: every control of the bar is shown (the escape button and "Skip extras" too).
    await openChapter(page, bookId, 'text/two.xhtml', 'Chapter Two');
    await page.getByRole('button', { name: READ_ALOUD_MESSAGES.button }).click();
    await bar.getByRole('button', { name: READ_ALOUD_MESSAGES.pause }).click();
    for (let i = 0; i < 12 && (await highlighted(page)).id !== 'cell-1'; i++) await bar.getByRole('button', { name: READ_ALOUD_MESSAGES.next }).click();
    await bar.getByRole('button', { name: READ_ALOUD_MESSAGES.escape('table') }).waitFor();
    await bar.getByRole('checkbox', { name: READ_ALOUD_MESSAGES.skip }).waitFor();
    fs.mkdirSync(SCREENS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENS, 'read-aloud-bar-390.png') });
    const boxes = await page.evaluate(() =>
      Array.from(document.querySelectorAll('.read-aloud button, .read-aloud select, .read-aloud__skip, .reader-toolbar .reader-iconbtn')).map((e) => {
        const r = e.getBoundingClientRect();
        return { name: e.getAttribute('aria-label') ?? e.tagName, left: r.left, right: r.right, width: r.width, height: r.height };
      }),
    );
    for (const b of boxes) {
      expect(b.left, b.name).toBeGreaterThanOrEqual(0);
      expect(b.right, b.name).toBeLessThanOrEqual(390);
      expect(b.height, b.name).toBeGreaterThanOrEqual(44);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await page.evaluate(() => document.querySelector('.read-aloud')!.scrollWidth <= document.querySelector('.read-aloud')!.clientWidth)).toBe(true);
    // the controls in one row (escape among them), the speed and "Skip extras" in one row under them
    const rowOf = (selector: string) =>
      page.evaluate((sel) => [...new Set(Array.from(document.querySelectorAll(sel)).map((e) => Math.round(e.getBoundingClientRect().top + e.getBoundingClientRect().height / 2)))], selector);
    const controls = await rowOf('.read-aloud > button');
    const settings = await rowOf('.read-aloud__settings select, .read-aloud__skip');
    expect(controls).toHaveLength(1);
    expect(settings).toHaveLength(1);
    expect(settings[0]!).toBeGreaterThan(controls[0]!);
    expect(await page.evaluate(() => document.querySelectorAll('.read-aloud > button').length)).toBe(5);
    expect(await seriousViolations(page)).toEqual([]);
  });
});

describe('read aloud by the browser’s voice (a book without overlays)', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ browser, page } = await openPage({ width: 1280, height: 800 }));
    await signInAsDemo(page);
  });
  afterAll(() => browser?.close());

  it('asks the machine’s speech engine for the first block, in the book’s language; with no voice, says so', async () => {
    await page.addInitScript(INSTRUMENT, true);
    await openChapter(page, speechBookId, 'text/chapter 1.xhtml', 'Part One');
    await page.getByRole('button', { name: READ_ALOUD_MESSAGES.button }).click();
    const bar = page.getByRole('region', { name: READ_ALOUD_MESSAGES.bar });
    await bar.getByText(READ_ALOUD_MESSAGES.voice).waitFor();
    await page.waitForFunction(() => (window as unknown as { __spoken: unknown[] }).__spoken.length > 0);
    const first = await page.evaluate(() => {
      const u = (window as unknown as { __spoken: SpeechSynthesisUtterance[] }).__spoken[0]!;
      return { text: u.text, lang: u.lang, voices: speechSynthesis.getVoices().length };
    });
    expect(first).toMatchObject({ text: 'Eins', lang: 'de' });
    if (first.voices === 0) {
      // Chromium without a voice fails the utterance: the bar says why, and play is offered again.
      await bar.getByText(READ_ALOUD_MESSAGES.noVoice).waitFor();
      await bar.getByRole('button', { name: READ_ALOUD_MESSAGES.play }).waitFor();
    } else {
      await bar.getByRole('button', { name: READ_ALOUD_MESSAGES.pause }).waitFor();
    }
    await bar.getByRole('button', { name: READ_ALOUD_MESSAGES.stop }).click();
    expect(await bar.count()).toBe(0);
  });

  it('speaks block by block, the highlight following the voice’s events (fired on the utterances)', async () => {
    await page.addInitScript(INSTRUMENT, false);
    await openChapter(page, speechBookId, 'text/chapter 1.xhtml', 'Part One');
    await page.getByRole('button', { name: READ_ALOUD_MESSAGES.button }).click();
    const bar = page.getByRole('region', { name: READ_ALOUD_MESSAGES.bar });
    await bar.getByText(READ_ALOUD_MESSAGES.voice).waitFor();
    const spoken = () => page.evaluate(() => (window as unknown as { __spoken: SpeechSynthesisUtterance[] }).__spoken.map((u) => ({ text: u.text, lang: u.lang, rate: u.rate })));
    await page.waitForFunction(() => (window as unknown as { __spoken: unknown[] }).__spoken.length > 0);
    // the first block in view: the heading; in the book's language
    expect((await spoken())[0]).toEqual({ text: 'Eins', lang: 'de', rate: 1 });
    expect((await highlighted(page)).text).toBe('Eins');

    // "Next phrase": the next block is spoken and highlighted
    await bar.getByRole('button', { name: READ_ALOUD_MESSAGES.next }).click();
    await page.waitForFunction(() => (window as unknown as { __spoken: SpeechSynthesisUtterance[] }).__spoken.some((u) => u.text.startsWith('Der erste Satz')));
    expect(await highlighted(page)).toEqual({ id: 'first', text: 'Der erste Satz. Der zweite Satz.' });

    // The voice's events (fired here on the utterance itself when the machine has no voice to fire them): a
    // sentence boundary narrows the highlight to that sentence, the end moves on to the next block.
    const fire = (type: 'boundary' | 'end', charIndex: number) =>
      page.evaluate(
        ({ type, charIndex }) => {
          const list = (window as unknown as { __spoken: SpeechSynthesisUtterance[] }).__spoken;
          const u = list[list.length - 1]!;
          u.dispatchEvent(new SpeechSynthesisEvent(type, { utterance: u, charIndex, name: 'word' }));
        },
        { type, charIndex },
      );
    await fire('boundary', 20);
    expect((await highlighted(page)).text).toBe('Der zweite Satz.');
    await fire('end', 0);
    await page.waitForFunction(() => (window as unknown as { __spoken: SpeechSynthesisUtterance[] }).__spoken.some((u) => u.text === 'Ein zweiter Absatz.'));
    expect((await highlighted(page)).id).toBe('second');

    // Speed: the block starts again at the new rate.
    await bar.getByRole('combobox').selectOption('1.75');
    await page.waitForFunction(() => (window as unknown as { __spoken: SpeechSynthesisUtterance[] }).__spoken.some((u) => u.rate === 1.75));

    // Stop: the voice is cancelled, the highlight goes.
    const cancels = await page.evaluate(() => (window as unknown as { __cancels: number }).__cancels);
    await bar.getByRole('button', { name: READ_ALOUD_MESSAGES.stop }).click();
    expect(await page.evaluate(() => (window as unknown as { __cancels: number }).__cancels)).toBeGreaterThan(cancels);
    expect((await highlighted(page)).text).toBe('');
  });
});
