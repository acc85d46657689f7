/**
 * A chapter of a title allowed to run scripts (docs/decisions.md "Scripted titles"): its page comes from the
 * scripted origin, a host of its own, so the book's scripts never run on the app's origin. The reader cannot reach
 * into that frame (it is another origin): the page's reading-system script reports where the reader scrolled and
 * which links were followed, and takes the reader's colours, size and the place to start, all by postMessage, each
 * side checking the other's origin. Scrolled, not paged; highlights and in-book search jumps are not drawn there.
 * Without a scripted origin (the server answers 404) the chapter shows as every other, its scripts not run.
 * Nothing runs before the reader is asked (docs/decisions.md "Scripted publications"): once per title, the answer kept
 * on the account; declined (or the dialog dismissed), the chapter shows as every other title's.
 */
import { PALETTES } from './engine/chapterDocument.ts';
import { scriptedFrameMessageSchema, type ReaderPreferences, type ScriptedReaderMessage } from '@lectern/core';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { isApiError } from '../../api/client.ts';
import { readerApi } from '../../api/reader.ts';
import { Spinner } from '../../components/Spinner.tsx';
import type { FrameCallbacks, FrameController } from './engine/frameController.ts';
import { progressionOf, type InitialPosition } from '../../shared/reading/position.ts';
import { Centered, RetryMessage } from './ReaderMessage.tsx';
import { ScriptsConsentDialog } from './ScriptsConsentDialog.tsx';
import { useScriptsConsent } from './useScriptsConsent.ts';

export interface ScriptedChapterViewProps {
  bookId: string;
  href: string;
  label: string;
  prefs: ReaderPreferences;
  initial: () => InitialPosition;
  readerPath: (fullPath: string) => string;
  callbacks: FrameCallbacks;
  onReady: (controller: FrameController | null) => void;
  /** what shows when the server runs no book scripts */
  fallback: ReactNode;
}

/** The reader's colours and size, as a scripted page takes them. */
export function lookMessage(prefs: ReaderPreferences): ScriptedReaderMessage {
  const palette = PALETTES[prefs.reading_mode] ?? PALETTES['day-mode'];
  return { lectern: 'look', background: palette.bg, color: palette.text, fontScale: prefs.font_size };
}

type FrameState = { kind: 'loading' } | { kind: 'frame'; url: string; origin: string } | { kind: 'fallback' } | { kind: 'failed'; message: string };

/**
 * Nothing of a scripted title runs before its reader says so (docs/decisions.md "Scripted publications"): the answer
 * asked for once, kept on the account. `children` (what runs the scripts) only once allowed; `fallback` (the stored
 * chapter, scripts never run) when declined, when the server runs no scripts, and under the dialog while asking.
 */
export function ScriptsGate(props: { bookId: string; fallback: ReactNode; children: ReactNode }) {
  const consent = useScriptsConsent(props.bookId);
  /** the dialog closed without an answer: read without scripts, and ask again next time */
  const [dismissed, setDismissed] = useState(false);
  // an answer given (then perhaps withdrawn in the settings) asks again: the dialog comes back
  useEffect(() => {
    if (consent.decision) setDismissed(false);
  }, [consent.decision]);
  if (consent.loading)
    return (
      <Centered>
        <Spinner size="lg" label="Loading chapter…" />
      </Centered>
    );
  if (consent.failed) return <RetryMessage title="We could not load this chapter." onRetry={consent.retry} />;
  if (consent.unavailable || consent.decision === 'declined') return <>{props.fallback}</>;
  if (consent.decision === null || consent.decision === undefined)
    return (
      <>
        {props.fallback}
        <ScriptsConsentDialog
          open={!dismissed}
          busy={consent.answer.isPending}
          error={consent.answer.isError ? consent.answer.error.message : null}
          onAnswer={(allow) => consent.answer.mutate(allow)}
          onDismiss={() => setDismissed(true)}
        />
      </>
    );
  return <>{props.children}</>;
}

export function ScriptedChapterView(props: ScriptedChapterViewProps) {
  return (
    <ScriptsGate bookId={props.bookId} fallback={props.fallback}>
      <ScriptedFrameView {...props} />
    </ScriptsGate>
  );
}

/** The chapter's page on the scripted origin, once the reader allowed its scripts. */
function ScriptedFrameView(props: ScriptedChapterViewProps) {
  const { bookId, href } = props;
  const [state, setState] = useState<FrameState>({ kind: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const frameRef = useRef<HTMLIFrameElement>(null);
  const latest = useRef(props);
  latest.current = props;

  useEffect(() => {
    const abort = new AbortController();
    setState({ kind: 'loading' });
    readerApi
      .getScriptedFrame(bookId, href, abort.signal)
      .then((frame) => setState({ kind: 'frame', url: frame.url, origin: frame.origin }))
      .catch((err: unknown) => {
        if (abort.signal.aborted) return;
        if (isApiError(err) && err.status === 404) setState({ kind: 'fallback' });
        else setState({ kind: 'failed', message: err instanceof Error ? err.message : String(err) });
      });
    return () => abort.abort();
  }, [bookId, href, attempt]);

  const origin = state.kind === 'frame' ? state.origin : null;
  const send = (message: ScriptedReaderMessage) => {
    if (origin) frameRef.current?.contentWindow?.postMessage(message, origin);
  };
  const sendLook = () => send(lookMessage(latest.current.prefs));

  useEffect(() => {
    if (!origin) return;
    let started = false;
    const onMessage = (event: MessageEvent) => {
      if (event.origin !== origin || event.source !== frameRef.current?.contentWindow) return;
      const parsed = scriptedFrameMessageSchema.safeParse(event.data);
      if (!parsed.success) return;
      const m = parsed.data;
      const { callbacks, readerPath } = latest.current;
      if (m.lectern === 'ready') {
        sendLook();
        if (!started) {
          started = true;
          send({ lectern: 'goto', progression: progressionOf(latest.current.initial()) });
          latest.current.onReady(null);
        }
      } else if (m.lectern === 'progress') {
        const percentage = Math.round(m.progression * 1000) / 10;
        callbacks.onProgress(percentage, { href, progression: percentage / 100 });
      } else if (m.lectern === 'navigate') {
        callbacks.onNavigate(readerPath(m.path) + (m.fragment ? `#${encodeURIComponent(m.fragment)}` : ''));
      } else if (m.lectern === 'external') {
        if (callbacks.onExternalLink) callbacks.onExternalLink(m.url);
      }
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
    // send/sendLook read the latest props through the ref
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [origin, href]);

  // The reader's colours and size follow its settings while the chapter is open.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  useEffect(sendLook, [props.prefs.reading_mode, props.prefs.font_size, origin]);

  switch (state.kind) {
    case 'loading':
      return (
        <Centered>
          <Spinner size="lg" label="Loading chapter…" />
        </Centered>
      );
    case 'fallback':
      return <>{props.fallback}</>;
    case 'failed':
      return <RetryMessage title={state.message} onRetry={() => setAttempt((n) => n + 1)} />;
    case 'frame':
      return (
        <div className="scripted-chapter">
          <iframe
            ref={frameRef}
            key={state.url}
            className="scripted-chapter__frame"
            src={state.url}
            title={props.label}
            // Its own origin, not the app's: same-origin there means the book's own storage, never the reader's.
            sandbox="allow-scripts allow-same-origin"
            referrerPolicy="no-referrer"
          />
        </div>
      );
  }
}
