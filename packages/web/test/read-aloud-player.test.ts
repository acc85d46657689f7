/**
 * Read aloud (docs/decisions.md "Read aloud"): which phrase the player reads next — the skippable structures passed
 * over with "Skip extras" on and read with it off (by the audio clock, by next and previous, where reading starts and
 * when the setting is turned on mid-phrase), and escape to the first phrase after an escapable structure. The pure
 * choice functions first, then the player itself in jsdom over a chapter document, its <audio> element driven by hand
 * (jsdom plays no sound). In Chromium with real audio: e2e/read-aloud.e2e.ts.
 */
import { locatorSchema, type MediaOverlay } from '@lectern/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FrameController } from '../src/features/reader/engine/frameController.ts';
import { escapeTarget, PLAYING_ATTRIBUTE, readableFrom, ReadAloudPlayer, stepClip, stylesClass, type PhraseMarks, type ReadAloudState } from '../src/features/reader/readAloud/player.ts';

/**
 * The fixture's chapter two (packages/server/test/fixtures/read-aloud.ts) as the importer marks it: a page number, a
 * heading, a table of four cells (each escaping past the table to "two-2"), a paragraph, a footnote (escaping to the
 * phrase after it) and a last paragraph.
 */
const IDS = ['page-2', 'two-1', 'cell-1', 'cell-2', 'cell-3', 'cell-4', 'two-2', 'note-1', 'two-3'];
const MARKS: PhraseMarks[] = [
  { skippable: 'pagebreak' },
  {},
  { skippable: 'table', escape_to: 6 },
  { skippable: 'table', escape_to: 6 },
  { skippable: 'table', escape_to: 6 },
  { skippable: 'table', escape_to: 6 },
  {},
  { skippable: 'footnote', escape_to: 8 },
  {},
];

describe('the next phrase', () => {
  it('with skipping off, is every phrase in turn, each way', () => {
    expect(IDS.map((_, i) => stepClip(MARKS, i, 1, false))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(IDS.map((_, i) => stepClip(MARKS, i, -1, false))).toEqual([-1, 0, 1, 2, 3, 4, 5, 6, 7]);
    expect(readableFrom(MARKS, 0, false)).toBe(0);
  });

  it('with skipping on, passes over the page number, the table and the note', () => {
    expect(stepClip(MARKS, 1, 1, true)).toBe(6); // the heading: over the table to "two-2"
    expect(stepClip(MARKS, 6, 1, true)).toBe(8); // over the note
    expect(stepClip(MARKS, 8, 1, true)).toBe(9); // past the last: the chapter's end
    expect(stepClip(MARKS, 8, -1, true)).toBe(6);
    expect(stepClip(MARKS, 6, -1, true)).toBe(1);
    expect(stepClip(MARKS, 1, -1, true)).toBe(-1); // before the heading only the page number: none
    // where reading starts: a skipped phrase gives way to the next read one
    expect(readableFrom(MARKS, 0, true)).toBe(1);
    expect(readableFrom(MARKS, 3, true)).toBe(6);
    expect(readableFrom(MARKS, 6, true)).toBe(6);
    expect(readableFrom(MARKS, 9, true)).toBe(9);
    // a chapter that is all page numbers has nothing to read
    expect(readableFrom([{ skippable: 'pagebreak' }, { skippable: 'pagebreak' }], 0, true)).toBe(2);
    // from any phrase, the phrases visited going forwards are never skippable ones
    for (let i = 0; i < IDS.length; i++) {
      for (let at = stepClip(MARKS, i, 1, true); at < IDS.length; at = stepClip(MARKS, at, 1, true)) expect(MARKS[at]!.skippable, IDS[at]).toBeUndefined();
    }
  });

  it('escape goes to the first phrase after the structure, only from inside one', () => {
    expect(IDS.map((_, i) => escapeTarget(MARKS, i, false))).toEqual([null, null, 6, 6, 6, 6, null, 8, null]);
    // skipping on: the phrase after the structure, or the next read one after it
    const noteAfterTable: PhraseMarks[] = [{ escape_to: 2 }, { escape_to: 2 }, { skippable: 'footnote' }, {}];
    expect(escapeTarget(noteAfterTable, 0, true)).toBe(3);
    expect(escapeTarget(noteAfterTable, 0, false)).toBe(2);
    // a structure that ends the chapter: its end (the player goes on into the next chapter)
    expect(escapeTarget([{}, { escape_to: 2 }], 1, false)).toBe(2);
    // data that points back, or past the end, is held to the phrase after and the chapter's end
    expect(escapeTarget([{}, { escape_to: 0 }, {}], 1, false)).toBe(2);
    expect(escapeTarget([{ escape_to: 99 }], 0, false)).toBe(1);
  });
});

describe('the player', () => {
  /** The <audio> element the player made (caught when its src is set), and its clock, set by the test. */
  let element: HTMLMediaElement | null;
  let clock = 0;
  let frameCallbacks: FrameRequestCallback[] = [];
  let states: ReadAloudState[];
  let chapterEnds: number;

  beforeEach(() => {
    element = null;
    clock = 0;
    frameCallbacks = [];
    states = [];
    chapterEnds = 0;
    const srcs = new WeakMap<HTMLMediaElement, string>();
    vi.spyOn(HTMLMediaElement.prototype, 'src', 'get').mockImplementation(function (this: HTMLMediaElement) {
      return srcs.get(this) ?? '';
    });
    vi.spyOn(HTMLMediaElement.prototype, 'src', 'set').mockImplementation(function (this: HTMLMediaElement, v: string) {
      // eslint-disable-next-line @typescript-eslint/no-this-alias -- the spy records which element the setter ran on
      element = this;
      srcs.set(this, v);
    });
    vi.spyOn(HTMLMediaElement.prototype, 'play').mockImplementation(() => Promise.resolve());
    vi.spyOn(HTMLMediaElement.prototype, 'pause').mockImplementation(() => {});
    vi.spyOn(HTMLMediaElement.prototype, 'load').mockImplementation(() => {});
    vi.spyOn(HTMLMediaElement.prototype, 'currentTime', 'get').mockImplementation(() => clock);
    vi.spyOn(HTMLMediaElement.prototype, 'currentTime', 'set').mockImplementation((t: number) => void (clock = t));
    vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => frameCallbacks.push(cb));
    vi.stubGlobal('cancelAnimationFrame', () => {});
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
  });

  function chapter(): { frame: FrameController; doc: Document } {
    const doc = document.implementation.createHTMLDocument('Chapter Two');
    doc.body.innerHTML = `<div id="root">${IDS.map((id) => `<p id="${id}">${id}</p>`).join('')}</div>`;
    const frame = { frameDocument: doc, readingRoot: doc.getElementById('root'), chapterHref: 'text/two.xhtml', reveal: () => {} } as unknown as FrameController;
    return { frame, doc };
  }

  const overlay: MediaOverlay = {
    active_class: 'active',
    playback_active_class: null,
    audio: ['/audio/two.wav'],
    clips: IDS.map((fragment, i) => {
      const { skippable, escape_to } = MARKS[i]!;
      return { fragment, audio: 0, begin: i, end: i + 1, ...(skippable ? { skippable } : {}), ...(escape_to !== undefined ? { escape_to, escape_from: i === 7 ? 'footnote' : 'table' } : {}) };
    }),
  };

  function start(skipping: boolean) {
    const player = new ReadAloudPlayer({ state: (s) => states.push(s), chapterEnd: () => (chapterEnds++, true) });
    player.setSkipping(skipping, false);
    const { frame, doc } = chapter();
    player.attach(frame, overlay, 'en');
    return { player, doc };
  }

  const settle = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  /** The audio's metadata arrives and play() resolves: the player starts watching the clock. */
  async function loaded() {
    element?.dispatchEvent(new Event('loadedmetadata'));
    await settle();
  }

  /** Runs the audio clock to `t` seconds and lets the player look at it (one animation frame). */
  function runTo(t: number) {
    clock = t;
    const due = frameCallbacks;
    frameCallbacks = [];
    for (const cb of due) cb(0);
  }

  const highlighted = (doc: Document) => doc.querySelector('.active')?.id ?? null;
  const last = () => states[states.length - 1]!;

  it('reads every phrase in turn with skipping off, and offers escape inside the table', async () => {
    const { player, doc } = start(false);
    player.play();
    expect(last()).toMatchObject({ status: 'playing', index: 0, escapable: false });
    expect(highlighted(doc)).toBe('page-2');
    // the read-aloud cursor is a Locator: the chapter, the share of its phrases before this one, the phrase's words
    expect(last().cursor).toEqual({ href: 'text/two.xhtml', progression: 0, text: { before: '', highlight: 'page-2', after: '' } });
    expect(locatorSchema.safeParse(last().cursor).success).toBe(true);
    // moving on by next phrase: the table's first cell, and escape is offered, naming the table
    player.skip(1);
    player.skip(1);
    expect(highlighted(doc)).toBe('cell-1');
    expect(last()).toMatchObject({ index: 2, escapable: true, escapeFrom: 'table' });
    expect(last().cursor).toEqual({ href: 'text/two.xhtml', progression: 2 / IDS.length, text: { before: '', highlight: 'cell-1', after: '' } });
    // escape: on at "two-2", said in the status line, and no longer offered
    expect(player.escape()).toBe(true);
    expect(highlighted(doc)).toBe('two-2');
    expect(last()).toMatchObject({ index: 6, escapable: false, notice: { kind: 'escaped', from: 'table' } });
    expect(player.escape()).toBe(false);
    // the note is read, and escapes to the phrase after it
    player.skip(1);
    expect(last()).toMatchObject({ index: 7, escapable: true, escapeFrom: 'footnote' });
    player.skip(-1);
    player.skip(-1);
    expect(highlighted(doc)).toBe('cell-4');
    player.stop();
    expect(last()).toMatchObject({ status: 'stopped', escapable: false, notice: null, cursor: null });
  });

  it('with skipping on, never highlights a skippable phrase as the audio clock runs through the chapter', async () => {
    const { player, doc } = start(true);
    // every element that is given the book's active class, however briefly
    const given: string[] = [];
    const observer = new MutationObserver((records) => {
      for (const r of records) if (!(r.oldValue ?? '').includes('active') && (r.target as Element).id) given.push((r.target as Element).id);
    });
    observer.observe(doc.body, { subtree: true, attributes: true, attributeFilter: ['class'], attributeOldValue: true });
    player.play();
    // reading starts at the heading, not the page number, whose clip is not played: the audio is sought past it
    expect(last()).toMatchObject({ status: 'playing', index: 1 });
    await loaded();
    expect(clock).toBe(1);
    runTo(1.5);
    expect(last().index).toBe(1);
    runTo(2); // the heading's end: the table is passed over, the audio sought to "two-2"
    expect(last().index).toBe(6);
    expect(clock).toBe(6);
    await settle();
    runTo(7); // over the note
    expect(last().index).toBe(8);
    expect(clock).toBe(8);
    await settle();
    runTo(9); // the chapter's end: on to the next
    await settle();
    observer.disconnect();
    expect(chapterEnds).toBe(1);
    expect(given).toEqual(['two-1', 'two-2', 'two-3']);
    const skippable = new Set(MARKS.flatMap((m, i) => (m.skippable ? [i] : [])));
    expect(states.filter((s) => s.status === 'playing' && skippable.has(s.index))).toEqual([]);
  });

  it('with skipping off, the audio clock moves through every phrase without a seek', async () => {
    const { player } = start(false);
    player.play();
    await loaded();
    expect(clock).toBe(0);
    const order: number[] = [last().index];
    for (let t = 1; t <= 8; t++) {
      runTo(t);
      order.push(last().index);
    }
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(HTMLMediaElement.prototype.play).toHaveBeenCalledTimes(1);
  });

  it('turning skipping on while a skippable phrase is read goes on at the next read one; next and previous pass over', () => {
    const { player, doc } = start(false);
    player.play();
    player.skip(1);
    player.skip(1);
    player.skip(1); // cell-2
    player.pause();
    player.setSkipping(true);
    expect(highlighted(doc)).toBe('two-2');
    expect(last()).toMatchObject({ status: 'paused', index: 6, skipping: true, notice: { kind: 'skipOn' } });
    player.skip(1);
    expect(highlighted(doc)).toBe('two-3');
    player.skip(-1);
    player.skip(-1);
    expect(highlighted(doc)).toBe('two-1');
    // before the heading there is only the page number: previous stays on the heading
    player.skip(-1);
    expect(highlighted(doc)).toBe('two-1');
    player.setSkipping(false);
    expect(last()).toMatchObject({ skipping: false, notice: { kind: 'skipOff' } });
    player.skip(-1);
    expect(highlighted(doc)).toBe('page-2');
    // pausing is said instead of the setting
    player.play();
    player.pause();
    expect(last().notice).toBeNull();
  });

  it('escape from a structure that ends the chapter goes on into the next chapter', () => {
    const player = new ReadAloudPlayer({ state: (s) => states.push(s), chapterEnd: () => (chapterEnds++, true) });
    const { frame } = chapter();
    const tail: MediaOverlay = { ...overlay, clips: overlay.clips.slice(0, 8).map((c, i) => (i === 7 ? { ...c, escape_to: 8 } : c)) };
    player.attach(frame, tail, 'en');
    player.play();
    for (let i = 0; i < 7; i++) player.skip(1);
    expect(last().index).toBe(7);
    expect(player.escape()).toBe(true);
    expect(chapterEnds).toBe(1);
    expect(last()).toMatchObject({ status: 'waiting', notice: { kind: 'escaped', from: 'footnote' } });
  });
  /**
   * The book's playback-active class (W3C mol-css: `.rendered-with-mo { color: #999 }` greys the text while playing):
   * a chapter in a frame of its own (jsdom gives a frame's document its stylesheets), its html as the reader writes it.
   */
  function styledChapter(bookCss: string, htmlClass = 'lectern-scroll day-mode'): { frame: FrameController; doc: Document } {
    const iframe = document.createElement('iframe');
    document.body.appendChild(iframe);
    const doc = iframe.contentDocument!;
    doc.documentElement.className = htmlClass;
    doc.head.innerHTML = `<style>@layer lectern, book;</style><style>@layer book { ${bookCss} }</style>`;
    doc.body.innerHTML = `<div id="root">${IDS.map((id) => `<p id="${id}">${id}</p>`).join('')}</div>`;
    const frame = { frameDocument: doc, readingRoot: doc.getElementById('root'), chapterHref: 'text/two.xhtml', reveal: () => {} } as unknown as FrameController;
    return { frame, doc };
  }
  const playing = { ...overlay, playback_active_class: '-epub-media-overlay-playing' };

  it('finds a class in the book\'s stylesheets, inside layers and media queries, by its whole name', () => {
    const { doc } = styledChapter('@media screen { html.-epub-media-overlay-playing p { color: grey } } .x\\:y { color: red }');
    expect(stylesClass(doc, '-epub-media-overlay-playing')).toBe(true);
    expect(stylesClass(doc, '-epub-media-overlay')).toBe(false);
    expect(stylesClass(doc, 'rendered-with-mo')).toBe(false);
    expect(stylesClass(styledChapter('.rendered-with-mo-x { color: grey }').doc, 'rendered-with-mo')).toBe(false);
  });

  it('while playing, lets the body take html\'s colour when the book styles its playback class: only then, only in day mode, never in fixed layout', () => {
    const player = new ReadAloudPlayer({ state: (s) => states.push(s), chapterEnd: () => (chapterEnds++, true) });
    const { frame, doc } = styledChapter('.-epub-media-overlay-playing { color: rgb(150, 150, 150) }');
    const html = doc.documentElement;
    const on = () => [html.classList.contains('-epub-media-overlay-playing'), html.hasAttribute(PLAYING_ATTRIBUTE)];
    player.attach(frame, playing, 'en');
    expect(on()).toEqual([false, false]);
    player.play();
    expect(on()).toEqual([true, true]);
    player.pause();
    expect(on()).toEqual([false, false]);
    player.play();
    expect(on()).toEqual([true, true]);
    player.stop();
    expect(on()).toEqual([false, false]);

    // The reader's rules for it (the player's style element, in the reader's layer): html's colour the theme's (the
    // book's rule, a later layer, wins), the body's html's; they match reflowable chapters in day mode only.
    const sheet = Array.from(doc.styleSheets).find((s) => (s.ownerNode as Element).id === 'lectern-read-aloud-style')!;
    const layer = Array.from(sheet.cssRules).find((r) => r instanceof doc.defaultView!.CSSLayerBlockRule) as CSSLayerBlockRule;
    expect(layer.name).toBe('lectern');
    const [htmlRule, bodyRule] = Array.from(layer.cssRules) as CSSStyleRule[];
    expect(htmlRule!.style.getPropertyValue('color')).toBe('var(--lectern-text)');
    expect(bodyRule!.style.getPropertyValue('color')).toBe('inherit');
    expect(bodyRule!.style.getPropertyPriority('color')).toBe('important');
    player.play();
    const matches = (className: string) => {
      html.className = `${className} -epub-media-overlay-playing`;
      return [html.matches(htmlRule!.selectorText), doc.body.matches(bodyRule!.selectorText)];
    };
    expect(matches('lectern-scroll day-mode')).toEqual([true, true]);
    expect(matches('lectern-paged day-mode')).toEqual([true, true]);
    expect(matches('lectern-paged lectern-tinted night-mode')).toEqual([false, false]);
    expect(matches('lectern-scroll lectern-tinted cloudy-mode')).toEqual([false, false]);
    expect(matches('lectern-fixed')).toEqual([false, false]);
    player.stop();
    expect(matches('lectern-scroll day-mode')).toEqual([false, false]);

    // A book that does not style its playback class: the class is set, the body keeps the reader's colour.
    const plain = styledChapter('.-epub-media-overlay-active { color: red }');
    player.attach(plain.frame, playing, 'en');
    player.play();
    expect(plain.doc.documentElement.classList.contains('-epub-media-overlay-playing')).toBe(true);
    expect(plain.doc.documentElement.hasAttribute(PLAYING_ATTRIBUTE)).toBe(false);
    // the previous chapter's html was left clean
    expect(html.hasAttribute(PLAYING_ATTRIBUTE)).toBe(false);
    player.stop();
  });
});
