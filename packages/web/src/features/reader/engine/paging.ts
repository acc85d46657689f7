/**
 * The arithmetic of paged reading (CSS multi-column, one page = the frame's width) and of the gestures that turn
 * pages (reader.md §9: swipe 60 px horizontal and under 20 px vertical; tap zones the left and right 40%).
 * Pure functions, so the rules are tested without a layout engine.
 *
 * A right-to-left book's chapter is laid out in columns from right to left (`rtl`: its column strip has
 * `direction: rtl`, docs/decisions.md "Right-to-left page progression"): page 0 is the rightmost column, the
 * viewport's scroll offset runs from 0 on the first page to -(scrollWidth - clientWidth) on the last, and the page
 * after the one in view lies to its left. Every offset below takes `rtl` and counts pages from the strip's start.
 *
 * A chapter in vertical writing (its body computes to `writing-mode: vertical-rl`, `vertical-lr`, `sideways-rl` or
 * `sideways-lr`, docs/decisions.md "Vertical writing"; verticalFlow) is paged by the same functions along the other
 * axis: its columns are one screen high and stack along the body's inline direction (a multi-column container in
 * vertical writing lays its columns out that way), each showing vertical lines read right to left (vertical-rl,
 * sideways-rl) or left to right (vertical-lr, sideways-lr), so the offset is `scrollTop`, the page size the frame's
 * height, and a point's position along the strip is its `y`. The strip runs downwards (`rtl` false: scrollTop from 0
 * to scrollHeight - clientHeight), or upwards when the body's inline direction does — sideways-lr, whose lines read
 * bottom to top, or a vertical body whose direction is rtl — (`rtl` true: scrollTop from 0 to -(scrollHeight -
 * clientHeight), page 0 at the bottom, the same mirrored arithmetic as a right-to-left strip). In scroll mode such a
 * chapter scrolls sideways: `scrollLeft` runs from 0 at its start (the right end of a right-to-left one) to
 * -(scrollWidth - clientWidth), or from 0 (its left end, `lr`) to scrollWidth - clientWidth
 * (sidewaysScrollPercentage).
 */
import { clampPercentage, READER_CONSTANTS } from '@lectern/core';

/** How many pages a chapter laid out in columns spans. */
export function pageCount(scrollWidth: number, pageWidth: number): number {
  if (!(pageWidth > 0) || !(scrollWidth > 0)) return 1;
  // A pixel of rounding must not make an extra, empty page.
  return Math.max(1, Math.ceil((scrollWidth - 2) / pageWidth));
}

/** The page the viewport shows for a scroll offset (rounded: a page turn may be mid-animation). */
export function pageIndex(scrollLeft: number, pageWidth: number, count: number, rtl = false): number {
  if (!(pageWidth > 0)) return 0;
  const along = rtl ? -scrollLeft : scrollLeft;
  return Math.min(Math.max(0, count - 1), Math.max(0, Math.round(along / pageWidth)));
}

/** The scroll offset of a page (0 or negative in a right-to-left strip). */
export const pageOffset = (index: number, pageWidth: number, rtl = false) => (rtl ? -1 : 1) * Math.max(0, index) * pageWidth || 0;

/**
 * The page that holds the point `x` of the viewport (a glyph's left edge plus a pixel), the viewport scrolled to
 * `scrollLeft`: how far the point is from the start of the strip, in pages. In a right-to-left strip the start is
 * the right edge of page 0, which is at `pageWidth - scrollLeft` in the viewport.
 */
export function pageAt(scrollLeft: number, x: number, pageWidth: number, count: number, rtl = false): number {
  if (!(pageWidth > 0)) return 0;
  const along = rtl ? pageWidth - scrollLeft - x : scrollLeft + x;
  return Math.min(Math.max(0, count - 1), Math.max(0, Math.floor(along / pageWidth)));
}

/** A reading percentage: the first page is 0, the last 100 (so reaching the end is reaching 100%). */
export function pagedPercentage(index: number, count: number): number {
  if (count <= 1) return 100;
  return clampPercentage((index / (count - 1)) * 100);
}

/** The page that holds a percentage (the inverse of pagedPercentage). */
export function pageForPercentage(percentage: number, count: number): number {
  if (count <= 1) return 0;
  return Math.min(count - 1, Math.max(0, Math.round((clampPercentage(percentage) / 100) * (count - 1))));
}

/** Scroll mode: 0 at the top, 100 with the end of the chapter in view. */
export function scrollPercentage(scrollTop: number, scrollHeight: number, clientHeight: number): number {
  const range = scrollHeight - clientHeight;
  if (range <= 1) return 100;
  return clampPercentage((scrollTop / range) * 100);
}

export const scrollTopForPercentage = (percentage: number, scrollHeight: number, clientHeight: number) =>
  Math.max(0, ((scrollHeight - clientHeight) * clampPercentage(percentage)) / 100);

/**
 * Scroll mode of a vertical chapter: 0 at its start, 100 at its end. A right-to-left one (vertical-rl) starts at
 * scrollLeft 0, its right end, and ends at its left end (negative offsets); a left-to-right one (`lr`: vertical-lr,
 * sideways-lr) starts at its left end, scrollLeft 0, and ends at scrollWidth - clientWidth.
 */
export const sidewaysScrollPercentage = (scrollLeft: number, scrollWidth: number, clientWidth: number, lr = false) =>
  scrollPercentage(lr ? scrollLeft : -scrollLeft, scrollWidth, clientWidth);

/** The scrollLeft of a percentage of a vertical chapter in scroll mode (0 or negative; 0 or positive when `lr`). */
export const scrollLeftForPercentage = (percentage: number, scrollWidth: number, clientWidth: number, lr = false) =>
  (lr ? 1 : -1) * scrollTopForPercentage(percentage, scrollWidth, clientWidth) || 0;

/**
 * Whether a computed `writing-mode` is one the reader lays out as vertical writing read right to left (vertical-rl;
 * sideways-rl lays its lines the same way). vertical-lr and sideways-lr are not (their lines go left to right).
 */
export const isVerticalRl = (writingMode: string | null | undefined) => writingMode === 'vertical-rl' || writingMode === 'sideways-rl';

/** How a chapter in vertical writing lays its lines and pages out (verticalFlow). */
export interface VerticalFlow {
  /** Its lines follow each other left to right (vertical-lr, sideways-lr), not right to left. */
  lr: boolean;
  /**
   * Its inline direction, and with it the strip of pages, runs upwards: sideways-lr (lines read bottom to top), or
   * vertical-rl / vertical-lr / sideways-rl with `direction: rtl`. Page 0 is at the bottom of the strip and the
   * offsets are those of a right-to-left strip (pass it as `rtl`).
   */
  upward: boolean;
}

/**
 * The vertical writing a body's computed `writing-mode` and `direction` give (Chromium computes the legacy
 * `tb-rl` / `tb` / `-epub-` spellings to these four), or null for a horizontal body.
 */
export function verticalFlow(writingMode: string | null | undefined, direction?: string | null): VerticalFlow | null {
  const rtl = direction === 'rtl';
  switch (writingMode) {
    case 'vertical-rl':
    case 'sideways-rl':
      return { lr: false, upward: rtl };
    case 'vertical-lr':
      return { lr: true, upward: rtl };
    case 'sideways-lr':
      return { lr: true, upward: !rtl };
    default:
      return null;
  }
}

/** Whether a computed `writing-mode` is vertical writing of any kind. */
export const isVertical = (writingMode: string | null | undefined) => verticalFlow(writingMode) !== null;

/**
 * Whether taps, swipes and arrows turn the other way: a book whose pages turn right to left, or a chapter in
 * vertical-rl (or sideways-rl) writing, whose lines and pages are read right to left whatever the package says
 * (`verticalRl`). A chapter in vertical-lr or sideways-lr writing, read left to right, turns the way the book does:
 * the right arrow goes on, unless its page-progression-direction is rtl.
 */
export const turnsRtl = (bookRtl: boolean, verticalRl: boolean) => bookRtl || verticalRl;

export type Turn = 'next' | 'prev';

/** A page turn asked for from the current page: move within the chapter, or leave it at either end. */
export function turnTarget(index: number, count: number, direction: Turn): { page: number } | { chapter: Turn } {
  if (direction === 'next') return index >= count - 1 ? { chapter: 'next' } : { page: index + 1 };
  return index <= 0 ? { chapter: 'prev' } : { page: index - 1 };
}

/** A horizontal swipe of at least 60 px that moved under 20 px vertically; leftwards is the next page. */
export function classifySwipe(dx: number, dy: number, rtl = false): Turn | null {
  if (Math.abs(dx) < READER_CONSTANTS.swipeMinX || Math.abs(dy) >= READER_CONSTANTS.swipeMaxY) return null;
  // a right-to-left book turns forward with a swipe to the right, as its paper pages do
  return (dx < 0) !== rtl ? 'next' : 'prev';
}

/** A pause this long between wheel events ends a wheel gesture (a trackpad's swipe, its momentum included). */
export const WHEEL_GESTURE_GAP_MS = 300;

/**
 * A sideways wheel gesture (a trackpad's two-finger swipe) read as a swipe: its deltas added up over the gesture and
 * judged by classifySwipe, the wheel scrolling the content the way a finger would drag it the other way (deltaX > 0,
 * the fingers moving left: the next chapter in a left-to-right book). One gesture turns once, however long its
 * momentum runs on; a gesture that scrolls something of the book sideways turns nothing. `now` is in ms, from a clock
 * that outlives the chapter's document (the gesture goes on in the next chapter).
 */
export class SidewaysWheel {
  private dx = 0;
  private dy = 0;
  private last = -Infinity;
  private spent = false;

  step(deltaX: number, deltaY: number, now: number, rtl = false): Turn | null {
    this.begin(now);
    if (this.spent) return null;
    this.dx += deltaX;
    this.dy += deltaY;
    const turn = classifySwipe(-this.dx, -this.dy, rtl);
    if (turn) this.spent = true;
    return turn;
  }

  /** The gesture scrolls something else (a wide table, a code block): it turns nothing till it ends. */
  taken(now: number) {
    this.begin(now);
    this.spent = true;
  }

  private begin(now: number) {
    if (now - this.last > WHEEL_GESTURE_GAP_MS) {
      this.dx = this.dy = 0;
      this.spent = false;
    }
    this.last = now;
  }
}

/**
 * The tap zones: the left 40% of the width goes back, the right 40% forward, the middle does not turn; the other
 * way round in a right-to-left book (`rtl`: its page-progression-direction).
 */
export function tapZone(x: number, width: number, rtl = false): Turn | null {
  if (!(width > 0)) return null;
  const f = READER_CONSTANTS.tapZoneFraction;
  if (x < width * f) return rtl ? 'next' : 'prev';
  if (x > width * (1 - f)) return rtl ? 'prev' : 'next';
  return null;
}

/** Keys that turn pages in paged mode; the arrows point the way the book's pages go (`rtl`: right to left). */
export function keyTurn(key: string, shiftKey = false, rtl = false): Turn | null {
  switch (key) {
    case 'ArrowRight':
      return rtl ? 'prev' : 'next';
    case 'ArrowLeft':
      return rtl ? 'next' : 'prev';
    case 'PageDown':
      return 'next';
    case 'PageUp':
      return 'prev';
    case ' ':
    case 'Spacebar':
      return shiftKey ? 'prev' : 'next';
    default:
      return null;
  }
}
