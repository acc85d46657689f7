/**
 * The read-aloud player bar (docs/decisions.md "Read aloud"): previous phrase, play/pause, next phrase, "Skip to after
 * the table" (escape, shown only while the phrase being read is in an escapable structure; also the E key), the speed
 * (reader.md §9 "Playback speeds"), "Skip extras" (a book's narration only: page numbers, notes and the other skippable
 * structures are passed over) and stop, floating at the foot of the chapter. What it does is announced (a status line):
 * started, paused, the setting changed, a structure escaped, and why it cannot read (no voice, the narration failed).
 */
import { PLAYBACK_SPEEDS, READ_ALOUD_MESSAGES as M } from '@lectern/core';
import { useEffect, useId, useRef } from 'react';
import { ReaderIcon } from '../../../shared/reading/ReaderIcon.tsx';
import type { ReadAloud } from './useReadAloud.ts';
import './ReadAloudBar.css';

const speedLabel = (rate: number) => `${rate}×`;

export function ReadAloudBar({ readAloud, chapterLabel }: { readAloud: ReadAloud; chapterLabel: string }) {
  const { state } = readAloud;
  const playing = state.status === 'playing' || state.status === 'waiting';
  const playButton = useRef<HTMLButtonElement>(null);
  const hintId = useId();
  useEffect(() => {
    playButton.current?.focus();
  }, []);

  const { notice } = state;
  const announcement = state.problem
    ? M[state.problem]
    : notice
      ? notice.kind === 'escaped'
        ? M.escaped(notice.from)
        : M[notice.kind]
      : state.status === 'playing'
        ? M.reading(chapterLabel)
        : state.status === 'paused'
          ? M.paused
          : '';

  return (
    <div className="read-aloud" id="reader-read-aloud" role="region" aria-label={M.bar}>
      <span className="read-aloud__mode">{state.mode === 'overlay' ? M.narration : state.mode === 'speech' ? M.voice : ''}</span>
      <button type="button" className="reader-iconbtn read-aloud__prev" aria-label={M.previous} onClick={() => readAloud.skip(-1)} disabled={state.count === 0}>
        <ReaderIcon name="skip-back" />
      </button>
      <button ref={playButton} type="button" className="reader-iconbtn read-aloud__play" aria-label={playing ? M.pause : M.play} onClick={readAloud.toggle}>
        <ReaderIcon name={playing ? 'pause' : 'play'} />
      </button>
      <button type="button" className="reader-iconbtn read-aloud__next" aria-label={M.next} onClick={() => readAloud.skip(1)} disabled={state.count === 0}>
        <ReaderIcon name="skip-forward" />
      </button>
      {state.escapable ? (
        <button
          type="button"
          className="reader-iconbtn read-aloud__escape"
          aria-label={M.escape(state.escapeFrom)}
          aria-keyshortcuts="E"
          title={`${M.escape(state.escapeFrom)} (E)`}
          onClick={() => readAloud.escape()}
        >
          <ReaderIcon name="escape" />
        </button>
      ) : null}
      <button type="button" className="reader-iconbtn read-aloud__stop" aria-label={M.stop} onClick={readAloud.close}>
        <ReaderIcon name="stop" />
      </button>
      {/* the settings: one unit, on a row of their own when the bar is narrow (a phone) */}
      <div className="read-aloud__settings">
        <label className="read-aloud__speed">
          <span className="visually-hidden">{M.speed}</span>
          <select value={state.rate} onChange={(e) => readAloud.setRate(Number(e.target.value))}>
            {PLAYBACK_SPEEDS.map((rate) => (
              <option key={rate} value={rate}>
                {speedLabel(rate)}
              </option>
            ))}
          </select>
        </label>
        {state.mode === 'overlay' ? (
          <>
            <label className="read-aloud__skip" title={M.skipHint}>
              <input type="checkbox" checked={state.skipping} aria-describedby={hintId} onChange={(e) => readAloud.setSkipping(e.target.checked)} />
              {M.skip}
            </label>
            {/* outside the label: the checkbox's name stays "Skip extras", this is its description */}
            <span id={hintId} className="visually-hidden">
              {M.skipHint}
            </span>
          </>
        ) : null}
      </div>
      <p className={`read-aloud__status${state.problem && state.problem !== 'endOfBook' ? ' read-aloud__status--problem' : ''}`} role="status">
        {announcement}
      </p>
    </div>
  );
}
