/**
 * PDF documents (content type application/pdf, file at the archive item's `url`) rendered page by page with
 * pdfjs-dist, whose worker is a separate file (Vite `?url`). This module is its own chunk: pdfjs is loaded only
 * when a PDF is opened. Pages are drawn when they come near the view; zoom re-draws them. A document opens fitted
 * to the width (reader.md §9: a page takes 98% of it, followed on resize with the 100 ms debounce) until the reader
 * zooms; "Fit width" and Reset fit it again. The fitted zoom may be under the zoom buttons' minimum: a phone needs
 * about 0.62 for a letter-size page.
 */
import { READER_CONSTANTS, READER_LIMITS } from '@lectern/core';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import * as pdfjs from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { Spinner } from '../../components/Spinner.tsx';

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
}

export function PdfView({ fileUrl, label, zoom: chosenZoom, fit, onFitZoom, onProgress, onReady }: PdfViewProps) {
  const [doc, setDoc] = useState<PdfDocument | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [baseWidth, setBaseWidth] = useState<number>(612);
  const containerRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let cancelled = false;
    const task = pdfjs.getDocument({ url: fileUrl, withCredentials: true, isEvalSupported: false });
    task.promise.then(
      async (d) => {
        if (cancelled) return;
        const first = await d.getPage(1);
        setBaseWidth(first.getViewport({ scale: 1 }).width);
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

  const onScroll = () => {
    const el = containerRef.current;
    if (!el) return;
    const range = el.scrollHeight - el.clientHeight;
    onProgress(range <= 1 ? 100 : Math.min(100, Math.max(0, (el.scrollTop / range) * 100)));
  };

  if (error) return <p className="reader-message" role="alert">{error}</p>;
  const zoom = fit && fitZoom !== null ? fitZoom : Math.min(READER_LIMITS.zoom.max, Math.max(READER_LIMITS.zoom.min, chosenZoom));
  return (
    <div className="reader-pdf" ref={containerRef} onScroll={onScroll} tabIndex={0} role="document" aria-label={label}>
      {!doc ? (
        <div className="chapter-view__loading">
          <Spinner size="lg" label="Loading document…" />
        </div>
      ) : (
        Array.from({ length: doc.numPages }, (_, i) => <PdfPage key={i} doc={doc} number={i + 1} zoom={zoom} baseWidth={baseWidth} root={containerRef} />)
      )}
    </div>
  );
}

function PdfPage({ doc, number, zoom, baseWidth, root }: { doc: PdfDocument; number: number; zoom: number; baseWidth: number; root: React.RefObject<HTMLDivElement | null> }) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const wrapRef = useRef<HTMLDivElement>(null);
  const [visible, setVisible] = useState(number <= 2);
  const [size, setSize] = useState<{ w: number; h: number }>({ w: baseWidth * zoom, h: baseWidth * zoom * 1.294 });

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
    });
    return () => {
      cancelled = true;
      renderTask?.cancel();
    };
  }, [doc, number, zoom, visible]);

  return (
    <div ref={wrapRef} className="reader-pdf__page" style={{ width: size.w, height: size.h }}>
      <canvas ref={canvasRef} style={{ width: size.w, height: size.h }} aria-label={`Page ${number}`} role="img" />
    </div>
  );
}

export default PdfView;
