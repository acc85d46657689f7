/**
 * The reader (/library/view/:titleSafe/:bookId/*, reader.md §2): a toolbar (contents, the book and chapter,
 * display settings), the chapter in its frame (or the PDF), and a footer to the neighbouring chapters with the
 * position in this one. The chapter comes from POST /nest/epub/block/ and is decrypted in the browser; the
 * reader keeps the position (Locator) in local storage and logs usage for signed-in readers.
 */
import { DEFAULT_PREFERENCES, MESSAGES, paths, type ReaderPreferences } from '@lectern/core';
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { isApiError } from '../../api/client.ts';
import { NotFoundPage } from '../../app/NotFoundPage.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { useSession } from '../account/useSession.ts';
import { ChapterView, type ChapterSource } from './ChapterView.tsx';
import type { FrameController } from './engine/frameController.ts';
import { warmChapterWorkerJit } from './engine/chapterWorker.ts';
import { PositionStore, resolveInitialPosition, type Locator } from './engine/position.ts';
import { loadChrome, loadPreferences, saveChrome, savePreferences, type ReaderChrome } from './engine/preferences.ts';
import { PlaylistDropdown } from '../playlists/PlaylistTitleCard.tsx';
import { Lightbox } from './Lightbox.tsx';
import { ReaderIcon } from './ReaderIcon.tsx';
import { SettingsPanel } from './SettingsPanel.tsx';
import { TocPanel } from './TocPanel.tsx';
import { ResumeBook } from './ResumeBook.tsx';
import { SampleBridge } from './SampleBridge.tsx';
import { useServerPositionDown, useServerPositionUp } from './useServerPosition.ts';
import { useLoadedReaderChapter, usePrefetchReaderChapter, useReaderChapter, useStartChapterLoad, type ChapterLoad } from './useReaderChapter.ts';
import { useUsage } from './useUsage.ts';
import './ReaderPage.css';

const PdfView = lazy(() => import('./PdfView.tsx'));

/** What the chapter frame is given to show a decrypted chapter (the same for the chapter on show and the next). */
function chapterSource(bookId: string, l: Extract<ChapterLoad, { kind: 'html' }>): ChapterSource {
  return {
    html: l.html,
    label: l.item.chapter_label || l.chapter.label,
    stylesheets: l.chapter.stylesheets,
    baseHref: new URL(paths.chapterApi(bookId, l.item.chapter_href), window.location.href).href,
    allowScripts: l.chapter.allow_scripts,
    href: l.item.chapter_href,
  };
}

/** A chapter chosen in the contents takes the address at the latest this long after the click, loaded or not. */
const CHAPTER_NAVIGATE_WAIT_MS = 250;

function browserStorage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

interface NavState {
  /** Paging back from the next chapter: open this one at its end (reader.md §4). */
  comingBack?: boolean;
}

function Centered({ children }: { children: React.ReactNode }) {
  return <div className="reader-center">{children}</div>;
}

function Message({ tone = 'info', title, children }: { tone?: 'info' | 'error'; title?: string; children?: React.ReactNode }) {
  return (
    <Centered>
      <div className={`reader-message reader-message--${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
        <span className="reader-message__icon" aria-hidden="true">
          <ReaderIcon name={tone === 'error' ? 'alert' : 'lock'} size={26} />
        </span>
        {title ? <p className="reader-message__title">{title}</p> : null}
        {children}
      </div>
    </Centered>
  );
}

export function ReaderPage() {
  const params = useParams();
  const bookId = params.bookId ?? '';
  // reader.md §2: the query part of the chapter uri is dropped (the splat never carries it).
  const href = (params['*'] ?? '').replace(/\/+$/, '');
  const { profile, isLoading } = useSession();
  if (isLoading)
    return (
      <div className="reader-app">
        <Centered>
          <Spinner size="lg" label="Loading…" />
        </Centered>
      </div>
    );
  if (!href) return <ResumeBook bookId={bookId} userId={profile?.user_uuid ?? null} />;
  return <Reader key={bookId} bookId={bookId} titleSafe={params.titleSafe ?? ''} href={href} userId={profile?.user_uuid ?? null} />;
}

function Reader({ bookId, titleSafe, href: routeHref, userId }: { bookId: string; titleSafe: string; href: string; userId: string | null }) {
  const location = useLocation();
  const navigate = useNavigate();
  // A chapter chosen in the contents is shown the moment it is in, by a plain render of its own; the address follows
  // through the router, whose navigations are transitions (time-sliced, behind everything else). Until the address
  // has caught up, `ahead` names the chapter shown; any navigation (that one, or the reader going back) ends it.
  const [ahead, setAhead] = useState<{ fromKey: string; href: string; hash: string } | null>(null);
  const isAhead = ahead !== null && ahead.fromKey === location.key;
  const href = isAhead ? ahead.href : routeHref;
  const hash = isAhead ? ahead.hash : location.hash;
  const [prefs, setPrefs] = useState<ReaderPreferences>(() => loadPreferences());
  const [chrome, setChrome] = useState<ReaderChrome>(() => loadChrome());
  const updateChrome = useCallback((patch: Partial<ReaderChrome>) => setChrome((c) => saveChrome({ ...c, ...patch })), []);
  const [tocOpen, setTocOpen] = useState(false);
  const [tocShown, setTocShown] = useState(false);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [lightbox, setLightbox] = useState<{ src: string; alt: string } | null>(null);
  const [percent, setPercent] = useState(0);
  const [pages, setPages] = useState<{ index: number; count: number } | null>(null);
  const [fitRequest, setFitRequest] = useState(0);
  const controllerRef = useRef<FrameController | null>(null);
  const positions = useMemo(() => new PositionStore(browserStorage()), []);
  const tracker = useUsage(userId);
  const chapter = useReaderChapter(bookId, href, userId);
  // The account's position: applied before the first chapter is placed, then kept up to date while reading.
  const serverDown = useServerPositionDown(bookId, userId);
  const serverUp = useServerPositionUp(bookId, userId);
  const load = chapter.data;
  const item = load && 'item' in load ? load.item : null;
  usePrefetchReaderChapter(bookId, item?.next_chapter_uri, userId);
  const nextLoad = useLoadedReaderChapter(bookId, item?.next_chapter_uri, userId);
  const nextSource = useMemo(() => (nextLoad?.kind === 'html' ? chapterSource(bookId, nextLoad) : null), [bookId, nextLoad]);
  const startChapterLoad = useStartChapterLoad(bookId, userId);
  // Stable handlers: the panels are memoised and must not re-render on every progress report while reading.
  const closeToc = useCallback(() => setTocOpen(false), []);
  const closeSettings = useCallback(() => setSettingsOpen(false), []);
  const requestFit = useCallback(() => setFitRequest((n) => n + 1), []);
  // A chapter chosen in the contents takes the focus once it is on screen (not the contents button in between: a
  // focus call there would force a style pass over the closing panel on the way to the next chapter).
  const focusChapterOnReady = useRef(false);
  // The latest address and navigate for the contents' click handler, which stays the same function across chapters
  // (a new one would re-render every row of the contents on each chapter change).
  const latestNav = useRef({ href, navigate, key: location.key });
  latestNav.current = { href, navigate, key: location.key };
  const pendingNav = useRef(0);
  const onTocChapter = useCallback(
    (target: string, url: string) => {
      const { href: current, key } = latestNav.current;
      if (target === current) {
        setTocOpen(false);
        void latestNav.current.navigate(url);
        return;
      }
      focusChapterOnReady.current = true;
      // The contents close and the address changes once the chapter is in (or after a short wait; then the chapter
      // on screen stays until it is): one render brings the new chapter, the panel sliding away from it and the new
      // address, and the page is idle while the request is on its way, free to take the answer the moment it comes.
      const token = ++pendingNav.current;
      let timer = 0;
      const go = () => {
        window.clearTimeout(timer);
        // Only the latest choice, and not if the reader has gone elsewhere meanwhile (back, another link).
        if (pendingNav.current !== token || latestNav.current.key !== key) return;
        pendingNav.current += 1;
        flushSync(() => {
          setTocOpen(false);
          setAhead({ fromKey: key, href: target, hash: new URL(url, window.location.href).hash });
        });
        void latestNav.current.navigate(url);
      };
      timer = window.setTimeout(go, CHAPTER_NAVIGATE_WAIT_MS);
      void startChapterLoad(target).then(go);
    },
    [startChapterLoad],
  );

  const updatePrefs = useCallback((patch: Partial<ReaderPreferences>) => setPrefs((p) => savePreferences({ ...p, ...patch })), []);
  const resetPrefs = useCallback(() => setPrefs(savePreferences({ ...DEFAULT_PREFERENCES })), []);

  // The table of contents closes on route change (reader.md §4); so do the settings.
  useEffect(() => {
    setTocOpen(false);
    setSettingsOpen(false);
    setLightbox(null);
  }, [location.pathname]);

  const readerPath = useCallback((fullPath: string) => paths.reader(titleSafe, bookId, fullPath), [bookId, titleSafe]);

  // ---- usage and position ----
  const last = useRef<{ pct: number; locator: Locator | null }>({ pct: 0, locator: null });
  const saveTimer = useRef(0);
  const chapterPath = item?.chapter ?? null;

  const onProgress = useCallback(
    (pct: number, locator: Locator) => {
      last.current = { pct, locator };
      setPercent(pct);
      tracker?.reading(pct);
      serverUp.report(locator);
      window.clearTimeout(saveTimer.current);
      // reader.md §9: the scroll-save debounce of 500 ms.
      saveTimer.current = window.setTimeout(() => positions.set(bookId, locator), 500);
    },
    [tracker, positions, bookId, serverUp],
  );

  // Leaving the chapter (another chapter, another page): end = current position, log and post.
  useEffect(() => {
    if (!chapterPath) return;
    return () => {
      window.clearTimeout(saveTimer.current);
      if (last.current.locator) positions.set(bookId, last.current.locator);
      tracker?.leave(last.current.pct);
      tracker?.close();
    };
  }, [chapterPath, tracker, positions, bookId]);

  // The tab hidden or closed: what was read so far is logged and stored now (nothing lost across a reload).
  useEffect(() => {
    const onHide = () => {
      if (document.visibilityState === 'hidden' || !document.visibilityState) {
        if (last.current.locator) positions.set(bookId, last.current.locator);
        if (tracker?.currentChapter) tracker.leave(last.current.pct);
      }
    };
    document.addEventListener('visibilitychange', onHide);
    window.addEventListener('pagehide', onHide);
    return () => {
      document.removeEventListener('visibilitychange', onHide);
      window.removeEventListener('pagehide', onHide);
    };
  }, [tracker, positions, bookId]);

  const onReady = useCallback(
    (controller: FrameController | null) => {
      controllerRef.current = controller;
      if (!controller || !item) return;
      const pct = controller.percentage();
      last.current = { pct, locator: controller.locator() };
      tracker?.newChapter(item.chapter);
      tracker?.newStart(pct);
      const pages = controller.paged ? controller.pages() : null;
      // The bench and the e2e tests read these marks: the chapter is on screen, decrypted and laid out.
      const focus = focusChapterOnReady.current;
      focusChapterOnReady.current = false;
      requestAnimationFrame(() => {
        // The footer's figures render once this frame, the chapter's first, is on its way: a render of the page
        // here would hold that frame back.
        setPercent(pct);
        setPages(pages);
        requestAnimationFrame(() => {
          performance.mark('reader:chapter-painted');
          // Unless the reader has opened a panel meanwhile (a closed one may still hold the focus while it slides out).
          if (focus && !document.activeElement?.closest('.toc--open, .reader-settings--open')) controller.focus();
          const idle = window.requestIdleCallback ?? ((cb: () => void) => window.setTimeout(cb, 200));
          idle(() => warmChapterWorkerJit());
        });
      });
    },
    [item, tracker],
  );

  const comingBack = !isAhead && (location.state as NavState | null)?.comingBack === true;
  const initial = useCallback(
    () =>
      resolveInitialPosition({
        hash,
        comingBack,
        stored: positions.get(bookId, href),
        topPercentage: item?.top_percentage ?? 0,
      }),
    [hash, comingBack, positions, bookId, href, item?.top_percentage],
  );

  // A new hash on the same chapter (a TOC entry with an anchor) scrolls there.
  const firstHash = useRef(hash);
  useEffect(() => {
    if (hash === firstHash.current) return;
    firstHash.current = hash;
    if (hash) controllerRef.current?.goToAnchor(decodeURIComponent(hash.slice(1)));
  }, [hash]);

  const goChapter = useCallback(
    (direction: 'next' | 'prev') => {
      const target = direction === 'next' ? item?.next_chapter_uri : item?.previous_chapter_uri;
      if (!target) return;
      void navigate(readerPath(target), { state: direction === 'prev' ? ({ comingBack: true } satisfies NavState) : undefined });
    },
    [item, navigate, readerPath],
  );

  // Keys when focus is in the app (not in the frame): page turns, Escape, T for contents, F/G for font size.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      const t = e.target as HTMLElement | null;
      const inField = t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
      if (e.key === 'Escape') {
        if (lightbox) return;
        if (tocOpen || settingsOpen) {
          setTocOpen(false);
          setSettingsOpen(false);
        }
        return;
      }
      if (inField || e.altKey || e.ctrlKey || e.metaKey) return;
      if (t && (t.closest('.toc') || t.closest('.reader-settings') || t.closest('.reader-pdf'))) return;
      if (e.key === 't' || e.key === 'T') {
        setTocShown(true);
        setTocOpen((o) => !o);
        return;
      }
      if (e.key === 'f' || e.key === 'g') {
        setPrefs((p) => savePreferences({ ...p, font_size: p.font_size + (e.key === 'g' ? 0.1 : -0.1) }));
        return;
      }
      if (t && t.tagName === 'BUTTON' && (e.key === ' ' || e.key === 'Enter')) return;
      controllerRef.current?.handleKey(e);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [tocOpen, settingsOpen, lightbox]);

  const callbacks = useMemo(
    () => ({
      onProgress,
      onEdge: goChapter,
      onNavigate: (path: string) => void navigate(path),
      onImage: (src: string, alt: string) => setLightbox({ src, alt }),
      onPages: (index: number, count: number) => setPages({ index, count }),
      onKey: (e: KeyboardEvent) => {
        if (e.key === 'Escape') {
          setTocOpen(false);
          setSettingsOpen(false);
        } else if (e.key === 't' || e.key === 'T') {
          setTocShown(true);
          setTocOpen((o) => !o);
        }
      },
    }),
    [onProgress, goChapter, navigate],
  );

  // Hiding or showing a bar resizes the frame: lay the chapter out again around the same words.
  useEffect(() => {
    controllerRef.current?.relayout();
  }, [chrome.masthead, chrome.menu]);

  // Pages change with the mode: the controller reports them on its next layout.
  useEffect(() => {
    if (prefs.pagination !== 'page') setPages(null);
    else if (controllerRef.current) setPages(controllerRef.current.pages());
  }, [prefs.pagination, prefs.font_size, prefs.column_width]);

  // A panel that closes with focus inside gives it back to the button that opened it.
  const tocButton = useRef<HTMLButtonElement>(null);
  const settingsButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const active = document.activeElement;
    if (!tocOpen && active?.closest('.toc') && !focusChapterOnReady.current) tocButton.current?.focus();
  }, [tocOpen]);
  useEffect(() => {
    const active = document.activeElement;
    if (!settingsOpen && active?.closest('.reader-settings')) settingsButton.current?.focus();
  }, [settingsOpen]);

  const openToc = () => {
    setTocShown(true);
    setSettingsOpen(false);
    setTocOpen((o) => !o);
  };

  const isPdf = load?.kind === 'pdf';
  const body = renderBody(load, chapter.isPending || !serverDown.ready, chapter.error, () => void chapter.refetch());

  function renderBody(l: ChapterLoad | undefined, pending: boolean, error: Error | null, retry: () => void) {
    if (pending)
      return (
        <Centered>
          <Spinner size="lg" label="Loading chapter…" />
        </Centered>
      );
    if (error || !l) {
      if (isApiError(error) && error.status === 404) return <NotFoundPage message="We could not find that chapter." />;
      return (
        <Message tone="error" title={error?.message ?? MESSAGES.contentRequestFailed}>
          <button type="button" className="reader-chip" onClick={retry}>
            Try again
          </button>
        </Message>
      );
    }
    switch (l.kind) {
      case 'still-loading':
        return (
          <Message tone="error" title={MESSAGES.bookStillLoading}>
            <button type="button" className="reader-chip" onClick={retry}>
              Try again
            </button>
          </Message>
        );
      case 'refused': {
        const signIn = l.message === MESSAGES.signInToRead;
        return (
          <Message tone="info" title={l.item.title}>
            <p className="reader-message__text" role="alert">
              {l.message}
            </p>
            {l.url ? (
              <Link className="btn btn--primary btn--lg" to={l.url}>
                {signIn ? 'Sign in' : 'Go to the title'}
              </Link>
            ) : null}
            <Link className="reader-message__link" to={paths.titlePage(bookId)}>
              Back to the title
            </Link>
          </Message>
        );
      }
      case 'failed':
        return (
          <Message tone="error" title={l.message}>
            <button type="button" className="reader-chip" onClick={retry}>
              Try again
            </button>
          </Message>
        );
      case 'pdf':
        return (
          <Suspense
            fallback={
              <Centered>
                <Spinner size="lg" label="Loading document…" />
              </Centered>
            }
          >
            <PdfView
              fileUrl={l.fileUrl}
              label={l.item.chapter_label}
              prefs={prefs}
              fitRequest={fitRequest}
              onZoom={(z) => updatePrefs({ zoom_factor: z })}
              onProgress={(pct) => {
                last.current = { pct, locator: { href, progression: pct } };
                setPercent(pct);
                tracker?.reading(pct);
              }}
              onReady={() => {
                tracker?.newChapter(l.item.chapter);
                requestAnimationFrame(() => requestAnimationFrame(() => performance.mark('reader:chapter-painted')));
              }}
            />
          </Suspense>
        );
      case 'html':
        return (
          <ChapterView
            // One frame per book: its sandbox is fixed when it is created, so a title's script policy keys it too.
            key={`${bookId}/${l.chapter.allow_scripts ? 'scripts' : 'no-scripts'}`}
            switching={chapter.isPlaceholderData}
            {...chapterSource(bookId, l)}
            next={nextSource}
            bookId={bookId}
            prefs={prefs}
            initial={initial}
            readerPath={readerPath}
            callbacks={callbacks}
            onReady={onReady}
          />
        );
    }
  }

  const chapterLabel = item?.chapter_label ?? '';
  const position = pages && prefs.pagination === 'page' ? `Page ${pages.index + 1} of ${pages.count}` : `${Math.round(percent)}%`;
  const showNav = load?.kind === 'html' || load?.kind === 'pdf';

  return (
    <div
      className={`reader-app reader-app--${prefs.reading_mode} reader-app--${prefs.pagination}${chrome.masthead ? '' : ' reader-app--no-masthead'}`}
    >
      <title>{item ? `${chapterLabel ? `${chapterLabel} · ` : ''}${item.title} · Lectern` : 'Reader · Lectern'}</title>
      <div className="reader-toolbar" role="toolbar" aria-label="Reader">
        <button
          ref={tocButton}
          type="button"
          className="reader-iconbtn reader-toolbar__toc"
          aria-label="Table of contents"
          aria-expanded={tocOpen}
          aria-controls="reader-toc"
          onClick={openToc}
        >
          <ReaderIcon name="toc" />
        </button>
        <div className="reader-toolbar__titles">
          {item ? (
            <Link to={paths.titlePage(bookId)} className="reader-toolbar__book">
              {item.title}
            </Link>
          ) : (
            <span className="reader-toolbar__book">&nbsp;</span>
          )}
          <h1 className="reader-toolbar__chapter" id="chapter-heading">
            {chapterLabel || '\u00a0'}
          </h1>
        </div>
        {item && showNav ? (
          <PlaylistDropdown
            describedBy="chapter-heading"
            content={{ apiUrl: paths.chapterApi(bookId, item.chapter_href), contentFormat: 'chapter', topics: [], title: chapterLabel || item.title }}
          />
        ) : null}
        <button
          ref={settingsButton}
          type="button"
          className="reader-iconbtn reader-toolbar__settings"
          aria-label="Display settings"
          aria-expanded={settingsOpen}
          aria-controls="reader-settings"
          onClick={() => {
            setTocOpen(false);
            setSettingsOpen((o) => !o);
          }}
        >
          <ReaderIcon name="type" />
        </button>
      </div>

      <div className="reader-stage" aria-labelledby="chapter-heading" role="region">
        {body}
      </div>
      {item && load?.kind === 'html' ? <SampleBridge bookId={bookId} titleSafe={titleSafe} item={item} userId={userId} atEnd={percent >= 99} /> : null}

      {showNav && chrome.menu ? (
        <nav className="reader-footer" aria-label="Chapters">
          {item?.previous_chapter_uri ? (
            <Link className="reader-footer__link" rel="prev" to={readerPath(item.previous_chapter_uri)}>
              <ReaderIcon name="prev" size={18} />
              <span>Previous</span>
            </Link>
          ) : (
            <span className="reader-footer__link reader-footer__link--none" />
          )}
          <div className="reader-footer__position" aria-live="off">
            <span className="reader-footer__bar" aria-hidden="true">
              <span style={{ width: `${Math.round(percent)}%` }} />
            </span>
            <span className="reader-footer__text">{position}</span>
          </div>
          {item?.next_chapter_uri ? (
            <Link className="reader-footer__link reader-footer__link--next" rel="next" to={readerPath(item.next_chapter_uri)}>
              <span>Next chapter</span>
              <ReaderIcon name="next" size={18} />
            </Link>
          ) : (
            <span className="reader-footer__link reader-footer__link--none" />
          )}
        </nav>
      ) : null}

      {tocOpen || settingsOpen ? (
        <div
          className="reader-scrim"
          aria-hidden="true"
          onClick={() => {
            setTocOpen(false);
            setSettingsOpen(false);
          }}
        />
      ) : null}
      {tocShown ? (
        <div id="reader-toc">
          <TocPanel open={tocOpen} bookId={bookId} currentHref={href} signedIn={!!userId} onClose={closeToc} onChapterClick={onTocChapter} />
        </div>
      ) : null}
      <div id="reader-settings">
        <SettingsPanel
          open={settingsOpen}
          prefs={prefs}
          isPdf={isPdf}
          onChange={updatePrefs}
          onReset={resetPrefs}
          onFitWidth={requestFit}
          onClose={closeSettings}
          chrome={chrome}
          onChrome={updateChrome}
        />
      </div>
      {lightbox ? <Lightbox src={lightbox.src} alt={lightbox.alt} onClose={() => setLightbox(null)} /> : null}
    </div>
  );
}

export default ReaderPage;
