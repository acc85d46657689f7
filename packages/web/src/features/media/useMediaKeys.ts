/**
 * The players' keys (docs/decisions.md "Media players"; library-playlists-account.md §9 "arrows, space and digits 1 to
 * 9 also mapped"): space (or K) plays or pauses, left and right arrows move back and on (5 s for video; the audiobook's
 * 10 s back and 30 s on), F full screen, C captions, digits 1 to 9 go to 10% to 90% of the part. Bound to the shortcut
 * registry (shared/shortcuts), which keeps them from fields, modifiers, the reader's setting and phones. Not over a
 * control that uses the key itself (a button's space, a tab list's arrows), and not on the video element, whose own
 * controls already answer these keys.
 */
import { useRef, type RefObject } from 'react';
import type { KeyLike } from '../../shared/shortcuts/registry.ts';
import { useShortcuts } from '../../shared/shortcuts/useShortcut.ts';
import type { Player } from './usePlayer.ts';

export interface MediaKeysOptions {
  player: Player;
  videoRef?: RefObject<HTMLMediaElement | null>;
  onFullscreen?: () => void;
  onCaptions?: () => void;
  /** seconds per arrow: one number both ways, or [back, on] */
  step: number | [number, number];
}

export function useMediaKeys(opts: MediaKeysOptions) {
  const latest = useRef(opts);
  latest.current = opts;
  const targetOf = (e: KeyLike) => (e.target instanceof HTMLElement ? e.target : null);
  const onVideo = (e: KeyLike) => !!targetOf(e) && targetOf(e) === latest.current.videoRef?.current;
  const inTabs = (e: KeyLike) => !!targetOf(e)?.closest('[role="tab"]');
  const steps = () => {
    const s = latest.current.step;
    return Array.isArray(s) ? s : [s, s];
  };
  useShortcuts({
    play: (e) => {
      if (onVideo(e)) return false;
      if (e.key === ' ' && targetOf(e)?.closest('button, a, [role="tab"], [role="slider"], summary')) return false;
      latest.current.player.toggle();
    },
    back: (e) => (onVideo(e) || inTabs(e) ? false : latest.current.player.skip(-steps()[0]!)),
    forward: (e) => (onVideo(e) || inTabs(e) ? false : latest.current.player.skip(steps()[1]!)),
    fullscreen: (e) => (onVideo(e) || !latest.current.onFullscreen ? false : latest.current.onFullscreen()),
    captions: (e) => (onVideo(e) || !latest.current.onCaptions ? false : latest.current.onCaptions()),
    seek: (e) => {
      const { player } = latest.current;
      if (onVideo(e) || !(player.duration > 0)) return false;
      player.seekTo((Number(e.key) / 10) * player.duration);
    },
  });
}
