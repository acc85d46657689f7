/**
 * The fixed-layout view (EPUB 3.3 rendition:layout pre-paginated; docs/decisions.md "Fixed layout"): one page per
 * spine item, each in its own sandboxed frame the size of the page's viewport, scaled from outside to fit the stage
 * ("contain") and centred, or, for a page whose viewport is the device's (device-width / device-height), the size of
 * the stage itself (its half in a spread), unscaled, re-laid out whenever the stage changes size; two pages side by
 * side (a synthetic spread) when the stage is wide enough and the book's rendition:spread allows it, each on its
 * page-spread side, the first on the right in a right-to-left book (engine/fixedLayout.ts decides). Keys, taps and
 * swipes move by spreads; zoom (the buttons, or a pinch on a touch screen) enlarges the spread and the stage scrolls
 * to pan it.
 *
 * The position is the spine item in the address (a Locator's href): the view shows the spread that holds it, and a
 * turn goes to the first page of the next or previous spread. Book pages are written into their frames exactly as
 * chapters are (ChapterView.tsx): same sandbox (no scripts, whatever the title's flags), same CSP, never the app's DOM.
 */
import type { ReaderPreferences } from '@lectern/core';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type RefObject } from 'react';
import { useQuery } from '@tanstack/react-query';
import { readerApi } from '../../api/reader.ts';
import { stylesheetsSettled, type ChapterSource } from './ChapterView.tsx';
import { CHAPTER_FRAME_SANDBOX } from './engine/chapterDocument.ts';
import {
  buildFixedPageDocument,
  layoutSpread,
  spineOf,
  spreadHref,
  spreadIndexOf,
  spreadsOf,
  turnSpread,
  viewportOf,
  ZOOM_LIMITS,
  zoomBarCovers,
  type PageBox,
  type SpineEntry,
  type Stage,
} from './engine/fixedLayout.ts';
import { FrameController, type FixedPageOptions, type FrameCallbacks } from './engine/frameController.ts';
import { tapZone, type Turn } from './engine/paging.ts';
import type { InitialPosition } from '../../shared/reading/position.ts';
import { useReaderChapter, type ChapterLoad } from './useReaderChapter.ts';
import { readerKeys } from '../../shared/reading/readerKeys.ts';
import { ReaderIcon } from '../../shared/reading/ReaderIcon.tsx';
import './FixedLayoutView.css';

export interface FixedLayoutViewProps {
  bookId: string;
  userId: string | null;
  /** The page in the address (decrypted): its spread is shown. */
  load: Extract<ChapterLoad, { kind: 'html' }>;
  initial: () => InitialPosition;
  readerPath: (fullPath: string) => string;
  callbacks: FrameCallbacks;
  onReady: (controller: FrameController | null) => void;
  /** What a page's frame is given to show a decrypted page (ChapterBody's chapterSource). */
  toSource: (load: Extract<ChapterLoad, { kind: 'html' }>) => ChapterSource;
}

const clampZoom = (z: number) => Math.min(ZOOM_LIMITS.max, Math.max(ZOOM_LIMITS.min, Math.round(z * 100) / 100));

export function FixedLayoutView(props: FixedLayoutViewProps) {
  const { bookId, userId, load } = props;
  const href = load.item.chapter_href;
  const rtl = load.item.page_progression === 'rtl';
  // The spine with each page's rendition (the contents response; the same cache entry as the contents panel).
  const toc = useQuery({ queryKey: readerKeys.toc(bookId, ''), queryFn: ({ signal }) => readerApi.getToc(bookId, null, signal), staleTime: 10 * 60_000 });
  const spine: SpineEntry[] = useMemo(() => {
    const known = toc.data ? spineOf(toc.data) : [];
    return known.some((e) => e.href === href) ? known : [{ href, rendition: load.item.rendition ?? null }];
  }, [toc.data, href, load.item.rendition]);

  const stageRef = useRef<HTMLDivElement>(null);
  const [stage, setStage] = useState<Stage | null>(null);
  useLayoutEffect(() => {
    const el = stageRef.current;
    if (!el) return;
    const measure = () => setStage((s) => (s && s.width === el.clientWidth && s.height === el.clientHeight ? s : { width: el.clientWidth, height: el.clientHeight }));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  // The whole view (the stage and, when the zoom buttons would cover a page of the book there, their strip under
  // it): whether they get the strip is decided on the whole view, so the stage shrinking for it never decides it again.
  const viewRef = useRef<HTMLDivElement>(null);
  const [area, setArea] = useState<Stage | null>(null);
  useLayoutEffect(() => {
    const el = viewRef.current;
    if (!el) return;
    const measure = () => setArea((s) => (s && s.width === el.clientWidth && s.height === el.clientHeight ? s : { width: el.clientWidth, height: el.clientHeight }));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  const zoomStrip = useMemo(() => (area ? zoomBarCovers(spine, area, rtl) : false), [area, spine, rtl]);

  const spreads = useMemo(() => (stage ? spreadsOf(spine, stage, rtl) : []), [spine, stage, rtl]);
  const index = spreadIndexOf(spreads, href);
  const spread = spreads[index];
  const partnerHref = spread?.pages.find((p) => p.href !== href)?.href ?? null;
  const partner = useReaderChapter(bookId, partnerHref ?? '', userId, partnerHref !== null).data;
  const partnerLoad = partner?.kind === 'html' && partner.item.chapter_href === partnerHref ? partner : null;

  const [zoom, setZoom] = useState(1);
  const spreadKey = spread?.pages.map((p) => p.href).join('|') ?? href;
  useEffect(() => setZoom(1), [spreadKey]);
  const layout = useMemo(() => (spread && stage ? layoutSpread(spread, (h) => viewportOf(spine, h), stage, zoom) : null), [spread, stage, spine, zoom]);

  // The latest state for the frames' handlers, which stay the same functions.
  const latest = useRef({ spreads, index, layout, zoom, stage, rtl, props });
  latest.current = { spreads, index, layout, zoom, stage, rtl, props };

  // The footer's count follows the spine: a page opened by its address (or a reload) is laid out before the contents
  // answer arrives, as a spine of one — "Page 1 of 1" stayed until the next turn.
  const spreadCount = Math.max(1, spreads.length);
  useEffect(() => {
    if (spreads.length > 0) latest.current.props.callbacks.onPages?.(index, spreadCount);
  }, [index, spreadCount, spreads.length]);

  const go = useCallback((direction: Turn) => {
    const { spreads, index, props } = latest.current;
    const target = turnSpread(spreads, index, direction);
    if (target) props.callbacks.onNavigate(props.readerPath(spreadHref(target)));
    else props.callbacks.onEdge(direction);
  }, []);

  const fixedOptions = useCallback(
    (pageHref: string): FixedPageOptions => ({
      tapTurn: (clientX) => {
        const { layout, stage, rtl } = latest.current;
        const box = layout?.pages.find((p) => p.href === pageHref);
        const el = stageRef.current;
        if (!box || !stage || !el) return null;
        return tapZone(box.left + clientX * box.scale - el.scrollLeft, stage.width, rtl);
      },
      zoomed: () => latest.current.zoom > 1,
      pages: () => ({ index: latest.current.index, count: Math.max(1, latest.current.spreads.length) }),
    }),
    [],
  );

  // Pinch to zoom (touch screens): two fingers on a page; one finger pans the zoomed spread (the stage scrolls).
  const pinch = useRef<{ distance: number; zoom: number } | null>(null);
  const onTouch = useCallback((event: TouchEvent) => {
    const [a, b] = [event.touches[0], event.touches[1]];
    if (event.type === 'touchend' || event.type === 'touchcancel' || !a || !b) {
      if (event.touches.length < 2) pinch.current = null;
      return;
    }
    const distance = Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY);
    event.preventDefault();
    if (!pinch.current || event.type === 'touchstart') pinch.current = { distance, zoom: latest.current.zoom };
    else if (pinch.current.distance > 0) setZoom(clampZoom((pinch.current.zoom * distance) / pinch.current.distance));
  }, []);

  const pages = layout?.pages ?? [];
  const sourceOf = (pageHref: string): ChapterSource | null =>
    pageHref === href ? props.toSource(load) : pageHref === partnerHref && partnerLoad ? props.toSource(partnerLoad) : null;

  return (
    <div ref={viewRef} className={`fixed-layout${zoomStrip ? ' fixed-layout--zoom-strip' : ''}`} data-spread-index={index} data-spread-count={spreads.length}>
      <div ref={stageRef} className="fixed-layout__stage">
        {layout ? (
          <div className="fixed-layout__canvas" style={{ width: layout.width, height: layout.height }}>
            {pages.map((box) => {
              const source = sourceOf(box.href);
              return source ? (
                <FixedPage
                  key={box.href}
                  box={box}
                  source={source}
                  bookId={bookId}
                  isCurrent={box.href === href}
                  latestProps={latest}
                  options={fixedOptions(box.href)}
                  go={go}
                  onTouch={onTouch}
                />
              ) : (
                <div key={box.href} className="fixed-layout__placeholder" style={{ left: box.left, top: box.top, width: box.width * box.scale, height: box.height * box.scale }} />
              );
            })}
          </div>
        ) : null}
      </div>
      <div className="fixed-layout__zoom" role="group" aria-label="Zoom">
        <button type="button" className="reader-chip" aria-label="Zoom out" disabled={zoom <= ZOOM_LIMITS.min} onClick={() => setZoom((z) => clampZoom(z - ZOOM_LIMITS.step))}>
          <ReaderIcon name="zoom-out" size={18} />
        </button>
        <button type="button" className="reader-chip" aria-label="Fit the page to the screen" disabled={zoom === 1} onClick={() => setZoom(1)}>
          <ReaderIcon name="fit" size={18} />
        </button>
        <button type="button" className="reader-chip" aria-label="Zoom in" disabled={zoom >= ZOOM_LIMITS.max} onClick={() => setZoom((z) => clampZoom(z + ZOOM_LIMITS.step))}>
          <ReaderIcon name="zoom-in" size={18} />
        </button>
      </div>
    </div>
  );
}

interface FixedPageProps {
  box: PageBox;
  source: ChapterSource;
  bookId: string;
  /** The page in the address: its controller is the reader's (position, keys, usage). */
  isCurrent: boolean;
  latestProps: RefObject<{ props: FixedLayoutViewProps }>;
  options: FixedPageOptions;
  go: (direction: Turn) => void;
  onTouch: (event: TouchEvent) => void;
}

/** One page in its frame: written once per page, positioned and scaled by its box. */
function FixedPage({ box, source, bookId, isCurrent, latestProps, options, go, onTouch }: FixedPageProps) {
  const frameRef = useRef<HTMLIFrameElement>(null);
  const controllerRef = useRef<FrameController | null>(null);
  const setup = useRef({ options, go, onTouch, isCurrent, box, source });
  setup.current = { options, go, onTouch, isCurrent, box, source };

  // The address moved to the other page of the same spread (the contents, a link): its controller is the reader's now.
  const wasCurrent = useRef(isCurrent);
  useEffect(() => {
    if (isCurrent && !wasCurrent.current && controllerRef.current) latestProps.current.props.onReady(controllerRef.current);
    wasCurrent.current = isCurrent;
  }, [isCurrent, latestProps]);

  useLayoutEffect(() => {
    const frame = frameRef.current;
    const doc = frame?.contentDocument;
    const win = frame?.contentWindow;
    if (!frame || !doc || !win) return;
    // Written once per page: again only when its content changes (html, base, address, the dependencies below);
    // the rest of a source comes with those, and the parent makes a new source object at every render.
    const { box: b, source } = setup.current;
    const view = () => latestProps.current.props;
    frame.style.visibility = 'hidden';
    doc.open();
    doc.write(buildFixedPageDocument({ ...source, width: b.size.width, height: b.size.height }));
    doc.close();
    let controller: FrameController | null = null;
    let cancelled = false;
    const touch = (e: Event) => setup.current.onTouch(e as TouchEvent);
    void stylesheetsSettled(doc, win).then(() => {
      if (cancelled || !doc.body) return;
      const callbacks: FrameCallbacks = {
        onProgress: (pct, loc) => {
          if (setup.current.isCurrent) view().callbacks.onProgress(pct, loc);
        },
        onEdge: (dir) => setup.current.go(dir),
        onNavigate: (path) => view().callbacks.onNavigate(path),
        onImage: (src, alt) => view().callbacks.onImage(src, alt),
        onKey: (e) => view().callbacks.onKey?.(e),
        onPages: (i, c) => {
          if (setup.current.isCurrent) view().callbacks.onPages?.(i, c);
        },
        onMiddleTap: () => view().callbacks.onMiddleTap?.(),
        onExternalLink: (url) => view().callbacks.onExternalLink?.(url),
      };
      controller = new FrameController(frame, PAGE_PREFS, source.href, bookId, view().readerPath, callbacks, {
        tapTurn: (x) => setup.current.options.tapTurn(x),
        zoomed: () => setup.current.options.zoomed(),
        pages: () => setup.current.options.pages(),
      });
      controller.rtl = source.rtl === true;
      controllerRef.current = controller;
      for (const type of ['touchstart', 'touchmove', 'touchend', 'touchcancel']) doc.addEventListener(type, touch, { passive: false });
      controller.goToInitial(setup.current.isCurrent ? view().initial() : { kind: 'percentage', value: 0 });
      frame.style.visibility = 'visible';
      if (setup.current.isCurrent) view().onReady(controller);
    });
    return () => {
      cancelled = true;
      for (const type of ['touchstart', 'touchmove', 'touchend', 'touchcancel']) doc.removeEventListener(type, touch);
      if (controller) {
        controllerRef.current = null;
        controller.destroy();
        // the reader's callbacks as they are now, not as they were when the page was written
        if (setup.current.isCurrent) view().onReady(null);
      }
    };
  }, [source.html, source.baseHref, source.href, bookId, latestProps]);

  return (
    <iframe
      ref={frameRef}
      className="fixed-layout__page"
      data-href={source.href}
      data-side={box.side}
      title={source.label || 'Page'}
      // Never scripts (docs/decisions.md "Scripted titles"): the same sandbox as every chapter frame.
      sandbox={CHAPTER_FRAME_SANDBOX}
      style={{ left: box.left, top: box.top, width: box.width, height: box.height, transform: `scale(${box.scale})` }}
    />
  );
}

/** A fixed-layout page ignores the reading settings (the book lays it out); the controller needs some all the same. */
const PAGE_PREFS = {
  font_size: 1,
  font_name: 'Georgia',
  column_width: 65,
  reading_mode: 'day-mode',
  brightness: 255,
  pagination: 'page',
  zoom_factor: 1,
} as const satisfies ReaderPreferences;

export default FixedLayoutView;
