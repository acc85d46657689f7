/**
 * The players' keys (issue 22): space plays or pauses, left and right arrows move back and on (5 s for video; the
 * audiobook's 10 s back and 30 s on), F full screen, C captions. Not while typing in a field, not over a control
 * that uses the key itself (a button's space, a select's or a tab list's arrows), and not on the video element,
 * whose own controls already answer these keys.
 */
import { useEffect, useRef, type RefObject } from 'react';
import type { Player } from './usePlayer.ts';

export interface MediaKeysOptions {
  player: Player;
  videoRef?: RefObject<HTMLMediaElement | null>;
  onFullscreen?: () => void;
  onCaptions?: () => void;
  /** seconds per arrow: one number both ways, or [back, on] */
  step: number | [number, number];
}

const typing = (t: EventTarget | null) =>
  t instanceof HTMLElement && (t.isContentEditable || t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT');

export function useMediaKeys(opts: MediaKeysOptions) {
  const latest = useRef(opts);
  latest.current = opts;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || typing(e.target)) return;
      const o = latest.current;
      const target = e.target instanceof HTMLElement ? e.target : null;
      if (target && target === o.videoRef?.current) return;
      const inControl = !!target?.closest('button, a, [role="tab"], [role="slider"], summary');
      const [back, on] = Array.isArray(o.step) ? o.step : [o.step, o.step];
      switch (e.key) {
        case ' ':
        case 'k':
          if (e.key === ' ' && inControl) return;
          o.player.toggle();
          break;
        case 'ArrowLeft':
          if (target?.closest('[role="tab"]')) return;
          o.player.skip(-back);
          break;
        case 'ArrowRight':
          if (target?.closest('[role="tab"]')) return;
          o.player.skip(on);
          break;
        case 'f':
        case 'F':
          if (!o.onFullscreen) return;
          o.onFullscreen();
          break;
        case 'c':
        case 'C':
          if (!o.onCaptions) return;
          o.onCaptions();
          break;
        default:
          return;
      }
      e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}
