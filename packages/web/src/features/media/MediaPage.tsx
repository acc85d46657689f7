/**
 * The media players (docs/decisions.md "Media players"): the reader's route
 * /library/view/{title_safe}/{book_id}/{chapter} for a video course or an audiobook (app/router.tsx picks this page by
 * the title's format). One media element per title, kept across its parts, so playback goes on from part to part (and
 * on a phone with the screen off).
 *
 * - Signed in with rights: the part's stream with the video session (`?ks=`), usage (mediaUsage.ts) and the
 *   position kept locally and on the account (shared/reading: Locator progression = seconds / duration).
 * - Signed in without rights (the session's 403): the alert "Forbidden" with its sentence, and the preview.
 * - A session that timed out: the spec's messages, then the preview (the variant that falls back).
 * - Visitors: the preview player only; no session, no usage (reader.md §1, §6).
 * - A player that fails (the stream and, on a media error, a new session at most every 90 s): the failure page.
 *
 * VideoView.tsx and AudioView.tsx are the two screens; usePlayer.ts drives the element; mediaTime.ts holds the rules.
 */
import { isMediaFormat, MEDIA_MESSAGES, paths, type BookDetail, type ChapterContent } from '@lectern/core';
import { useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Navigate, useLocation, useNavigate, useParams } from 'react-router';
import { api, isApiError } from '../../api/client.ts';
import { mediaUrls } from '../../api/media.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { Spinner } from '../../components/Spinner.tsx';
import { NotFoundPage } from '../../shared/NotFoundPage.tsx';
import { rememberViewed } from '../../shared/recentlyViewed.ts';
import { PositionStore } from '../../shared/reading/position.ts';
import { useServerPositionDown, useServerPositionUp } from '../../shared/reading/useServerPosition.ts';
import { useUsageQueue } from '../../shared/reading/useUsage.ts';
import { browserStorage } from '../../shared/storage.ts';
import { useSession } from '../../shared/useSession.ts';
import { AudioView } from './AudioView.tsx';
import { MediaFailure } from './MediaFailure.tsx';
import { MediaUsage } from './mediaUsage.ts';
import { openAtOf, playRange } from './mediaTime.ts';
import { useMediaSession } from './useMediaSession.ts';
import { usePlayer } from './usePlayer.ts';
import { VideoView } from './VideoView.tsx';
import './MediaPage.css';

interface NavState {
  /** going on from the previous part: play at once */
  autoplay?: boolean;
}

/** How often the account hears of the position while a part plays (pauses, seeks and the page going away at once). */
const POSITION_REPORT_MS = 10_000;
/** How often the local position is written while playing. */
const LOCAL_WRITE_MS = 1000;

export function MediaPage() {
  const params = useParams();
  const bookId = params.bookId ?? '';
  const href = (params['*'] ?? '').replace(/\/+$/, '');
  const { profile, isLoading } = useSession();
  const userId = profile?.user_uuid ?? null;
  const book = useQuery({ queryKey: queryKeys.book(bookId), queryFn: ({ signal }) => api.getBook(bookId, signal), staleTime: 60_000, retry: 1 });
  const serverDown = useServerPositionDown(bookId, userId);

  if (isLoading || book.isPending || (!href && !serverDown.ready))
    return (
      <div className="media-app media-app--loading">
        <Spinner size="lg" label="Loading…" />
      </div>
    );
  if (book.isError || !book.data || !isMediaFormat(book.data.content_format)) return <NotFoundPage />;
  const detail = book.data;
  if (href && !detail.chapters.some((c) => c.full_path === href)) return <NotFoundPage />;
  if (!href) {
    // The address without a part: where this reader left the title (in any browser), else its first part.
    const latest = userId ? new PositionStore(browserStorage()).latestHref(bookId) : null;
    const target = detail.chapters.find((c) => c.full_path === latest) ?? detail.chapters[0];
    if (!target) return <NotFoundPage />;
    return <Navigate replace to={paths.reader(detail.title_safe, bookId, target.full_path)} />;
  }
  return <MediaScreen key={bookId} book={detail} href={href} userId={userId} positionReady={serverDown.ready} />;
}

interface ScreenProps {
  book: BookDetail;
  href: string;
  userId: string | null;
  positionReady: boolean;
}

function MediaScreen({ book, href, userId, positionReady }: ScreenProps) {
  const bookId = book.book_id;
  const location = useLocation();
  const navigate = useNavigate();
  const signedIn = !!userId;
  const isVideo = book.content_format === 'video';
  const range = useMemo(() => playRange(location.search), [location.search]);
  // a search hit's `?t=`: the second its words are said (decisions.md "Search hits in a transcript open at their second")
  const openAt = useMemo(() => openAtOf(location.search), [location.search]);
  const autoplay = (location.state as NavState | null)?.autoplay === true;

  useEffect(() => {
    rememberViewed(bookId, 'reader');
  }, [bookId]);

  const chapter = useQuery({
    queryKey: queryKeys.chapter(bookId, href),
    queryFn: ({ signal }) => api.getChapter(bookId, href, signal),
    enabled: signedIn,
    staleTime: 10 * 60_000,
    retry: (n, e) => !(isApiError(e) && e.status >= 400 && e.status < 500) && n < 2,
  });
  const part: ChapterContent | null = chapter.data ?? null;
  const media = part?.media ?? null;
  const { state: session, refresh } = useMediaSession(bookId, signedIn);
  const chapterForbidden = isApiError(chapter.error) && (chapter.error.status === 401 || chapter.error.status === 403);

  // What plays: the whole part with the session, or the preview (no session, no usage, no position).
  const mode: 'loading' | 'full' | 'preview' | 'failed' = !signedIn
    ? 'preview'
    : session.kind === 'loading' || chapter.isPending
      ? 'loading'
      : session.kind === 'forbidden' || session.kind === 'anonymous' || chapterForbidden
        ? 'preview'
        : session.kind === 'timeout'
          ? 'preview'
          : media
            ? 'full'
            : 'failed';
  const [failed, setFailed] = useState(false);
  const [previewEnded, setPreviewEnded] = useState(false);
  useEffect(() => {
    setPreviewEnded(false);
    setFailed(false);
  }, [href]);

  const ks = session.kind === 'ok' ? session.session.ks : null;
  const src = mode === 'full' && media ? mediaUrls.stream(media, ks) : mode === 'preview' ? mediaUrls.preview(bookId, media) : null;
  const captions = mode === 'full' && media ? mediaUrls.captions(media, ks) : null;

  // Usage and positions, for the whole part only.
  const usagePair = useUsageQueue(mode === 'full' ? userId : null);
  const usage = useMemo(
    () => (usagePair && userId ? new MediaUsage({ queue: usagePair.queue, userId, product: isVideo ? 'video' : 'audio', storage: browserStorage() }) : null),
    [usagePair, userId, isVideo],
  );
  useEffect(() => usage?.setChapter(paths.chapterApi(bookId, href)), [usage, bookId, href]);
  const serverUp = useServerPositionUp(bookId, mode === 'full' ? userId : null);
  const store = useMemo(() => new PositionStore(browserStorage()), []);
  const lastLocal = useRef(0);
  const lastReport = useRef(0);
  const hrefRef = useRef(href);
  hrefRef.current = href;
  // (this part's own href, not the latest: usePlayer settles a part left with the callback it was played with)
  const onPosition = useCallback(
    (seconds: number, duration: number, settled: boolean) => {
      if (mode !== 'full' || !Number.isFinite(duration) || duration <= 0) return;
      const locator = { href, progression: seconds / duration };
      const now = Date.now();
      if (settled || now - lastLocal.current >= LOCAL_WRITE_MS) {
        lastLocal.current = now;
        store.set(bookId, locator);
      }
      if (settled || now - lastReport.current >= POSITION_REPORT_MS) {
        lastReport.current = now;
        serverUp.report(locator);
      }
    },
    [mode, store, bookId, serverUp, href],
  );
  const savedSeconds = useCallback(() => {
    if (mode !== 'full' || !positionReady) return null;
    const saved = store.get(bookId, hrefRef.current);
    const duration = (media?.duration_ms ?? 0) / 1000;
    return saved && duration > 0 ? saved.progression * duration : null;
  }, [mode, positionReady, store, bookId, media]);

  const index = book.chapters.findIndex((c) => c.full_path === href);
  const next = part?.next_chapter_uri ?? book.chapters[index + 1]?.full_path ?? null;
  const previous = part?.previous_chapter_uri ?? (index > 0 ? book.chapters[index - 1]!.full_path : null);
  const [sleepAtEnd, setSleepAtEnd] = useState(false);
  // A change of part (buttons, chapter list, Media Session, the end's going on, back and forward) settles the old
  // part in usePlayer, with the options it was played with.
  const goPart = useCallback(
    (fullPath: string, play: boolean) => {
      void navigate(paths.reader(book.title_safe, bookId, fullPath), { state: play ? ({ autoplay: true } satisfies NavState) : undefined });
    },
    [navigate, book.title_safe, bookId],
  );
  const onEnded = useCallback(() => {
    if (mode === 'preview') {
      setPreviewEnded(true);
      return;
    }
    // reader.md §4: a video that completes goes on to next_chapter_uri (an audiobook too, unless the sleep timer
    // was set to the end of this chapter).
    if (sleepAtEnd) {
      setSleepAtEnd(false);
      return;
    }
    if (mode === 'full' && next) goPart(next, true);
  }, [mode, next, goPart, sleepAtEnd]);
  const onError = useCallback(() => {
    // reader.md §4: a media error re-fetches the session, at most once per 90 s; else the failure page.
    if (mode === 'full' && refresh()) return;
    setFailed(true);
  }, [mode, refresh]);

  const player = usePlayer({
    src: failed ? null : src,
    partKey: `${mode === 'preview' ? 'preview' : href}`,
    range,
    savedSeconds,
    openAt: mode === 'full' ? openAt : null,
    openKey: location.key,
    autoplay,
    usage: mode === 'full' ? usage : null,
    onPosition,
    onEnded,
    onError,
  });

  const notices = sessionNotices(session.kind, mode, chapterForbidden);
  const common = {
    book,
    href,
    index,
    part,
    media,
    mode,
    player,
    notices,
    previewEnded,
    signedIn,
    next,
    previous,
    goPart,
  };
  if (failed)
    return (
      <div className="media-app">
        <MediaFailure book={book} chapter={book.chapters[index]?.label} />
      </div>
    );
  if (mode === 'failed')
    return (
      <div className="media-app">
        <MediaFailure book={book} chapter={book.chapters[index]?.label} message={chapter.error?.message ?? MEDIA_MESSAGES.videoUnavailable} />
      </div>
    );
  return isVideo ? (
    <VideoView {...common} captions={captions} />
  ) : (
    <AudioView {...common} sleepAtEnd={sleepAtEnd} setSleepAtEnd={setSleepAtEnd} />
  );
}

export interface Notices {
  title: string | null;
  lines: string[];
}

/** reader.md §6, §8: what the session's outcome says above the player. */
function sessionNotices(kind: string, mode: string, chapterForbidden: boolean): Notices {
  if (mode !== 'preview') return { title: null, lines: [] };
  if (kind === 'forbidden' || chapterForbidden) return { title: MEDIA_MESSAGES.forbidden, lines: [MEDIA_MESSAGES.forbiddenClip] };
  if (kind === 'timeout') return { title: null, lines: [MEDIA_MESSAGES.sessionTimeout, MEDIA_MESSAGES.reloadToTryAgain, MEDIA_MESSAGES.previewWillPlay] };
  return { title: null, lines: [] };
}

export type MediaViewProps = {
  book: BookDetail;
  href: string;
  index: number;
  part: ChapterContent | null;
  media: ChapterContent['media'];
  mode: 'loading' | 'full' | 'preview' | 'failed';
  player: ReturnType<typeof usePlayer>;
  notices: Notices;
  previewEnded: boolean;
  signedIn: boolean;
  next: string | null;
  previous: string | null;
  goPart: (fullPath: string, play: boolean) => void;
};

export default MediaPage;
