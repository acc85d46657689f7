/**
 * Drives one chapter frame once its document has loaded: the reading mode (scroll, or paged with CSS columns), the
 * settings style element, the position, page turns, links, images, gestures and keys.
 *
 * Position (DESIGN.md): the controller keeps the Range the reader is at and restores it after every re-layout
 * (font, width, mode, rotation, images arriving); it is replaced only when the reader moves.
 */
import { MESSAGES, paths, READER_CONSTANTS, type ReaderPreferences, READING_MESSAGES } from '@lectern/core';
import { htmlClasses, ROOT_ID, setReaderClasses, SETTINGS_STYLE_ID, settingsCss, verticalFlowOf } from './chapterDocument.ts';
import {
  classifySwipe,
  keyTurn,
  pageCount,
  pageForPercentage,
  pageAt,
  pageIndex,
  pageOffset,
  pagedPercentage,
  scrollLeftForPercentage,
  scrollPercentage,
  scrollTopForPercentage,
  sidewaysScrollPercentage,
  tapZone,
  turnsRtl,
  turnTarget,
  type Turn,
  type VerticalFlow,
} from './paging.ts';
import type { InitialPosition, Locator } from '../../../shared/reading/position.ts';
import { clearMarks, markAndFind } from './textMarks.ts';

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

/** What a tap on it does itself (a tap there is not a tap on the page). */
/** What a footnote link's target is part of, when it is a note (EPUB 3 structural semantics, DPUB-ARIA). */
const NOTE_SELECTOR = ['footnote', 'endnote', 'rearnote', 'note'].map((t) => `[data-epub-type~="${t}"]`).concat('[role="doc-footnote"]', '[role="doc-endnote"]').join(', ');
const INTERACTIVE = 'a[href], button, input, select, textarea, label, summary, video, audio, [tabindex]';

/** Frames have their own HTMLImageElement, so instanceof against the app's would fail. */
const isImage = (n: unknown): n is HTMLImageElement => !!n && (n as Node).nodeName === 'IMG';

/**
 * A fixed-layout page (FixedLayoutView.tsx): the frame is the page, laid out by the book and scaled from outside.
 * Nothing is paged or scrolled in it; every turn (key, tap, swipe) goes to the view, which moves by spreads.
 */
export interface FixedPageOptions {
  /** The turn a tap at this x of the frame asks for, counted over the whole spread (null: the middle). */
  tapTurn(clientX: number): Turn | null;
  /** The pages are zoomed in: swipes and taps pan rather than turn. */
  zoomed(): boolean;
  /** The spread on show and how many there are (the footer's "Page N of M"). */
  pages(): { index: number; count: number };
}

const SLIDE_MS = 150; // reader.md §9 "Scroll animation 150 ms"
const SNIPPET = 32;

export class FrameController {
  private doc: Document;
  private win: Window;
  private prefs: ReaderPreferences;
  private anchor: Range | null = null;
  private restoring = 0;
  private animation = 0;
  private resizeTimer = 0;
  private progressTimer = 0;
  private cleanup: (() => void)[] = [];
  private touchStart: { x: number; y: number } | null = null;
  private destroyed = false;
  /** The page a running slide animation is heading to. */
  private slidingTo: number | null = null;
  private chapterApiPrefix: string;

  constructor(
    private readonly frame: HTMLIFrameElement,
    prefs: ReaderPreferences,
    private readonly href: string,
    private readonly bookId: string,
    private readonly readerPath: (fullPath: string) => string,
    private readonly cb: FrameCallbacks,
    private readonly fixed: FixedPageOptions | null = null,
  ) {
    const doc = frame.contentDocument;
    const win = frame.contentWindow;
    if (!doc || !win) throw new Error('The chapter frame has no document.');
    this.doc = doc;
    this.win = win;
    this.prefs = prefs;
    this.chapterApiPrefix = paths.chapterApiPrefix(bookId);
    this.wire();
    this.prepareImages();
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
  filling = false;
  private pendingAnchor: string | null = null;

  /** The whole chapter is in: a link clicked to a part that was not yet in goes there now. */
  complete() {
    this.filling = false;
    const id = this.pendingAnchor;
    this.pendingAnchor = null;
    if (id !== null) this.goToAnchor(id);
  }

  /** The reader's place: the range kept across re-layouts, else the first character in view. */
  place(): Range | null {
    return this.anchor ?? this.captureRange();
  }

  /** Brings a range into view (a note chosen in the notes panel), as the reader's position. */
  reveal(range: Range) {
    this.restore(range, this.percentage());
  }

  get paged() {
    return this.fixed !== null || this.prefs.pagination === 'page';
  }

  /**
   * The book's pages turn right to left (its page-progression-direction): taps, swipes and arrows follow, and in
   * paged mode the chapter's columns run right to left (the `lectern-rtl` class: chapterDocument.ts).
   */
  rtl = false;

  private get scroller(): Element {
    return this.doc.scrollingElement ?? this.doc.documentElement;
  }

  /**
   * Whether the strip of pages runs backwards, as the browser laid it out: a horizontal strip right to left (the
   * body's direction: the multi-column container's, which the viewport takes too), a vertical one upwards
   * (sideways-lr: VerticalFlow.upward). Read from the layout rather than assumed from `rtl`, so the arithmetic
   * always matches the columns on screen, whoever set the direction. Paging functions take it as their `rtl`.
   */
  private get stripRtl(): boolean {
    if (this.fixed || !this.paged || !this.doc.body) return false;
    const flow = this.flow;
    if (flow) return flow.upward;
    return this.win.getComputedStyle(this.doc.body).direction === 'rtl';
  }

  /**
   * How the chapter is laid out in vertical writing (its body computes to writing-mode: vertical-rl, vertical-lr,
   * sideways-rl or sideways-lr, from the book's own stylesheet; the reader never sets it), or null: its pages stack
   * along the strip and are turned by `scrollTop` (paged), or it scrolls sideways (scroll mode), its lines read
   * right to left or left to right (`lr`). docs/decisions.md "Vertical writing".
   */
  private get flow(): VerticalFlow | null {
    return this.fixed ? null : verticalFlowOf(this.doc);
  }

  /** The chapter is in vertical writing (flow). */
  get vertical(): boolean {
    return this.flow !== null;
  }

  /**
   * Taps, swipes and arrows turn right to left: the book's pages do, or the chapter is in vertical-rl (sideways-rl)
   * writing. A vertical-lr or sideways-lr chapter turns as the book does (the right arrow on in a left-to-right one).
   */
  private get inputRtl(): boolean {
    const flow = this.flow;
    return turnsRtl(this.rtl, !!flow && !flow.lr);
  }

  private get pageWidth() {
    return this.doc.documentElement.clientWidth || this.frame.clientWidth || 1;
  }

  private get pageHeight() {
    return this.doc.documentElement.clientHeight || this.frame.clientHeight || 1;
  }

  /** One page along the strip: the frame's width, or its height for vertical writing (pages stacked downwards). */
  private get pageSize() {
    return this.vertical ? this.pageHeight : this.pageWidth;
  }

  /** The viewport's offset along the strip of pages (scrollLeft; scrollTop for vertical writing). */
  private get along(): number {
    return this.vertical ? this.scroller.scrollTop : this.scroller.scrollLeft;
  }

  private set along(offset: number) {
    if (this.vertical) {
      this.scroller.scrollTop = offset;
      this.scroller.scrollLeft = 0;
    } else {
      this.scroller.scrollLeft = offset;
      this.scroller.scrollTop = 0;
    }
  }

  pages(): { index: number; count: number } {
    if (this.fixed) return this.fixed.pages();
    const size = this.pageSize;
    const count = pageCount(this.vertical ? this.scroller.scrollHeight : this.scroller.scrollWidth, size);
    return { index: pageIndex(this.along, size, count, this.stripRtl), count };
  }

  /** The whole chapter is on the screen: one page, or nothing to scroll. */
  private seenWhole(): boolean {
    if (this.paged) return this.pages().count <= 1;
    const s = this.scroller;
    return this.flow ? s.scrollWidth - s.clientWidth <= 1 : s.scrollHeight - s.clientHeight <= 1;
  }

  percentage(): number {
    // a fixed-layout page is seen whole: its position is the page itself
    if (this.fixed) return 100;
    if (this.paged) {
      const { index, count } = this.pages();
      return pagedPercentage(index, count);
    }
    const s = this.scroller;
    const flow = this.flow;
    if (flow) return sidewaysScrollPercentage(s.scrollLeft, s.scrollWidth, s.clientWidth, flow.lr);
    return scrollPercentage(s.scrollTop, s.scrollHeight, s.clientHeight);
  }

  // ---- settings and layout ----

  /** New preferences: keep the range, rewrite the one style element and the classes, lay out, restore. */
  applyPrefs(prefs: ReaderPreferences) {
    const range = this.anchor ?? this.captureRange();
    const pct = this.percentage();
    this.prefs = prefs;
    this.writeSettings();
    this.restore(range, pct);
  }

  private writeSettings() {
    if (this.fixed) return; // the book lays its page out; the reader's settings are for reflowable text
    const vertical = this.vertical;
    const layout = { pagination: this.prefs.pagination, pageWidth: this.pageWidth, rtl: this.rtl, vertical, pageHeight: vertical ? this.pageHeight : undefined };
    const style = this.doc.getElementById(SETTINGS_STYLE_ID);
    if (style) style.textContent = settingsCss(this.prefs, layout);
    setReaderClasses(this.doc.documentElement, htmlClasses(this.prefs, layout));
    if (vertical) this.wireWheel();
    if (!this.paged && vertical) this.scroller.scrollTop = 0;
    else if (!this.paged) this.scroller.scrollLeft = 0;
  }

  private wheelWired = false;

  /**
   * A vertical chapter in scroll mode scrolls sideways: a mouse wheel's vertical turn moves it along (down: on).
   * Listened to in vertical chapters only: a wheel listener that may cancel makes every other book's scrolling wait
   * for the main thread.
   */
  private wireWheel() {
    if (this.wheelWired) return;
    this.wheelWired = true;
    this.listen(this.doc, 'wheel', (e) => {
      const we = e as WheelEvent;
      if (this.paged || we.ctrlKey || Math.abs(we.deltaY) <= Math.abs(we.deltaX)) return;
      const unit = we.deltaMode === 1 ? 16 : we.deltaMode === 2 ? this.scroller.clientWidth : 1;
      // on is leftwards in a right-to-left chapter, rightwards in a left-to-right one (vertical-lr)
      this.scroller.scrollLeft += (this.flow?.lr ? 1 : -1) * we.deltaY * unit;
      we.preventDefault();
    }, { passive: false });
  }

  /** After a resize or rotation (debounced 300 ms): re-lay out and put the same words back in view. */
  relayout() {
    const range = this.anchor;
    const pct = this.percentage();
    this.writeSettings();
    this.restore(range, pct);
  }

  // ---- positions ----

  /** The first character in view, as a collapsed Range. */
  captureRange(): Range | null {
    const root = this.doc.getElementById(ROOT_ID);
    if (!root) return null;
    const caret = (this.doc as Document & { caretRangeFromPoint?: (x: number, y: number) => Range | null }).caretRangeFromPoint;
    if (!caret) return null;
    const flow = this.flow;
    if (flow) return this.captureVertical(root, caret, flow);
    const rootRect = root.getBoundingClientRect();
    const pad = parseFloat(this.win.getComputedStyle(root).paddingLeft) || 0;
    const bodyPad = this.paged ? parseFloat(this.win.getComputedStyle(this.doc.body).paddingTop) || 0 : 0;
    // In paged mode the root is cut into one fragment per page, so its bounding box spans every page: the width of
    // the text column is the first fragment's. The column in view starts at x = 0 of the viewport; in scroll mode
    // at the root's content box.
    const columnWidth = this.paged ? (root.getClientRects()[0]?.width ?? rootRect.width) : rootRect.width;
    const left = this.paged ? (this.pageWidth - Math.min(this.pageWidth, columnWidth)) / 2 + pad : rootRect.left + pad;
    for (let y = bodyPad + 2; y < Math.min(this.win.innerHeight, bodyPad + 160); y += 6) {
      for (const dx of [1, 20, 60]) {
        const r = caret.call(this.doc, left + dx, y);
        if (!r || r.startContainer.nodeType !== Node.TEXT_NODE || !root.contains(r.startContainer)) continue;
        // A line whose box reaches into the view but whose letters are above it (only its descenders show) is not
        // the first line the reader sees: restoring it would bring the line above back into view.
        const glyph = this.rectOf(r);
        if (glyph && glyph.height && glyph.top < bodyPad - 1) continue;
        return (this.paged && this.lineStart(r, left + Math.min(this.pageWidth, columnWidth) - 2 * pad, y)) || r;
      }
    }
    return null;
  }

  /**
   * The first character in view of a chapter in vertical writing: the start of the first line wholly in view — the
   * rightmost one in vertical-rl and sideways-rl, the leftmost in vertical-lr and sideways-lr (`flow.lr`). Its lines
   * start at the root's top padding (at its bottom padding when they run upwards: sideways-lr), on every page (the
   * root's inline padding is not fragmented) and in scroll mode.
   */
  private captureVertical(root: Element, caret: (x: number, y: number) => Range | null, flow: VerticalFlow): Range | null {
    const width = this.doc.documentElement.clientWidth || this.win.innerWidth;
    const height = this.doc.documentElement.clientHeight || this.win.innerHeight;
    const rootStyle = this.win.getComputedStyle(root);
    const rootRect = this.paged ? null : root.getBoundingClientRect();
    const start = flow.upward
      ? (rootRect ? rootRect.bottom : height) - (parseFloat(rootStyle.paddingBottom) || 0)
      : (rootRect ? rootRect.top : 0) + (parseFloat(rootStyle.paddingTop) || 0);
    const inward = flow.upward ? -1 : 1;
    // (a point in the body's margin would give the caret nearest to it anywhere in the chapter: from inside it)
    const bodyStyle = this.paged ? this.win.getComputedStyle(this.doc.body) : null;
    const edge = flow.lr ? parseFloat(bodyStyle?.paddingLeft ?? '0') || 0 : width - (parseFloat(bodyStyle?.paddingRight ?? '0') || 0);
    const across = flow.lr ? 1 : -1;
    for (let dx = 2; dx < Math.min(width, 240); dx += 6) {
      const x = edge + across * dx;
      if (x <= 0 || x >= width) break;
      for (const dy of [1, 20, 60]) {
        const r = caret.call(this.doc, x, start + inward * dy);
        if (!r || r.startContainer.nodeType !== Node.TEXT_NODE || !root.contains(r.startContainer)) continue;
        // Only a glyph on screen: a line cut by the frame's edge (half of it on the previous screen) is not the first
        // line the reader sees, and a caret on another page is not in view at all.
        const glyph = this.rectOf(r);
        if (glyph && (glyph.width || glyph.height) && (glyph.right > width + 1 || glyph.left < -1 || glyph.top < -1 || glyph.bottom > height + 1)) continue;
        return r;
      }
    }
    return null;
  }

  /**
   * A right-to-left line starts at its right: the caret found at the left of the first line in view is its last
   * word, so the first is looked for at the right of the same line (paged mode; null when the text there is not
   * right to left or nothing is found).
   */
  private lineStart(found: Range, right: number, y: number): Range | null {
    const parent = found.startContainer.parentElement;
    if (!parent || this.win.getComputedStyle(parent).direction !== 'rtl') return null;
    const root = this.doc.getElementById(ROOT_ID);
    const caret = (this.doc as Document & { caretRangeFromPoint?: (x: number, y: number) => Range | null }).caretRangeFromPoint;
    for (const dx of [1, 20, 60]) {
      const r = caret?.call(this.doc, right - dx, y);
      if (r && r.startContainer.nodeType === Node.TEXT_NODE && root?.contains(r.startContainer)) return r;
    }
    return null;
  }

  private rectOf(range: Range): DOMRect | null {
    try {
      const r = range.cloneRange();
      const node = r.startContainer;
      if (node.nodeType === Node.TEXT_NODE) {
        const len = (node as Text).length;
        if (r.startOffset < len) r.setEnd(node, r.startOffset + 1);
        else if (r.startOffset > 0) r.setStart(node, r.startOffset - 1);
      }
      const rects = r.getClientRects();
      return rects[0] ?? r.getBoundingClientRect();
    } catch {
      return null;
    }
  }

  /** Scrolls or pages so that `range` is at the top of the view; `pct` when there is no range. */
  private restore(range: Range | null, pct: number) {
    if (this.fixed) {
      if (range) this.anchor = range;
      this.report();
      return;
    }
    this.win.cancelAnimationFrame(this.animation);
    this.slidingTo = null;
    this.restoring++;
    const rect = range && range.startContainer.isConnected ? this.rectOf(range) : null;
    const vertical = this.vertical;
    if (this.paged) {
      const size = this.pageSize;
      const rtl = this.stripRtl;
      const { count } = this.pages();
      let page = pageForPercentage(pct, count);
      if (rect && (rect.width || rect.height)) page = pageAt(this.along, (vertical ? rect.top : rect.left) + 1, size, count, rtl);
      this.along = pageOffset(page, size, rtl);
    } else if (vertical) {
      // sideways: the range's line at the right edge of the view (at its left edge when lines go left to right)
      const s = this.scroller;
      const lr = this.flow?.lr === true;
      if (rect && (rect.width || rect.height)) s.scrollLeft = lr ? Math.max(0, s.scrollLeft + rect.left - 8) : Math.min(0, s.scrollLeft + rect.right + 8 - s.clientWidth);
      else s.scrollLeft = scrollLeftForPercentage(pct, s.scrollWidth, s.clientWidth, lr);
    } else if (rect && (rect.width || rect.height)) {
      this.scroller.scrollTop = Math.max(0, this.scroller.scrollTop + rect.top - 8);
    } else {
      const s = this.scroller;
      s.scrollTop = scrollTopForPercentage(pct, s.scrollHeight, s.clientHeight);
    }
    if (range) this.anchor = range;
    this.win.requestAnimationFrame(() => {
      this.restoring = Math.max(0, this.restoring - 1);
      this.report();
    });
  }

  /** reader.md §4 "Initial position priority" applied. */
  goToInitial(position: InitialPosition) {
    this.writeSettings();
    switch (position.kind) {
      case 'anchor':
        if (this.goToAnchor(position.id)) return;
        this.restore(null, 0);
        return;
      case 'end':
        this.restore(null, 100);
        this.anchor = null;
        return;
      case 'stored': {
        const range = this.findLocator(position.locator);
        this.restore(range, position.locator.progression);
        return;
      }
      case 'percentage':
        this.restore(null, position.value);
        this.anchor = null;
        return;
    }
  }

  /** Hash links and URL anchors: to the element, with the 100 px correction after 50 ms in scroll mode. */
  goToAnchor(id: string): boolean {
    const target = this.doc.getElementById(id) ?? this.doc.getElementsByName(id)[0];
    if (!target) return false;
    const range = this.doc.createRange();
    range.selectNodeContents(target);
    range.collapse(true);
    if (this.paged || this.vertical) {
      this.restore(range, this.percentage());
      return true;
    }
    this.restoring++;
    this.scroller.scrollTop = Math.max(0, this.scroller.scrollTop + target.getBoundingClientRect().top);
    this.win.setTimeout(() => {
      this.scroller.scrollTop = Math.max(0, this.scroller.scrollTop - READER_CONSTANTS.hashScrollOffsetPx);
      this.anchor = range;
      this.restoring = Math.max(0, this.restoring - 1);
      this.report();
    }, READER_CONSTANTS.hashScrollDelayMs);
    return true;
  }

  /** The words of a Locator found again: the snippet nearest its progression, or null. */
  findLocator(locator: Locator): Range | null {
    const needle = locator.text ? locator.text.before + locator.text.highlight : '';
    const root = this.doc.getElementById(ROOT_ID);
    if (!needle || !root || !locator.text) return null;
    const walker = this.doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const nodes: Text[] = [];
    const starts: number[] = [];
    let all = '';
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      nodes.push(n as Text);
      starts.push(all.length);
      all += (n as Text).data;
    }
    const expected = (locator.progression / 100) * all.length;
    let best = -1;
    for (let at = all.indexOf(needle); at >= 0; at = all.indexOf(needle, at + 1)) {
      if (best < 0 || Math.abs(at - expected) < Math.abs(best - expected)) best = at;
    }
    if (best < 0) return null;
    const pos = best + locator.text.before.length;
    let i = starts.length - 1;
    while (i > 0 && starts[i]! > pos) i--;
    const node = nodes[i];
    if (!node) return null;
    const range = this.doc.createRange();
    range.setStart(node, Math.min(node.length, pos - starts[i]!));
    range.collapse(true);
    return range;
  }

  /**
   * The search jump (reader.md §4): marks `words` in the chapter, finds the passage by `phrases` (its first 8
   * words, then 4) and brings it into view (the first mark when the passage is not found). False when there is
   * nothing to go to. The place becomes the reader's position, as if they had scrolled there.
   */
  searchJump(phrases: readonly string[], words: readonly string[], extent = 0): boolean {
    const root = this.doc.getElementById(ROOT_ID);
    if (!root) return false;
    const { range } = markAndFind(root, phrases, words, extent);
    if (!range) return false;
    this.restore(range, this.percentage());
    return true;
  }

  clearSearchMarks() {
    const root = this.doc.getElementById(ROOT_ID);
    if (root) clearMarks(root);
  }

  locator(): Locator {
    const progression = this.percentage();
    const range = this.anchor ?? this.captureRange();
    const node = range?.startContainer;
    // No words to find the place by (a chapter of pictures): the percentage alone is the place. A chapter seen whole
    // counts as read (100 %), but the place is its start: on a smaller screen it is longer, and 100 would open it
    // at its end.
    if (!range || !node || node.nodeType !== Node.TEXT_NODE) return { href: this.href, progression: !this.fixed && this.seenWhole() ? 0 : progression };
    const data = (node as Text).data;
    const off = range.startOffset;
    return {
      href: this.href,
      progression,
      text: { before: data.slice(Math.max(0, off - SNIPPET), off), highlight: data.slice(off, off + SNIPPET), after: data.slice(off + SNIPPET, off + 2 * SNIPPET) },
    };
  }

  private report() {
    if (this.destroyed) return;
    window.clearTimeout(this.progressTimer);
    this.progressTimer = window.setTimeout(() => {
      if (this.destroyed) return;
      this.cb.onProgress(this.percentage(), this.locator());
      if (this.paged) {
        const { index, count } = this.pages();
        this.cb.onPages?.(index, count);
      }
    }, 60);
  }

  // ---- moving ----

  /** One page (paged) or one screen (scroll) forwards or back; past either end asks for the next chapter. */
  turn(direction: Turn) {
    if (this.fixed) return this.cb.onEdge(direction);
    const flow = this.flow;
    if (!this.paged && flow) {
      // sideways: on is leftwards (-rl), rightwards (-lr)
      const s = this.scroller;
      const on = flow.lr ? 1 : -1;
      const along = on * s.scrollLeft;
      const atEnd = along + s.clientWidth >= s.scrollWidth - 2;
      const atStart = along <= 0;
      if (direction === 'next' && atEnd) return this.cb.onEdge('next');
      if (direction === 'prev' && atStart) return this.cb.onEdge('prev');
      s.scrollBy({ left: (direction === 'next' ? on : -on) * (s.clientWidth - 48), behavior: this.reducedMotion() ? 'auto' : 'smooth' });
      return;
    }
    if (!this.paged) {
      const s = this.scroller;
      const atEnd = s.scrollTop + s.clientHeight >= s.scrollHeight - 2;
      const atStart = s.scrollTop <= 0;
      if (direction === 'next' && atEnd) return this.cb.onEdge('next');
      if (direction === 'prev' && atStart) return this.cb.onEdge('prev');
      s.scrollBy({ top: (direction === 'next' ? 1 : -1) * (s.clientHeight - 48), behavior: this.reducedMotion() ? 'auto' : 'smooth' });
      return;
    }
    const { index, count } = this.pages();
    // Rapid turns (a held key, quick taps) count from where the running slide is going, not where it is.
    const target = turnTarget(this.slidingTo ?? index, count, direction);
    if ('chapter' in target) return this.cb.onEdge(target.chapter);
    this.slidingTo = target.page;
    this.slideTo(pageOffset(target.page, this.pageSize, this.stripRtl));
  }

  goToPercentage(pct: number) {
    this.anchor = null;
    this.restore(null, pct);
  }

  private reducedMotion() {
    return window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;
  }

  /**
   * To a page's offset along the strip, with a short slide. A vertical chapter's pages stack downwards, and a slide
   * up or down would move the page across the way its lines are read: it turns at once.
   */
  private slideTo(left: number) {
    const s = this.scroller;
    this.win.cancelAnimationFrame(this.animation);
    const from = this.along;
    const done = () => {
      this.slidingTo = null;
      this.along = left;
      this.anchor = this.captureRange();
      this.report();
      performance.mark('reader:page-turned');
    };
    if (this.reducedMotion() || Math.abs(left - from) < 1 || this.vertical) return done();
    // The frame's animation frames carry the frame's clock (its own time origin, set when the frame was created),
    // not the app's: the start must be read from the same clock, or the slide starts from far in the past.
    const t0 = this.win.performance.now();
    const step = (t: number) => {
      const k = Math.min(1, (t - t0) / SLIDE_MS);
      const eased = 1 - Math.pow(1 - k, 3);
      s.scrollLeft = from + (left - from) * eased;
      if (k < 1) this.animation = this.win.requestAnimationFrame(step);
      else done();
    };
    this.animation = this.win.requestAnimationFrame(step);
  }

  /** Keys (from the frame or from the app): arrows, space, Page Up/Down. True when handled. */
  handleKey(event: KeyboardEvent): boolean {
    if (event.altKey || event.ctrlKey || event.metaKey) return false;
    const target = event.target as HTMLElement | null;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return false;
    if (this.paged) {
      if (this.fixed && (event.key === 'Home' || event.key === 'End')) return false;
      if (event.key === 'Home' || event.key === 'End') {
        event.preventDefault();
        const { count } = this.pages();
        this.slidingTo = event.key === 'Home' ? 0 : count - 1;
        this.slideTo(pageOffset(this.slidingTo, this.pageSize, this.stripRtl));
        return true;
      }
      const dir = keyTurn(event.key, event.shiftKey, this.inputRtl);
      if (!dir) return false;
      event.preventDefault();
      this.turn(dir);
      return true;
    }
    const s = this.scroller;
    if (this.vertical) return this.verticalScrollKey(event);
    switch (event.key) {
      case 'ArrowDown':
      case 'ArrowUp':
        s.scrollBy({ top: event.key === 'ArrowDown' ? 48 : -48 });
        event.preventDefault();
        return true;
      case ' ':
      case 'PageDown':
      case 'PageUp':
        this.turn(event.key === 'PageUp' || (event.key === ' ' && event.shiftKey) ? 'prev' : 'next');
        event.preventDefault();
        return true;
      case 'ArrowRight':
      case 'ArrowLeft':
        // Scroll mode: left/right go through chapters at their ends only; otherwise they do nothing.
        return false;
      case 'Home':
        s.scrollTop = 0;
        event.preventDefault();
        return true;
      case 'End':
        s.scrollTop = s.scrollHeight;
        event.preventDefault();
        return true;
      default:
        return false;
    }
  }

  /**
   * Scroll mode of a vertical chapter, which scrolls sideways: the down arrow and the arrow pointing along its lines'
   * order go on (left in vertical-rl, towards its left end; right in vertical-lr), up and the other back; space and
   * Page Down / Up by a screen; Home and End to its ends.
   */
  private verticalScrollKey(event: KeyboardEvent): boolean {
    const s = this.scroller;
    const on = this.flow?.lr ? 1 : -1;
    switch (event.key) {
      case 'ArrowDown':
      case 'ArrowLeft':
      case 'ArrowUp':
      case 'ArrowRight': {
        const onward = event.key === 'ArrowDown' || event.key === (on > 0 ? 'ArrowRight' : 'ArrowLeft');
        s.scrollBy({ left: (onward ? on : -on) * 48 });
        event.preventDefault();
        return true;
      }
      case ' ':
      case 'PageDown':
      case 'PageUp':
        this.turn(event.key === 'PageUp' || (event.key === ' ' && event.shiftKey) ? 'prev' : 'next');
        event.preventDefault();
        return true;
      case 'Home':
        s.scrollLeft = 0;
        event.preventDefault();
        return true;
      case 'End':
        s.scrollLeft = on * s.scrollWidth;
        event.preventDefault();
        return true;
      default:
        return false;
    }
  }

  // ---- events ----

  private listen<K extends keyof DocumentEventMap>(target: Document | Window, type: K | string, fn: (e: Event) => void, opts?: AddEventListenerOptions) {
    target.addEventListener(type, fn as EventListener, opts);
    this.cleanup.push(() => target.removeEventListener(type, fn as EventListener, opts));
  }

  private wire() {
    this.listen(this.win, 'scroll', () => {
      if (this.restoring) return;
      this.anchor = null;
      this.report();
    }, { passive: true });

    this.listen(this.doc, 'click', (e) => this.onClick(e as MouseEvent));
    this.listen(this.doc, 'keydown', (e) => {
      const ke = e as KeyboardEvent;
      if (this.notePopup && ke.key === 'Escape') {
        ke.preventDefault();
        ke.stopPropagation();
        this.closeNote(true);
        return;
      }
      if (this.cb.onKey) this.cb.onKey(ke);
      else this.handleKey(ke);
    });
    this.listen(this.doc, 'touchstart', (e) => {
      const t = (e as TouchEvent).touches[0];
      this.touchStart = t && (e as TouchEvent).touches.length === 1 ? { x: t.clientX, y: t.clientY } : null;
    }, { passive: true });
    this.listen(this.doc, 'touchend', (e) => {
      const t = (e as TouchEvent).changedTouches[0];
      const start = this.touchStart;
      this.touchStart = null;
      if (!t || !start || !this.paged || this.fixed?.zoomed()) return;
      const dir = classifySwipe(t.clientX - start.x, t.clientY - start.y, this.inputRtl);
      if (dir) {
        e.preventDefault();
        this.turn(dir);
      }
    });
    // Images that fail later (lazy ones) and images that arrive and change the layout.
    this.listen(this.doc, 'error', (e) => {
      if (isImage(e.target)) this.markFailed(e.target);
    }, { capture: true });
    this.listen(this.doc, 'load', (e) => {
      if (isImage(e.target)) {
        this.markZoomable(e.target);
        if (this.anchor) this.restore(this.anchor, this.percentage());
      }
    }, { capture: true });
    this.listen(window, 'resize', () => {
      window.clearTimeout(this.resizeTimer);
      this.resizeTimer = window.setTimeout(() => this.relayout(), READER_CONSTANTS.pagingResizeDebounceMs);
    });
    this.listen(window, 'orientationchange', () => {
      window.clearTimeout(this.resizeTimer);
      this.resizeTimer = window.setTimeout(() => this.relayout(), READER_CONSTANTS.pagingResizeDebounceMs);
    });
  }

  private onClick(event: MouseEvent) {
    if (event.defaultPrevented || event.button !== 0) return;
    const el = event.target as Element | null;
    // A tap outside an open note closes it (and turns no page).
    if (this.notePopup && !this.notePopup.contains(el)) {
      this.closeNote(true);
      return;
    }
    const anchor = el?.closest?.('a[href]');
    if (anchor) return this.onLink(event, anchor);
    if (isImage(el) && el.classList.contains('lectern-zoomable')) {
      event.preventDefault();
      this.cb.onImage(el.currentSrc || el.src, el.alt);
      return;
    }
    if (this.doc.getSelection()?.toString()) return;
    const dir = this.fixed ? (this.fixed.zoomed() ? null : this.fixed.tapTurn(event.clientX)) : tapZone(event.clientX, this.win.innerWidth, this.inputRtl);
    if (dir) {
      if (this.paged) this.turn(dir);
    } else if (!el?.closest?.(INTERACTIVE)) {
      this.cb.onMiddleTap?.();
    }
  }

  private onLink(event: MouseEvent, anchor: Element) {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const raw = (anchor.getAttribute('href') ?? '').trim();
    // A link inside an open note (its back link, most often) closes it first.
    if (this.notePopup?.contains(anchor)) this.closeNote(false);
    const note = this.noteFor(anchor, raw);
    if (note) {
      event.preventDefault();
      this.openNote(anchor, note);
      return;
    }
    // reader.md §2: http(s):// and mailto: links are left to the browser (a new tab: the reader stays open).
    if (/^(https?:|mailto:)/i.test(raw)) {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        event.preventDefault();
        return;
      }
      if (url.origin !== window.location.origin) {
        event.preventDefault();
        this.leave(url);
        return;
      }
    }
    event.preventDefault();
    let url: URL;
    try {
      url = new URL(raw, this.doc.baseURI);
    } catch {
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return; // javascript: and friends go nowhere
    const hash = url.hash.replace(/^#/, '');
    const samePlace = url.pathname === new URL(this.doc.baseURI).pathname || url.pathname === window.location.pathname;
    if (raw.startsWith('#') || (samePlace && hash)) {
      if (hash) {
        const id = decodeURIComponent(hash);
        // (the latest link wins; one to a part still going in is followed when it is in)
        this.pendingAnchor = !this.goToAnchor(id) && this.filling ? id : null;
      }
      return;
    }
    if (url.pathname.startsWith(this.chapterApiPrefix)) {
      const fullPath = url.pathname.slice(this.chapterApiPrefix.length).split('/').map(decodeURIComponent).join('/');
      this.cb.onNavigate(this.readerPath(fullPath) + url.hash);
      return;
    }
    if (url.origin === window.location.origin && url.pathname.startsWith('/library/')) {
      this.cb.onNavigate(url.pathname + url.search + url.hash);
      return;
    }
    this.leave(url);
  }

  /** Out of the book: through the app's question when it asks one, else straight to the browser. */
  private leave(url: URL) {
    if (this.cb.onExternalLink) this.cb.onExternalLink(url.href);
    else if (url.protocol === 'mailto:') window.location.href = url.href;
    else window.open(url.href, '_blank', 'noopener,noreferrer');
  }

  // ---- footnotes (EPUB 3 noteref: the note over the page, the page kept) ----

  private notePopup: HTMLElement | null = null;
  private noteOpener: Element | null = null;

  /**
   * The note a link points at, when it is a footnote link: marked `epub:type="noteref"` (or DPUB-ARIA
   * `doc-noteref`), or pointing at an element marked footnote / endnote / rearnote / note, in this chapter.
   */
  private noteFor(anchor: Element, raw: string): Element | null {
    if (!raw.startsWith('#') && !raw.includes('#')) return null;
    const hash = raw.slice(raw.indexOf('#') + 1);
    if (!hash) return null;
    let url: URL;
    try {
      url = new URL(raw, this.doc.baseURI);
    } catch {
      return null;
    }
    if (!raw.startsWith('#') && url.pathname !== new URL(this.doc.baseURI).pathname) return null;
    let id: string;
    try {
      id = decodeURIComponent(hash);
    } catch {
      return null;
    }
    const target = this.doc.getElementById(id);
    if (!target || target.contains(anchor)) return null;
    const types = (el: Element | null) => `${el?.getAttribute('data-epub-type') ?? ''} ${el?.getAttribute('role') ?? ''}`.toLowerCase().split(/\s+/);
    const isRef = types(anchor).some((t) => t === 'noteref' || t === 'doc-noteref');
    const note = target.closest(NOTE_SELECTOR);
    if (note) return note;
    return isRef ? target : null;
  }

  private openNote(anchor: Element, note: Element) {
    this.closeNote(false);
    const popup = this.doc.createElement('div');
    popup.className = 'lectern-note';
    popup.setAttribute('role', 'dialog');
    popup.setAttribute('aria-label', READING_MESSAGES.noteLabel);
    popup.tabIndex = -1;
    const body = this.doc.createElement('div');
    body.className = 'lectern-note__body';
    const copy = note.cloneNode(true) as Element;
    // the copy's ids would duplicate the chapter's (and its anchors' targets)
    for (const el of [copy, ...Array.from(copy.querySelectorAll('[id]'))]) el.removeAttribute('id');
    body.append(copy);
    const close = this.doc.createElement('button');
    close.type = 'button';
    close.className = 'lectern-note__close';
    close.textContent = READING_MESSAGES.closeNote;
    close.addEventListener('click', (e) => {
      e.preventDefault();
      e.stopPropagation();
      this.closeNote(true);
    });
    popup.append(body, close);
    // on <html>, outside the body's page columns: a fixed box over the frame's viewport
    this.doc.documentElement.append(popup);
    this.notePopup = popup;
    this.noteOpener = anchor;
    popup.focus({ preventScroll: true });
  }

  /** Closes the open note; `refocus` puts the keyboard back on the link that opened it. */
  private closeNote(refocus: boolean) {
    if (!this.notePopup) return;
    this.notePopup.remove();
    this.notePopup = null;
    const opener = this.noteOpener as HTMLElement | null;
    this.noteOpener = null;
    if (refocus) opener?.focus?.({ preventScroll: true });
  }

  // ---- images ----

  private prepareImages() {
    for (const img of Array.from(this.doc.images)) {
      if (img.complete && img.naturalWidth === 0 && img.getAttribute('src')) this.markFailed(img);
      else if (img.complete) this.markZoomable(img);
    }
  }

  /** reader.md §5: images wider than 50 px and wider than their container get a lightbox. */
  private markZoomable(img: HTMLImageElement) {
    const shown = img.getBoundingClientRect().width;
    if (img.naturalWidth > READER_CONSTANTS.lightboxMinWidthPx && img.naturalWidth > shown + 1 && !img.closest('a[href]')) {
      img.classList.add('lectern-zoomable');
      img.setAttribute('tabindex', '0');
      img.setAttribute('role', 'button');
      img.setAttribute('aria-label', img.alt ? `Enlarge image: ${img.alt}` : 'Enlarge image');
      img.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          e.stopPropagation();
          this.cb.onImage(img.currentSrc || img.src, img.alt);
        }
      });
    }
  }

  private markFailed(img: HTMLImageElement) {
    if (img.classList.contains('lectern-image-failed')) return;
    img.classList.add('lectern-image-failed');
    const note = this.doc.createElement('span');
    note.className = 'lectern-image-error';
    note.setAttribute('role', 'img');
    note.setAttribute('aria-label', img.alt ? `${img.alt}: ${MESSAGES.imageLoadFailed}` : MESSAGES.imageLoadFailed);
    note.textContent = MESSAGES.imageLoadFailed;
    img.after(note);
  }

  focus() {
    try {
      this.win.focus();
    } catch {
      /* not focusable yet */
    }
  }

  destroy() {
    this.destroyed = true;
    window.clearTimeout(this.resizeTimer);
    window.clearTimeout(this.progressTimer);
    this.win.cancelAnimationFrame?.(this.animation);
    for (const fn of this.cleanup) fn();
    this.cleanup = [];
  }
}
