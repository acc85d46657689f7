/**
 * The chapters of a book in one iframe (DESIGN.md "Reader engine"). The frame is created once per book and each
 * chapter's document is written into it (`document.open/write/close`): no navigation per chapter, so a new chapter
 * is parsed in the same task that receives it instead of waiting for a frame navigation round trip through the
 * browser. The settings change in place through the FrameController (one style element, classes on the root), so
 * a font-size change never rewrites the chapter. The frame is sandboxed: `allow-same-origin` lets the app write,
 * lay out and route its links; scripts run only for titles that allow them (and the chapter's own CSP `<meta>`
 * forbids them otherwise).
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { ReaderPreferences } from '@lectern/core';
import { Spinner } from '../../components/Spinner.tsx';
import { brightnessFilter } from './SettingsPanel.tsx';
import { buildChapterDocument } from './engine/chapterDocument.ts';
import { FrameController, type FrameCallbacks } from './engine/frameController.ts';
import type { InitialPosition } from './engine/position.ts';

export interface ChapterViewProps {
  html: string;
  label: string;
  stylesheets: readonly string[];
  baseHref: string;
  allowScripts: boolean;
  href: string;
  bookId: string;
  prefs: ReaderPreferences;
  /** Another chapter is on its way: the one shown stays until it is ready (a spinner shows if it takes long). */
  switching: boolean;
  initial: () => InitialPosition;
  readerPath: (fullPath: string) => string;
  callbacks: FrameCallbacks;
  onReady: (controller: FrameController | null) => void;
}

/** A chapter on its way is only worth a spinner when it takes longer than this (most take a few frames). */
const SPINNER_DELAY_MS = 400;

/** `flag`, but turning true only once it has stayed true for `delayMs` (no DOM change at all for short waits). */
function useDelayedFlag(flag: boolean, delayMs: number): boolean {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    if (!flag) {
      setShown(false);
      return;
    }
    const timer = window.setTimeout(() => setShown(true), delayMs);
    return () => window.clearTimeout(timer);
  }, [flag, delayMs]);
  return flag && shown;
}

/** A stylesheet that never answers does not keep the chapter hidden longer than this. */
const STYLESHEET_WAIT_MS = 3000;

/** Resolves once every stylesheet of the document has loaded or failed (they block a correct first layout). */
function stylesheetsSettled(doc: Document, win: Window): Promise<void> {
  const pending = Array.from(doc.querySelectorAll<HTMLLinkElement>('link[rel~="stylesheet"]')).filter((l) => !l.sheet);
  if (pending.length === 0) return Promise.resolve();
  return new Promise((resolve) => {
    let left = pending.length;
    const timer = win.setTimeout(resolve, STYLESHEET_WAIT_MS);
    const one = () => {
      left -= 1;
      if (left === 0) {
        win.clearTimeout(timer);
        resolve();
      }
    };
    for (const link of pending) {
      link.addEventListener('load', one, { once: true });
      link.addEventListener('error', one, { once: true });
    }
  });
}

export function ChapterView(props: ChapterViewProps) {
  const frameRef = useRef<HTMLIFrameElement>(null);
  const controllerRef = useRef<FrameController | null>(null);
  const [ready, setReady] = useState(false);
  const spinner = useDelayedFlag(!ready || props.switching, SPINNER_DELAY_MS);
  // The latest props for the asynchronous steps, without rewriting the document when they change.
  const latest = useRef(props);
  latest.current = props;

  // A new chapter: write its document into the frame now (in the commit that brought it), then position it once
  // its stylesheets are in, and only then show it.
  useLayoutEffect(() => {
    const frame = frameRef.current;
    const doc = frame?.contentDocument;
    const win = frame?.contentWindow;
    if (!frame || !doc || !win) return;
    const p = latest.current;
    performance.mark('reader:document-built');
    const html = buildChapterDocument({
      html: p.html,
      label: p.label,
      stylesheets: p.stylesheets,
      baseHref: p.baseHref,
      allowScripts: p.allowScripts,
      prefs: p.prefs,
      layout: { pagination: p.prefs.pagination, pageWidth: frame.clientWidth || window.innerWidth },
    });
    controllerRef.current?.destroy();
    controllerRef.current = null;
    setReady(false);
    doc.open();
    doc.write(html);
    doc.close();
    performance.mark('reader:document-written');
    let cancelled = false;
    void stylesheetsSettled(doc, win).then(() => {
      if (cancelled || !doc.body) return;
      performance.mark('reader:frame-loaded');
      const now = latest.current;
      // Callbacks go through `latest` so the controller always calls the current handlers.
      const callbacks: FrameCallbacks = {
        onProgress: (pct, loc) => latest.current.callbacks.onProgress(pct, loc),
        onEdge: (dir) => latest.current.callbacks.onEdge(dir),
        onNavigate: (path) => latest.current.callbacks.onNavigate(path),
        onImage: (src, alt) => latest.current.callbacks.onImage(src, alt),
        onKey: (e) => latest.current.callbacks.onKey?.(e),
        onPages: (i, c) => latest.current.callbacks.onPages?.(i, c),
      };
      const controller = new FrameController(frame, now.prefs, now.href, now.bookId, now.readerPath, callbacks);
      controllerRef.current = controller;
      controller.goToInitial(now.initial());
      performance.mark('reader:positioned');
      // Shown once positioned, so the reader never sees the chapter jump from its top to where they were:
      // goToInitial positions synchronously, so the next frame already paints the right place. Shown here rather
      // than by the render that `ready` brings, which would come before that frame and delay it.
      frame.style.visibility = 'visible';
      now.onReady(controller);
      win.requestAnimationFrame(() => {
        if (!cancelled) setReady(true);
      });
    });
    return () => {
      cancelled = true;
    };
  }, [props.html, props.baseHref, props.allowScripts, props.stylesheets, props.label, props.href]);

  // Settings change in place.
  useEffect(() => {
    controllerRef.current?.applyPrefs(props.prefs);
  }, [props.prefs]);

  useEffect(
    () => () => {
      controllerRef.current?.destroy();
      controllerRef.current = null;
      latest.current.onReady(null);
    },
    [],
  );

  return (
    <div className={`chapter-view chapter-view--${props.prefs.pagination}`}>
      {spinner ? (
        <div className="chapter-view__loading chapter-view__loading--over">
          <Spinner size="lg" label="Loading chapter…" />
        </div>
      ) : null}
      <iframe
        ref={frameRef}
        className="chapter-frame__iframe chapter-view__frame"
        title={props.label || 'Chapter'}
        sandbox={props.allowScripts ? 'allow-same-origin allow-scripts' : 'allow-same-origin'}
        style={{
          visibility: ready ? 'visible' : 'hidden',
          filter: brightnessFilter(props.prefs.brightness),
        }}
      />
    </div>
  );
}
