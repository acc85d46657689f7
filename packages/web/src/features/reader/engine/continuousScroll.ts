/**
 * `rendition:flow scrolled-continuous` (EPUB 3.3 §8.2.2.2; docs/decisions.md "Fixed layout and flow"): the book reads
 * as one scroll across its spine items. Each chapter keeps its own frame and FrameController (positions, progress,
 * read aloud and annotations stay per chapter); what this adds is the scroll carrying on past a chapter's edge. A
 * wheel turned, or a finger pulled, on past the end of a chapter in scroll mode brings the next one in below (the
 * view slides it up from under the chapter when it is laid out already: ChapterView), and past the top the previous
 * one, opened at its end. Keys already go on past the edge (FrameController.turn asks for the next chapter).
 *
 * A chapter's frame is its own document, so its wheel and touch events never reach the app's: they are listened to
 * in the frame, passively (a listener that may cancel makes every scroll wait on it), and only count once the chapter
 * is at that edge already, so a fling that just reaches the end does not throw the reader into the next chapter.
 */

export type Direction = 'next' | 'prev';

/** How far a wheel must turn, or a finger pull, on past a chapter's edge before the next (or previous) one comes. */
export const OVERSCROLL_PX = 80;

/** The running total of a wheel's turns past an edge: the direction it reached, or null while it is short of it. */
export class Overscroll {
  private total = 0;

  /**
   * One wheel step (`delta` CSS px, positive downwards) taken where the chapter is `atStart` / `atEnd` before the step
   * scrolls it. Steps away from an edge, or inside the chapter, start the count again.
   */
  step(delta: number, atStart: boolean, atEnd: boolean): Direction | null {
    if ((delta > 0 && atEnd) || (delta < 0 && atStart)) {
      this.total = Math.sign(delta) === Math.sign(this.total) || this.total === 0 ? this.total + delta : delta;
    } else {
      this.total = 0;
      return null;
    }
    if (Math.abs(this.total) < OVERSCROLL_PX) return null;
    const direction = this.total > 0 ? 'next' : 'prev';
    this.total = 0;
    return direction;
  }

  reset(): void {
    this.total = 0;
  }
}

/** Where a document's scroller stands: at its top, at its end (2 px of rounding allowed, as FrameController's turn). */
function edges(doc: Document): { atStart: boolean; atEnd: boolean } {
  const s = doc.scrollingElement ?? doc.documentElement;
  return { atStart: s.scrollTop <= 0, atEnd: s.scrollTop + s.clientHeight >= s.scrollHeight - 2 };
}

/** A wheel event's vertical distance in CSS px (lines and pages as Chromium counts them). */
function wheelPx(e: WheelEvent, doc: Document): number {
  const page = (doc.scrollingElement ?? doc.documentElement).clientHeight;
  return e.deltaY * (e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? page : 1);
}

/**
 * Watches a chapter's document for a scroll carried on past its top or end; `onPast` is called once per gesture
 * that goes past. Returns the function that stops watching.
 */
export function watchContinuousScroll(doc: Document, onPast: (direction: Direction) => void): () => void {
  const overscroll = new Overscroll();
  const onWheel = (e: WheelEvent) => {
    // a pinch (ctrl+wheel) or a sideways scroll is not reading on
    if (e.ctrlKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) return;
    const { atStart, atEnd } = edges(doc);
    const past = overscroll.step(wheelPx(e, doc), atStart, atEnd);
    if (past) onPast(past);
  };
  // A finger: the edge it started at, and how far it has pulled on past it.
  let touch: { y: number; atStart: boolean; atEnd: boolean; done: boolean } | null = null;
  const onTouchStart = (e: TouchEvent) => {
    const t = e.touches[0];
    touch = e.touches.length === 1 && t ? { y: t.clientY, ...edges(doc), done: false } : null;
  };
  const onTouchMove = (e: TouchEvent) => {
    const t = e.touches[0];
    if (!touch || touch.done || !t) return;
    const pulled = touch.y - t.clientY; // positive: the finger moves up, the text would go on down
    const past = pulled >= OVERSCROLL_PX && touch.atEnd ? 'next' : -pulled >= OVERSCROLL_PX && touch.atStart ? 'prev' : null;
    if (!past) return;
    touch.done = true;
    onPast(past);
  };
  const onTouchEnd = () => {
    touch = null;
  };
  const options = { passive: true } as const;
  doc.addEventListener('wheel', onWheel, options);
  doc.addEventListener('touchstart', onTouchStart, options);
  doc.addEventListener('touchmove', onTouchMove, options);
  doc.addEventListener('touchend', onTouchEnd, options);
  doc.addEventListener('touchcancel', onTouchEnd, options);
  return () => {
    doc.removeEventListener('wheel', onWheel);
    doc.removeEventListener('touchstart', onTouchStart);
    doc.removeEventListener('touchmove', onTouchMove);
    doc.removeEventListener('touchend', onTouchEnd);
    doc.removeEventListener('touchcancel', onTouchEnd);
  };
}

/** Whether a chapter reads on into its neighbours: a reflowable spine item whose flow is scrolled-continuous, in scroll mode. */
export function readsContinuously(pagination: string, rendition: { layout: string; flow: string } | null | undefined): boolean {
  return pagination === 'scroll' && rendition?.layout !== 'pre-paginated' && rendition?.flow === 'scrolled-continuous';
}

/**
 * The next chapter, laid out in the spare frame, slides up from under the one on show (which goes up with it), as
 * one scroll would carry it; resolves when it is in place (at once when the reader asks for reduced motion).
 */
export function slideIn(shown: HTMLIFrameElement, spare: HTMLIFrameElement, reducedMotion: boolean): Promise<void> {
  spare.style.visibility = 'visible';
  const timing: KeyframeAnimationOptions = { duration: reducedMotion ? 0 : 260, easing: 'ease-out', fill: 'forwards' };
  shown.animate([{ transform: 'translateY(0)' }, { transform: 'translateY(-100%)' }], timing);
  const coming = spare.animate([{ transform: 'translateY(100%)' }, { transform: 'translateY(0)' }], timing);
  return coming.finished.then(
    () => undefined,
    () => undefined,
  );
}

/** The frames as they were before a slide: no transform left on either. */
export function settleSlide(...frames: (HTMLIFrameElement | null)[]): void {
  // (getAnimations: not in every DOM the view is tested in)
  for (const frame of frames) for (const animation of frame?.getAnimations?.() ?? []) animation.cancel();
}
