/**
 * `inert` for a slide-in panel (contents, display settings), set when it has finished sliding out rather than the
 * moment it starts to. Making a subtree inert restyles every element in it: for a long table of contents that is
 * about a thousand elements and ten milliseconds, which would otherwise land in the very click that opens a chapter.
 * While it slides out the panel is already `aria-hidden`; once closed it is `visibility: hidden` as well.
 */
import { useLayoutEffect, useRef, type RefObject } from 'react';

/** Longer than the panels' slide (--duration-medium, 300 ms): the fallback when no transitionend comes. */
const SLIDE_OUT_MAX_MS = 400;

export function usePanelInert(ref: RefObject<HTMLElement | null>, open: boolean) {
  const wasOpen = useRef(false);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (open) {
      wasOpen.current = true;
      el.inert = false;
      return;
    }
    // Never opened yet: inert at once, nothing is sliding.
    if (!wasOpen.current) {
      el.inert = true;
      return;
    }
    let timer = 0;
    const settle = () => {
      window.clearTimeout(timer);
      el.removeEventListener('transitionend', onEnd);
      el.removeEventListener('transitioncancel', onEnd);
      el.inert = true;
    };
    const onEnd = (e: TransitionEvent) => {
      if (e.target === el && e.propertyName === 'transform') settle();
    };
    el.addEventListener('transitionend', onEnd);
    el.addEventListener('transitioncancel', onEnd);
    timer = window.setTimeout(settle, SLIDE_OUT_MAX_MS);
    return () => {
      window.clearTimeout(timer);
      el.removeEventListener('transitionend', onEnd);
      el.removeEventListener('transitioncancel', onEnd);
    };
  }, [ref, open]);
}
