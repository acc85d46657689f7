/**
 * Input in a chapter frame: keys (arrows, space, Page Up/Down, Home/End), the mouse wheel of a sideways-scrolling
 * chapter, swipes and taps in the page's tap zones. Which way is on follows the layout (the book's page direction,
 * the chapter's writing mode); the moving itself is the pager's (frame/pager.ts).
 *
 * A sideways swipe (a finger, or a trackpad's sideways wheel) turns a page in paged mode and a chapter in a chapter
 * read as its own scroll (docs/decisions.md "Sideways swipes in scroll mode"), by the same rule (paging.ts
 * classifySwipe), except over something of the book that can still scroll that way.
 */
import { classifySwipe, keyTurn, SidewaysWheel, tapZone, type Turn } from '../paging.ts';
import type { FrameLayout } from './layout.ts';
import type { Listen } from './listeners.ts';

/** What a tap on it does itself (a tap there is not a tap on the page). */
const INTERACTIVE = 'a[href], button, input, select, textarea, label, summary, video, audio, [tabindex]';

/**
 * The sideways wheel gesture, one for every chapter: its momentum runs on into the chapter it turned to, whose
 * document (and FrameInput) is new, and must not turn again there.
 */
const sidewaysWheel = new SidewaysWheel();

export interface InputHooks {
  turn(direction: Turn): void;
  /** Paged mode: to the first or last page. */
  jump(to: 'first' | 'last'): void;
  /** Scroll mode, a sideways swipe: to the next or previous chapter. */
  chapter?(direction: Turn): void;
  /** A plain tap in the middle of the page, between the tap zones (the immersive view's toggle). */
  onMiddleTap?(): void;
}

export class FrameInput {
  private touchStart: { x: number; y: number; target: EventTarget | null } | null = null;
  private wheelWired = false;
  private sidewaysWired = false;

  constructor(
    private readonly layout: FrameLayout,
    private readonly listen: Listen,
    private readonly hooks: InputHooks,
  ) {
    const doc = layout.doc;
    listen(doc, 'touchstart', (e) => {
      const t = (e as TouchEvent).touches[0];
      this.touchStart = t && (e as TouchEvent).touches.length === 1 ? { x: t.clientX, y: t.clientY, target: e.target } : null;
    }, { passive: true });
    listen(doc, 'touchend', (e) => {
      const t = (e as TouchEvent).changedTouches[0];
      const start = this.touchStart;
      this.touchStart = null;
      if (!t || !start) return;
      const dx = t.clientX - start.x;
      const dir = classifySwipe(dx, t.clientY - start.y, layout.inputRtl);
      // (the finger drags the content: leftwards scrolls it towards its right end)
      if (dir && !scrollsSideways(start.target, dx < 0 ? 1 : -1) && this.swipe(dir)) e.preventDefault();
    });
  }

  /**
   * Scroll mode, a chapter whose lines run across: the wheel's sideways moves (a trackpad's swipe) are the reader's.
   * They turn the chapter (turnsChapters), and are cancelled, as nothing of the chapter moves sideways: left to the
   * browser, a sideways wheel on the first chapter went Back in the browser's history (overscroll-behavior does not
   * stop that). Only the first event of a wheel gesture can be cancelled, so only that one waits for this listener.
   */
  wireSidewaysWheel() {
    if (this.sidewaysWired) return;
    this.sidewaysWired = true;
    const layout = this.layout;
    this.listen(layout.doc, 'wheel', (e) => {
      const we = e as WheelEvent;
      if (we.ctrlKey || layout.paged || layout.vertical) return;
      const now = Date.now();
      if (we.deltaX && scrollsSideways(we.target, we.deltaX > 0 ? 1 : -1)) return sidewaysWheel.taken(now);
      if (Math.abs(we.deltaX) > Math.abs(we.deltaY) && we.cancelable) we.preventDefault();
      if (!this.turnsChapters) return;
      const unit = wheelUnit(we, layout.scroller.clientWidth);
      const dir = sidewaysWheel.step(we.deltaX * unit, we.deltaY * unit, now, layout.inputRtl);
      if (dir) this.swipe(dir);
    }, { passive: false });
  }

  /**
   * A chapter read as its own vertical scroll: a sideways swipe goes to the next or previous chapter. Not in a
   * vertical chapter (a sideways swipe scrolls it), nor in a book stacked as one scroll (no chapter to turn to).
   */
  private get turnsChapters(): boolean {
    const layout = this.layout;
    return !layout.paged && !layout.stack && !layout.vertical && !!this.hooks.chapter;
  }

  /** A sideways swipe: a page (paged), a chapter (turnsChapters). True when it turned. */
  private swipe(dir: Turn): boolean {
    const layout = this.layout;
    if (layout.paged) {
      if (layout.fixed?.zoomed()) return false;
      this.hooks.turn(dir);
      return true;
    }
    if (!this.turnsChapters) return false;
    this.hooks.chapter?.(dir);
    return true;
  }

  /**
   * A vertical chapter in scroll mode scrolls sideways: a mouse wheel's vertical turn moves it along (down: on).
   * Listened to in vertical chapters only (the others' is wireSidewaysWheel): a wheel listener that may cancel makes
   * the first event of every wheel gesture wait for the main thread.
   */
  wireWheel() {
    if (this.wheelWired) return;
    this.wheelWired = true;
    const layout = this.layout;
    this.listen(layout.doc, 'wheel', (e) => {
      const we = e as WheelEvent;
      if (layout.paged || we.ctrlKey || Math.abs(we.deltaY) <= Math.abs(we.deltaX)) return;
      const unit = wheelUnit(we, layout.scroller.clientWidth);
      // on is leftwards in a right-to-left chapter, rightwards in a left-to-right one (vertical-lr)
      layout.scroller.scrollLeft += (layout.flow?.lr ? 1 : -1) * we.deltaY * unit;
      we.preventDefault();
    }, { passive: false });
  }

  /** A click on the page that nothing else took: a tap zone turns (paged), the middle toggles the immersive view. */
  tap(event: MouseEvent, el: Element | null) {
    const { doc, win, fixed } = this.layout;
    if (doc.getSelection()?.toString()) return;
    const dir = fixed ? (fixed.zoomed() ? null : fixed.tapTurn(event.clientX)) : tapZone(event.clientX, win.innerWidth, this.layout.inputRtl);
    if (dir) {
      if (this.layout.paged) this.hooks.turn(dir);
    } else if (!el?.closest?.(INTERACTIVE)) {
      this.hooks.onMiddleTap?.();
    }
  }

  /** Keys (from the frame or from the app): arrows, space, Page Up/Down. True when handled. */
  handleKey(event: KeyboardEvent): boolean {
    if (event.altKey || event.ctrlKey || event.metaKey) return false;
    const target = event.target as HTMLElement | null;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return false;
    const layout = this.layout;
    if (layout.paged) {
      if (layout.fixed && (event.key === 'Home' || event.key === 'End')) return false;
      if (event.key === 'Home' || event.key === 'End') {
        event.preventDefault();
        this.hooks.jump(event.key === 'Home' ? 'first' : 'last');
        return true;
      }
      const dir = keyTurn(event.key, event.shiftKey, layout.inputRtl);
      if (!dir) return false;
      event.preventDefault();
      this.hooks.turn(dir);
      return true;
    }
    // scroll mode; a vertical chapter scrolls sideways, on being leftwards in vertical-rl, rightwards in vertical-lr
    const s = layout.scroller;
    const flow = layout.flow;
    const on = flow?.lr ? 1 : -1;
    switch (event.key) {
      case ' ':
      case 'PageDown':
      case 'PageUp':
        this.hooks.turn(event.key === 'PageUp' || (event.key === ' ' && event.shiftKey) ? 'prev' : 'next');
        break;
      case 'Home':
        if (flow) s.scrollLeft = 0;
        else s.scrollTop = 0;
        break;
      case 'End':
        if (flow) s.scrollLeft = on * s.scrollWidth;
        else s.scrollTop = s.scrollHeight;
        break;
      default: {
        const step = flow ? sidewaysArrowStep(event.key, on) : downArrowStep(event.key);
        if (step === null) return false;
        s.scrollBy(flow ? { left: step } : { top: step });
      }
    }
    event.preventDefault();
    return true;
  }
}

/** Scroll mode: the down and up arrows scroll; left and right go through chapters at their ends only (not here). */
function downArrowStep(key: string): number | null {
  return key === 'ArrowDown' ? 48 : key === 'ArrowUp' ? -48 : null;
}

/**
 * Scroll mode of a vertical chapter: the down arrow and the arrow pointing along its lines' order go on (left in
 * vertical-rl, towards its left end; right in vertical-lr), up and the other back.
 */
function sidewaysArrowStep(key: string, on: 1 | -1): number | null {
  if (key !== 'ArrowDown' && key !== 'ArrowLeft' && key !== 'ArrowUp' && key !== 'ArrowRight') return null;
  const onward = key === 'ArrowDown' || key === (on > 0 ? 'ArrowRight' : 'ArrowLeft');
  return (onward ? on : -on) * 48;
}

/** A wheel event's deltas in CSS px: lines and pages as Chromium counts them. */
function wheelUnit(e: WheelEvent, page: number): number {
  return e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? page : 1;
}

/**
 * Whether `target` is in an element of the book that scrolls sideways and can still go `towards` (1: its right end,
 * -1: its left end): a wide table, a code block. A swipe over it scrolls it, not the page.
 */
function scrollsSideways(target: EventTarget | null, towards: 1 | -1): boolean {
  const node = target as Node | null;
  let el: Element | null = node && node.nodeType === 1 ? (node as Element) : (node?.parentElement ?? null);
  const doc = node?.ownerDocument;
  const win = doc?.defaultView;
  if (!doc || !win) return false;
  for (; el && el !== doc.body && el !== doc.documentElement; el = el.parentElement) {
    const room = el.scrollWidth - el.clientWidth;
    if (room < 1) continue;
    const style = win.getComputedStyle(el);
    if (style.overflowX !== 'auto' && style.overflowX !== 'scroll') continue;
    // from its left end, whichever way it runs (a right-to-left box's scrollLeft runs from -room to 0)
    const from = style.direction === 'rtl' ? el.scrollLeft + room : el.scrollLeft;
    if (towards > 0 ? from < room - 1 : from > 1) return true;
  }
  return false;
}
