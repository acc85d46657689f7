/**
 * The reader's read-aloud state (docs/decisions.md "Read aloud"): one ReadAloudPlayer for the reader's life, attached
 * to each chapter frame as it comes on screen, with the chapter's media overlay and language; at a chapter's end it
 * opens the next one (and reading goes on there). Leaving the reader stops it. The speed and the "Skip extras" setting
 * are kept on the device (local storage), like the reader's other preferences.
 */
import { type ArchiveItem, PLAYBACK_SPEEDS } from '@lectern/core';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { FrameController } from '../engine/frameController.ts';
import { browserStorage } from '../../../shared/storage.ts';
import { ReadAloudPlayer, type ReadAloudState } from './player.ts';

const RATE_KEY = 'lectern.readAloudRate';
/** "1": skippable structures are passed over; anything else (the default, as EPUB leaves it to the reader): read. */
const SKIP_KEY = 'lectern.readAloudSkip';

function storedSkipping(): boolean {
  try {
    return browserStorage()?.getItem(SKIP_KEY) === '1';
  } catch {
    return false;
  }
}

function storedRate(): number {
  try {
    const value = Number(localStorage.getItem(RATE_KEY));
    return (PLAYBACK_SPEEDS as readonly number[]).includes(value) ? value : 1;
  } catch {
    return 1;
  }
}

export interface ReadAloud {
  /** The bar is shown. */
  open: boolean;
  state: ReadAloudState;
  button: React.RefObject<HTMLButtonElement | null>;
  /** The toolbar's button: opens the bar and starts reading, or stops and closes it. */
  toggleOpen(): void;
  toggle(): void;
  skip(step: 1 | -1): void;
  setRate(rate: number): void;
  setSkipping(on: boolean): void;
  /** Leaves the escapable structure being read (the bar's button, the E key). False: there is none. */
  escape(): boolean;
  close(): void;
}

export function useReadAloud(input: { frame: FrameController | null; item: ArchiveItem | null; goNext: () => boolean }): ReadAloud {
  const [open, setOpen] = useState(false);
  const [state, setState] = useState<ReadAloudState>(() => ({ status: 'stopped', mode: null, index: 0, cursor: null, count: 0, rate: 1, problem: null, skipping: storedSkipping(), escapable: false, escapeFrom: null, notice: null }));
  const goNext = useRef(input.goNext);
  goNext.current = input.goNext;
  const playerRef = useRef<ReadAloudPlayer | null>(null);
  playerRef.current ??= new ReadAloudPlayer({ state: setState, chapterEnd: () => goNext.current() });
  const player = playerRef.current;
  const button = useRef<HTMLButtonElement | null>(null);

  useEffect(() => {
    player.setRate(storedRate());
    player.setSkipping(storedSkipping(), false);
    return () => player.destroy();
  }, [player]);

  // The chapter on screen: its frame and its archive item agree on the chapter.
  const { frame, item } = input;
  const ready = frame && item && frame.chapterHref === item.chapter_href ? frame : null;
  const overlay = ready ? (item?.media_overlay ?? null) : null;
  const attach = useCallback(() => {
    if (!ready) return;
    // The chapter's own language (the importer wraps it in <div lang>), else the book's, else the browser's.
    const lang = ready.readingRoot?.querySelector('[lang]')?.getAttribute('lang') || item?.language || navigator.language || 'en';
    player.attach(ready, overlay, lang);
  }, [ready, overlay, item?.language, player]);
  useEffect(() => {
    if (open) attach();
  }, [open, attach]);

  const close = useCallback(() => {
    player.stop();
    setOpen(false);
    button.current?.focus();
  }, [player]);
  const toggleOpen = useCallback(() => {
    if (open) return close();
    setOpen(true);
    // Started by this click (a user gesture: browsers let it make sound).
    attach();
    player.play();
  }, [open, close, player, attach]);

  return {
    open,
    state,
    button,
    toggleOpen,
    close,
    toggle: useCallback(() => player.toggle(), [player]),
    skip: useCallback((step: 1 | -1) => player.skip(step), [player]),
    setRate: useCallback(
      (rate: number) => {
        player.setRate(rate);
        try {
          localStorage.setItem(RATE_KEY, String(rate));
        } catch {
          /* private mode: the speed lasts for the visit */
        }
      },
      [player],
    ),
    setSkipping: useCallback(
      (on: boolean) => {
        player.setSkipping(on);
        try {
          browserStorage()?.setItem(SKIP_KEY, on ? '1' : '0');
        } catch {
          /* storage refused: the setting lasts for the visit */
        }
      },
      [player],
    ),
    escape: useCallback(() => player.escape(), [player]),
  };
}
