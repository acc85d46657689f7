/**
 * A chapter in its own iframe (DESIGN.md "Reader engine"). The frame is built once per chapter as `srcdoc`; the
 * settings change in place through the FrameController (one style element, classes on the root), so a font-size
 * change never reloads the chapter. The frame is sandboxed: `allow-same-origin` lets the app lay it out and route
 * its links; scripts run only for titles that allow them.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
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
  initial: () => InitialPosition;
  readerPath: (fullPath: string) => string;
  callbacks: FrameCallbacks;
  onReady: (controller: FrameController | null) => void;
}

export function ChapterView(props: ChapterViewProps) {
  const frameRef = useRef<HTMLIFrameElement>(null);
  const controllerRef = useRef<FrameController | null>(null);
  const [ready, setReady] = useState(false);
  // The latest props for the load handler, without rebuilding the document when they change.
  const latest = useRef(props);
  latest.current = props;

  const srcDoc = useMemo(
    () => {
      performance.mark('reader:document-built');
      return buildChapterDocument({
        html: props.html,
        label: props.label,
        stylesheets: props.stylesheets,
        baseHref: props.baseHref,
        allowScripts: props.allowScripts,
        prefs: latest.current.prefs,
        layout: { pagination: latest.current.prefs.pagination, pageWidth: frameRef.current?.clientWidth ?? window.innerWidth },
      });
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [props.html, props.baseHref, props.allowScripts, props.stylesheets, props.label],
  );

  useEffect(() => {
    setReady(false);
  }, [srcDoc]);

  const onLoad = () => {
    performance.mark('reader:frame-loaded');
    const frame = frameRef.current;
    if (!frame?.contentDocument?.body) return;
    controllerRef.current?.destroy();
    const p = latest.current;
    // Callbacks go through `latest` so the controller always calls the current handlers.
    const callbacks: FrameCallbacks = {
      onProgress: (pct, loc) => latest.current.callbacks.onProgress(pct, loc),
      onEdge: (dir) => latest.current.callbacks.onEdge(dir),
      onNavigate: (path) => latest.current.callbacks.onNavigate(path),
      onImage: (src, alt) => latest.current.callbacks.onImage(src, alt),
      onKey: (e) => latest.current.callbacks.onKey?.(e),
      onPages: (i, c) => latest.current.callbacks.onPages?.(i, c),
    };
    const controller = new FrameController(frame, p.prefs, p.href, p.bookId, p.readerPath, callbacks);
    controllerRef.current = controller;
    controller.goToInitial(p.initial());
    performance.mark('reader:positioned');
    // Shown once positioned, so the reader never sees the chapter jump from its top to where they were:
    // goToInitial positions synchronously, so the next frame already paints the right place.
    setReady(true);
    p.onReady(controller);
  };

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
      {!ready ? (
        <div className="chapter-view__loading">
          <Spinner size="lg" label="Loading chapter…" />
        </div>
      ) : null}
      <iframe
        ref={frameRef}
        className="chapter-frame__iframe chapter-view__frame"
        title={props.label || 'Chapter'}
        sandbox={props.allowScripts ? 'allow-same-origin allow-scripts' : 'allow-same-origin'}
        srcDoc={srcDoc}
        onLoad={onLoad}
        style={{
          visibility: ready ? 'visible' : 'hidden',
          filter: brightnessFilter(props.prefs.brightness),
        }}
      />
    </div>
  );
}
