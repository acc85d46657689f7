/**
 * Drives one chapter frame once its document has loaded, composed of the parts in frame/ (the seams of Readium's
 * navigator): the layout (reading mode, settings, vertical writing), the position (kept across re-layouts, given
 * out as a Locator), the pager (page turns), input (keys, wheel, swipes, taps), links and footnotes, images and
 * search marks. This class wires them to each other and to the app's callbacks; ARCHITECTURE.md "A chapter, from
 * the store to pixels".
 *
 * Position (DESIGN.md): the controller keeps the Range the reader is at and restores it after every re-layout
 * (font, width, mode, rotation, images arriving); it is replaced only when the reader moves.
 */
import { READER_CONSTANTS, type ReaderPreferences } from '@lectern/core';
import type { InitialPosition, Locator } from '../../../shared/reading/position.ts';
import { ROOT_ID } from './chapterDocument.ts';
import { FrameImages } from './frame/images.ts';
import { FrameInput } from './frame/input.ts';
import { FrameLayout, type FixedPageOptions } from './frame/layout.ts';
import { FrameLinks } from './frame/links.ts';
import { Listeners } from './frame/listeners.ts';
import { FramePager } from './frame/pager.ts';
import { findLocator, FramePosition } from './frame/position.ts';
import { clearSearchMarks, markSearch } from './frame/searchMarks.ts';
import { StackedScroller, type StackHost } from './frame/stack.ts';
import type { Turn } from './paging.ts';

export type { FixedPageOptions } from './frame/layout.ts';

export interface FrameCallbacks {
  /** The reader moved (scrolled, turned a page, re-laid out): percentage 0-100 and where exactly. */
  onProgress(percentage: number, locator: Locator): void;
  /** Paging past either end of the chapter. */
  onEdge(direction: Turn): void;
  /** A link to another chapter of the book (already an app path with its hash). */
  onNavigate(path: string): void;
  /** An image worth a closer look. */
  onImage(src: string, alt: string): void;
  /**
   * Every key pressed in the frame, for the app's one key handler (which turns pages through handleKey). Without
   * it the controller handles its own keys.
   */
  onKey?(event: KeyboardEvent): void;
  /** Pages changed (paged mode): the current one and how many there are. */
  onPages?(index: number, count: number): void;
  /** A plain tap in the middle of the page, between the tap zones (the immersive view's toggle). */
  onMiddleTap?(): void;
  /** A link out of the book (http, https, mailto): the app asks first. Without it the link opens at once. */
  onExternalLink?(url: string): void;
}

export class FrameController {
  private readonly doc: Document;
  private readonly win: Window;
  private readonly layout: FrameLayout;
  private readonly position: FramePosition;
  private readonly pager: FramePager;
  private readonly input: FrameInput;
  private readonly links: FrameLinks;
  private readonly images: FrameImages;
  private readonly listeners = new Listeners();
  private resizeTimer = 0;
  /** What scrolls when the reader moves on: the frame's window, or the stack's scroller (the annotation layer listens). */
  readonly scrollEvents: EventTarget;

  constructor(
    private readonly frame: HTMLIFrameElement,
    prefs: ReaderPreferences,
    private readonly href: string,
    bookId: string,
    readerPath: (fullPath: string) => string,
    private readonly cb: FrameCallbacks,
    fixed: FixedPageOptions | null = null,
    /** The chapter is stacked with its neighbours in one scroller (the stack's view, frame/stack.ts). */
    stack: StackHost | null = null,
  ) {
    const doc = frame.contentDocument;
    const win = frame.contentWindow;
    if (!doc || !win) throw new Error('The chapter frame has no document.');
    this.doc = doc;
    this.win = win;
    this.scrollEvents = stack?.scroller ?? win;
    const listen = this.listeners.listen;
    const layout = (this.layout = new FrameLayout(frame, doc, win, prefs, fixed, stack ? new StackedScroller(frame, stack) : null));
    this.pager = new FramePager(layout, { onEdge: (d) => cb.onEdge(d), settled: () => this.position.settled() });
    this.position = new FramePosition(layout, href, cb, () => this.pager.stop());
    this.input = new FrameInput(layout, listen, {
      turn: (d) => this.pager.turn(d),
      jump: (to) => this.pager.jump(to),
      chapter: (d) => cb.onEdge(d),
      onMiddleTap: () => cb.onMiddleTap?.(),
    });
    this.links = new FrameLinks(doc, bookId, readerPath, cb, (id) => this.goToAnchor(id));
    listen(this.scrollEvents, 'scroll', () => this.position.scrolled(), { passive: true });
    listen(doc, 'click', (e) => this.onClick(e as MouseEvent));
    listen(doc, 'keydown', (e) => {
      const ke = e as KeyboardEvent;
      if (this.links.escape(ke)) return;
      if (cb.onKey) cb.onKey(ke);
      else this.handleKey(ke);
    });
    const relayoutSoon = () => {
      window.clearTimeout(this.resizeTimer);
      this.resizeTimer = window.setTimeout(() => this.relayout(), READER_CONSTANTS.pagingResizeDebounceMs);
    };
    // (a stack lays its chapters out again itself, the one read last)
    if (!stack) {
      listen(window, 'resize', relayoutSoon);
      listen(window, 'orientationchange', relayoutSoon);
    }
    this.images = new FrameImages(doc, listen, {
      onImage: (src, alt) => cb.onImage(src, alt),
      onLoad: () => {
        const kept = this.position.anchor;
        if (kept) this.position.restore(kept, this.percentage());
      },
    });
  }

  /** The chapter this controller shows (its chapter_href). */
  get chapterHref() {
    return this.href;
  }

  /** The chapter's document, its reading root and the frame (the annotation layer draws and listens there). */
  get frameDocument(): Document {
    return this.doc;
  }
  get readingRoot(): Element | null {
    return this.doc.getElementById(ROOT_ID);
  }
  get frameElement(): HTMLIFrameElement {
    return this.frame;
  }

  /**
   * True while the rest of a long chapter is going in (ChapterView, engine/chapterSlices.ts): a link to a place not
   * yet in the document is followed once it is (complete()), not dropped.
   */
  get filling() {
    return this.links.filling;
  }
  set filling(filling: boolean) {
    this.links.filling = filling;
  }

  /** The whole chapter is in: a link clicked to a part that was not yet in goes there now. */
  complete() {
    this.links.complete();
  }

  /** The reader's place: the range kept across re-layouts, else the first character in view. */
  place(): Range | null {
    return this.position.place();
  }

  /** Brings a range into view (a note chosen in the notes panel), as the reader's position. */
  reveal(range: Range) {
    this.position.restore(range, this.percentage());
  }

  get paged() {
    return this.layout.paged;
  }

  /** The book's pages turn right to left (its page-progression-direction): frame/layout.ts. */
  get rtl() {
    return this.layout.rtl;
  }
  set rtl(rtl: boolean) {
    this.layout.rtl = rtl;
  }

  /** The chapter is in vertical writing (docs/decisions.md "Vertical writing"). */
  get vertical(): boolean {
    return this.layout.vertical;
  }

  /**
   * The part of the frame on screen, in its client coordinates: the whole frame, or, for a chapter stacked in one
   * scroller with its neighbours (frame/stack.ts), the band of it the stack shows (read aloud follows it).
   */
  viewBand(): { top: number; height: number } {
    const stack = this.layout.stack;
    return stack ? { top: stack.scrollTop, height: stack.clientHeight } : { top: 0, height: this.win.innerHeight };
  }

  pages(): { index: number; count: number } {
    return this.layout.pages();
  }

  percentage(): number {
    return this.layout.percentage();
  }

  /** New preferences: keep the range, rewrite the one style element and the classes, lay out, restore. */
  applyPrefs(prefs: ReaderPreferences) {
    const range = this.position.place();
    const pct = this.percentage();
    this.layout.prefs = prefs;
    this.writeSettings();
    this.position.restore(range, pct);
  }

  /** After a resize or rotation (debounced 300 ms): re-lay out and put the same words back in view. */
  relayout() {
    const range = this.position.anchor;
    const pct = this.percentage();
    this.writeSettings();
    this.position.restore(range, pct);
  }

  /**
   * The settings written and the chapter laid out again, the view left where it is: a stacked chapter other than the
   * one read (the stack's view lays the stack out again, then puts the reader's place back in the one read).
   */
  layOut(prefs?: ReaderPreferences) {
    if (prefs) this.layout.prefs = prefs;
    this.writeSettings();
  }

  private writeSettings() {
    this.layout.writeSettings();
    if (!this.layout.fixed && this.layout.vertical) this.input.wireWheel();
    else if (!this.layout.paged) this.input.wireSidewaysWheel();
  }

  /** The first character in view, as a collapsed Range. */
  captureRange(): Range | null {
    return this.position.capture();
  }

  /** reader.md §4 "Initial position priority" applied. */
  goToInitial(position: InitialPosition) {
    this.writeSettings();
    this.position.goToInitial(position);
  }

  /** Hash links and URL anchors: to the element, with the 100 px correction after 50 ms in scroll mode. */
  goToAnchor(id: string): boolean {
    return this.position.goToAnchor(id);
  }

  /** To a place in this chapter (an annotation's), the way a stored position is opened; it becomes the position. */
  goToLocator(locator: Locator) {
    this.position.goToInitial({ kind: 'stored', locator });
  }

  /** The words of a Locator found again: the snippet nearest its progression, or null. */
  findLocator(locator: Locator): Range | null {
    return findLocator(this.doc, locator);
  }

  /**
   * The search jump (reader.md §4): marks `words` in the chapter, finds the passage by `phrases` (its first 8
   * words, then 4) and brings it into view (the first mark when the passage is not found). False when there is
   * nothing to go to. The place becomes the reader's position, as if they had scrolled there.
   */
  searchJump(hit: Locator, words: readonly string[]): boolean {
    const range = markSearch(this.doc, hit, words);
    if (!range) return false;
    this.position.restore(range, this.percentage());
    return true;
  }

  clearSearchMarks() {
    clearSearchMarks(this.doc);
  }

  locator(): Locator {
    return this.position.locator();
  }

  /** One page (paged) or one screen (scroll) forwards or back; past either end asks for the next chapter. */
  turn(direction: Turn) {
    this.pager.turn(direction);
  }

  goToPercentage(pct: number) {
    this.position.goToPercentage(pct);
  }

  /** Keys (from the frame or from the app): arrows, space, Page Up/Down. True when handled. */
  handleKey(event: KeyboardEvent): boolean {
    return this.input.handleKey(event);
  }

  /** A click in the page: an open note or a link first, then an image's lightbox, then the tap zones. */
  private onClick(event: MouseEvent) {
    if (event.defaultPrevented || event.button !== 0) return;
    const el = event.target as Element | null;
    if (this.links.click(event, el) || this.images.click(event, el)) return;
    this.input.tap(event, el);
  }

  focus() {
    try {
      this.win.focus();
    } catch {
      /* not focusable yet */
    }
  }

  destroy() {
    this.position.destroy();
    window.clearTimeout(this.resizeTimer);
    this.pager.destroy();
    this.listeners.removeAll();
  }
}
