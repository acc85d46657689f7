/**
 * Where the reader's notices go (docs/decisions.md "The reader on a phone gives the screen to the text"): over the
 * chapter, never over the toolbar or the chapter bar. The page's notices are fixed to the window and drawn outside the
 * reader (the error bar in the shell, the annotation notice in a portal), so the reader publishes its stage's edges as
 * custom properties on the root while it is open: `--reader-stage-top` and `--reader-stage-bottom` (the distance from
 * the window's bottom), which ReaderPage.css places them by. They follow the stage as the bars around it come and go
 * (the live-training banner, the footer, the immersive view, a phone turned).
 */
import { type RefObject, useLayoutEffect } from 'react';

export function useNoticeArea(stageRef: RefObject<HTMLElement | null>): void {
  useLayoutEffect(() => {
    const stage = stageRef.current;
    if (!stage) return;
    const root = document.documentElement;
    const place = () => {
      const r = stage.getBoundingClientRect();
      root.style.setProperty('--reader-stage-top', `${Math.round(r.top)}px`);
      root.style.setProperty('--reader-stage-bottom', `${Math.max(0, Math.round(window.innerHeight - r.bottom))}px`);
    };
    place();
    root.dataset.readerNotices = '';
    // The stage is the grid's one flexible row: any bar appearing or going changes its size, and so its edges.
    const observer = new ResizeObserver(place);
    observer.observe(stage);
    window.addEventListener('resize', place);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', place);
      delete root.dataset.readerNotices;
      root.style.removeProperty('--reader-stage-top');
      root.style.removeProperty('--reader-stage-bottom');
    };
  }, [stageRef]);
}
