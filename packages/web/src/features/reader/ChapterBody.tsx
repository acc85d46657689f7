/**
 * What the reader's stage shows for the chapter asked for: a spinner, the chapter in its frame, the PDF, or why not
 * (refused with a way to sign in, still loading, failed with Try again).
 */
import { APP_MESSAGES, MESSAGES, paths, READING_MESSAGES, type ReaderPreferences } from '@lectern/core';
import { lazy, Suspense } from 'react';
import { Link } from 'react-router';
import { isApiError } from '../../api/client.ts';
import { NotFoundPage } from '../../shared/NotFoundPage.tsx';
import { appPaths } from '../../shared/links.ts';
import { Spinner } from '../../components/Spinner.tsx';
import { ChapterView, type ChapterSource } from './ChapterView.tsx';
import { ContinuousView, stacks } from './ContinuousView.tsx';
import { chapterSource } from './chapterSource.ts';

export { chapterSource };
import { FixedLayoutView } from './FixedLayoutView.tsx';
import { ScriptedChapterView, ScriptsGate } from './ScriptedChapterView.tsx';
import type { FrameCallbacks, FrameController } from './engine/frameController.ts';
import { progressionOf, type InitialPosition } from '../../shared/reading/position.ts';
import { Centered, ReaderMessage, RetryMessage } from './ReaderMessage.tsx';
import type { ChapterLoad } from './useReaderChapter.ts';
import type { SearchTarget } from './useSearchJump.ts';

const PdfView = lazy(() => import('./PdfView.tsx'));

export interface ChapterBodyProps {
  bookId: string;
  load: ChapterLoad | undefined;
  pending: boolean;
  /** The chapter cannot be fetched: the browser is offline (the request waits for the connection). */
  offline: boolean;
  error: Error | null;
  retry: () => void;
  /** Another chapter is on its way; the one on show stays meanwhile. */
  switching: boolean;
  next: ChapterSource | null;
  prefs: ReaderPreferences;
  /** A PDF's zoom (usePdfZoom). */
  pdfZoom: { fit: boolean; zoom: number; onFitZoom: (zoom: number) => void };
  initial: () => InitialPosition;
  readerPath: (fullPath: string) => string;
  callbacks: FrameCallbacks;
  onReady: (controller: FrameController | null) => void;
  onPdfProgress: (percentage: number) => void;
  onPdfReady: () => void;
  /** A PDF's page container, for the annotation layer. */
  onPdfPages?: (el: HTMLElement | null) => void;
  /** The signed-in reader (a fixed-layout spread loads its other page as they may read it). */
  userId?: string | null;
  /** A search hit to show (a PDF handles its own; a chapter's goes through the frame controller). */
  searchTarget?: SearchTarget | null;
  onSearchDone?: () => void;
  /** A book read as one scroll: the chapter under the top of the view changed (ContinuousView); the address follows. */
  onChapterShown?: (href: string) => void;
}

export function ChapterBody(props: ChapterBodyProps) {
  const { bookId, load: l, pending, error, retry } = props;
  // Before the spinner: a chapter waiting for the connection would otherwise spin until it is back.
  if (props.offline)
    return (
      <ReaderMessage tone="info" icon="offline" title={APP_MESSAGES.chapterOffline}>
        <button type="button" className="reader-chip" onClick={retry}>
          Retry
        </button>
      </ReaderMessage>
    );
  if (pending)
    return (
      <Centered>
        <Spinner size="lg" label="Loading chapter…" />
      </Centered>
    );
  if (error || !l) {
    if (isApiError(error) && error.status === 404) return <NotFoundPage message="We could not find that chapter." />;
    return <RetryMessage title={error?.message ?? MESSAGES.contentRequestFailed} onRetry={retry} />;
  }
  switch (l.kind) {
    case 'still-loading':
      return <RetryMessage title={MESSAGES.bookStillLoading} onRetry={retry} />;
    case 'refused': {
      const signIn = l.message === MESSAGES.signInToRead;
      // An ended subscription is told to subscribe: its way there, not a second link to the title page below.
      const ended = l.message === READING_MESSAGES.subscriptionEnded;
      return (
        <ReaderMessage tone="info" title={l.item.title}>
          <p className="reader-message__text" role="alert">
            {l.message}
          </p>
          {ended ? (
            <Link className="btn btn--primary btn--lg" to={appPaths.subscribe()}>
              Subscribe
            </Link>
          ) : l.url ? (
            <Link className="btn btn--primary btn--lg" to={l.url}>
              {signIn ? 'Sign in' : 'Go to the title'}
            </Link>
          ) : null}
          <Link className="reader-message__link" to={paths.titlePage(bookId)}>
            Back to the title
          </Link>
        </ReaderMessage>
      );
    }
    case 'failed':
      return <RetryMessage title={l.message} onRetry={retry} />;
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
            zoom={props.pdfZoom.zoom}
            fit={props.pdfZoom.fit}
            onFitZoom={props.pdfZoom.onFitZoom}
            onProgress={props.onPdfProgress}
            onReady={props.onPdfReady}
            onPages={props.onPdfPages}
            initialProgression={() => progressionOf(props.initial()) * 100}
            searchTarget={props.searchTarget}
            onSearchDone={props.onSearchDone}
          />
        </Suspense>
      );
    case 'html': {
      // A fixed-layout page (rendition:layout pre-paginated) shows in its spread, scaled to the screen.
      if (l.item.rendition?.layout === 'pre-paginated')
        return (
          <FixedLayoutView
            key={bookId}
            bookId={bookId}
            userId={props.userId ?? null}
            load={l}
            initial={props.initial}
            readerPath={props.readerPath}
            callbacks={props.callbacks}
            onReady={props.onReady}
            toSource={(page) => chapterSource(bookId, page)}
          />
        );
      // A book that reads as one scroll, in scroll mode: its chapters stacked (docs/decisions.md "`scrolled-continuous` reads as one scroll").
      const onChapterShown = props.onChapterShown;
      if (onChapterShown && stacks(l, props.prefs)) {
        const stack = (scripted: boolean) => (
          <ContinuousView
            key={scripted ? `${bookId} scripted` : bookId}
            bookId={bookId}
            userId={props.userId ?? null}
            load={l}
            prefs={props.prefs}
            initial={props.initial}
            readerPath={props.readerPath}
            callbacks={props.callbacks}
            onReady={props.onReady}
            onChapterShown={onChapterShown}
            scripted={scripted}
          />
        );
        // A title allowed to run scripts: its pages of the scripted origin stacked, once its reader says yes
        // (docs/decisions.md "A scripted book read as one scroll"); until then, or declined, its stored chapters.
        if (l.chapter.allow_scripts)
          return (
            <ScriptsGate bookId={bookId} fallback={stack(false)}>
              {stack(true)}
            </ScriptsGate>
          );
        return stack(false);
      }
      const chapterView = (
        <ChapterView
          // One frame per book (the same sandbox for every title: no scripts, docs/decisions.md "Scripted titles").
          key={bookId}
          switching={props.switching}
          {...chapterSource(bookId, l)}
          next={props.next}
          rendition={l.item.rendition ?? null}
          bookId={bookId}
          prefs={props.prefs}
          initial={props.initial}
          readerPath={props.readerPath}
          callbacks={props.callbacks}
          onReady={props.onReady}
        />
      );
      // A title allowed to run scripts is read on the scripted origin, when the server has one.
      if (l.chapter.allow_scripts)
        return (
          <ScriptedChapterView
            bookId={bookId}
            href={l.item.chapter_href}
            label={l.item.chapter_label || l.chapter.label}
            prefs={props.prefs}
            initial={props.initial}
            readerPath={props.readerPath}
            callbacks={props.callbacks}
            onReady={props.onReady}
            fallback={chapterView}
          />
        );
      return chapterView;
    }
  }
}
