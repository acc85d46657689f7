/**
 * `inert` for a slide-in panel (contents, display settings), set when it has finished sliding out rather than the
 * moment it starts to. Making a subtree inert restyles every element in it: for a long table of contents that is
 * about a thousand elements and ten milliseconds, which would otherwise land in the very click that opens a chapter.
 * While it slides out the panel is already `aria-hidden`; once closed it is `visibility: hidden` as well. Nor can the
 * keyboard reach it meanwhile: focus that enters it while it slides out (Tab from before or after it, or from the
 * control inside that still had the focus) makes it inert at once and goes on to the next control past the panel
 * (the previous one on Shift+Tab). That pays the restyle only when someone actually tabs into a closing panel.
 */
import { useLayoutEffect, useRef, type RefObject } from 'react';
import { focusableIn } from '../../components/Modal.tsx';

/** Longer than the panels' slide (--duration-medium, 300 ms): the fallback when no transitionend comes. */
const SLIDE_OUT_MAX_MS = 400;

/** Focus the first control after `panel` in the document (the last one before it when `backwards`), else blur. */
function focusPast(panel: HTMLElement, backwards: boolean) {
  const all = focusableIn(document.body);
  const after = (c: HTMLElement) => (panel.compareDocumentPosition(c) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0 && !panel.contains(c);
  const target = backwards ? all.filter((c) => !after(c) && !panel.contains(c)).at(-1) : all.find(after);
  if (target) target.focus();
  else if (document.activeElement instanceof HTMLElement && panel.contains(document.activeElement)) document.activeElement.blur();
}

export function usePanelInert(ref: RefObject<HTMLElement | null>, open: boolean) {
  const wasOpen = useRef(false);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (open) {
      wasOpen.current = true;
      el.inert = false;
      el.removeAttribute('inert');
      return;
    }
    // Never opened yet: inert at once, nothing is sliding.
    if (!wasOpen.current) {
      el.inert = true;
      el.setAttribute('inert', '');
      return;
    }
    let timer = 0;
    let backwards = false;
    const settle = () => {
      window.clearTimeout(timer);
      el.removeEventListener('transitionend', onEnd);
      el.removeEventListener('transitioncancel', onEnd);
      el.removeEventListener('focusin', onFocusIn);
      window.removeEventListener('keydown', onKey, true);
      el.inert = true;
      el.setAttribute('inert', '');
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Tab') backwards = e.shiftKey;
    };
    const onFocusIn = () => {
      settle();
      focusPast(el, backwards);
    };
    const onEnd = (e: TransitionEvent) => {
      if (e.target === el && e.propertyName === 'transform') settle();
    };
    el.addEventListener('transitionend', onEnd);
    el.addEventListener('transitioncancel', onEnd);
    el.addEventListener('focusin', onFocusIn);
    window.addEventListener('keydown', onKey, true);
    timer = window.setTimeout(settle, SLIDE_OUT_MAX_MS);
    return () => {
      window.clearTimeout(timer);
      el.removeEventListener('transitionend', onEnd);
      el.removeEventListener('transitioncancel', onEnd);
      el.removeEventListener('focusin', onFocusIn);
      window.removeEventListener('keydown', onKey, true);
    };
  }, [ref, open]);
}
