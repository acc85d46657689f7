/**
 * Read aloud (issue 12): plays a chapter phrase by phrase with the spoken phrase highlighted in the chapter frame,
 * and asks for the next chapter at the end of this one.
 *
 * - With an EPUB Media Overlay (`media_overlay` on the archive item), each phrase is a clip of the book's own audio
 *   played by one <audio> element of the app's document; the audio clock decides the phrase (at each animation frame
 *   and `timeupdate`, the clip whose end has passed gives way to the next), so the highlight follows the sound at any
 *   speed. Clips that follow each other in the same file play on without a seek.
 * - Without one, the browser's speech synthesis reads the chapter's text blocks (paragraphs, headings, list items,
 *   cells) one utterance each, in a voice of the chapter's (else the book's) language; the block is highlighted, and
 *   the sentence within it as the voice's `boundary` events arrive.
 *
 * The frame is sandboxed without scripts: everything is driven from here, in the frame's own document (its
 * Highlight registry, a style element of ours, the book's `media:active-class` on the phrase's element). The phrase
 * is kept on screen through the frame controller (a page turn, or a scroll), which also makes it the reader's
 * position.
 */
import type { MediaOverlay } from '@lectern/core';
import type { FrameController } from '../engine/frameController.ts';

export type ReadAloudStatus = 'stopped' | 'playing' | 'paused' | 'waiting';
export type ReadAloudMode = 'overlay' | 'speech';

export interface ReadAloudState {
  status: ReadAloudStatus;
  mode: ReadAloudMode | null;
  /** The phrase (or block) being read, and how many the chapter has. */
  index: number;
  count: number;
  rate: number;
  /** A problem worth saying (no voice, the audio failed), else null. */
  problem: 'noVoice' | 'unsupported' | 'audioFailed' | 'endOfBook' | null;
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
const STYLES = `
::highlight(${HIGHLIGHT_NAME}) { background-color: rgb(255 214 10 / 55%); color: inherit; }
.${FALLBACK_CLASS} { background-color: rgb(255 214 10 / 55%) !important; }
`;
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
  private state: ReadAloudState = { status: 'stopped', mode: null, index: 0, count: 0, rate: 1, problem: null };
  private audio: HTMLAudioElement | null = null;
  private raf = 0;
  /** Bumped whenever what is playing changes: callbacks of an older utterance or seek do nothing. */
  private generation = 0;
  private activeElement: Element | null = null;
  /** A phrase was chosen while paused. */
  private moved = false;

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
    this.overlay = overlay && overlay.clips.length > 0 ? overlay : null;
    this.lang = lang;
    this.segments = [];
    const mode: ReadAloudMode | null = this.overlay ? 'overlay' : typeof speechSynthesis !== 'undefined' ? 'speech' : null;
    this.set({ mode, index: 0, count: 0, problem: null });
    if (!frame) {
      if (!continuing) this.set({ status: 'stopped' });
      return;
    }
    this.build();
    if (continuing) {
      if (this.segments.length === 0) return this.chapterDone();
      this.playFrom(Math.min(from, this.segments.length - 1));
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
    this.playFrom(this.firstInView());
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

  /** The next (1) or previous (-1) phrase; while paused or stopped, the highlight moves and playing waits. */
  skip(step: 1 | -1) {
    if (this.segments.length === 0) return;
    const target = this.state.index + step;
    if (target < 0) return this.goTo(0);
    if (target >= this.segments.length) {
      if (this.state.status === 'playing') return this.chapterDone();
      return;
    }
    this.goTo(target);
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
    this.state = { ...this.state, ...patch };
    this.events.state(this.state);
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
        else range.selectNodeContents(root), range.collapse(true);
        segments.push({ range, element, clip });
      }
    } else {
      for (const element of root.querySelectorAll(BLOCKS)) {
        // innermost blocks only: a <div> or <li> holding paragraphs is read through them
        if (element.querySelector(BLOCKS)) continue;
        const text = (element.textContent ?? '').replace(/\s+/g, ' ').trim();
        if (!text || element.getClientRects().length === 0) continue;
        const range = doc.createRange();
        range.selectNodeContents(element);
        segments.push({ range, element, text });
      }
    }
    this.segments = segments;
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
    const height = win.innerHeight;
    const found = this.segments.findIndex((s) => {
      const r = s.element?.getBoundingClientRect();
      return !!r && (r.width > 0 || r.height > 0) && r.bottom > 0 && r.top < height && r.right > 0 && r.left < width;
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
        const next = this.segments[index + 1]?.clip;
        if (!next) return this.chapterDone();
        const sameFile = next.audio === clip.audio && !this.audio.ended;
        // The next clip starts where this one ends, in the same file: the sound plays on, only the highlight moves.
        if (sameFile && Math.abs(next.begin - (clip.end ?? t)) < 0.25) {
          this.set({ index: index + 1 });
          this.highlight(index + 1);
        } else {
          this.playFrom(index + 1);
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
      if (index + 1 >= this.segments.length) return this.chapterDone();
      this.playFrom(index + 1);
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
      for (let i = 0; i < data.length; i++) {
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
    const html = this.frame?.frameDocument.documentElement;
    if (name && html) html.classList.toggle(name, on);
  }

  /** A phrase out of the page or screenful on show brings it into view (a page turn, or a scroll). */
  private keepInView(segment: Segment) {
    const frame = this.frame;
    const win = frame?.frameDocument.defaultView;
    if (!frame || !win || !segment.element) return;
    const r = segment.element.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return;
    const inView = r.top >= 0 && r.bottom <= win.innerHeight && r.left >= 0 && r.right <= win.innerWidth;
    // A phrase taller than the view counts as in view while its start is.
    const startInView = r.top >= 0 && r.top < win.innerHeight && r.left >= 0 && r.left < win.innerWidth;
    if (inView || (r.height > win.innerHeight && startInView)) return;
    // The controller places a range by its first character: a text node's, not the element's (an empty box).
    const doc = frame.frameDocument;
    const text = doc.createTreeWalker(segment.element, NodeFilter.SHOW_TEXT).nextNode();
    const start = doc.createRange();
    if (text) start.setStart(text, 0);
    else start.setStartBefore(segment.element);
    start.collapse(true);
    frame.reveal(start);
  }
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
