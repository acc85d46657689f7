/**
 * Read aloud (docs/decisions.md "Read aloud"): plays a chapter phrase by phrase with the spoken phrase highlighted in
 * the chapter frame, and asks for the next chapter at the end of this one.
 *
 * - With an EPUB Media Overlay (`media_overlay` on the archive item), each phrase is a clip of the book's own audio
 *   played by one <audio> element of the app's document; the audio clock decides the phrase (at each animation frame
 *   and `timeupdate`, the clip whose end has passed gives way to the next), so the highlight follows the sound at any
 *   speed. Clips that follow each other in the same file play on without a seek.
 * - Without one, the browser's speech synthesis reads the chapter's text blocks (paragraphs, headings, list items,
 *   cells) one utterance each, in a voice of the chapter's (else the book's) language; the block is highlighted, and
 *   the sentence within it as the voice's `boundary` events arrive.
 *
 * Skippability and escapability (EPUB Media Overlays 3.3, as the importer marks each clip): with the reader's "Skip
 * extras" setting on, phrases of skippable structures (page numbers, notes, sidebars, tables, lists) are passed over —
 * when the audio moves on, when a phrase is chosen with next or previous, where reading starts; and while the phrase
 * being read is in an escapable structure (a table, a list, a figure, a note), escape() goes on at the first phrase
 * after it. Which phrase comes next is decided by the pure functions stepClip, readableFrom and escapeTarget.
 *
 * The frame is sandboxed without scripts: everything is driven from here, in the frame's own document (its
 * Highlight registry, a style element of ours, the book's `media:active-class` on the phrase's element). The phrase
 * is kept on screen through the frame controller (a page turn, or a scroll), which also makes it the reader's
 * position. Where the phrase starts is given out as a Locator (`cursor`), the one type of a place in a book.
 */
import type { Locator, MediaOverlay } from '@lectern/core';
import { locatorAt } from '../engine/frame/position.ts';
import { hyphensAreFrames, plainTextOf, SOFT_HYPHEN } from '../engine/hyphenation.ts';
import type { FrameController } from '../engine/frameController.ts';

export type ReadAloudStatus = 'stopped' | 'playing' | 'paused' | 'waiting';
export type ReadAloudMode = 'overlay' | 'speech';

/** Something the reader did that the bar's status line says (reading, paused and problems are said anyway). */
export type ReadAloudNotice = { kind: 'skipOn' } | { kind: 'skipOff' } | { kind: 'escaped'; from: string | null };

export interface ReadAloudState {
  status: ReadAloudStatus;
  mode: ReadAloudMode | null;
  /** The phrase (or block) being read, and how many the chapter has. */
  index: number;
  /**
   * The read-aloud cursor: where that phrase starts, as a Locator (its chapter, the share of the chapter's phrases
   * before it, and its words, which find it again); null unless playing or paused.
   */
  cursor: Locator | null;
  count: number;
  rate: number;
  /** A problem worth saying (no voice, the audio failed), else null. */
  problem: 'noVoice' | 'unsupported' | 'audioFailed' | 'endOfBook' | null;
  /** Skippable structures are passed over (the reader's setting). */
  skipping: boolean;
  /** The phrase being read (playing or paused) is in an escapable structure: escape() leaves it. */
  escapable: boolean;
  /** That structure's epub:type (table, list, note, …), null when the book does not say. */
  escapeFrom: string | null;
  notice: ReadAloudNotice | null;
}

/** What the choice of the next phrase needs to know of a phrase (an overlay clip; a spoken block has neither). */
export interface PhraseMarks {
  skippable?: string;
  escape_to?: number;
}

/**
 * The phrase after (step 1) or before (step -1) `from`, passing over skippable phrases when skipping: an index of
 * `marks`, or -1 / marks.length when there is none in this chapter that way.
 */
export function stepClip(marks: readonly PhraseMarks[], from: number, step: 1 | -1, skipping: boolean): number {
  let i = from + step;
  while (skipping && i >= 0 && i < marks.length && marks[i]!.skippable) i += step;
  return Math.max(-1, Math.min(i, marks.length));
}

/** The first phrase to read at or after `index` (`index` itself unless it is skipped); marks.length: none. */
export function readableFrom(marks: readonly PhraseMarks[], index: number, skipping: boolean): number {
  const at = Math.max(0, index);
  if (at >= marks.length) return marks.length;
  return skipping && marks[at]!.skippable ? stepClip(marks, at, 1, true) : at;
}

/**
 * Where escape goes from phrase `index`: the first phrase after the escapable structure it is in (the next readable
 * one when skipping), or marks.length for the end of the chapter; null when the phrase is in no escapable structure.
 */
export function escapeTarget(marks: readonly PhraseMarks[], index: number, skipping: boolean): number | null {
  const to = marks[index]?.escape_to;
  if (to === undefined) return null;
  // never back to the phrase itself or before it, whatever the data says
  return readableFrom(marks, Math.min(Math.max(to, index + 1), marks.length), skipping);
}

export interface ReadAloudEvents {
  state(state: ReadAloudState): void;
  /** The chapter was read to its end while playing: show the next one (attach() continues there). False: none. */
  chapterEnd(): boolean;
}

interface Segment {
  range: Range;
  element: Element | null;
  /** Overlay clips only. */
  clip?: MediaOverlay['clips'][number];
  /** Speech only: the block's text and, for each of its characters, where it is in the DOM. */
  text?: string;
}

export const HIGHLIGHT_NAME = 'lectern-read-aloud';
const STYLE_ID = 'lectern-read-aloud-style';
/** Where the Highlight API is missing, the phrase's element wears this class. */
export const FALLBACK_CLASS = 'lectern-read-aloud';
/**
 * Set on the frame's html with the book's `media:playback-active-class` while playing, when the book's stylesheets
 * style that class: the reader's body colour (`body { color: var(--lectern-text) !important }`, READING_CSS) then
 * yields to html's, so a book's `.playing { color: #999 }` on html greys the text (W3C `mol-css`). html's own colour
 * defaults to the theme's (a later layer, the book's, still wins), so a book whose rule sets no colour changes nothing.
 * Reflowable chapters in day mode only: the tinted modes (cloudy, night) keep every colour the reader's, and fixed
 * layout pages (no `lectern-paged` or `lectern-scroll`) have no reader colour on their body to yield.
 */
export const PLAYING_ATTRIBUTE = 'data-lectern-reading-aloud';
const PLAYING = `html[${PLAYING_ATTRIBUTE}]:is(.lectern-paged, .lectern-scroll):not(.lectern-tinted)`;
const STYLES = `
::highlight(${HIGHLIGHT_NAME}) { background-color: rgb(255 214 10 / 55%); color: inherit; }
.${FALLBACK_CLASS} { background-color: rgb(255 214 10 / 55%) !important; }
@layer lectern {
${PLAYING} { color: var(--lectern-text); }
${PLAYING} body { color: inherit !important; }
}
`;
const NO_MARKS: PhraseMarks = {};
const BLOCKS = 'p, h1, h2, h3, h4, h5, h6, li, blockquote, dt, dd, figcaption, caption, td, th, pre, div';

type HighlightCtor = new (...ranges: Range[]) => object;
interface HighlightRegistry {
  set(name: string, value: object): void;
  delete(name: string): void;
}

export class ReadAloudPlayer {
  private frame: FrameController | null = null;
  private overlay: MediaOverlay | null = null;
  private lang = 'en';
  private segments: Segment[] = [];
  /** Each segment's skippable / escape marks (none for spoken blocks). */
  private marks: PhraseMarks[] = [];
  private state: ReadAloudState = { status: 'stopped', mode: null, index: 0, cursor: null, count: 0, rate: 1, problem: null, skipping: false, escapable: false, escapeFrom: null, notice: null };
  private audio: HTMLAudioElement | null = null;
  private raf = 0;
  /** Bumped whenever what is playing changes: callbacks of an older utterance or seek do nothing. */
  private generation = 0;
  private activeElement: Element | null = null;
  /** The segment `state.cursor` was made for. */
  private cursorSegment: Segment | null = null;
  /** A phrase was chosen while paused. */
  private moved = false;
  /** The chapter's stylesheets style the book's playback-active class (stylesClass; read until true). */
  private stylesPlaying = false;

  constructor(private readonly events: ReadAloudEvents) {}

  get current(): ReadAloudState {
    return this.state;
  }

  /**
   * A chapter is on screen (the frame's controller and the chapter's overlay). While reading aloud, reading goes on
   * there from its first phrase (the next chapter, or one the reader chose).
   */
  attach(frame: FrameController | null, overlay: MediaOverlay | null, lang: string) {
    if (frame === this.frame) return;
    const continuing = this.state.status === 'playing' || this.state.status === 'waiting';
    // The same chapter in a new frame (shown again): reading goes on at the same phrase.
    const from = frame && this.frame && frame.chapterHref === this.frame.chapterHref && this.state.status === 'playing' ? this.state.index : 0;
    this.halt();
    this.clearHighlight();
    this.frame = frame;
    this.stylesPlaying = false;
    this.overlay = overlay && overlay.clips.length > 0 ? overlay : null;
    this.lang = lang;
    this.segments = [];
    this.marks = [];
    const mode: ReadAloudMode | null = this.overlay ? 'overlay' : typeof speechSynthesis !== 'undefined' ? 'speech' : null;
    this.set({ mode, index: 0, count: 0, problem: null });
    if (!frame) {
      if (!continuing) this.set({ status: 'stopped' });
      return;
    }
    this.build();
    if (continuing) {
      const start = readableFrom(this.marks, Math.min(from, this.segments.length - 1), this.state.skipping);
      if (start >= this.segments.length) return this.chapterDone();
      this.playFrom(start);
    } else {
      this.set({ status: 'stopped' });
    }
  }

  /** Starts (from the first phrase in view), or resumes. */
  play() {
    if (!this.frame) return;
    if (this.state.mode === null) return this.set({ problem: 'unsupported' });
    if (this.state.status === 'paused') return this.resume();
    if (this.state.status === 'playing') return;
    if (this.segments.length === 0) this.build();
    if (this.segments.length === 0) return;
    this.set({ notice: null });
    const start = readableFrom(this.marks, this.firstInView(), this.state.skipping);
    // everything from here to the chapter's end is skipped: on to the next chapter
    if (start >= this.segments.length) return this.chapterDone();
    this.playFrom(start);
  }

  pause() {
    if (this.state.status !== 'playing') return;
    this.generation++;
    cancelAnimationFrame(this.raf);
    if (this.state.mode === 'overlay') this.audio?.pause();
    else speechSynthesis.pause();
    this.setPlayingClass(false);
    this.set({ status: 'paused' });
  }

  toggle() {
    if (this.state.status === 'playing') this.pause();
    else this.play();
  }

  /** Stops and takes the highlight away. */
  stop() {
    this.halt();
    this.clearHighlight();
    this.set({ status: 'stopped', problem: null });
  }

  /**
   * The next (1) or previous (-1) phrase, passing over skipped ones; while paused or stopped, the highlight moves and
   * playing waits.
   */
  skip(step: 1 | -1) {
    if (this.segments.length === 0) return;
    const target = stepClip(this.marks, this.state.index, step, this.state.skipping);
    if (target < 0) {
      // before the first phrase read: that phrase again
      const first = readableFrom(this.marks, 0, this.state.skipping);
      return this.goTo(first < this.segments.length ? first : this.state.index);
    }
    if (target >= this.segments.length) {
      if (this.state.status === 'playing') return this.chapterDone();
      return;
    }
    this.goTo(target);
  }

  /**
   * Skippable structures are passed over (on) or read (off). Turned on while such a phrase is being read, reading goes
   * on at the next phrase that is not skipped. `announce` false: the stored setting, applied at start.
   */
  setSkipping(on: boolean, announce = true) {
    if (on === this.state.skipping) return;
    this.set({ skipping: on });
    const { status, index } = this.state;
    if (on && (status === 'playing' || status === 'paused') && this.marks[index]?.skippable) {
      const next = readableFrom(this.marks, index, true);
      if (next < this.segments.length) this.goTo(next);
      else if (status === 'playing') this.chapterDone();
    }
    if (announce) this.set({ notice: { kind: on ? 'skipOn' : 'skipOff' } });
  }

  /**
   * Leaves the escapable structure the phrase being read is in: reading goes on at the first phrase after it (paused,
   * the highlight moves there); after the chapter's last phrase, on into the next chapter. False: nothing to escape.
   */
  escape(): boolean {
    const { status, index } = this.state;
    if (status !== 'playing' && status !== 'paused') return false;
    const target = escapeTarget(this.marks, index, this.state.skipping);
    if (target === null) return false;
    const from = this.segments[index]?.clip?.escape_from ?? null;
    if (target >= this.segments.length) this.chapterDone();
    else this.goTo(target);
    this.set({ notice: { kind: 'escaped', from } });
    return true;
  }

  setRate(rate: number) {
    this.set({ rate });
    if (this.audio) this.audio.playbackRate = rate;
    // An utterance's rate is fixed when it starts: the block starts again at the new speed.
    if (this.state.mode === 'speech' && this.state.status === 'playing') this.playFrom(this.state.index);
  }

  destroy() {
    this.stop();
    if (this.audio) {
      this.audio.removeAttribute('src');
      this.audio.load();
      this.audio = null;
    }
    this.frame = null;
  }

  // ---- internals ----

  private set(patch: Partial<ReadAloudState>) {
    const next = { ...this.state, ...patch };
    // pausing or stopping is said instead of what was said before
    if (next.status !== this.state.status && (next.status === 'paused' || next.status === 'stopped') && !('notice' in patch)) next.notice = null;
    // escape is offered while a phrase of an escapable structure is being read
    const clip = next.status === 'playing' || next.status === 'paused' ? this.segments[next.index]?.clip : undefined;
    next.escapable = clip?.escape_to !== undefined;
    next.escapeFrom = next.escapable ? (clip?.escape_from ?? null) : null;
    next.cursor = this.cursorAt(next);
    this.state = next;
    this.events.state(this.state);
  }

  /** The Locator of the phrase `state` is at (the one kept while the phrase stays the same). */
  private cursorAt(state: ReadAloudState): Locator | null {
    const segment = state.status === 'playing' || state.status === 'paused' ? this.segments[state.index] : undefined;
    if (!segment || !this.frame) return null;
    const kept = this.state.cursor;
    if (kept && this.cursorSegment === segment) return kept;
    this.cursorSegment = segment;
    return locatorAt(this.frame.chapterHref, this.segments.length ? state.index / this.segments.length : 0, phraseStart(segment), () => false);
  }

  private goTo(index: number) {
    if (this.state.status === 'playing') this.playFrom(index);
    else {
      // paused: play goes on from here, not from where the sound stopped
      if (this.state.status === 'paused') this.moved = true;
      this.set({ index });
      this.highlight(index);
    }
  }

  private halt() {
    this.generation++;
    cancelAnimationFrame(this.raf);
    this.audio?.pause();
    if (this.state.mode === 'speech' && typeof speechSynthesis !== 'undefined') speechSynthesis.cancel();
    this.setPlayingClass(false);
  }

  private chapterDone() {
    this.halt();
    this.clearHighlight();
    this.set({ status: 'waiting' });
    if (!this.events.chapterEnd()) this.set({ status: 'stopped', problem: 'endOfBook' });
  }

  /** The chapter's phrases: the overlay's clips whose element is in the chapter, or its text blocks. */
  private build() {
    const doc = this.frame?.frameDocument;
    const root = this.frame?.readingRoot;
    if (!doc || !root) return;
    const segments: Segment[] = [];
    if (this.overlay) {
      for (const clip of this.overlay.clips) {
        const element = doc.getElementById(clip.fragment);
        // A phrase whose element is missing still plays, with nothing highlighted.
        const range = doc.createRange();
        if (element) range.selectNodeContents(element);
        // eslint-disable-next-line @typescript-eslint/no-unused-expressions -- two calls in one else, as written
        else range.selectNodeContents(root), range.collapse(true);
        segments.push({ range, element, clip });
      }
    } else {
      for (const element of root.querySelectorAll(BLOCKS)) {
        // innermost blocks only: a <div> or <li> holding paragraphs is read through them
        if (element.querySelector(BLOCKS)) continue;
        // (the words as the book has them: without the soft hyphens the frame put in, engine/hyphenation.ts)
        const text = plainTextOf(element).replace(/\s+/g, ' ').trim();
        if (!text || element.getClientRects().length === 0) continue;
        const range = doc.createRange();
        range.selectNodeContents(element);
        segments.push({ range, element, text });
      }
    }
    this.segments = segments;
    this.marks = segments.map((s) => s.clip ?? NO_MARKS);
    this.set({ count: segments.length, index: Math.min(this.state.index, Math.max(0, segments.length - 1)) });
    if (!doc.getElementById(STYLE_ID)) {
      const style = doc.createElement('style');
      style.id = STYLE_ID;
      style.textContent = STYLES;
      doc.head.appendChild(style);
    }
  }

  /** The first phrase that is on screen now (the page or the screenful the reader is at). */
  private firstInView(): number {
    const win = this.frame?.frameDocument.defaultView;
    if (!win) return 0;
    const width = win.innerWidth;
    const { top, height } = this.band(win);
    const found = this.segments.findIndex((s) => {
      const r = s.element?.getBoundingClientRect();
      return !!r && (r.width > 0 || r.height > 0) && r.bottom > top && r.top < top + height && r.right > 0 && r.left < width;
    });
    return found >= 0 ? found : 0;
  }

  private playFrom(index: number) {
    this.halt();
    this.moved = false;
    const generation = this.generation;
    this.set({ index, status: 'playing', problem: null });
    this.highlight(index);
    this.setPlayingClass(true);
    if (this.state.mode === 'overlay') void this.playClip(index, generation);
    else this.speak(index, generation);
  }

  private resume() {
    this.set({ notice: null });
    if (this.moved) return this.playFrom(this.state.index);
    const generation = ++this.generation;
    this.set({ status: 'playing' });
    this.setPlayingClass(true);
    if (this.state.mode === 'overlay' && this.audio) {
      this.audio.play().then(
        () => this.tick(generation),
        () => this.failed(generation),
      );
    } else if (this.state.mode === 'speech') {
      // A paused utterance resumes where it was; if the browser dropped it, the block starts again.
      if (speechSynthesis.paused && speechSynthesis.speaking) speechSynthesis.resume();
      else this.speak(this.state.index, generation);
    }
  }

  // ---- media overlays ----

  private audioElement(): HTMLAudioElement {
    if (!this.audio) {
      this.audio = new Audio();
      this.audio.preload = 'auto';
    }
    return this.audio;
  }

  private async playClip(index: number, generation: number) {
    const clip = this.segments[index]?.clip;
    if (!clip || !this.overlay) return;
    const audio = this.audioElement();
    const url = new URL(this.overlay.audio[clip.audio] ?? '', window.location.href).href;
    try {
      if (audio.src !== url) {
        audio.src = url;
        await new Promise<void>((resolve, reject) => {
          audio.addEventListener('loadedmetadata', () => resolve(), { once: true });
          audio.addEventListener('error', () => reject(new Error('audio')), { once: true });
        });
      }
      if (generation !== this.generation) return;
      if (Math.abs(audio.currentTime - clip.begin) > 0.05) audio.currentTime = clip.begin;
      audio.playbackRate = this.state.rate;
      await audio.play();
    } catch {
      return this.failed(generation);
    }
    this.tick(generation);
  }

  /** The audio clock moves the phrase on: a clip whose end has passed gives way to the next. */
  private tick(generation: number) {
    const step = () => {
      if (generation !== this.generation || !this.audio) return;
      const index = this.state.index;
      const clip = this.segments[index]?.clip;
      const t = this.audio.currentTime;
      const ended = this.audio.ended || (clip?.end != null && t >= clip.end - 0.01);
      if (clip && ended) {
        // the next phrase read: skipped ones are passed over (their clips are never played, nor highlighted)
        const at = stepClip(this.marks, index, 1, this.state.skipping);
        const next = this.segments[at]?.clip;
        if (!next) return this.chapterDone();
        const sameFile = next.audio === clip.audio && !this.audio.ended;
        // The next clip starts where this one ends, in the same file: the sound plays on, only the highlight moves.
        if (sameFile && Math.abs(next.begin - (clip.end ?? t)) < 0.25) {
          this.set({ index: at });
          this.highlight(at);
        } else {
          this.playFrom(at);
          return;
        }
      }
      this.raf = requestAnimationFrame(step);
    };
    this.raf = requestAnimationFrame(step);
  }

  private failed(generation: number) {
    if (generation !== this.generation) return;
    this.halt();
    this.set({ status: 'stopped', problem: 'audioFailed' });
  }

  // ---- speech synthesis ----

  private voice(): SpeechSynthesisVoice | null {
    const voices = speechSynthesis.getVoices();
    const wanted = this.lang.toLowerCase();
    const primary = wanted.split('-')[0];
    return (
      voices.find((v) => v.lang.toLowerCase().replace('_', '-') === wanted) ??
      voices.find((v) => v.lang.toLowerCase().split(/[-_]/)[0] === primary) ??
      null
    );
  }

  private speak(index: number, generation: number) {
    const segment = this.segments[index];
    if (!segment?.text) return;
    speechSynthesis.cancel();
    // a queue paused before stays paused for what is spoken next
    if (speechSynthesis.paused) speechSynthesis.resume();
    const utterance = new SpeechSynthesisUtterance(segment.text);
    utterance.lang = this.lang;
    const voice = this.voice();
    if (voice) utterance.voice = voice;
    utterance.rate = this.state.rate;
    const sentences = sentenceStarts(segment.text, this.lang);
    utterance.onboundary = (event) => {
      if (generation !== this.generation) return;
      const at = event.charIndex;
      let start = 0;
      for (const s of sentences) if (s <= at) start = s;
      const end = sentences.find((s) => s > at) ?? segment.text!.length;
      this.highlightText(segment, start, end);
    };
    utterance.onend = () => {
      if (generation !== this.generation) return;
      const next = stepClip(this.marks, index, 1, this.state.skipping);
      if (next >= this.segments.length) return this.chapterDone();
      this.playFrom(next);
    };
    utterance.onerror = (event) => {
      if (generation !== this.generation || event.error === 'interrupted' || event.error === 'canceled') return;
      this.halt();
      this.set({ status: 'stopped', problem: speechSynthesis.getVoices().length === 0 ? 'noVoice' : 'unsupported' });
    };
    speechSynthesis.speak(utterance);
  }

  /** Highlights characters [start, end) of a block's text (as spoken: whitespace runs are one space). */
  private highlightText(segment: Segment, start: number, end: number) {
    const element = segment.element;
    const doc = this.frame?.frameDocument;
    if (!element || !doc) return;
    const range = doc.createRange();
    const walker = doc.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    // Offsets count the normalised text: walk the raw text, counting a whitespace run once.
    let count = 0;
    let lastSpace = true;
    let startSet = false;
    for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
      const data = node.data;
      // the frame's soft hyphens were not in the text spoken
      const supplied = hyphensAreFrames(node);
      for (let i = 0; i < data.length; i++) {
        if (supplied && data[i] === SOFT_HYPHEN) continue;
        const space = /\s/.test(data[i]!);
        if (space && lastSpace) continue;
        lastSpace = space;
        if (!startSet && count >= start) {
          range.setStart(node, i);
          startSet = true;
        }
        if (startSet && count >= end) {
          range.setEnd(node, i);
          this.paint(range, element);
          return;
        }
        count++;
      }
      if (startSet) range.setEnd(node, data.length);
    }
    if (startSet) this.paint(range, element);
  }

  // ---- the highlight ----

  private highlight(index: number) {
    const segment = this.segments[index];
    if (!segment) return;
    this.paint(segment.range, segment.element);
    const active = this.overlay?.active_class;
    if (this.activeElement && active) this.activeElement.classList.remove(active);
    if (segment.element && active) segment.element.classList.add(active);
    this.activeElement = segment.element;
    this.keepInView(segment);
  }

  private paint(range: Range, element: Element | null) {
    const win = this.frame?.frameDocument.defaultView as (Window & { CSS?: { highlights?: HighlightRegistry }; Highlight?: HighlightCtor }) | null | undefined;
    if (!win) return;
    if (win.CSS?.highlights && win.Highlight) {
      win.CSS.highlights.set(HIGHLIGHT_NAME, new win.Highlight(range));
    } else {
      this.frame?.frameDocument.querySelectorAll(`.${FALLBACK_CLASS}`).forEach((e) => e.classList.remove(FALLBACK_CLASS));
      element?.classList.add(FALLBACK_CLASS);
    }
  }

  private clearHighlight() {
    const doc = this.frame?.frameDocument;
    const win = doc?.defaultView as (Window & { CSS?: { highlights?: HighlightRegistry } }) | null | undefined;
    win?.CSS?.highlights?.delete(HIGHLIGHT_NAME);
    doc?.querySelectorAll(`.${FALLBACK_CLASS}`).forEach((e) => e.classList.remove(FALLBACK_CLASS));
    const active = this.overlay?.active_class;
    if (this.activeElement && active) this.activeElement.classList.remove(active);
    this.activeElement = null;
  }

  private setPlayingClass(on: boolean) {
    const name = this.overlay?.playback_active_class;
    const doc = this.frame?.frameDocument;
    const html = doc?.documentElement;
    if (!name || !doc || !html) return;
    html.classList.toggle(name, on);
    // read again until found (a stylesheet still loading is not in the list yet)
    if (on && !this.stylesPlaying) this.stylesPlaying = stylesClass(doc, name);
    html.toggleAttribute(PLAYING_ATTRIBUTE, on && this.stylesPlaying);
  }

  /** The part of the frame on screen, in its client coordinates (a stacked chapter's: FrameController.viewBand). */
  private band(win: Window): { top: number; height: number } {
    return typeof this.frame?.viewBand === 'function' ? this.frame.viewBand() : { top: 0, height: win.innerHeight };
  }

  /** A phrase out of the page or screenful on show brings it into view (a page turn, or a scroll). */
  private keepInView(segment: Segment) {
    const frame = this.frame;
    const win = frame?.frameDocument.defaultView;
    if (!frame || !win || !segment.element) return;
    const r = segment.element.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return;
    const { top, height } = this.band(win);
    const inView = r.top >= top && r.bottom <= top + height && r.left >= 0 && r.right <= win.innerWidth;
    // A phrase taller than the view counts as in view while its start is.
    const startInView = r.top >= top && r.top < top + height && r.left >= 0 && r.left < win.innerWidth;
    if (inView || (r.height > height && startInView)) return;
    frame.reveal(phraseStart(segment));
  }
}

/**
 * Where a phrase starts, as a collapsed Range in its first text node: the controller places a range by its first
 * character (a text node's, not an element's empty box), and a Locator takes its words from there.
 */
function phraseStart(segment: Segment): Range {
  const start = segment.range.cloneRange();
  start.collapse(true);
  if (start.startContainer.nodeType === Node.TEXT_NODE) return start;
  const within = segment.element ?? start.startContainer;
  const doc = within.ownerDocument ?? (within as Document);
  const text = doc.createTreeWalker(within, NodeFilter.SHOW_TEXT).nextNode();
  if (text) start.setStart(text, 0);
  else if (segment.element) start.setStartBefore(segment.element);
  start.collapse(true);
  return start;
}

/**
 * Whether a style rule of the document's stylesheets (inside @layer, @media and the like, nested rules included)
 * names `.className` in its selector. A sheet that cannot be read counts as not naming it.
 */
export function stylesClass(doc: Document, className: string): boolean {
  // as the browser serialises a selector: the class CSS-escaped (a leading digit, a colon, …)
  const css = (doc.defaultView as (Window & { CSS?: { escape?: (s: string) => string } }) | null)?.CSS;
  const escaped = css?.escape ? css.escape(className) : className;
  const token = new RegExp(`\\.${escaped.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`);
  const names = (rules: CSSRuleList | undefined, depth: number): boolean => {
    if (!rules || depth > 16) return false;
    for (const rule of Array.from(rules)) {
      const selector = (rule as CSSStyleRule).selectorText;
      if (typeof selector === 'string' && token.test(selector)) return true;
      if (names((rule as CSSGroupingRule).cssRules, depth + 1)) return true;
    }
    return false;
  };
  for (const sheet of Array.from(doc.styleSheets)) {
    let rules: CSSRuleList | undefined;
    try {
      rules = sheet.cssRules;
    } catch {
      continue;
    }
    if (names(rules, 0)) return true;
  }
  return false;
}

/** Offsets (in the whitespace-normalised text) where each sentence starts. */
function sentenceStarts(text: string, lang: string): number[] {
  const Segmenter = (Intl as { Segmenter?: new (l: string, o: { granularity: 'sentence' }) => { segment(t: string): Iterable<{ index: number }> } }).Segmenter;
  if (!Segmenter) return [0];
  try {
    return [...new Segmenter(lang, { granularity: 'sentence' }).segment(text)].map((s) => s.index);
  } catch {
    return [0];
  }
}
