/**
 * The reader (/library/view/:titleSafe/:bookId/*, reader.md §2): a toolbar (contents, the book and chapter,
 * display settings), the chapter in its frame (or the PDF), and a footer to the neighbouring chapters with the
 * position in this one. The chapter comes from POST /nest/epub/block/ and is decrypted in the browser; the
 * reader keeps the position (Locator) in local storage and logs usage for signed-in readers.
 *
 * This file composes; the parts live beside it:
 * - useReaderChapter.ts: the chapter (and the next one, prefetched) from the server, decrypted;
 * - useTocNavigation.ts: a chapter chosen in the contents, shown before the address follows;
 * - useReadingSession.ts: position, footer figures, usage log, initial position, the chapter's controller;
 * - useReaderSettings.ts, useReaderPanels.ts, useReaderKeys.ts: display settings, panels, keys;
 * - useInBookSearch.ts, useSearchJump.ts: search inside the book, and the jump to a hit (`?q=`, the chosen snippet);
 * - readAloud/: read aloud (media overlays, else the browser's speech synthesis) and its player bar;
 * - useImmersive.ts, usePageTheme.ts, usePdfZoom.ts: the immersive view, the colour mode on the whole page, PDF zoom;
 * - ReaderToolbar.tsx, ChapterBody.tsx, ReaderFooter.tsx, TocPanel.tsx, SettingsPanel.tsx, SearchPanel.tsx: what is on
 *   screen.
 */
import { paths } from '@lectern/core';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { useLocation, useNavigate, useParams } from 'react-router';
import { Spinner } from '../../components/Spinner.tsx';
import { useSession } from '../../shared/useSession.ts';
import { rememberViewed } from '../../shared/recentlyViewed.ts';
import { AnnotationLayer } from './annotations/AnnotationLayer.tsx';
import { NotesPanel } from './annotations/NotesPanel.tsx';
import { useAnnotationGoTo, type TargetState } from './annotations/useAnnotationGoTo.ts';
import { useChapterAnnotations } from './annotations/useChapterAnnotations.ts';
import { frameSurface, pdfSurface } from './annotations/surface.ts';
import type { FrameController } from './engine/frameController.ts';
import { ChapterBody, chapterSource } from './ChapterBody.tsx';
import type { FrameCallbacks } from './engine/frameController.ts';
import { LeaveBookDialog } from './LeaveBookDialog.tsx';
import { Lightbox } from './Lightbox.tsx';
import { ReaderFooter } from './ReaderFooter.tsx';
import { Centered } from './ReaderMessage.tsx';
import { releasePageFrame } from './engine/pageFirstScreen.ts';
import { ReaderToolbar } from './ReaderToolbar.tsx';
import { ReadAloudBar } from './readAloud/ReadAloudBar.tsx';
import { useReadAloud } from './readAloud/useReadAloud.ts';
import { SearchPanel } from './SearchPanel.tsx';
import { SettingsPanel } from './SettingsPanel.tsx';
import { TocPanel } from '../../shared/reading/TocPanel.tsx';
import { ResumeBook } from './ResumeBook.tsx';
import { SampleBridge } from './SampleBridge.tsx';
import { LiveTrainingBanner } from '../../shared/live-training/LiveTrainingBanner.tsx';
import { useServerPositionDown } from '../../shared/reading/useServerPosition.ts';
import { BRIGHTNESS_FULL } from './engine/preferences.ts';
import { useImmersive } from './useImmersive.ts';
import { useInBookSearch } from './useInBookSearch.ts';
import { useSearchJump } from './useSearchJump.ts';
import { usePageTheme } from './usePageTheme.ts';
import { usePdfZoom } from './usePdfZoom.ts';
import { useLoadedReaderChapter, usePrefetchReaderChapter, useReaderChapter, useRetryWhenOnline, useStartChapterLoad } from './useReaderChapter.ts';
import { useNextChapterGate } from './useNextChapterGate.ts';
import { useReaderKeys } from './useReaderKeys.ts';
import { useNoticeArea } from './useNoticeArea.ts';
import { MarkupNotice } from './MarkupNotice.tsx';
import { useReaderPanels } from './useReaderPanels.ts';
import { useReaderSettings } from './useReaderSettings.ts';
import { useReadingSession } from './useReadingSession.ts';
import { useTocNavigation } from './useTocNavigation.ts';
import { prefsForBook } from './bookFlow.ts';
import './ReaderPage.css';

/** `target`: open the chapter at this place (an annotation chosen in the notes panel), as a stored position is. */
interface NavState extends TargetState {
  /** Paging back from the next chapter: open this one at its end (reader.md §4). */
  comingBack?: boolean;
}

export function ReaderPage() {
  const params = useParams();
  const bookId = params.bookId ?? '';
  // reader.md §2: the query part of the chapter uri is dropped (the splat never carries it).
  const href = (params['*'] ?? '').replace(/\/+$/, '');
  const { profile, isLoading } = useSession();
  const sessionId = profile?.session_id ?? null;
  if (isLoading)
    return (
      <div className="reader-app">
        <Centered>
          <Spinner size="lg" label="Loading…" />
        </Centered>
      </div>
    );
  if (!href) return <ResumeBook bookId={bookId} userId={profile?.user_uuid ?? null} />;
  return <Reader key={bookId} bookId={bookId} titleSafe={params.titleSafe ?? ''} href={href} userId={profile?.user_uuid ?? null} sessionId={sessionId} />;
}

interface ReaderProps {
  bookId: string;
  titleSafe: string;
  href: string;
  userId: string | null;
  sessionId: string | null;
}

function Reader({ bookId, titleSafe, href: routeHref, userId, sessionId }: ReaderProps) {
  const location = useLocation();
  const navigate = useNavigate();
  const settings = useReaderSettings();
  const { prefs, chrome } = settings;
  usePageTheme(prefs.reading_mode);
  const { immersive, toggleImmersive } = useImmersive();
  const pdfZoom = usePdfZoom(prefs, settings.updatePrefs, settings.resetPrefs);
  const startChapterLoad = useStartChapterLoad(bookId, userId);
  // A chapter chosen in the contents takes the focus once it is on screen; until then a closing panel keeps it.
  const focusChapterOnReady = useRef(false);
  const panels = useReaderPanels(location.pathname, focusChapterOnReady);
  const nav = useTocNavigation(routeHref, startChapterLoad, panels.closeToc, focusChapterOnReady);
  const { href, hash } = nav;

  const chapter = useReaderChapter(bookId, href, userId);
  // (read by the bench's timeline: the reader's first commit)
  useLayoutEffect(() => void performance.mark('reader:rendered'), []);
  // The account's position is applied before the first chapter is placed (useServerPosition.ts).
  const serverDown = useServerPositionDown(bookId, userId);
  useRetryWhenOnline(chapter);
  // Offline, a chapter not kept yet waits for the connection (React Query pauses it): say so, not a spinner.
  const offline = chapter.isPaused && (chapter.isPending || chapter.isPlaceholderData);
  const load = chapter.data;
  // The page's own first screen (engine/pageFirstScreen.ts) stays only until a chapter frame of the reader's is painted
  // (ChapterView): it goes when the reader shows anything else, and with the reader.
  useEffect(() => {
    if (chapter.isError || (load && load.kind !== 'html')) releasePageFrame();
  }, [chapter.isError, load]);
  useEffect(() => releasePageFrame, []);
  const item = load && 'item' in load ? load.item : null;
  // The settings as the book asks to be read: its rendition:flow until the reader picks a mode; fixed layout in pages.
  const shown = prefsForBook(prefs, item?.rendition, settings.paginationChosen);
  const fixedLayout = item?.rendition?.layout === 'pre-paginated';
  const nextLoad = useLoadedReaderChapter(bookId, item?.next_chapter_uri, userId);
  const nextSource = useMemo(() => (nextLoad?.kind === 'html' ? chapterSource(bookId, nextLoad) : null), [bookId, nextLoad]);
  // The home's "Last viewed" row, once a chapter of the book has opened.
  const opened = item !== null;
  // As on the title page: written with the commit that shows the chapter, before anyone can leave it.
  useLayoutEffect(() => {
    if (opened) rememberViewed(bookId, 'reader');
  }, [bookId, opened]);

  const navState = nav.isAhead ? null : (location.state as NavState | null);
  const comingBack = navState?.comingBack === true;
  const target = navState?.target ?? null;
  // "Coming back" (or a target) opens the chapter at its end (or there) once: the history entry forgets it (the
  // router's state is kept in memory for this visit), so a reload or a return to the entry opens the chapter where
  // the reader was, not at its end again.
  useEffect(() => {
    const entry = window.history.state as { usr?: unknown } | null;
    if ((comingBack || target) && entry && typeof entry === 'object' && entry.usr) window.history.replaceState({ ...entry, usr: null }, '');
  }, [comingBack, target, href]);
  const session = useReadingSession({
    bookId,
    href,
    hash,
    comingBack,
    target,
    item,
    userId,
    prefs: shown,
    layoutKey: `${chrome.masthead}/${chrome.menu}/${immersive}`,
    focusChapterOnReady,
  });
  // The next chapter is prepared once the reader moves in this one, or its first screen has been quiet a while.
  const nextReady = useNextChapterGate(href, session.percent);
  usePrefetchReaderChapter(bookId, nextReady ? item?.next_chapter_uri : null, userId);

  const readerPath = useCallback((fullPath: string) => paths.reader(titleSafe, bookId, fullPath), [bookId, titleSafe]);
  const goChapter = useCallback(
    (direction: 'next' | 'prev') => {
      const target = direction === 'next' ? item?.next_chapter_uri : item?.previous_chapter_uri;
      if (!target) return;
      void navigate(readerPath(target), { state: direction === 'prev' ? ({ comingBack: true } satisfies NavState) : undefined });
    },
    [item, navigate, readerPath],
  );

  // A book read as one scroll (ContinuousView): the address follows the chapter under the top of the view, in place
  // (no history entry per chapter scrolled through).
  const onChapterShown = useCallback((target: string) => void navigate(readerPath(target), { replace: true }), [navigate, readerPath]);

  // A chosen result: the panel closes and the chapter takes the focus once the passage is shown.
  const { closeSearch } = panels;
  const goTo = useCallback(
    (path: string) => {
      focusChapterOnReady.current = true;
      closeSearch();
      void navigate(path);
    },
    [navigate, closeSearch],
  );
  const search = useInBookSearch({ bookId, userId, sessionId, contentType: load?.kind === 'pdf' ? 'document' : 'book', open: panels.searchOpen, go: goTo });
  const jump = useSearchJump(routeHref, session.controllerRef, focusChapterOnReady);
  const { onReady: sessionReady } = session;
  const { onReady: jumpReady } = jump;
  // The frame on show, as state: the annotation layer draws in it and listens to it.
  const [frame, setFrame] = useState<FrameController | null>(null);
  const onReady = useCallback(
    (controller: Parameters<typeof sessionReady>[0]) => {
      sessionReady(controller);
      jumpReady(controller);
      setFrame(controller);
    },
    [sessionReady, jumpReady],
  );
  // Highlights and notes (docs/decisions.md "Annotations in the reader"): signed-in readers, on HTML chapters and on a PDF's text layers.
  const { profile } = useSession();
  // (not on fixed-layout pages: docs/decisions.md "Fixed layout")
  const annotating = !!profile && ((load?.kind === 'html' && !fixedLayout) || load?.kind === 'pdf');
  const [pdfPages, setPdfPages] = useState<HTMLElement | null>(null);
  const wholePages = !!profile?.account.roles.includes('content-creator');
  const frameHref = frame?.chapterHref;
  const surface = useMemo(() => {
    if (load?.kind === 'pdf') return pdfPages ? pdfSurface(pdfPages, { wholePages }) : null;
    return frame && frameHref !== undefined ? frameSurface(frame) : null;
  }, [load?.kind, pdfPages, wholePages, frame, frameHref]);
  const revealRef = useRef<string | null>(null);
  const annotations = useChapterAnnotations({
    bookId,
    titleSafe,
    href: load?.kind === 'pdf' ? href : (frameHref ?? href),
    surface,
    enabled: annotating,
    prefetch: !!profile,
    revealRef,
  });
  // An annotation is gone to by its Locator, as a stored position is (useAnnotationGoTo).
  const goToAnnotation = useAnnotationGoTo({
    frame: load?.kind === 'pdf' ? null : frame,
    pdf: load?.kind === 'pdf',
    locate: annotations.locate,
    reveal: annotations.reveal,
    revealRef,
    readerPath,
    before: panels.closeNotes,
  });
  const orphanIds = useMemo(() => new Set(annotations.orphans.map((o) => o.id)), [annotations.orphans]);

  // Read aloud (docs/decisions.md "Read aloud"): media overlays, else the browser's voice; at a chapter's end, on to the next one.
  const readAloud = useReadAloud({
    frame,
    item,
    goNext: () => {
      if (!item?.next_chapter_uri) return false;
      goChapter('next');
      return true;
    },
  });

  // The notices (an annotation store failure, the error bar) over the chapter, clear of the bars.
  const stageRef = useRef<HTMLDivElement>(null);
  useNoticeArea(stageRef);

  const onKey = useReaderKeys({ controllerRef: session.controllerRef, panels, stepFont: settings.stepFont, immersive, toggleImmersive, readAloudEscape: readAloud.escape });

  const { onProgress, onPages } = session;
  const { showImage } = panels;
  const [leaving, setLeaving] = useState<string | null>(null);
  const callbacks = useMemo<FrameCallbacks>(
    () => ({ onProgress, onEdge: goChapter, onNavigate: (path: string) => void navigate(path), onImage: showImage, onPages, onKey, onMiddleTap: toggleImmersive, onExternalLink: setLeaving }),
    [onProgress, goChapter, navigate, showImage, onPages, onKey, toggleImmersive],
  );

  // Offline, the item on hand is the chapter before (kept while the one asked for waits): not its label.
  const chapterLabel = offline ? '' : (item?.chapter_label ?? '');
  const showNav = !offline && (load?.kind === 'html' || load?.kind === 'pdf');
  // Brightness as a dark veil over the whole screen: brightness(b) is the same as black at opacity 1 - b.
  const dim = prefs.brightness < BRIGHTNESS_FULL ? 1 - prefs.brightness / BRIGHTNESS_FULL : 0;
  const classes = ['reader-app', `reader-app--${prefs.reading_mode}`, `reader-app--${shown.pagination}`];
  if (!chrome.masthead) classes.push('reader-app--no-masthead');
  if (immersive) classes.push('reader-app--immersive');

  return (
    <div className={classes.join(' ')}>
      <title>{item ? `${chapterLabel ? `${chapterLabel} · ` : ''}${item.title} · Lectern` : 'Reader · Lectern'}</title>
      <ReaderToolbar
        bookId={bookId}
        item={item}
        chapterLabel={chapterLabel}
        showDropdown={showNav}
        tocOpen={panels.tocOpen}
        settingsOpen={panels.settingsOpen}
        searchOpen={panels.searchOpen}
        tocButton={panels.tocButton}
        settingsButton={panels.settingsButton}
        searchButton={panels.searchButton}
        onToc={panels.toggleToc}
        onSettings={panels.toggleSettings}
        onSearch={panels.toggleSearch}
        notes={annotating ? { open: panels.notesOpen, button: panels.notesButton, onToggle: panels.toggleNotes } : undefined}
        readAloud={load?.kind === 'html' && !offline ? { open: readAloud.open, button: readAloud.button, onToggle: readAloud.toggleOpen } : undefined}
      />

      <div ref={stageRef} className="reader-stage" aria-labelledby="chapter-heading" role="region">
        <ChapterBody
          bookId={bookId}
          userId={userId}
          load={load}
          pending={chapter.isPending || !serverDown.ready}
          offline={offline}
          error={chapter.error}
          retry={() => void chapter.refetch()}
          switching={chapter.isPlaceholderData}
          next={nextSource}
          prefs={shown}
          pdfZoom={pdfZoom}
          initial={session.initial}
          readerPath={readerPath}
          callbacks={callbacks}
          onReady={onReady}
          onPdfProgress={session.onPdfProgress}
          onPdfReady={session.onPdfReady}
          onPdfPages={setPdfPages}
          searchTarget={jump.target}
          onSearchDone={jump.pdfDone}
          onChapterShown={onChapterShown}
        />
        {readAloud.open && load?.kind === 'html' ? <ReadAloudBar readAloud={readAloud} chapterLabel={chapterLabel} /> : null}
        {item?.markup_recovered && !offline ? <MarkupNotice chapter={item.chapter_href} /> : null}
      </div>

      {/* library-playlists-account.md §4: the live-training banner, polled every 12 minutes in the reader */}
      <LiveTrainingBanner variant="reader" />

      {item && load?.kind === 'html' ? <SampleBridge bookId={bookId} titleSafe={titleSafe} item={item} userId={userId} atEnd={session.percent >= 99} /> : null}

      {immersive ? (
        // The way back for the keyboard: right after the chapter (Tab from it lands here), seen only when focused.
        <button type="button" className="reader-chip reader-immersive-exit" onClick={toggleImmersive}>
          Show the bars
        </button>
      ) : null}

      {showNav && chrome.menu && !immersive ? (
        <ReaderFooter item={item} percent={session.percent} pages={shown.pagination === 'page' ? session.pages : null} readerPath={readerPath} />
      ) : null}

      {panels.anyPanelOpen ? <div className="reader-scrim" aria-hidden="true" onClick={panels.closePanels} /> : null}
      {panels.tocShown ? (
        <div id="reader-toc">
          <TocPanel open={panels.tocOpen} bookId={bookId} currentHref={href} signedIn={!!userId} onClose={panels.closeToc} onChapterClick={nav.onTocChapter} />
        </div>
      ) : null}
      <div id="reader-settings">
        <SettingsPanel
          open={panels.settingsOpen}
          prefs={shown}
          isPdf={load?.kind === 'pdf'}
          zoom={pdfZoom.zoom}
          onChange={pdfZoom.onChange}
          onReset={pdfZoom.onReset}
          onFitWidth={pdfZoom.fitWidth}
          onClose={panels.closeSettings}
          chrome={chrome}
          onChrome={settings.updateChrome}
          scriptsBookId={load?.kind === 'html' && load.chapter.allow_scripts ? bookId : null}
        />
      </div>
      <div id="reader-search">
        <SearchPanel open={panels.searchOpen} search={search} onClose={panels.closeSearch} />
      </div>
      {annotating && profile ? (
        <div id="reader-notes">
          <NotesPanel
            open={panels.notesOpen}
            bookId={bookId}
            titleSafe={titleSafe}
            userUuid={profile.user_uuid}
            orphanIds={orphanIds}
            onClose={panels.closeNotes}
            onGo={goToAnnotation}
          />
        </div>
      ) : null}
      <LeaveBookDialog url={leaving} onClose={() => setLeaving(null)} />
      {panels.lightbox ? <Lightbox src={panels.lightbox.src} alt={panels.lightbox.alt} onClose={panels.closeImage} /> : null}
      {annotating && profile ? <AnnotationLayer layer={annotations} profile={profile} /> : null}
      {dim > 0 ? createPortal(<div className="reader-dim" style={{ opacity: dim }} aria-hidden="true" />, document.body) : null}
    </div>
  );
}

export default ReaderPage;
