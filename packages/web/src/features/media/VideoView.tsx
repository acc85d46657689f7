/**
 * The video chapter screen (reader.md §2): the player region, a side panel with tabs for the table of contents (the
 * shared contents panel's video variant), the description and the transcript (a dropdown on phones), and the header
 * "Video X of Y from {title}". The browser's own controls give the seek bar, volume and captions menu; around them:
 * the spec's playback speeds (§9), captions, full screen, the neighbouring parts, and keys — space, arrows, F, C.
 * The transcript follows playback and a line seeks there when chosen.
 */
import { MEDIA_MESSAGES, paths } from '@lectern/core';
import { useCallback, useEffect, useId, useMemo, useRef, useState, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import { Link } from 'react-router';
import { Spinner } from '../../components/Spinner.tsx';
import { ReaderIcon } from '../../shared/reading/ReaderIcon.tsx';
import { TocPanel } from '../../shared/reading/TocPanel.tsx';
import type { MediaViewProps } from './MediaPage.tsx';
import { MediaNotices, PreviewEnded, SpeedSelect } from './MediaParts.tsx';
import { activeCue, formatClock, parseTranscript, textParagraphs } from './mediaTime.ts';
import { useMediaKeys } from './useMediaKeys.ts';

type Tab = 'contents' | 'description' | 'transcript';
const TABS: { id: Tab; label: string }[] = [
  { id: 'contents', label: MEDIA_MESSAGES.tabContents },
  { id: 'description', label: MEDIA_MESSAGES.tabDescription },
  { id: 'transcript', label: MEDIA_MESSAGES.tabTranscript },
];

export function VideoView(props: MediaViewProps & { captions: string | null }) {
  const { book, href, index, part, media, mode, player, notices, previewEnded, signedIn, next, previous, goPart, captions } = props;
  const chapterLabel = book.chapters[index]?.label ?? part?.label ?? '';
  const heading = MEDIA_MESSAGES.videoHeader(index + 1, book.chapters.length, book.title);
  const stageRef = useRef<HTMLDivElement>(null);
  const videoRef = useRef<HTMLVideoElement | null>(null);
  const [captionsOn, setCaptionsOn] = useState(false);
  const [tab, setTab] = useState<Tab>('contents');
  const [announce, setAnnounce] = useState('');
  const baseId = useId();

  // On the player's ref alone (stable), not the player (a new object at every timeupdate): React re-attaches a ref
  // callback whose identity changes, calling it with null and then the element again on every render.
  const attach = player.ref;
  const setVideo = useCallback(
    (el: HTMLVideoElement | null) => {
      videoRef.current = el;
      attach(el);
    },
    [attach],
  );

  // Captions: the part's one track, shown or hidden (C, or the button); kept as chosen when the part changes.
  useEffect(() => {
    const el = videoRef.current;
    if (!el) return;
    const tracks = el.textTracks as TextTrackList | undefined;
    const apply = () => {
      for (const t of Array.from(tracks ?? [])) t.mode = captionsOn ? 'showing' : 'hidden';
    };
    apply();
    // (optional: jsdom's track list is no event target)
    tracks?.addEventListener?.('addtrack', apply);
    return () => tracks?.removeEventListener?.('addtrack', apply);
  }, [captionsOn, captions]);
  const toggleCaptions = useCallback(() => {
    if (!captions) return;
    setCaptionsOn((on) => {
      setAnnounce(on ? 'Captions off' : 'Captions on');
      return !on;
    });
  }, [captions]);
  const toggleFullscreen = useCallback(() => {
    const stage = stageRef.current;
    if (!stage) return;
    if (document.fullscreenElement) void document.exitFullscreen().catch(() => undefined);
    else void stage.requestFullscreen?.().catch(() => undefined);
  }, []);

  useMediaKeys({ player, videoRef, onFullscreen: toggleFullscreen, onCaptions: toggleCaptions, step: 5 });

  const cues = useMemo(() => (part && mode === 'full' ? parseTranscript(part.content) : []), [part, mode]);
  const description = useMemo(() => textParagraphs(media?.description), [media]);
  const active = activeCue(cues, player.time);

  const onTabKey = (e: ReactKeyboardEvent) => {
    const i = TABS.findIndex((t) => t.id === tab);
    let to = -1;
    if (e.key === 'ArrowRight') to = (i + 1) % TABS.length;
    else if (e.key === 'ArrowLeft') to = (i + TABS.length - 1) % TABS.length;
    else if (e.key === 'Home') to = 0;
    else if (e.key === 'End') to = TABS.length - 1;
    if (to < 0) return;
    e.preventDefault();
    e.stopPropagation();
    setTab(TABS[to]!.id);
    document.getElementById(`${baseId}-tab-${TABS[to]!.id}`)?.focus();
  };

  return (
    <div className="media-app media-app--video">
      <title>{`${chapterLabel ? `${chapterLabel} · ` : ''}${book.title} · Lectern`}</title>
      <header className="media-head">
        <Link className="media-head__back" to={paths.titlePage(book.book_id)}>
          <ReaderIcon name="prev" size={18} />
          <span>{book.title}</span>
        </Link>
        <h1 className="media-head__title">{heading}</h1>
        <p className="media-head__chapter">{chapterLabel}</p>
      </header>

      <div className="media-video">
        <section className="media-video__main" aria-label="Video player">
          <MediaNotices notices={notices} />
          <div className="media-stage" ref={stageRef}>
            <video
              ref={setVideo}
              className="media-stage__video"
              controls
              playsInline
              preload="metadata"
              poster={media?.poster_url ?? undefined}
              aria-label={chapterLabel || book.title}
              width={media?.width ?? undefined}
              height={media?.height ?? undefined}
            >
              {captions ? <track key={captions} kind="captions" src={captions} srcLang={book.language ?? 'en'} label={MEDIA_MESSAGES.captions} /> : null}
            </video>
            {mode === 'loading' ? (
              <div className="media-stage__overlay">
                <Spinner size="lg" label="Loading…" />
              </div>
            ) : null}
            {previewEnded ? <PreviewEnded signedIn={signedIn} book={book} href={href} /> : null}
          </div>
          <div className="media-bar" role="group" aria-label="Video controls">
            <button type="button" className="media-btn" aria-label={MEDIA_MESSAGES.previousChapter} disabled={!previous} onClick={() => previous && goPart(previous, false)}>
              <ReaderIcon name="skip-back" size={18} />
              <span>{MEDIA_MESSAGES.previousChapter}</span>
            </button>
            <SpeedSelect rate={player.rate} onChange={player.setRate} />
            <button type="button" className="media-btn" aria-label={MEDIA_MESSAGES.captions} aria-pressed={captionsOn} disabled={!captions} onClick={toggleCaptions} aria-keyshortcuts="c">
              <ReaderIcon name="captions" size={18} />
              <span>{MEDIA_MESSAGES.captions}</span>
            </button>
            <button type="button" className="media-btn" aria-label="Full screen" onClick={toggleFullscreen} aria-keyshortcuts="f">
              <ReaderIcon name="fullscreen" size={18} />
              <span>Full screen</span>
            </button>
            <button type="button" className="media-btn" aria-label={MEDIA_MESSAGES.nextChapter} disabled={!next || mode !== 'full'} onClick={() => next && goPart(next, false)}>
              <span>{MEDIA_MESSAGES.nextChapter}</span>
              <ReaderIcon name="skip-forward" size={18} />
            </button>
          </div>
          <p className="media-keys-hint">Keys: space plays or pauses, arrows move 5 seconds, F full screen, C captions.</p>
          <p className="visually-hidden" role="status" aria-live="polite">
            {announce}
          </p>
        </section>

        <section className="media-side" aria-label={MEDIA_MESSAGES.tabsLabel}>
          <label className="media-side__select">
            <span className="visually-hidden">{MEDIA_MESSAGES.tabsLabel}</span>
            <select value={tab} onChange={(e) => setTab(e.currentTarget.value as Tab)}>
              {TABS.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.label}
                </option>
              ))}
            </select>
          </label>
          <div className="media-side__tabs" role="tablist" aria-label={MEDIA_MESSAGES.tabsLabel} onKeyDown={onTabKey}>
            {TABS.map((t) => (
              <button
                key={t.id}
                id={`${baseId}-tab-${t.id}`}
                type="button"
                role="tab"
                className="media-side__tab"
                aria-selected={tab === t.id}
                aria-controls={`${baseId}-panel-${t.id}`}
                tabIndex={tab === t.id ? 0 : -1}
                onClick={() => setTab(t.id)}
              >
                {t.label}
              </button>
            ))}
          </div>
          <div className="media-side__panel" id={`${baseId}-panel-contents`} role="tabpanel" aria-labelledby={`${baseId}-tab-contents`} hidden={tab !== 'contents'}>
            <TocPanel open variant="inline" bookId={book.book_id} currentHref={href} signedIn={signedIn} onClose={() => undefined} onChapterClick={(fullPath) => goPart(fullPath, false)} />
          </div>
          <div
            className="media-side__panel media-side__text"
            id={`${baseId}-panel-description`}
            role="tabpanel"
            aria-labelledby={`${baseId}-tab-description`}
            hidden={tab !== 'description'}
            tabIndex={0}
          >
            {description.length ? description.map((p, i) => <p key={i}>{p}</p>) : <p className="media-muted">{MEDIA_MESSAGES.noDescription}</p>}
          </div>
          <div className="media-side__panel" id={`${baseId}-panel-transcript`} role="tabpanel" aria-labelledby={`${baseId}-tab-transcript`} hidden={tab !== 'transcript'}>
            <Transcript cues={cues} active={active} visible={tab === 'transcript'} onSeek={(t) => player.seekTo(t)} />
          </div>
        </section>
      </div>
    </div>
  );
}

/** The transcript: one button per cue (choose one to play from there); the cue being said is marked and kept in view. */
function Transcript({ cues, active, visible, onSeek }: { cues: ReturnType<typeof parseTranscript>; active: number; visible: boolean; onSeek: (t: number) => void }) {
  const listRef = useRef<HTMLOListElement>(null);
  useEffect(() => {
    const list = listRef.current;
    if (!visible || !list || active < 0) return;
    const row = list.children[active] as HTMLElement | undefined;
    if (!row) return;
    // Only the list scrolls, and only when the line is out of its view (a reader scrolling ahead is left alone
    // until the next line comes).
    if (row.offsetTop < list.scrollTop || row.offsetTop + row.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = Math.max(0, row.offsetTop - list.clientHeight / 3);
    }
  }, [active, visible]);
  if (!cues.length) return <p className="media-muted media-side__text">{MEDIA_MESSAGES.noTranscript}</p>;
  return (
    <ol className="media-transcript" ref={listRef} aria-label={MEDIA_MESSAGES.tabTranscript}>
      {cues.map((c, i) => (
        <li key={`${c.start}-${i}`}>
          <button type="button" className="media-transcript__cue" aria-current={i === active ? 'true' : undefined} onClick={() => onSeek(c.start)}>
            <span className="media-transcript__time">{formatClock(c.start)}</span>
            <span className="media-transcript__text">{c.text}</span>
          </button>
        </li>
      ))}
    </ol>
  );
}
