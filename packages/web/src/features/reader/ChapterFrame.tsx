/**
 * A chapter in a sandboxed iframe sized to its content, so the page scrolls as one. The frame has
 * `allow-same-origin` (we measure its height and route its links) but not `allow-scripts`: the book runs no code.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import type { ChapterContent } from '@lectern/core';
import { Spinner } from '../../components/Spinner.tsx';
import { buildChapterDocument } from './chapterDocument.ts';

/** reader.md §2: hash links scroll within the chapter, corrected by 100 px after 50 ms. */
const ANCHOR_OFFSET = 100;
const ANCHOR_DELAY = 50;

function scrollToAnchor(frame: HTMLIFrameElement, hash: string) {
  const doc = frame.contentDocument;
  const id = decodeURIComponent(hash.replace(/^#/, ''));
  if (!doc || !id) return false;
  const target = doc.getElementById(id) ?? doc.getElementsByName(id)[0];
  if (!target) return false;
  const top = frame.getBoundingClientRect().top + target.getBoundingClientRect().top + window.scrollY;
  window.scrollTo({ top: Math.max(0, top - ANCHOR_OFFSET) });
  return true;
}

export function ChapterFrame({ chapter }: { chapter: ChapterContent }) {
  const frameRef = useRef<HTMLIFrameElement>(null);
  const [height, setHeight] = useState<number | null>(null);
  const navigate = useNavigate();
  const srcDoc = useMemo(() => buildChapterDocument(chapter), [chapter]);

  /**
   * The content height. documentElement.scrollHeight never drops below the frame's own height, so once the
   * frame is tall it could never shrink (a wider window); the root element's box, which contains the body
   * (display: flow-root, so floats count), does shrink. Take the larger of that box and the body's overflow.
   */
  const measure = useCallback(() => {
    const doc = frameRef.current?.contentDocument;
    if (!doc?.documentElement || !doc.body) return;
    const root = doc.documentElement.getBoundingClientRect().height;
    const body = doc.body.scrollHeight;
    const next = Math.ceil(Math.max(root, body, 0));
    if (next > 0) setHeight((h) => (h === next ? h : next));
  }, []);

  const onLoad = useCallback(() => {
    const frame = frameRef.current;
    const doc = frame?.contentDocument;
    if (!frame || !doc) return;
    measure();

    // Chapter links become in-app navigation; same-page anchors scroll; anything else is left to the browser.
    doc.addEventListener('click', (event) => {
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      const anchor = (event.target as Element | null)?.closest?.('a[href]');
      if (!anchor) return;
      const raw = anchor.getAttribute('href') ?? '';
      let url: URL;
      try {
        url = new URL(raw, window.location.href);
      } catch {
        return;
      }
      if (url.origin !== window.location.origin) return;
      if (raw.startsWith('#') || (url.pathname === window.location.pathname && url.hash)) {
        event.preventDefault();
        window.history.replaceState(window.history.state, '', url.hash);
        scrollToAnchor(frame, url.hash);
        return;
      }
      if (url.pathname.startsWith('/library/')) {
        event.preventDefault();
        void navigate(url.pathname + url.search + url.hash);
      }
    });

    if (window.location.hash) {
      window.setTimeout(() => scrollToAnchor(frame, window.location.hash), ANCHOR_DELAY);
    }
  }, [measure, navigate]);

  // Re-measure whenever the document's box changes (images arriving, fonts, reflow after a resize).
  useEffect(() => {
    const frame = frameRef.current;
    if (!frame || height === null) return;
    const doc = frame.contentDocument;
    const Observer = (doc?.defaultView as (Window & typeof globalThis) | null)?.ResizeObserver ?? window.ResizeObserver;
    let observer: ResizeObserver | null = null;
    if (doc?.documentElement && Observer) {
      observer = new Observer(() => measure());
      observer.observe(doc.documentElement);
    }
    window.addEventListener('resize', measure);
    return () => {
      observer?.disconnect();
      window.removeEventListener('resize', measure);
    };
  }, [srcDoc, height === null, measure]); // eslint-disable-line react-hooks/exhaustive-deps

  // A new chapter starts unmeasured.
  useEffect(() => setHeight(null), [srcDoc]);

  return (
    <div className="chapter-frame">
      {height === null ? (
        <div className="chapter-frame__loading">
          <Spinner size="lg" label="Loading chapter…" />
        </div>
      ) : null}
      <iframe
        ref={frameRef}
        className="chapter-frame__iframe"
        title={chapter.label}
        sandbox="allow-same-origin allow-top-navigation-by-user-activation"
        srcDoc={srcDoc}
        onLoad={onLoad}
        style={{ height: height === null ? '80vh' : `${height}px`, visibility: height === null ? 'hidden' : 'visible' }}
      />
    </div>
  );
}
