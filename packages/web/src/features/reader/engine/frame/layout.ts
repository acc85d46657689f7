/**
 * A chapter frame's layout: the reading mode (paged with CSS columns, or scroll), vertical writing, the one settings
 * style element and the classes on the root, and the arithmetic of where the view is along the strip of pages. It
 * moves the view only when told to (show); what to show is the position part's business (frame/position.ts).
 */
import type { ReaderPreferences } from '@lectern/core';
import { htmlClasses, setReaderClasses, SETTINGS_STYLE_ID, settingsCss, verticalFlowOf } from '../chapterDocument.ts';
import type { Scroller, StackedScroller } from './stack.ts';
import { pageAt, pageCount, pageForPercentage, pageIndex, pageOffset, pagedPercentage, scrollLeftForPercentage, scrollPercentage,
  scrollTopForPercentage, sidewaysScrollPercentage, turnsRtl, type Turn, type VerticalFlow } from '../paging.ts';

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

export class FrameLayout {
  /**
   * The book's pages turn right to left (its page-progression-direction): taps, swipes and arrows follow, and in
   * paged mode the chapter's columns run right to left (the `lectern-rtl` class: chapterDocument.ts).
   */
  rtl = false;

  constructor(
    readonly frame: HTMLIFrameElement,
    readonly doc: Document,
    readonly win: Window,
    public prefs: ReaderPreferences,
    readonly fixed: FixedPageOptions | null = null,
    /** A chapter stacked with its neighbours in one scroller (frame/stack.ts): it scrolls that, never itself. */
    readonly stack: StackedScroller | null = null,
  ) {}

  get paged() {
    return this.fixed !== null || this.prefs.pagination === 'page';
  }

  get scroller(): Scroller {
    return this.stack ?? this.doc.scrollingElement ?? this.doc.documentElement;
  }

  /**
   * A top in the frame's client coordinates, as a distance from the top of the reader's view: the same number for a
   * frame that scrolls itself; in a stack the frame is as tall as its text, and the view starts `stack.scrollTop`
   * down it.
   */
  toView(top: number): number {
    return this.stack ? top - this.stack.scrollTop : top;
  }

  /**
   * Whether the strip of pages runs backwards, as the browser laid it out: a horizontal strip right to left (the
   * body's direction: the multi-column container's, which the viewport takes too), a vertical one upwards
   * (sideways-lr: VerticalFlow.upward). Read from the layout rather than assumed from `rtl`, so the arithmetic
   * always matches the columns on screen, whoever set the direction. Paging functions take it as their `rtl`.
   */
  get stripRtl(): boolean {
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
  get flow(): VerticalFlow | null {
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
  get inputRtl(): boolean {
    const flow = this.flow;
    return turnsRtl(this.rtl, !!flow && !flow.lr);
  }

  get pageWidth() {
    return this.doc.documentElement.clientWidth || this.frame.clientWidth || 1;
  }

  get pageHeight() {
    return this.doc.documentElement.clientHeight || this.frame.clientHeight || 1;
  }

  /** One page along the strip: the frame's width, or its height for vertical writing (pages stacked downwards). */
  get pageSize() {
    return this.vertical ? this.pageHeight : this.pageWidth;
  }

  /** The viewport's offset along the strip of pages (scrollLeft; scrollTop for vertical writing). */
  get along(): number {
    return this.vertical ? this.scroller.scrollTop : this.scroller.scrollLeft;
  }

  set along(offset: number) {
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
  seenWhole(): boolean {
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

  /** Rewrites the one style element and the classes on the root from the preferences, and resets the other axis. */
  writeSettings() {
    if (this.fixed) return; // the book lays its page out; the reader's settings are for reflowable text
    const vertical = this.vertical;
    const layout = { pagination: this.prefs.pagination, pageWidth: this.pageWidth, rtl: this.rtl, vertical, pageHeight: vertical ? this.pageHeight : undefined };
    const style = this.doc.getElementById(SETTINGS_STYLE_ID);
    if (style) style.textContent = settingsCss(this.prefs, layout);
    setReaderClasses(this.doc.documentElement, htmlClasses(this.prefs, layout));
    if (!this.paged && vertical && !this.stack) this.scroller.scrollTop = 0;
    else if (!this.paged) this.scroller.scrollLeft = 0;
    // a stacked frame takes its text's new height at once, so that what follows places the view in the right stack
    this.stack?.host.fit();
  }

  /**
   * Pages or scrolls so that `rect` (the first glyph of the place to show) is at the start of the view: on its page,
   * at the top in scroll mode, at the right edge of a sideways-scrolling chapter (the left edge when its lines go left
   * to right). Without a rect (or an empty one), to `pct` of the chapter.
   */
  show(rect: DOMRect | null, pct: number) {
    const vertical = this.vertical;
    const seen = rect && (rect.width || rect.height) ? rect : null;
    const s = this.scroller;
    if (this.paged) {
      const size = this.pageSize;
      const rtl = this.stripRtl;
      const { count } = this.pages();
      let page = pageForPercentage(pct, count);
      if (seen) page = pageAt(this.along, (vertical ? seen.top : seen.left) + 1, size, count, rtl);
      this.along = pageOffset(page, size, rtl);
    } else if (vertical) {
      const lr = this.flow?.lr === true;
      if (seen) s.scrollLeft = lr ? Math.max(0, s.scrollLeft + seen.left - 8) : Math.min(0, s.scrollLeft + seen.right + 8 - s.clientWidth);
      else s.scrollLeft = scrollLeftForPercentage(pct, s.scrollWidth, s.clientWidth, lr);
    } else if (seen) {
      const top = Math.max(0, s.scrollTop + this.toView(seen.top) - 8);
      // (a stacked chapter's place goes to the top of the view even in its last screen: stack.ts showAt)
      if (this.stack) this.stack.showAt(top);
      else s.scrollTop = top;
    } else {
      s.scrollTop = scrollTopForPercentage(pct, s.scrollHeight, s.clientHeight);
    }
  }
}
