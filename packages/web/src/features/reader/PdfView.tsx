/**
 * PDF documents (content type application/pdf, file at the archive item's `url`) rendered page by page with
 * pdfjs-dist, whose worker is a separate file (Vite `?url`). This module is its own chunk: pdfjs is loaded only
 * when a PDF is opened. Pages are drawn when they come near the view; zoom re-draws them. A document opens fitted
 * to the width (reader.md §9: a page takes 98% of it, followed on resize with the 100 ms debounce) until the reader
 * zooms; "Fit width" and Reset fit it again. The fitted zoom may be under the zoom buttons' minimum: a phone needs
 * about 0.62 for a letter-size page.
 *
 * Each drawn page gets pdf.js's text layer (transparent text over the canvas), so words can be selected and copied
 * and a search hit can be marked (engine/textMarks.ts). The position is counted in pages: `progression` (0-100) is
 * (page - 1 + the part of that page scrolled past) / pages, which holds at any zoom and on any screen; it is
 * reported like a chapter's (the reading session stores it and sends it to the account) and restored on open.
 */
import { READER_CONSTANTS, READER_LIMITS } from '@lectern/core';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import * as pdfjs from 'pdfjs-dist';
import { hitPassage, markAndFind } from './engine/textMarks.ts';
import type { SearchTarget } from './useSearchJump.ts';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { Spinner } from '../../components/Spinner.tsx';
import { TEXT_LAYER_EVENT, TEXT_LAYER_READY } from './annotations/surface.ts';

pdfjs.GlobalWorkerOptions.workerSrc = workerUrl;

type PdfDocument = Awaited<ReturnType<typeof pdfjs.getDocument>['promise']>;

export interface PdfViewProps {
  fileUrl: string;
  label: string;
  /** The zoom the reader chose (used when not fitted). */
  zoom: number;
  /** Fitted to the width: the zoom follows the width of the view. */
  fit: boolean;
  /** The fitted zoom, for the settings panel to show and to step from. */
  onFitZoom: (zoom: number) => void;
  onProgress: (percentage: number) => void;
  onReady?: () => void;
  /** The element holding the pages (null once gone): highlights and notes are made and drawn on its text layers. */
  onPages?: (el: HTMLElement | null) => void;
  /** Where to open (0-100 in pages, see above), read once the document is in. */
  initialProgression?: () => number;
  /** A search hit to show: its page opened and its words marked. */
  searchTarget?: SearchTarget | null;
  onSearchDone?: () => void;
}

/** The page in view and how far into it, as a progression of the whole document (0-100). */
function progressionOf(el: HTMLElement): number {
  const pages = el.querySelectorAll<HTMLElement>('.reader-pdf__page');
  if (!pages.length) return 0;
  if (el.scrollTop + el.clientHeight >= el.scrollHeight - 1 && el.scrollTop > 0) return 100;
  const top = el.scrollTop;
  let i = 0;
  while (i < pages.length - 1 && pages[i + 1]!.offsetTop <= top) i++;
  const page = pages[i]!;
  const within = Math.min(1, Math.max(0, (top - page.offsetTop) / Math.max(1, page.offsetHeight)));
  return Math.min(100, ((i + within) / pages.length) * 100);
}

/** Scrolls so that `progression` (0-100 in pages) is at the top of the view. */
function scrollToProgression(el: HTMLElement, progression: number) {
  const pages = el.querySelectorAll<HTMLElement>('.reader-pdf__page');
  if (!pages.length) return;
  const at = (Math.min(100, Math.max(0, progression)) / 100) * pages.length;
  const i = Math.min(pages.length - 1, Math.floor(at));
  const page = pages[i]!;
  // The gap above the first page stays when the position is the document's top.
  el.scrollTop = at <= 0 ? 0 : page.offsetTop + (at - i) * page.offsetHeight;
}

export function PdfView(props: PdfViewProps) {
  const { fileUrl, label, zoom: chosenZoom, fit, onFitZoom, onProgress, onReady, onPages, initialProgression, searchTarget, onSearchDone } = props;
  const [doc, setDoc] = useState<PdfDocument | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [baseWidth, setBaseWidth] = useState<number>(612);
  const [baseRatio, setBaseRatio] = useState<number>(1.294);
  const containerRef = useRef<HTMLDivElement>(null);
  /** The position last reported (kept across zooms: the same place after a re-draw at another size). */
  const progression = useRef(0);
  const positioned = useRef(false);

  useEffect(() => {
    let cancelled = false;
    const task = pdfjs.getDocument({ url: fileUrl, withCredentials: true, isEvalSupported: false });
    task.promise.then(
      async (d) => {
        if (cancelled) return;
        const first = await d.getPage(1);
        const v = first.getViewport({ scale: 1 });
        setBaseWidth(v.width);
        setBaseRatio(v.height / v.width);
        setDoc(d);
        onReady?.();
      },
      (e: unknown) => {
        if (!cancelled) setError(e instanceof Error ? e.message : 'This document could not be opened.');
      },
    );
    return () => {
      cancelled = true;
      void task.destroy();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [fileUrl]);

  // The width of the view: measured at once, then followed (debounced) as the window or a scroll bar changes it.
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const el = containerRef.current;
    if (!el) return;
    setWidth(el.clientWidth);
    let timer = 0;
    const observer = new ResizeObserver(() => {
      window.clearTimeout(timer);
      timer = window.setTimeout(() => setWidth(el.clientWidth), READER_CONSTANTS.zoomFitDebounceMs);
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      window.clearTimeout(timer);
    };
  }, []);
  const fitZoom = width > 0 ? Math.min(READER_LIMITS.zoom.max, (width * READER_CONSTANTS.zoomFitFraction) / baseWidth) : null;
  useEffect(() => {
    if (fit && fitZoom !== null) onFitZoom(fitZoom);
  }, [fit, fitZoom, onFitZoom]);

  useEffect(() => {
    if (!doc) return;
    onPages?.(containerRef.current);
    return () => onPages?.(null);
  }, [doc, onPages]);

  // Scroll events of our own positioning are not the reader moving.
  const restoring = useRef(false);
  const onScroll = () => {
    const el = containerRef.current;
    if (!el || !positioned.current || restoring.current) return;
    progression.current = progressionOf(el);
    onProgress(progression.current);
  };

  const zoom = fit && fitZoom !== null ? fitZoom : Math.min(READER_LIMITS.zoom.max, Math.max(READER_LIMITS.zoom.min, chosenZoom));
  const ready = !!doc && width > 0;

  // Opening: the search hit's page, else where the reader left (or the start). A new zoom keeps the same place.
  useLayoutEffect(() => {
    const el = containerRef.current;
    if (!el || !ready) return;
    if (!positioned.current) {
      positioned.current = true;
      if (searchTarget?.page) return; // the hit's page (below)
      progression.current = initialProgression?.() ?? 0;
    }
    restoring.current = true;
    scrollToProgression(el, progression.current);
    // The scroll event of that comes in the next frame at the latest.
    requestAnimationFrame(() => requestAnimationFrame(() => (restoring.current = false)));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ready, zoom]);

  // A search hit: to its page; the page marks the words once its text layer is in.
  const [marking, setMarking] = useState<SearchTarget | null>(null);
  useLayoutEffect(() => {
    const el = containerRef.current;
    if (!el || !ready || !searchTarget) return;
    if (!searchTarget.page || !doc || searchTarget.page > doc.numPages) {
      onSearchDone?.();
      return;
    }
    const page = el.querySelectorAll<HTMLElement>('.reader-pdf__page')[searchTarget.page - 1];
    if (page) el.scrollTop = page.offsetTop;
    setMarking(searchTarget);
    onSearchDone?.();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ready, searchTarget]);

  if (error) return <p className="reader-message" role="alert">{error}</p>;
  return (
    <div className="reader-pdf" ref={containerRef} onScroll={onScroll} tabIndex={0} role="document" aria-label={label}>
      {!doc ? (
        <div className="chapter-view__loading">
          <Spinner size="lg" label="Loading document…" />
        </div>
      ) : (
        Array.from({ length: doc.numPages }, (_, i) => (
          <PdfPage
            key={i}
            doc={doc}
            number={i + 1}
            zoom={zoom}
            baseWidth={baseWidth}
            baseRatio={baseRatio}
            root={containerRef}
            marking={marking?.page === i + 1 ? marking : null}
          />
        ))
      )}
    </div>
  );
}

interface PdfPageProps {
  doc: PdfDocument;
  number: number;
  zoom: number;
  baseWidth: number;
  /** the first page's height over its width: the size of a page not drawn yet */
  baseRatio: number;
  root: React.RefObject<HTMLDivElement | null>;
  /** a search hit on this page: its words marked in the text layer, the passage brought into view */
  marking: SearchTarget | null;
}

function PdfPage({ doc, number, zoom, baseWidth, baseRatio, root, marking }: PdfPageProps) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const wrapRef = useRef<HTMLDivElement>(null);
  const textRef = useRef<HTMLDivElement>(null);
  const [visible, setVisible] = useState(number <= 2);
  const [size, setSize] = useState<{ w: number; h: number }>({ w: baseWidth * zoom, h: baseWidth * zoom * baseRatio });
  // Bumped each time the text layer has been (re)built: marks are put in after it.
  const [textLayerBuilt, setTextLayerBuilt] = useState(0);
  const markedFor = useRef<SearchTarget | null>(null);

  // A page not drawn yet follows the zoom with its estimated size (the document's length stays right for positions).
  useEffect(() => {
    if (!visible) setSize({ w: baseWidth * zoom, h: baseWidth * zoom * baseRatio });
  }, [visible, zoom, baseWidth, baseRatio]);
  // A hit's page is drawn at once, wherever it is.
  useEffect(() => {
    if (marking) setVisible(true);
  }, [marking]);

  useEffect(() => {
    const el = wrapRef.current;
    if (!el || visible) return;
    const io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && setVisible(true), { root: root.current, rootMargin: '600px 0px' });
    io.observe(el);
    return () => io.disconnect();
  }, [visible, root]);

  useEffect(() => {
    if (!visible) return;
    let cancelled = false;
    let renderTask: { cancel(): void; promise: Promise<void> } | null = null;
    let textLayer: pdfjs.TextLayer | null = null;
    void doc.getPage(number).then((page) => {
      if (cancelled) return;
      const viewport = page.getViewport({ scale: zoom });
      const dpr = Math.min(window.devicePixelRatio || 1, 2);
      const canvas = canvasRef.current;
      if (!canvas) return;
      canvas.width = Math.floor(viewport.width * dpr);
      canvas.height = Math.floor(viewport.height * dpr);
      setSize({ w: viewport.width, h: viewport.height });
      const ctx = canvas.getContext('2d');
      if (!ctx) return;
      renderTask = page.render({ canvasContext: ctx, viewport, transform: dpr !== 1 ? [dpr, 0, 0, dpr, 0, 0] : undefined });
      renderTask.promise.catch(() => undefined);
      // The text layer: pdf.js lays the page's text out in spans at the glyphs' places (sized by --scale-factor).
      const container = textRef.current;
      if (!container) return;
      container.replaceChildren();
      container.removeAttribute(TEXT_LAYER_READY);
      textLayer = new pdfjs.TextLayer({ textContentSource: page.streamTextContent(), container, viewport });
      textLayer.render().then(
        () => {
          if (cancelled) return;
          setTextLayerBuilt((n) => n + 1);
          // The page's text is in place: its highlights are drawn (again, after a zoom) on it.
          container.setAttribute(TEXT_LAYER_READY, '');
          container.dispatchEvent(new CustomEvent(TEXT_LAYER_EVENT, { bubbles: true }));
        },
        () => undefined,
      );
    });
    return () => {
      cancelled = true;
      renderTask?.cancel();
      textLayer?.cancel();
    };
  }, [doc, number, zoom, visible]);

  // The hit's words marked in the text layer, and the passage (or the first word) brought into view.
  useEffect(() => {
    const container = textRef.current;
    const scroller = root.current;
    if (!marking || !textLayerBuilt || !container || !scroller) return;
    const { phrases, extent } = hitPassage(marking.hit);
    const { range } = markAndFind(container, phrases, marking.words, extent);
    const first = range ? (range.startContainer.parentElement ?? null) : null;
    if (markedFor.current !== marking && first) {
      const box = first.getBoundingClientRect();
      const view = scroller.getBoundingClientRect();
      scroller.scrollTop += box.top - view.top - scroller.clientHeight / 3;
    }
    markedFor.current = marking;
  }, [marking, textLayerBuilt, root]);

  return (
    <div
      ref={wrapRef}
      className="reader-pdf__page"
      data-page={number}
      style={{ width: size.w, height: size.h, '--scale-factor': String(zoom) } as React.CSSProperties}
    >
      <canvas ref={canvasRef} style={{ width: size.w, height: size.h }} aria-label={`Page ${number}`} role="img" />
      <div ref={textRef} className="textLayer reader-pdf__text" />
    </div>
  );
}

export default PdfView;
