/**
 * Input in a chapter frame: keys (arrows, space, Page Up/Down, Home/End), the mouse wheel of a sideways-scrolling
 * chapter, swipes and taps in the page's tap zones. Which way is on follows the layout (the book's page direction,
 * the chapter's writing mode); the moving itself is the pager's (frame/pager.ts).
 */
import { classifySwipe, keyTurn, tapZone, type Turn } from '../paging.ts';
import type { FrameLayout } from './layout.ts';
import type { Listen } from './listeners.ts';

/** What a tap on it does itself (a tap there is not a tap on the page). */
const INTERACTIVE = 'a[href], button, input, select, textarea, label, summary, video, audio, [tabindex]';

export interface InputHooks {
  turn(direction: Turn): void;
  /** Paged mode: to the first or last page. */
  jump(to: 'first' | 'last'): void;
  /** A plain tap in the middle of the page, between the tap zones (the immersive view's toggle). */
  onMiddleTap?(): void;
}

export class FrameInput {
  private touchStart: { x: number; y: number } | null = null;
  private wheelWired = false;

  constructor(
    private readonly layout: FrameLayout,
    private readonly listen: Listen,
    private readonly hooks: InputHooks,
  ) {
    const doc = layout.doc;
    listen(doc, 'touchstart', (e) => {
      const t = (e as TouchEvent).touches[0];
      this.touchStart = t && (e as TouchEvent).touches.length === 1 ? { x: t.clientX, y: t.clientY } : null;
    }, { passive: true });
    listen(doc, 'touchend', (e) => {
      const t = (e as TouchEvent).changedTouches[0];
      const start = this.touchStart;
      this.touchStart = null;
      if (!t || !start || !layout.paged || layout.fixed?.zoomed()) return;
      const dir = classifySwipe(t.clientX - start.x, t.clientY - start.y, layout.inputRtl);
      if (dir) {
        e.preventDefault();
        this.hooks.turn(dir);
      }
    });
  }

  /**
   * A vertical chapter in scroll mode scrolls sideways: a mouse wheel's vertical turn moves it along (down: on).
   * Listened to in vertical chapters only: a wheel listener that may cancel makes every other book's scrolling wait
   * for the main thread.
   */
  wireWheel() {
    if (this.wheelWired) return;
    this.wheelWired = true;
    const layout = this.layout;
    this.listen(layout.doc, 'wheel', (e) => {
      const we = e as WheelEvent;
      if (layout.paged || we.ctrlKey || Math.abs(we.deltaY) <= Math.abs(we.deltaX)) return;
      const unit = we.deltaMode === 1 ? 16 : we.deltaMode === 2 ? layout.scroller.clientWidth : 1;
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
