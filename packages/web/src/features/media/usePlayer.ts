/**
 * One HTML media element (the video or the audiobook's audio) and what reader.md §4 "Video" asks of it:
 * - ready (loadedmetadata): the start of the address's range, then after 500 ms the saved position when it is at
 *   least 15 s in (§9), unless a search hit's second (`openAt`) is given: the part opens there at once instead;
 *   usage starts here;
 * - pause, seek start, playback complete: the usage interval is logged; seek end resets its start;
 * - the playhead kept inside the address's start and stop;
 * - the position reported as it plays (the caller keeps it locally and on the account);
 * - a source change that keeps the place (a new session after a media error) and playback that carries on into the
 *   next part when asked (autoplay);
 * - a change of part, by any way (back and forward too), settles the part left: its interval logged, position saved;
 * - a `?t=` navigated to while the part is already playing seeks there (once per navigation).
 */
import { PLAYBACK_SPEEDS, READER_CONSTANTS } from '@lectern/core';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { MediaUsage } from './mediaUsage.ts';
import { constrain, percentOf, resumeAt, type PlayRange } from './mediaTime.ts';

export interface PlayerOptions {
  src: string | null;
  /** what this source is: a new part (or the preview) starts over; the same part with a new session keeps its place */
  partKey: string;
  range: PlayRange;
  /** the saved position of this part in seconds, read when the player is ready */
  savedSeconds: () => number | null;
  /**
   * A second to open this part at (a search hit's `?t=`): sought once when the part is ready, in place of the saved
   * position; later seeks are the reader's own.
   */
  openAt?: number | null;
  /**
   * Which navigation asked for `openAt` (the router location's key): each navigation to an address with `?t=`
   * seeks once, also when the part is already playing (a search hit followed in the app, back and forward).
   */
  openKey?: string;
  /** start playing as soon as the source is ready (going on from the previous part) */
  autoplay: boolean;
  usage: MediaUsage | null;
  /** as it plays (a few times a second) and on pause, seek end and end */
  onPosition?: (seconds: number, duration: number, settled: boolean) => void;
  onEnded?: () => void;
  onError?: () => void;
}

export interface Player {
  ref: (el: HTMLMediaElement | null) => void;
  element: HTMLMediaElement | null;
  time: number;
  duration: number;
  paused: boolean;
  rate: number;
  setRate: (rate: number) => void;
  toggle: () => void;
  play: () => void;
  pause: () => void;
  seekTo: (seconds: number) => void;
  skip: (delta: number) => void;
}

/** What makes an `openAt` sought once: the navigation, the part and the second. */
const openKeyOf = (o: PlayerOptions) => `${o.openKey ?? ''}|${o.partKey}@${o.openAt ?? null}`;

export function usePlayer(opts: PlayerOptions): Player {
  const [element, setElement] = useState<HTMLMediaElement | null>(null);
  const [time, setTime] = useState(0);
  const [duration, setDuration] = useState(0);
  const [paused, setPaused] = useState(true);
  const [rate, setRateState] = useState(1);
  const latest = useRef(opts);
  latest.current = opts;
  /** the playhead before a seek began (timeupdate's last), so a seek logs the interval played up to it */
  const lastTime = useRef(0);
  /** a source change within the same part: where to put the playhead back, and whether it was playing */
  const carry = useRef<{ partKey: string; time: number; playing: boolean } | null>(null);
  const shownPart = useRef<string | null>(null);
  const rateRef = useRef(rate);
  rateRef.current = rate;
  /** reader.md §4, §9: the saved position's 500 ms timer, one at a time, spent on a new source or a seek */
  const resumeTimer = useRef(0);
  /** the reader sought since the part was ready: the saved position no longer applies */
  const sought = useRef(false);
  /** where the player itself last moved the playhead (its seeking event is not the reader's) */
  const ownSeek = useRef<number | null>(null);
  /** the navigation, part and second last opened at, so an address's `openAt` is sought once, not at every ready */
  const openedAt = useRef<string | null>(null);
  /** the source whose metadata is loaded (ready), null while a new one loads */
  const readySrc = useRef<string | null>(null);
  /** the options of the last committed render: what the part on show was played with */
  const committed = useRef(opts);

  // A change of part, however it comes (the buttons, the chapter list, the end going on, the browser's back and
  // forward, a link), first settles the part still on the element with the options it was played with: the
  // interval played so far is logged and its position saved. Before any passive effect: the element still holds
  // the old part, and the usage has not moved to the new chapter.
  useLayoutEffect(() => {
    const was = committed.current;
    if (was.partKey === opts.partKey) return;
    // arriving at a part again (back and forward keep a history entry's key) opens it at its address's `t` again
    openedAt.current = null;
    const el = element;
    if (!el || !el.getAttribute('src') || !Number.isFinite(el.duration) || el.duration <= 0) return;
    // (mid-seek the interval up to the seek's start is already logged)
    if (!el.seeking) was.usage?.logTo(percentOf(el.currentTime, el.duration));
    was.onPosition?.(el.currentTime, el.duration, true);
  }, [element, opts.partKey]);
  useLayoutEffect(() => {
    committed.current = opts;
  });

  // The source: a new part starts at its beginning (ready decides the place); the same part keeps its place.
  useEffect(() => {
    const el = element;
    if (!el) return;
    const { src, partKey } = latest.current;
    if (!src) {
      window.clearTimeout(resumeTimer.current);
      readySrc.current = null;
      el.removeAttribute('src');
      return;
    }
    if (el.getAttribute('src') === src) return;
    // the old source's resume must not move the new one
    window.clearTimeout(resumeTimer.current);
    readySrc.current = null;
    carry.current = shownPart.current === partKey && el.currentSrc ? { partKey, time: el.currentTime, playing: !el.paused } : null;
    shownPart.current = partKey;
    el.src = src;
    el.load();
    // (the chosen speed is put back when the new source is ready: load() resets it to the default)
  }, [element, opts.src, opts.partKey]);

  useEffect(() => {
    const el = element;
    if (!el) return;
    const pct = (t: number) => percentOf(t, el.duration);
    const ownSeekTo = (t: number) => {
      ownSeek.current = t;
      el.currentTime = t;
    };
    const onReady = () => {
      window.clearTimeout(resumeTimer.current);
      sought.current = false;
      ownSeek.current = null;
      setDuration(Number.isFinite(el.duration) ? el.duration : 0);
      el.playbackRate = rateRef.current;
      const o = latest.current;
      const kept = carry.current;
      carry.current = null;
      if (kept) {
        ownSeekTo(kept.time);
        if (kept.playing) void el.play().catch(() => undefined);
      } else {
        if (o.range.start > 0) ownSeekTo(o.range.start);
        const open = o.openAt ?? null;
        const openKey = openKeyOf(o);
        const end = Number.isFinite(el.duration) ? el.duration : Infinity;
        // a search hit's second wins over the saved position (inside the address's range, before the end)
        if (open !== null && openedAt.current !== openKey && open >= o.range.start && open < end && (o.range.stop === null || open < o.range.stop)) {
          openedAt.current = openKey;
          ownSeekTo(open);
        } else {
          // reader.md §4, §9: the saved position, when at least 15 s in, after 500 ms.
          resumeTimer.current = window.setTimeout(() => {
            if (sought.current) return;
            const at = resumeAt(latest.current.savedSeconds(), el.duration, latest.current.range);
            if (at !== null && Math.abs(el.currentTime - at) > 1) ownSeekTo(at);
          }, READER_CONSTANTS.videoResumeDelayMs);
        }
        if (o.autoplay) void el.play().catch(() => undefined);
      }
      lastTime.current = el.currentTime;
      readySrc.current = el.getAttribute('src');
      o.usage?.startAt(pct(el.currentTime));
    };
    const onTime = () => {
      const t = el.currentTime;
      setTime(t);
      if (el.seeking) return;
      const o = latest.current;
      const wanted = constrain(t, o.range);
      if (wanted === 'seek-start') {
        ownSeekTo(o.range.start);
        return;
      }
      if (wanted === 'stop') {
        if (!el.paused) el.pause();
        return;
      }
      lastTime.current = t;
      o.onPosition?.(t, el.duration, false);
    };
    const onPause = () => {
      setPaused(true);
      if (el.seeking) return;
      latest.current.usage?.logTo(pct(el.currentTime));
      latest.current.onPosition?.(el.currentTime, el.duration, true);
    };
    const onPlay = () => setPaused(false);
    const onSeeking = () => {
      if (ownSeek.current !== null && Math.abs(el.currentTime - ownSeek.current) < 0.5) ownSeek.current = null;
      else sought.current = true;
      setTime(el.currentTime);
      latest.current.usage?.logTo(pct(lastTime.current));
    };
    const onSeeked = () => {
      lastTime.current = el.currentTime;
      setTime(el.currentTime);
      latest.current.usage?.startAt(pct(el.currentTime));
      latest.current.onPosition?.(el.currentTime, el.duration, true);
    };
    const onEnded = () => {
      setPaused(true);
      latest.current.usage?.logTo(100);
      latest.current.onPosition?.(el.duration, el.duration, true);
      latest.current.onEnded?.();
    };
    const onError = () => {
      // A source removed on purpose is no error.
      if (!el.getAttribute('src')) return;
      latest.current.onError?.();
    };
    const onRate = () => setRateState(el.playbackRate);
    const onDuration = () => setDuration(Number.isFinite(el.duration) ? el.duration : 0);
    const events: [string, () => void][] = [
      ['loadedmetadata', onReady],
      ['timeupdate', onTime],
      ['pause', onPause],
      ['play', onPlay],
      ['seeking', onSeeking],
      ['seeked', onSeeked],
      ['ended', onEnded],
      ['error', onError],
      ['ratechange', onRate],
      ['durationchange', onDuration],
    ];
    for (const [name, fn] of events) el.addEventListener(name, fn);
    return () => {
      window.clearTimeout(resumeTimer.current);
      for (const [name, fn] of events) el.removeEventListener(name, fn);
    };
  }, [element]);

  // A `?t=` reached by navigating in the app while this part is ready already (ready will not come again): seek
  // there now, once for this navigation, in place of the saved position still to come.
  useEffect(() => {
    const el = element;
    const o = latest.current;
    const open = o.openAt ?? null;
    if (!el || open === null || !o.src || readySrc.current !== o.src || el.getAttribute('src') !== o.src) return;
    const key = openKeyOf(o);
    const end = Number.isFinite(el.duration) ? el.duration : Infinity;
    if (openedAt.current === key || open < o.range.start || open >= end || (o.range.stop !== null && open >= o.range.stop)) return;
    openedAt.current = key;
    window.clearTimeout(resumeTimer.current);
    ownSeek.current = open;
    el.currentTime = open;
  }, [element, opts.openAt, opts.openKey, opts.src]);

  const setRate = useCallback(
    (r: number) => {
      if (!(PLAYBACK_SPEEDS as readonly number[]).includes(r)) return;
      setRateState(r);
      if (element) element.playbackRate = r;
    },
    [element],
  );
  const play = useCallback(() => void element?.play().catch(() => undefined), [element]);
  const pause = useCallback(() => element?.pause(), [element]);
  const toggle = useCallback(() => {
    if (!element) return;
    if (element.paused) void element.play().catch(() => undefined);
    else element.pause();
  }, [element]);
  const seekTo = useCallback(
    (s: number) => {
      if (!element) return;
      const end = Number.isFinite(element.duration) ? element.duration : Infinity;
      sought.current = true;
      element.currentTime = Math.min(Math.max(0, s), end);
    },
    [element],
  );
  const skip = useCallback((d: number) => element && seekTo(element.currentTime + d), [element, seekTo]);

  return { ref: setElement, element, time, duration, paused, rate, setRate, toggle, play, pause, seekTo, skip };
}
