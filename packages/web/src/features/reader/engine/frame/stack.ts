/**
 * A chapter frame in a stack (`rendition:flow scrolled-continuous`, EPUB 3.3 §8.2.2.2; docs/decisions.md
 * "`scrolled-continuous` reads as one scroll"): the book's chapters, each in its own frame as tall as its text, stacked one
 * after another in one scroller (ContinuousView.tsx). A stacked frame never scrolls itself; the other parts
 * (layout, position, pager, input) see its part of the shared scroller through a StackedScroller, which answers
 * as a frame's own scroller would: how far into this chapter the view is, how tall the chapter is, how tall the view.
 *
 * The pure rules of the stack live here too: which chapter is under the top of the view (the one read, whose
 * Locator is the reader's position), when the next or previous chapter is brought in, and which frames go.
 */

/** What a stacked frame needs of the view that holds it. */
export interface StackHost {
  /** The one scroller the chapters are stacked in (the frames' offsetParent). */
  readonly scroller: HTMLElement;
  /** Sets the frame's height to its text's, now (after its settings changed), keeping the chapter read in place. */
  fit(): void;
}

/** The scroller a frame's parts use: the element's own, or a stacked frame's part of the stack's (StackedScroller). */
export type Scroller = Pick<Element, 'scrollTop' | 'scrollLeft' | 'scrollHeight' | 'scrollWidth' | 'clientHeight' | 'clientWidth' | 'scrollBy'>;

/**
 * A stacked chapter's view of the shared scroller. `scrollTop` is how far the top of the view is below the
 * chapter's top (negative while the chapter starts below it: that is not clamped, so that a place in the chapter
 * plus this offset is always a place in the stack); setting it scrolls the stack there.
 */
export class StackedScroller implements Scroller {
  constructor(
    readonly frame: HTMLIFrameElement,
    readonly host: StackHost,
  ) {}

  /** The chapter's top in the stack's content. */
  get offset(): number {
    return this.frame.offsetTop;
  }

  get scrollTop(): number {
    return this.host.scroller.scrollTop - this.offset;
  }

  /** Scrolls the stack so that the view is `top` down the chapter: within the chapter, its last screen at most. */
  set scrollTop(top: number) {
    const max = Math.max(0, this.scrollHeight - this.clientHeight);
    this.host.scroller.scrollTop = this.offset + Math.min(Math.max(0, top), max);
  }

  /**
   * Scrolls the stack so that the view is `top` down the chapter, past the chapter's last screen too: a place restored
   * near a chapter's end is at the top of the view, the next chapter below it (only the stack's own end stops it, and
   * the stack's view puts the place back once the next chapter is laid out: ContinuousView's pin).
   */
  showAt(top: number): void {
    this.host.scroller.scrollTop = this.offset + Math.max(0, top);
  }

  /** A stacked chapter never scrolls sideways. */
  get scrollLeft(): number {
    return 0;
  }

  set scrollLeft(_left: number) {
    /* nothing to scroll */
  }

  get scrollHeight(): number {
    return this.frame.offsetHeight;
  }

  get scrollWidth(): number {
    return this.frame.clientWidth;
  }

  get clientHeight(): number {
    return this.host.scroller.clientHeight;
  }

  get clientWidth(): number {
    return this.frame.clientWidth;
  }

  scrollBy(options?: ScrollToOptions): void;
  scrollBy(x: number, y: number): void;
  scrollBy(a?: ScrollToOptions | number, b?: number): void {
    const s = this.host.scroller;
    if (typeof a === 'number') s.scrollBy({ top: b ?? 0 });
    else s.scrollBy({ top: a?.top ?? 0, behavior: a?.behavior });
  }

  /** How far down the chapter the top of the view is (0 while the chapter starts below it): where its text in view begins. */
  get viewTop(): number {
    return Math.max(0, this.scrollTop);
  }
}

/**
 * The height of a chapter's text in its frame: down to the end of the body's bottom margin (the document's own
 * scrollHeight would never be less than the frame's height, so a frame could grow and never shrink again).
 */
export function contentHeight(doc: Document): number {
  const body = doc.body;
  const win = doc.defaultView;
  if (!body || !win) return 0;
  const html = doc.documentElement;
  const below = (parseFloat(win.getComputedStyle(body).marginBottom) || 0) + (parseFloat(win.getComputedStyle(html).paddingBottom) || 0);
  const top = html.getBoundingClientRect().top;
  return Math.ceil(body.getBoundingClientRect().bottom - top + below);
}

/** A slot of the stack as laid out: its top in the scroller's content and its height. */
export interface SlotBox {
  top: number;
  height: number;
}

/** The slot under `y` (the top of the view, in the scroller's content): the last one starting at or above it. */
export function slotAt(boxes: readonly SlotBox[], y: number): number {
  for (let i = boxes.length - 1; i >= 0; i--) if (boxes[i]!.top <= y) return i;
  return 0;
}

/** The next chapter is brought in once the stack's end is this many screens from the view's end (the previous likewise above). */
export const PREFETCH_SCREENS = 2;
/** Chapters kept before the one read, and after it (more are kept while they are within FAR_SCREENS of the view). */
export const KEEP_BEFORE = 1;
export const KEEP_AFTER = 2;
/** A frame goes only once it is further than this from the view (a screen more than PREFETCH_SCREENS: never loaded and dropped in turn). */
export const FAR_SCREENS = PREFETCH_SCREENS + 1;

export interface StackView {
  boxes: readonly SlotBox[];
  scrollTop: number;
  viewHeight: number;
  /** There is a chapter to bring in before the first slot / after the last one. */
  canGrowBefore: boolean;
  canGrowAfter: boolean;
}

export interface StackPlan {
  /** The slot under the top of the view: the chapter read. */
  current: number;
  loadPrev: boolean;
  loadNext: boolean;
  /** How many slots go from the start of the stack, and from its end. */
  dropBefore: number;
  dropAfter: number;
}

/** What the stack does next, from where the view is: bring a neighbour in, or let far chapters go (memory stays bounded). */
export function planStack(v: StackView): StackPlan {
  const { boxes, scrollTop, viewHeight } = v;
  const count = boxes.length;
  const current = slotAt(boxes, scrollTop + 1);
  const first = boxes[0];
  const last = boxes[count - 1];
  const viewEnd = scrollTop + viewHeight;
  const near = PREFETCH_SCREENS * viewHeight;
  const far = FAR_SCREENS * viewHeight;
  const loadPrev = v.canGrowBefore && !!first && scrollTop - first.top < near;
  const loadNext = v.canGrowAfter && !!last && last.top + last.height - viewEnd < near;
  let dropBefore = 0;
  while (dropBefore < current - KEEP_BEFORE) {
    const box = boxes[dropBefore]!;
    if (box.top + box.height > scrollTop - far) break;
    dropBefore++;
  }
  let dropAfter = 0;
  while (count - 1 - dropAfter > current + KEEP_AFTER) {
    const box = boxes[count - 1 - dropAfter]!;
    if (box.top < viewEnd + far) break;
    dropAfter++;
  }
  return { current, loadPrev: loadPrev && dropBefore === 0, loadNext: loadNext && dropAfter === 0, dropBefore, dropAfter };
}
