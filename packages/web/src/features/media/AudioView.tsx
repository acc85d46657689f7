/**
 * The audiobook player (docs/decisions.md "Media players"): the cover, the chapter on show, play/pause, back 10 s and
 * on 30 s, a seek bar, the spec's playback speeds (reader.md §9), a sleep timer (minutes, or the end of the chapter),
 * the chapters list, and the Media Session API so a phone's lock screen and a headset drive it (title, cover,
 * play/pause, seek, next and previous chapter). At a chapter's end it goes on into the next (MediaPage), unless the
 * sleep timer says stop.
 */
import { MEDIA_MESSAGES, formatLabel, paths } from '@lectern/core';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { Spinner } from '../../components/Spinner.tsx';
import { ReaderIcon } from '../../shared/reading/ReaderIcon.tsx';
import type { MediaViewProps } from './MediaPage.tsx';
import { MediaNotices, PreviewEnded, SpeedSelect } from './MediaParts.tsx';
import { formatClock, spokenClock } from './mediaTime.ts';
import { useMediaKeys } from './useMediaKeys.ts';

/** The sleep timer's choices: minutes, or 'end' for the end of the chapter. */
export const SLEEP_CHOICES = [5, 10, 15, 30, 45, 60] as const;
const BACK_S = 10;
const ON_S = 30;

export function AudioView(props: MediaViewProps & { sleepAtEnd: boolean; setSleepAtEnd: (on: boolean) => void }) {
  const { book, href, index, part, media, mode, player, notices, previewEnded, signedIn, next, previous, goPart, sleepAtEnd, setSleepAtEnd } = props;
  const chapter = book.chapters[index];
  const chapterLabel = chapter?.label ?? part?.label ?? '';
  const cover = media?.poster_url ?? book.cover_image_url ?? null;
  const [sleep, setSleep] = useState<string>('off');
  const [announce, setAnnounce] = useState('');
  const sleepTimer = useRef(0);
  const duration = player.duration || (media?.duration_ms ?? 0) / 1000;

  useMediaKeys({ player, step: [BACK_S, ON_S] });

  // The sleep timer: minutes count down on the page's clock; "end of chapter" stops where the chapter ends.
  const chooseSleep = (value: string) => {
    setSleep(value);
    window.clearTimeout(sleepTimer.current);
    setSleepAtEnd(value === 'end');
    if (value === 'off') return setAnnounce(MEDIA_MESSAGES.sleepSet(MEDIA_MESSAGES.sleepOff));
    if (value === 'end') return setAnnounce(MEDIA_MESSAGES.sleepSet(MEDIA_MESSAGES.sleepEndOfChapter));
    const minutes = Number(value);
    setAnnounce(MEDIA_MESSAGES.sleepSet(MEDIA_MESSAGES.sleepMinutes(minutes)));
    sleepTimer.current = window.setTimeout(() => {
      player.pause();
      setSleep('off');
      setAnnounce(MEDIA_MESSAGES.sleepDone);
    }, minutes * 60_000);
  };
  useEffect(() => () => window.clearTimeout(sleepTimer.current), []);
  // "End of chapter" is spent once the chapter ends (MediaPage clears it and stops there).
  useEffect(() => {
    if (!sleepAtEnd && sleep === 'end') {
      setSleep('off');
      setAnnounce(MEDIA_MESSAGES.sleepDone);
    }
  }, [sleepAtEnd, sleep]);

  // Media Session: the lock screen and headset controls, with the cover. It depends on the player's stable
  // functions, not on the player (a new object at every timeupdate), so it is set once per chapter.
  const { play, pause, skip, seekTo } = player;
  useEffect(() => {
    const ms = typeof navigator !== 'undefined' ? navigator.mediaSession : undefined;
    if (!ms || typeof MediaMetadata === 'undefined') return;
    const absolute = cover ? new URL(cover, window.location.href).href : null;
    ms.metadata = new MediaMetadata({
      title: chapterLabel,
      artist: book.authors.join(', '),
      album: book.title,
      artwork: absolute ? [{ src: absolute, sizes: '512x512', type: 'image/jpeg' }] : [],
    });
    const handlers: [MediaSessionAction, MediaSessionActionHandler | null][] = [
      ['play', () => play()],
      ['pause', () => pause()],
      ['seekbackward', (d) => skip(-(d.seekOffset ?? BACK_S))],
      ['seekforward', (d) => skip(d.seekOffset ?? ON_S)],
      ['seekto', (d) => d.seekTime !== undefined && seekTo(d.seekTime)],
      ['previoustrack', previous ? () => goPart(previous, true) : null],
      ['nexttrack', next && mode === 'full' ? () => goPart(next, true) : null],
    ];
    for (const [action, handler] of handlers) {
      try {
        ms.setActionHandler(action, handler);
      } catch {
        /* an action this browser does not know */
      }
    }
    return () => {
      for (const [action] of handlers) {
        try {
          ms.setActionHandler(action, null);
        } catch {
          /* as above */
        }
      }
    };
  }, [play, pause, skip, seekTo, chapterLabel, book.authors, book.title, cover, previous, next, mode, goPart]);
  useEffect(() => {
    const ms = typeof navigator !== 'undefined' ? navigator.mediaSession : undefined;
    if (!ms) return;
    ms.playbackState = player.paused ? 'paused' : 'playing';
    if (duration > 0 && typeof ms.setPositionState === 'function') {
      try {
        ms.setPositionState({ duration, position: Math.min(player.time, duration), playbackRate: player.rate });
      } catch {
        /* a position the browser refuses (mid-change of source) */
      }
    }
  }, [player.paused, player.time, player.rate, duration]);

  return (
    <div className="media-app media-app--audio">
      <title>{`${chapterLabel ? `${chapterLabel} · ` : ''}${book.title} · Lectern`}</title>
      <header className="media-head">
        <Link className="media-head__back" to={paths.titlePage(book.book_id)}>
          <ReaderIcon name="prev" size={18} />
          <span>{book.title}</span>
        </Link>
      </header>
      <div className="media-audio">
        <section className="media-audio__player" aria-label="Audiobook player">
          <MediaNotices notices={notices} />
          <div className="media-audio__now">
            {cover ? <img className="media-audio__cover" src={cover} alt="" width={160} height={160} /> : <div className="media-audio__cover media-audio__cover--blank" aria-hidden="true" />}
            <div className="media-audio__meta">
              <p className="media-audio__kind">{formatLabel(book.content_format)}</p>
              <h1 className="media-audio__title">{book.title}</h1>
              {book.authors.length ? <p className="media-audio__authors">{book.authors.join(', ')}</p> : null}
              <p className="media-audio__chapter">
                <span className="media-muted">{MEDIA_MESSAGES.chapterOf(index + 1, book.chapters.length)}: </span>
                <span>{chapterLabel}</span>
              </p>
            </div>
          </div>
          <audio ref={player.ref} preload="metadata" aria-label={chapterLabel || book.title} />
          <div className="media-audio__seek">
            <span className="media-audio__time" aria-hidden="true">
              {formatClock(player.time)}
            </span>
            <input
              type="range"
              className="media-audio__range"
              min={0}
              max={Math.max(1, Math.floor(duration))}
              step={1}
              value={Math.min(Math.floor(player.time), Math.max(1, Math.floor(duration)))}
              aria-label="Seek"
              aria-valuetext={`${spokenClock(player.time)} of ${spokenClock(duration)}`}
              onChange={(e) => player.seekTo(Number(e.currentTarget.value))}
              disabled={mode === 'loading'}
            />
            <span className="media-audio__time" aria-hidden="true">
              {formatClock(duration)}
            </span>
          </div>
          <div className="media-audio__controls" role="group" aria-label="Playback">
            <button type="button" className="media-round" aria-label={MEDIA_MESSAGES.previousChapter} disabled={!previous} onClick={() => previous && goPart(previous, !player.paused)}>
              <ReaderIcon name="skip-back" />
            </button>
            <button type="button" className="media-round" aria-label={MEDIA_MESSAGES.back10} onClick={() => player.skip(-BACK_S)}>
              <ReaderIcon name="rewind" />
              <span className="media-round__n" aria-hidden="true">
                10
              </span>
            </button>
            <button type="button" className="media-round media-round--main" aria-label={player.paused ? MEDIA_MESSAGES.play : MEDIA_MESSAGES.pause} onClick={player.toggle} disabled={mode === 'loading'}>
              {mode === 'loading' ? <Spinner label="Loading…" /> : <ReaderIcon name={player.paused ? 'play' : 'pause'} size={28} />}
            </button>
            <button type="button" className="media-round" aria-label={MEDIA_MESSAGES.forward30} onClick={() => player.skip(ON_S)}>
              <ReaderIcon name="fast-forward" />
              <span className="media-round__n" aria-hidden="true">
                30
              </span>
            </button>
            <button type="button" className="media-round" aria-label={MEDIA_MESSAGES.nextChapter} disabled={!next || mode !== 'full'} onClick={() => next && goPart(next, !player.paused)}>
              <ReaderIcon name="skip-forward" />
            </button>
          </div>
          <div className="media-audio__options">
            <SpeedSelect rate={player.rate} onChange={player.setRate} />
            <label className="media-speed">
              <span>{MEDIA_MESSAGES.sleepTimer}</span>
              <select value={sleep} onChange={(e) => chooseSleep(e.currentTarget.value)}>
                <option value="off">{MEDIA_MESSAGES.sleepOff}</option>
                {SLEEP_CHOICES.map((m) => (
                  <option key={m} value={String(m)}>
                    {MEDIA_MESSAGES.sleepMinutes(m)}
                  </option>
                ))}
                <option value="end">{MEDIA_MESSAGES.sleepEndOfChapter}</option>
              </select>
            </label>
          </div>
          {previewEnded ? (
            <div className="media-audio__ended">
              <PreviewEnded signedIn={signedIn} book={book} href={href} />
            </div>
          ) : null}
          <p className="visually-hidden" role="status" aria-live="polite">
            {announce}
          </p>
        </section>
        <nav className="media-audio__chapters" aria-label={MEDIA_MESSAGES.chapters}>
          <h2 className="media-audio__chapters-title">{MEDIA_MESSAGES.chapters}</h2>
          <ol>
            {book.chapters.map((c, i) => (
              <li key={c.full_path}>
                <a
                  href={paths.reader(book.title_safe, book.book_id, c.full_path)}
                  className="media-chapter"
                  aria-current={c.full_path === href ? 'page' : undefined}
                  onClick={(e) => {
                    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
                    e.preventDefault();
                    goPart(c.full_path, !player.paused);
                  }}
                >
                  <span className="media-chapter__n">{i + 1}</span>
                  <span className="media-chapter__label">{c.label}</span>
                  {c.duration_ms ? <span className="media-chapter__time">{formatClock(c.duration_ms / 1000)}</span> : null}
                </a>
              </li>
            ))}
          </ol>
        </nav>
      </div>
    </div>
  );
}
