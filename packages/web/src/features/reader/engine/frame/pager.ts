/**
 * Turning: one page (paged) or one screen (scroll) forwards or back, with the short slide of reader.md §9, and to the
 * first or last page. Past either end it asks for the next chapter (onEdge). Where the view is, is the layout's
 * (frame/layout.ts); once a turn has landed the position part takes the new place (settled).
 */
import { pageOffset, turnTarget, type Turn } from '../paging.ts';
import type { FrameLayout } from './layout.ts';

const SLIDE_MS = 150; // reader.md §9 "Scroll animation 150 ms"

export interface PagerHooks {
  /** Paging past either end of the chapter. */
  onEdge(direction: Turn): void;
  /** A page turn has landed: the place is where the view now is. */
  settled(): void;
}

export class FramePager {
  private animation = 0;
  /** The page a running slide animation is heading to. */
  private slidingTo: number | null = null;

  constructor(
    private readonly layout: FrameLayout,
    private readonly hooks: PagerHooks,
  ) {}

  /** One page (paged) or one screen (scroll) forwards or back; past either end asks for the next chapter. */
  turn(direction: Turn) {
    const layout = this.layout;
    if (layout.fixed) return this.hooks.onEdge(direction);
    const flow = layout.flow;
    if (!layout.paged && flow) {
      // sideways: on is leftwards (-rl), rightwards (-lr)
      const s = layout.scroller;
      const on = flow.lr ? 1 : -1;
      const along = on * s.scrollLeft;
      const atEnd = along + s.clientWidth >= s.scrollWidth - 2;
      const atStart = along <= 0;
      if (direction === 'next' && atEnd) return this.hooks.onEdge('next');
      if (direction === 'prev' && atStart) return this.hooks.onEdge('prev');
      s.scrollBy({ left: (direction === 'next' ? on : -on) * (s.clientWidth - 48), behavior: reducedMotion() ? 'auto' : 'smooth' });
      return;
    }
    if (!layout.paged) {
      const s = layout.scroller;
      const atEnd = s.scrollTop + s.clientHeight >= s.scrollHeight - 2;
      const atStart = s.scrollTop <= 0;
      if (direction === 'next' && atEnd) return this.hooks.onEdge('next');
      if (direction === 'prev' && atStart) return this.hooks.onEdge('prev');
      s.scrollBy({ top: (direction === 'next' ? 1 : -1) * (s.clientHeight - 48), behavior: reducedMotion() ? 'auto' : 'smooth' });
      return;
    }
    const { index, count } = layout.pages();
    // Rapid turns (a held key, quick taps) count from where the running slide is going, not where it is.
    const target = turnTarget(this.slidingTo ?? index, count, direction);
    if ('chapter' in target) return this.hooks.onEdge(target.chapter);
    this.slidingTo = target.page;
    this.slideTo(pageOffset(target.page, layout.pageSize, layout.stripRtl));
  }

  /** Paged mode: to the chapter's first or last page (Home, End). */
  jump(to: 'first' | 'last') {
    const { count } = this.layout.pages();
    this.slidingTo = to === 'first' ? 0 : count - 1;
    this.slideTo(pageOffset(this.slidingTo, this.layout.pageSize, this.layout.stripRtl));
  }

  /** Stops a running slide where it is (the position part is about to put the view somewhere else). */
  stop() {
    this.layout.win.cancelAnimationFrame(this.animation);
    this.slidingTo = null;
  }

  destroy() {
    this.layout.win.cancelAnimationFrame?.(this.animation);
  }

  /**
   * To a page's offset along the strip, with a short slide. A vertical chapter's pages stack downwards, and a slide
   * up or down would move the page across the way its lines are read: it turns at once.
   */
  private slideTo(left: number) {
    const layout = this.layout;
    const s = layout.scroller;
    const win = layout.win;
    win.cancelAnimationFrame(this.animation);
    const from = layout.along;
    const done = () => {
      this.slidingTo = null;
      layout.along = left;
      this.hooks.settled();
      performance.mark('reader:page-turned');
    };
    if (reducedMotion() || Math.abs(left - from) < 1 || layout.vertical) return done();
    // The frame's animation frames carry the frame's clock (its own time origin, set when the frame was created),
    // not the app's: the start must be read from the same clock, or the slide starts from far in the past.
    const t0 = win.performance.now();
    const step = (t: number) => {
      const k = Math.min(1, (t - t0) / SLIDE_MS);
      const eased = 1 - Math.pow(1 - k, 3);
      s.scrollLeft = from + (left - from) * eased;
      if (k < 1) this.animation = win.requestAnimationFrame(step);
      else done();
    };
    this.animation = win.requestAnimationFrame(step);
  }
}

function reducedMotion() {
  return window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;
}
