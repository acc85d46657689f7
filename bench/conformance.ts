/**
 * Reading-system conformance harness (docs/decisions.md "Reading fidelity: the importer's half"): runs a folder of test
 * publications — in practice the W3C EPUB 3 test suite's reading-system tests (w3c/epub-tests), each rebuilt as an
 * .epub — through the real Lectern, and records what a judge needs to decide each test against its own pass criterion.
 * The corpus stays out of this repository; only this harness and the judged results (docs/conformance.md) are kept.
 *
 * For each `<test-id>.epub` in the folder (argument, else EPUB_TESTS_DIR, else /tmp/epub-tests):
 *  1. imports it into a fresh data directory with the real importer, called as the operators' command line calls it
 *     (`lectern import`: buildServices(loadConfig()) on that DATA_DIR, then `importer.importPaths([file])`, in this
 *     process rather than one process per file), recording whether the import succeeded, its warnings or its reason;
 *  2. with the built app (`npm run build --silent` first) started on that data directory as on a fresh install,
 *     signs the demo account in with headless Chromium (scripts/fresh-server.ts' launch flags and sign-in) at
 *     1280x800, opens the title's first chapter in the reader and takes `<test-id>.png`; then each further reading-order
 *     item, up to six, by its reader address (`<test-id>-2.png`, …); the contents panel (`<test-id>-toc.png`) and,
 *     when it has two entries or more, where activating the last one leads (`<test-id>-tocnav.png`); the title page
 *     (`<test-id>-title.png`); and, when the first chapter has a link with id "go", follows it inside the chapter frame
 *     (`<test-id>-link.png`);
 *  3. probes each chapter frame for what mechanical criteria need: the document's lang and dir, the computed
 *     direction, the fonts the document loaded and their status, the computed CSS properties EPUB defines (writing
 *     mode, text orientation, emphasis, hyphens, line and word breaking, last-line alignment, underline position,
 *     text transform, combine-upright) of every element whose value differs from its body's, the style attributes
 *     the sanitiser kept, MathML/SVG/image/media counts (images with their natural width) and the visible text;
 *  4. writes everything to `<shots>/results.json` (SHOTS_DIR, else /tmp/epub-tests-shots): per test the import
 *     outcome, the book's chapters and contents as the API gives them, page progression, each chapter's rendition,
 *     the probes and the screenshots' names.
 *  5. for a test whose id starts with `mol-` (media overlays), reads aloud as a person would: opens the first chapter
 *     whose archive item has a `media_overlay` (else the second reading-order item, or the first), presses "Read
 *     aloud", sets the speed (READ_ALOUD_SPEED, default 2, to halve the wait) and samples every 200 ms, for up to
 *     READ_ALOUD_SECONDS (default 90), the audio element's source, clock and state, the highlighted element (the
 *     Custom Highlight's range, the book's active class), the playback-active class on the document, the chapter
 *     and the bar's status line, keeping each change (`read_aloud.timeline`), the utterances asked of the browser's
 *     speech synthesis, and screenshots (`<test-id>-ra-*.png`). The media elements and utterances are found as
 *     e2e/read-aloud.e2e.ts finds them (a wrapper of HTMLMediaElement.play and speechSynthesis.speak installed
 *     before the app; the real calls go through). `mol-navigation` also opens the contents panel after 3 s and picks
 *     "Chapter 2", as its page asks;
 *  6. for a book whose first reading-order item's flow is `scrolled-continuous` or `scrolled-doc`, walks it as a reader
 *     would (`flow_walk`): from the first item, the wheel over the middle of the stage, 400 px a turn, until nothing
 *     moves for 16 turns (at most 250), keeping each change of the address and, in a stacked book, the chapter under
 *     the top and the stacked frames; at each change of chapter the view goes back to show the boundary
 *     (`<test-id>-walk-<n>.png`, with the gap between the two frames); where it stopped, and whether the footer
 *     offers "Next chapter". Then, from the first item again, a sideways move each way: a horizontal wheel (a
 *     trackpad's swipe) and a finger's swipe (touch emulated through the DevTools protocol, over the middle of the
 *     page), with the address before and after (`<test-id>-swipe.png`), after 4 s without input as a control;
 *  7. with SCRIPTED=1 (the reader's consent given for every title through the API first), starts the app with a scripted origin (SCRIPTED_ORIGIN on localhost, the app on 127.0.0.1, as
 *     the e2e suite does) and imports every title allowed to run scripts (`lectern import --allow-scripts`); a
 *     scripted chapter's frame is on that origin, so its text is read through the browser's frame, not the DOM.
 * Judging is done by a person (or an agent) looking at the screenshots and the probes against each test's own
 * criterion; docs/conformance.md holds the judged table.
 *
 *   npm run build --silent && npx tsx bench/conformance.ts [folder]      (ONLY=id1,id2 runs a subset)
 *   SCRIPTED=1 SHOTS_DIR=/tmp/epub-tests-shots-scripted npx tsx bench/conformance.ts [folder]
 *   (SCRIPTED=wildcard: a scripted origin per title, `http://*.localhost:<port>`; PORT and SCRIPTED_PORT fix the ports)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { buildServices } from '../packages/server/src/build-services.ts';
import { loadConfig } from '../packages/server/src/config.ts';
import { reasonOf } from '../packages/server/src/services/import.ts';
import { CHROMIUM_LAUNCH, freePort, signIn, startFreshServer } from '../scripts/fresh-server.ts';

const folder = path.resolve(process.argv[2] ?? process.env.EPUB_TESTS_DIR ?? '/tmp/epub-tests');
const shots = path.resolve(process.env.SHOTS_DIR ?? '/tmp/epub-tests-shots');
const only = process.env.ONLY ? new Set(process.env.ONLY.split(',')) : null;
const MAX_CHAPTERS = 6;
/** SCRIPTED=1: one scripted origin for all titles; SCRIPTED=wildcard: a host per title (`*.localhost`), as the e2e suite runs. */
const scripted = process.env.SCRIPTED === '1' || process.env.SCRIPTED === 'wildcard';
const wildcard = process.env.SCRIPTED === 'wildcard';
/** PORT / SCRIPTED_PORT: the app's and the scripted origin's ports (a free one each when unset). */
const portOf = async (name: string) => (process.env[name] ? Number(process.env[name]) : await freePort());
const READ_ALOUD_SECONDS = Number(process.env.READ_ALOUD_SECONDS ?? 90);
const READ_ALOUD_SPEED = process.env.READ_ALOUD_SPEED ?? '2';

interface ChapterProbe {
  href: string;
  painted: boolean;
  page_progression?: string;
  rendition?: unknown;
  media_overlay?: unknown;
  frames: unknown[];
  shot: string;
}
interface TestRecord {
  id: string;
  imported: boolean;
  import_output: string;
  book_id?: string;
  title?: string;
  chapters?: { label: string; full_path: string }[];
  toc?: unknown;
  chapter_probes: ChapterProbe[];
  toc_panel?: string;
  title_page?: { shot: string; heading: string | null; dir: string | null; computed_direction: string | null; authors: string | null };
  link?: { shot: string; url: string; text: string } | null;
  toc_activation?: { shot: string; url: string; text: string };
  read_aloud?: ReadAloudRecord;
  flow_walk?: FlowWalk;
  error?: string;
}
interface FlowWalk {
  flow: string;
  turns: number;
  /** each turn that moved something: turn, address, chapter under the top, the stack's scroll, its frames */
  trace: string[];
  changes: Record<string, unknown>[];
  boundaries: { from: string; to: string; gap: number | null; shot: string }[];
  stopped: Record<string, unknown>;
  next_chapter_link: boolean;
  sideways: { how: string; before: string; after: string }[];
  swipe_shot?: string;
  error?: string;
}
interface ReadAloudRecord {
  chapter: string;
  mode: string | null;
  timeline: Record<string, unknown>[];
  utterances: { text: string; lang: string; rate: number }[];
  shots: string[];
  error?: string;
}

/** Before the app (as e2e/read-aloud.e2e.ts): keep every media element that plays and every utterance asked for. */
const INSTRUMENT = () => {
  const w = window as unknown as { __media: HTMLMediaElement[]; __spoken: SpeechSynthesisUtterance[] };
  w.__media = [];
  w.__spoken = [];
  const play = HTMLMediaElement.prototype.play;
  HTMLMediaElement.prototype.play = function (this: HTMLMediaElement) {
    if (!w.__media.includes(this)) w.__media.push(this);
    return play.call(this);
  };
  if (window.speechSynthesis) {
    const speak = speechSynthesis.speak.bind(speechSynthesis);
    speechSynthesis.speak = (u: SpeechSynthesisUtterance) => {
      w.__spoken.push(u);
      speak(u);
    };
  }
};

/** Runs in the reader page: the read-aloud state at this instant. */
function readAloudSample() {
  const w = window as unknown as { __media: HTMLMediaElement[] };
  const a = w.__media[w.__media.length - 1];
  const marks: string[] = [];
  const active: string[] = [];
  let playing = false;
  for (const frame of Array.from(document.querySelectorAll<HTMLIFrameElement>('iframe'))) {
    let doc: Document | null = null;
    try {
      doc = frame.contentDocument;
    } catch {
      doc = null;
    }
    if (!doc) continue;
    const win = doc.defaultView as (Window & { CSS: { highlights?: Map<string, Set<Range>> } }) | null;
    const set = win?.CSS.highlights?.get('lectern-read-aloud');
    for (const range of set ? [...set] : []) {
      const node = range.commonAncestorContainer;
      const el = (node.nodeType === 1 ? node : node.parentNode) as Element;
      marks.push(`${el.closest('[id]')?.id ?? el.tagName}: ${range.toString().replace(/\s+/g, ' ').trim().slice(0, 40)}`);
    }
    const html = doc.documentElement;
    for (const el of Array.from(doc.querySelectorAll('[class]'))) {
      const cls = el.getAttribute('class') ?? '';
      if (el === html) continue;
      if (/active|read-aloud/.test(cls) && el.id) {
        const cs = win!.getComputedStyle(el);
        active.push(`${el.id}.${cls.split(/\s+/).join('.')} (bg ${cs.backgroundColor}, ${cs.color})`);
      }
    }
    if (html.getAttribute('class')) playing = playing || /./.test(html.getAttribute('class')!);
    if (html.getAttribute('class')) active.push(`<html class="${html.getAttribute('class')}"> (body colour ${win!.getComputedStyle(doc.body).color})`);
  }
  const status = document.querySelector('#reader-read-aloud [role="status"]')?.textContent ?? null;
  return {
    path: location.pathname.replace(/^.*\/read\//, ''),
    audio: a ? `${decodeURIComponent(a.currentSrc.split('/').pop() ?? '')}${a.paused ? ' (paused)' : ''}${a.ended ? ' (ended)' : ''}` : null,
    t: a ? Math.round(a.currentTime * 100) / 100 : null,
    marks,
    active,
    status,
    bar: !!document.querySelector('#reader-read-aloud'),
  };
}

/** Runs in the reader page: what each chapter frame shows, for the mechanical criteria. */
function probeFrames(): unknown[] {
  const PROPS = [
    'writing-mode',
    'text-orientation',
    'text-emphasis-style',
    'text-emphasis-color',
    'text-emphasis-position',
    'text-align-last',
    'word-break',
    'line-break',
    'hyphens',
    'text-transform',
    'text-combine-upright',
    'text-underline-position',
    'direction',
    'font-family',
    'color',
    'background-color',
  ];
  const frames = Array.from(document.querySelectorAll<HTMLIFrameElement>('iframe.chapter-view__frame, iframe.fixed-layout__page'));
  return frames.map((frame) => {
    const doc = frame.contentDocument;
    if (!doc || !doc.body) return { frame: frame.className, readable: false };
    const win = doc.defaultView!;
    const bodyStyle = win.getComputedStyle(doc.body);
    const styled: Record<string, unknown>[] = [];
    for (const el of Array.from(doc.body.querySelectorAll('*')).slice(0, 400)) {
      const cs = win.getComputedStyle(el);
      const diff: Record<string, string> = {};
      for (const p of PROPS) {
        const v = cs.getPropertyValue(p);
        if (v === bodyStyle.getPropertyValue(p)) continue;
        if (p === 'background-color' && v === 'rgba(0, 0, 0, 0)') continue;
        if (p === 'text-emphasis-color' && v === cs.color) continue;
        diff[p] = v;
      }
      const style = el.getAttribute('style');
      if (Object.keys(diff).length || style) {
        styled.push({ el: `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.getAttribute('class') ? `.${el.getAttribute('class')!.split(/\s+/).join('.')}` : ''}`, style, ...diff });
      }
      if (styled.length >= 60) break;
    }
    const rect = frame.getBoundingClientRect();
    const probe = doc.getElementById('probe');
    return {
      frame: frame.className,
      href: frame.dataset.href ?? null,
      box: { x: Math.round(rect.x), y: Math.round(rect.y), width: Math.round(rect.width), height: Math.round(rect.height) },
      readable: true,
      lang: doc.documentElement.getAttribute('lang') ?? doc.documentElement.getAttribute('xml:lang'),
      dir: doc.documentElement.getAttribute('dir'),
      body_dir: doc.body.getAttribute('dir'),
      body_direction: bodyStyle.direction,
      body_writing_mode: bodyStyle.writingMode,
      probe: probe ? { lang: probe.closest('[lang]')?.getAttribute('lang') ?? null, direction: win.getComputedStyle(probe).direction, align: win.getComputedStyle(probe).textAlign } : null,
      fonts: Array.from(doc.fonts as unknown as Iterable<FontFace>).map((f) => `${f.family}:${f.status}`),
      counts: {
        math: doc.getElementsByTagNameNS('http://www.w3.org/1998/Math/MathML', 'math').length,
        svg: doc.getElementsByTagNameNS('http://www.w3.org/2000/svg', 'svg').length,
        img: doc.images.length,
        audio: doc.getElementsByTagName('audio').length,
        video: doc.getElementsByTagName('video').length,
        object: doc.getElementsByTagName('object').length,
        iframe: doc.getElementsByTagName('iframe').length,
        links: doc.links.length,
      },
      images: Array.from(doc.images).map((i) => ({ src: i.getAttribute('src'), natural_width: i.naturalWidth, complete: i.complete, alt: i.alt })),
      styled,
      text: (doc.body.innerText || '').replace(/\s+/g, ' ').trim().slice(0, 600),
    };
  });
}

async function waitPainted(page: Page): Promise<boolean> {
  return page
    .waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0, null, { timeout: 20_000 })
    .then(() => true)
    .catch(() => false);
}

async function openChapter(page: Page, url: string): Promise<boolean> {
  await page.goto(url);
  const painted = await waitPainted(page);
  await page.waitForTimeout(1200); // fonts, images and the frame's own layout settle
  return painted;
}

/** Read aloud as a person would (step 5 above), and keep each change of what is read and highlighted. */
async function readAloud(page: Page, rec: TestRecord, chapters: { web_url: string; full_path: string }[]): Promise<ReadAloudRecord> {
  const withOverlay = rec.chapter_probes.findIndex((p) => p.media_overlay);
  const index = withOverlay >= 0 ? withOverlay : Math.min(1, chapters.length - 1);
  const ra: ReadAloudRecord = { chapter: chapters[index]!.full_path, mode: null, timeline: [], utterances: [], shots: [] };
  try {
    await openChapter(page, chapters[index]!.web_url);
    await page.evaluate(() => {
      const w = window as unknown as { __media: HTMLMediaElement[]; __spoken: SpeechSynthesisUtterance[] };
      w.__media = [];
      w.__spoken = [];
    });
    const button = page.getByRole('button', { name: 'Read aloud' });
    if (!(await button.count())) {
      ra.error = 'no Read aloud button';
      return ra;
    }
    await button.first().click();
    const bar = page.getByRole('region', { name: 'Read aloud' });
    await bar.waitFor({ timeout: 10_000 });
    await page.waitForTimeout(300);
    ra.mode = (await bar.getByText('Narration').count()) ? 'narration' : (await bar.getByText('Browser voice').count()) ? 'browser voice' : null;
    await bar.getByRole('combobox').selectOption(READ_ALOUD_SPEED).catch(() => undefined);
    const started = Date.now();
    let last = '';
    let still = 0;
    let navigated = false;
    const shotAt = new Set([2, 6, 15]);
    for (let i = 0; Date.now() - started < READ_ALOUD_SECONDS * 1000; i++) {
      const s = await page.evaluate(readAloudSample);
      const key = JSON.stringify({ ...s, t: null });
      const elapsed = Math.round((Date.now() - started) / 100) / 10;
      if (key !== last) {
        ra.timeline.push({ at: elapsed, ...s });
        last = key;
        still = 0;
      } else still++;
      const second = Math.floor(elapsed);
      if (shotAt.has(second)) {
        shotAt.delete(second);
        const shot = `${rec.id}-ra-${second}s.png`;
        await page.screenshot({ path: path.join(shots, shot) });
        ra.shots.push(shot);
      }
      if (rec.id === 'mol-navigation' && !navigated && elapsed > 3) {
        navigated = true;
        await page.getByRole('button', { name: 'Table of contents' }).first().click();
        await page.waitForTimeout(400);
        await page.locator('aside.toc a[href]', { hasText: 'Chapter 2' }).first().click();
        ra.timeline.push({ at: elapsed, action: 'contents panel: Chapter 2' });
      }
      // over: the bar says so, or nothing has changed for 8 s with the audio paused or gone
      if (s.status && /Stopped|end of the book|no voice|could not be played|cannot read aloud/.test(s.status) && still > 10) break;
      if (still > 40 && (!s.audio || /paused|ended/.test(s.audio))) break;
      await page.waitForTimeout(200);
    }
    const shot = `${rec.id}-ra-end.png`;
    await page.screenshot({ path: path.join(shots, shot) });
    ra.shots.push(shot);
    ra.utterances = await page.evaluate(() =>
      (window as unknown as { __spoken: SpeechSynthesisUtterance[] }).__spoken.map((u) => ({ text: u.text.replace(/\s+/g, ' ').slice(0, 80), lang: u.lang, rate: u.rate })),
    );
    await bar
      .getByRole('button', { name: 'Stop reading aloud' })
      .click({ timeout: 2000 })
      .catch(() => undefined);
  } catch (e) {
    ra.error = (e as Error).message.split('\n')[0];
  }
  return ra;
}

/** Runs in the reader page: the address's chapter and, in a stacked book, what the stack shows (as e2e/scripted-continuous.e2e.ts reads it). */
function flowSample() {
  const scroller = document.querySelector<HTMLElement>('.chapter-stack__scroller');
  const frames = Array.from(document.querySelectorAll<HTMLIFrameElement>('iframe.chapter-stack__frame')).filter((f) => f.style.visibility !== 'hidden');
  const y = (scroller?.scrollTop ?? 0) + 1;
  const under = frames.filter((f) => f.offsetTop <= y).pop();
  return {
    path: decodeURIComponent(location.pathname.split('/').pop() ?? ''),
    stacked: !!scroller,
    under: under?.dataset.href ?? null,
    within: under && scroller ? Math.round(scroller.scrollTop - under.offsetTop) : null,
    scroll_top: scroller ? Math.round(scroller.scrollTop) : null,
    frames: frames.map((f) => ({ href: f.dataset.href ?? '', top: f.offsetTop, height: f.offsetHeight })),
    single_frame: document.querySelector('iframe.scripted-chapter__frame, iframe.chapter-view__frame') && !scroller ? true : false,
  };
}

/** Step 6 above: the book walked with the wheel from its first item, then a sideways wheel and a finger's swipe. */
async function walkFlow(page: Page, rec: TestRecord, chapters: { web_url: string }[], flow: string): Promise<FlowWalk> {
  const walk: FlowWalk = { flow, turns: 0, trace: [], changes: [], boundaries: [], stopped: {}, next_chapter_link: false, sideways: [] };
  const open = async () => {
    await page.goto(chapters[0]!.web_url);
    await page.locator('iframe.chapter-stack__frame, iframe.scripted-chapter__frame, iframe.chapter-view__frame').first().waitFor({ timeout: 20_000 });
    await page.waitForTimeout(2500); // the pages' heights said, the stack's neighbours in
    const stage = (await page.locator('.reader-stage').boundingBox())!;
    await page.mouse.move(stage.x + stage.width / 2, stage.y + stage.height / 2);
    return stage;
  };
  // a scripted chapter's own scroll (the single scripted view): read through the browser's frame
  const frameScroll = async () => {
    for (const f of page.frames()) {
      if (f === page.mainFrame() || !f.url().includes('/b/')) continue;
      const y = await f.evaluate(() => Math.round(scrollY)).catch(() => null);
      if (y !== null) return y;
    }
    return null;
  };
  try {
    await open();
    let last = '';
    let still = 0;
    let s = await page.evaluate(flowSample);
    for (let turn = 1; turn <= 250 && still < 16; turn++) {
      const before = s;
      await page.mouse.wheel(0, 400);
      await page.waitForTimeout(250);
      s = await page.evaluate(flowSample);
      const inner = s.stacked ? null : await frameScroll();
      const key = JSON.stringify({ path: s.path, under: s.under, top: s.scroll_top, inner });
      walk.turns = turn;
      if (key === last) still++;
      else {
        still = 0;
        last = key;
        walk.trace.push([turn, s.path, s.under, s.scroll_top, s.frames.map((f) => `${f.href}@${f.top}+${f.height}`).join(' ')].join(' '));
      }
      if (s.path !== before.path || s.under !== before.under) {
        walk.changes.push({ turn, path: s.path, under: s.under, within: s.within, stacked: s.stacked, frames: s.frames.length });
        if (s.stacked && s.under && before.under) {
          // back up to show the boundary in the middle of the view, then on again
          const back = (s.within ?? 0) + 300;
          await page.mouse.wheel(0, -back);
          await page.waitForTimeout(700);
          const shot = `${rec.id}-walk-${walk.boundaries.length + 1}.png`;
          await page.screenshot({ path: path.join(shots, shot) });
          const one = s.frames.find((f) => f.href === before.under);
          const two = s.frames.find((f) => f.href === s.under);
          walk.boundaries.push({ from: before.under, to: s.under, gap: one && two ? two.top - (one.top + one.height) : null, shot });
          await page.mouse.wheel(0, back);
          await page.waitForTimeout(700);
          s = await page.evaluate(flowSample);
        }
      }
    }
    walk.stopped = { ...s, inner_scroll: s.stacked ? null : await frameScroll() };
    walk.next_chapter_link = (await page.getByRole('link', { name: 'Next chapter' }).count()) > 0;
    await page.screenshot({ path: path.join(shots, `${rec.id}-walk-end.png`) });

    // sideways: a horizontal wheel each way, then a finger's swipe each way (right to left is "next" in an ltr book)
    const stage = await open();
    const here = async () => (await page.evaluate(flowSample)).path;
    // first, no input for 4 s: an address that changes by itself is not a gesture's doing
    const idle = await here();
    await page.waitForTimeout(4000);
    walk.sideways.push({ how: 'nothing, 4 s (control)', before: idle, after: await here() });
    for (const [how, dx] of [
      ['wheel sideways, +600 px (to the next)', 600],
      ['wheel sideways, -600 px (to the previous)', -600],
    ] as const) {
      const before = await here();
      await page.mouse.wheel(dx, 0);
      await page.waitForTimeout(1500);
      walk.sideways.push({ how, before, after: await here() });
    }
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 1 });
    const y = Math.round(stage.y + stage.height / 2);
    for (const [how, from, to] of [
      ['finger swipe right to left, 400 px (to the next)', stage.x + stage.width / 2 + 200, stage.x + stage.width / 2 - 200],
      ['finger swipe left to right, 400 px (to the previous)', stage.x + stage.width / 2 - 200, stage.x + stage.width / 2 + 200],
    ] as const) {
      const before = await here();
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: Math.round(from), y }] });
      for (let i = 1; i <= 8; i++) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: Math.round(from + ((to - from) * i) / 8), y }] });
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
      await page.waitForTimeout(1500);
      walk.sideways.push({ how, before, after: await here() });
      if (how.startsWith('finger swipe right')) {
        walk.swipe_shot = `${rec.id}-swipe.png`;
        await page.screenshot({ path: path.join(shots, walk.swipe_shot) });
      }
    }
    await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: false });
    await cdp.detach();
  } catch (e) {
    walk.error = (e as Error).message.split('\n')[0];
  }
  return walk;
}

async function main() {
  const files = fs
    .readdirSync(folder)
    .filter((f) => f.endsWith('.epub'))
    .filter((f) => !only || only.has(f.replace(/\.epub$/, '')))
    .sort();
  if (!files.length) throw new Error(`no .epub files in ${folder}`);
  fs.mkdirSync(shots, { recursive: true });
  const scriptedOrigin = scripted ? `http://${wildcard ? '*.' : ''}localhost:${await portOf('SCRIPTED_PORT')}` : null;
  // a page of the scripted origin, or under a wildcard of any of its hosts (a title's, or its inner pages')
  const scriptedPattern = scriptedOrigin ? new RegExp(`^${scriptedOrigin.replace(/[.:/]/g, '\\$&').replace('*', '[a-z0-9]+')}/`) : null;
  const onScriptedOrigin = (url: string) => scriptedPattern?.test(url) === true;
  const fresh = await startFreshServer({ dataDirPrefix: 'lectern-conformance-', timeoutMs: 170_000, port: await portOf('PORT'), env: scriptedOrigin ? { SCRIPTED_ORIGIN: scriptedOrigin } : {} });
  const records: TestRecord[] = [];
  try {
    // the importer as `lectern import` runs it, on the server's DATA_DIR (SQLite)
    const { db, services } = await buildServices(
      loadConfig({ ...process.env, DATA_DIR: fresh.dataDir, DATABASE_URL: '', ...(scriptedOrigin ? { SCRIPTED_ORIGIN: scriptedOrigin } : {}) }, { logLevel: 'silent' }),
    );
    try {
      for (const file of files) {
        const id = file.replace(/\.epub$/, '');
        const rec: TestRecord = { id, imported: false, import_output: '', chapter_probes: [] };
        try {
          const report = await services.importer.importPaths([path.join(folder, file)], { topics: [], ...(scripted ? { allowScripts: true } : {}) });
          const done = report.imported[0];
          if (done) {
            rec.imported = true;
            rec.book_id = done.book_id;
            rec.import_output = [`imported ${done.book_id} "${done.title}" ${done.chapters} chapters`, ...done.warnings.map((w) => `warning: ${w}`)].join('\n');
          } else rec.import_output = report.failed.map((f) => `FAILED ${f.reason}`).join('\n') || JSON.stringify(report);
        } catch (e) {
          rec.import_output = `FAILED ${reasonOf(e)}`;
        }
        records.push(rec);
        console.log(`${rec.imported ? 'imported' : 'FAILED  '} ${id}${rec.imported ? '' : `: ${rec.import_output}`}`);
      }
    } finally {
      await db.close();
    }

    const browser = await chromium.launch(CHROMIUM_LAUNCH);
    try {
      const context = await browser.newContext({ baseURL: fresh.base, viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.addInitScript(INSTRUMENT);
      page.setDefaultTimeout(30_000);
      page.on('dialog', (d) => void d.dismiss());
      // a loaded machine can be slow to serve the first page: try the sign-in a few times before giving up
      for (let attempt = 1; ; attempt++) {
        try {
          await signIn(page, fresh.email, fresh.password);
          break;
        } catch (e) {
          if (attempt >= 3) throw e;
          console.warn(`sign-in attempt ${attempt} failed (${(e as Error).message.split('\n')[0]}); trying again`);
        }
      }
      // every title's scripts allowed by the reader up front (docs/decisions.md "Scripted publications": the reader is asked first), as if answered
      if (scripted) {
        const csrf = (await context.cookies()).find((c) => c.name === 'csrftoken')?.value ?? '';
        for (const rec of records) {
          if (!rec.imported) continue;
          const res = await page.request.put(`/api/v1/book/${encodeURIComponent(rec.book_id!)}/scripts-consent/`, { data: { allow: true }, headers: { 'x-csrftoken': csrf } });
          if (!res.ok()) console.warn(`scripts consent for ${rec.id}: ${res.status()}`);
        }
      }
      for (const rec of records) {
        if (!rec.imported) continue;
        try {
          const detail = await (await page.request.get(`/api/v1/book/${rec.book_id}/`)).json();
          rec.title = detail.title;
          rec.chapters = (detail.chapters ?? []).map((c: { label: string; full_path: string }) => ({ label: c.label, full_path: c.full_path }));
          rec.toc = await (await page.request.get(`/nest/epub/toc/?book_id=${rec.book_id}`)).json().catch(() => null);
          const chapters: { web_url: string; full_path: string; url: string }[] = detail.chapters ?? [];
          for (const [i, ch] of chapters.slice(0, MAX_CHAPTERS).entries()) {
            const item = await (await page.request.get(ch.url)).json().catch(() => ({}));
            const painted = await openChapter(page, ch.web_url);
            const shot = `${rec.id}${i === 0 ? '' : `-${i + 1}`}.png`;
            await page.screenshot({ path: path.join(shots, shot) });
            if (scripted) await page.waitForTimeout(1500); // a scripted frame's own scripts run on their origin
            const frames = await page.evaluate(probeFrames);
            // a scripted chapter's frame is on the scripted origin: read through the browser's frames
            for (const f of page.frames()) {
              if (f === page.mainFrame() || !onScriptedOrigin(f.url())) continue;
              const text = await f.evaluate(() => (document.body?.innerText ?? '').replace(/\s+/g, ' ').trim().slice(0, 600)).catch((e: Error) => `unreadable: ${e.message}`);
              frames.push({ frame: 'scripted', url: f.url().replace(/\/b\/[^/]+\//, '/b/{token}/'), text });
            }
            rec.chapter_probes.push({ href: ch.full_path, painted, page_progression: item.page_progression, rendition: item.rendition, media_overlay: item.media_overlay ? { audio: item.media_overlay.audio?.length, clips: item.media_overlay.clips?.length } : null, frames, shot } as ChapterProbe);
            if (i === 0) {
              // the first chapter's link with id "go" (spine tests): followed inside the frame
              const frame = page.frameLocator('iframe.chapter-view__frame');
              if ((await frame.locator('#go').count().catch(() => 0)) > 0) {
                await frame.locator('#go').click();
                await waitPainted(page);
                await page.waitForTimeout(1500);
                const link = `${rec.id}-link.png`;
                await page.screenshot({ path: path.join(shots, link) });
                const frames = (await page.evaluate(probeFrames)) as { text?: string }[];
                rec.link = { shot: link, url: page.url(), text: frames.map((f) => f.text ?? '').join(' | ').slice(0, 300) };
                await openChapter(page, ch.web_url);
              } else rec.link = null;
              // the contents panel
              const tocButton = page.getByRole('button', { name: 'Table of contents' });
              if (await tocButton.count()) {
                await tocButton.first().click();
                await page.waitForTimeout(600);
                rec.toc_panel = `${rec.id}-toc.png`;
                await page.screenshot({ path: path.join(shots, rec.toc_panel) });
                // the last entry of the contents, activated: where the reader goes (nav-activation)
                const entries = page.locator('aside.toc a[href]');
                const count = await entries.count();
                if (count >= 2) {
                  await entries.nth(count - 1).click();
                  await waitPainted(page);
                  await page.waitForTimeout(1200);
                  const shot = `${rec.id}-tocnav.png`;
                  await page.screenshot({ path: path.join(shots, shot) });
                  const frames = (await page.evaluate(probeFrames)) as { text?: string }[];
                  rec.toc_activation = { shot, url: page.url(), text: frames.map((f) => f.text ?? '').join(' | ').slice(0, 300) };
                } else await page.keyboard.press('Escape');
              }
            }
          }
          if (rec.id.startsWith('mol-')) rec.read_aloud = await readAloud(page, rec, chapters);
          const flow = (rec.chapter_probes[0]?.rendition as { flow?: string } | undefined)?.flow;
          if (flow === 'scrolled-continuous' || flow === 'scrolled-doc') rec.flow_walk = await walkFlow(page, rec, chapters, flow);
          // the title page: how the title and creator are shown
          await page.goto(`/library/book/${rec.book_id}`);
          await page.locator('h1').first().waitFor({ timeout: 10_000 }).catch(() => undefined);
          await page.waitForTimeout(500);
          const shot = `${rec.id}-title.png`;
          await page.screenshot({ path: path.join(shots, shot) });
          const heading = await page.evaluate(() => {
            const h = document.querySelector('main h1') ?? document.querySelector('h1');
            const authors = document.querySelector('.title-page__byline') ?? document.querySelector('[class*="author"], [class*="creator"]');
            return {
              heading: h?.textContent ?? null,
              dir: h?.closest('[dir]')?.getAttribute('dir') ?? null,
              computed_direction: h ? getComputedStyle(h).direction : null,
              authors: authors
                ? `${authors.textContent} (dir ${authors.closest('[dir]')?.getAttribute('dir') ?? 'none'}, ${getComputedStyle(authors).direction}; names: ${Array.from(authors.querySelectorAll('bdi'))
                    .map((b) => `${b.textContent} dir=${b.getAttribute('dir') ?? 'none'} (${getComputedStyle(b).direction})`)
                    .join(', ')})`
                : null,
            };
          });
          rec.title_page = { shot, ...heading };
        } catch (e) {
          rec.error = (e as Error).message.split('\n')[0];
        }
        console.log(`read     ${rec.id}: ${rec.chapter_probes.length} chapter(s)${rec.error ? `, error: ${rec.error}` : ''}`);
      }
    } finally {
      await browser.close();
    }
  } finally {
    await fresh.stop();
  }
  const out = path.join(shots, 'results.json');
  fs.writeFileSync(out, JSON.stringify({ when: new Date().toISOString(), node: process.version, host: os.hostname(), folder, tests: records }, null, 1));
  const ok = records.filter((r) => r.imported).length;
  console.log(`\n${records.length} test publications, ${ok} imported, ${records.length - ok} refused; results in ${out}, screenshots in ${shots}`);
}

await main();
