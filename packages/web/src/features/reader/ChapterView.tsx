/**
 * The chapters of a book in one iframe (DESIGN.md "Reader engine"). The frame is created once per book and each
 * chapter's document is written into it (`document.open/write/close`): no navigation per chapter, so a new chapter
 * is parsed in the same task that receives it instead of waiting for a frame navigation round trip through the
 * browser. The settings change in place through the FrameController (one style element, classes on the root), so
 * a font-size change never rewrites the chapter. The frame is sandboxed: `allow-same-origin` lets the app write,
 * lay out and route its links; scripts never run (no `allow-scripts`, whatever the title's flag, and the chapter's
 * CSP `<meta>` forbids them too).
 *
 * A second, hidden frame holds the next chapter (DESIGN.md: "the next chapter is prepared in a hidden frame ahead of
 * time"): once the reader has a chapter on screen and the next one is decrypted, its document is written and laid
 * out there while the reader reads, and turning into it swaps the frames instead of parsing and laying out then.
 * A book that reads as one scroll (rendition:flow scrolled-continuous) is stacked by ContinuousView; where it comes
 * here instead (a title allowed to run scripts on a server with no scripted origin), scrolling on past the end slides
 * that next chapter up from below before the swap (engine/continuousScroll.ts).
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type RefObject } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { ReaderPreferences, Rendition, RootAttributes } from '@lectern/core';
import { readerApi } from '../../api/reader.ts';
import { yieldToBrowser } from '../../api/client.ts';
import { readerKeys } from '../../shared/reading/readerKeys.ts';
import { reflowableSide, spineOf, type Stage } from './engine/fixedLayout.ts';
import { Spinner } from '../../components/Spinner.tsx';
import { buildChapterDocument, CHAPTER_FRAME_SANDBOX, htmlClasses, keepTextDirection, ROOT_ID, setReaderClasses, verticalWriting } from './engine/chapterDocument.ts';
import { FrameController, type FrameCallbacks } from './engine/frameController.ts';
import { adaptBookStyles } from './engine/bookStyles.ts';
import { hyphenateInserted, supplyBookHyphens } from './engine/hyphenation.ts';
import { chapterShell, firstSlice, SLICE_MIN_CHARS, SliceFiller, slicesOf } from './engine/chapterSlices.ts';
import { releasePageFrame } from './engine/pageFirstScreen.ts';
import { readsContinuously, settleSlide, slideIn, watchContinuousScroll, type Direction } from './engine/continuousScroll.ts';
import type { InitialPosition } from '../../shared/reading/position.ts';

/** A chapter's document, as ChapterView writes it. */
export interface ChapterSource {
  html: string;
  label: string;
  stylesheets: readonly string[];
  baseHref: string;
  href: string;
  /** the book's pages turn right to left (page-progression-direction) */
  rtl?: boolean;
  /** the class, id and style of the content document's own html and body (ours: root_attributes) */
  root?: RootAttributes | null;
  /** the spine item asks to be centred horizontally (rendition:align-x-center) */
  alignXCenter?: boolean;
}

export interface ChapterViewProps extends ChapterSource {
  bookId: string;
  prefs: ReaderPreferences;
  /** Another chapter is on its way: the one shown stays until it is ready (a spinner shows if it takes long). */
  switching: boolean;
  /** The chapter after this one, once it is decrypted: prepared in the hidden frame. */
  next?: ChapterSource | null;
  initial: () => InitialPosition;
  readerPath: (fullPath: string) => string;
  callbacks: FrameCallbacks;
  onReady: (controller: FrameController | null) => void;
  /** The spine item's rendition: a reflowable item of a fixed-layout book sits on its page-spread side (wide stage). */
  rendition?: Rendition | null;
}

/**
 * The half of the stage a reflowable chapter of a fixed-layout book takes (engine/fixedLayout.ts reflowableSide), or
 * null for the whole stage. Asks for the contents (the spine, cached with the contents panel) only for a chapter that
 * gives a side: an ordinary book makes no request more.
 */
function useReflowableSide(bookId: string, rendition: Rendition | null | undefined, container: RefObject<HTMLDivElement | null>) {
  const wants = rendition?.layout === 'reflowable' && (rendition.page_spread === 'left' || rendition.page_spread === 'right');
  const toc = useQuery({ queryKey: readerKeys.toc(bookId, ''), queryFn: ({ signal }) => readerApi.getToc(bookId, null, signal), staleTime: 10 * 60_000, enabled: wants });
  const [stage, setStage] = useState<Stage>(() => ({ width: window.innerWidth, height: window.innerHeight }));
  useLayoutEffect(() => {
    // the stage the view fills (its parent: the view itself shrinks to a half)
    const el = container.current?.parentElement;
    if (!wants || !el) return;
    const measure = () => setStage((s) => (s.width === el.clientWidth && s.height === el.clientHeight ? s : { width: el.clientWidth, height: el.clientHeight }));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [wants, container]);
  return wants && toc.data ? reflowableSide(rendition, spineOf(toc.data), stage) : null;
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

/**
 * A longer next chapter is not prepared ahead: its layout would be one long task in the middle of reading (page
 * turns waiting behind it); it is shown in slices when the reader gets there (engine/chapterSlices.ts).
 */
const PREPARE_MAX_CHARS = SLICE_MIN_CHARS;

/** The rest of a chapter shown in slices goes in when the page is idle, and within this long even when it is not. */
const SLICE_IDLE_TIMEOUT_MS = 250;

/** How long a chapter has been on screen before the next one is prepared behind it. */
const PREPARE_AFTER_MS = 2000;

const sameSource = (a: ChapterSource, b: ChapterSource) =>
  a.html === b.html && a.href === b.href && a.baseHref === b.baseHref && a.label === b.label && a.stylesheets.join('\n') === b.stylesheets.join('\n') &&
  JSON.stringify(a.root ?? null) === JSON.stringify(b.root ?? null) && !!a.alignXCenter === !!b.alignXCenter;

/** A stylesheet that never answers does not keep the chapter hidden longer than this. */
const STYLESHEET_WAIT_MS = 3000;

/** Resolves once every stylesheet of the document has loaded or failed (they block a correct first layout). */
export function stylesheetsSettled(doc: Document, win: Window): Promise<void> {
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

/** The document for `source` in `frame` with the reader's settings. */
const documentOf = (source: ChapterSource, frame: HTMLIFrameElement, prefs: ReaderPreferences) =>
  buildChapterDocument({ ...source, prefs, layout: { pagination: prefs.pagination, pageWidth: frame.clientWidth || window.innerWidth } });

export function ChapterView(props: ChapterViewProps) {
  const frame0 = useRef<HTMLIFrameElement>(null);
  const frame1 = useRef<HTMLIFrameElement>(null);
  const frameRefs = useMemo(() => [frame0, frame1] as const, []);
  const viewRef = useRef<HTMLDivElement>(null);
  const side = useReflowableSide(props.bookId, props.rendition, viewRef);
  // Which of the two frames shows the chapter; the other is the spare, holding `prepared` when it is not null.
  const [active, setActive] = useState<0 | 1>(0);
  const activeRef = useRef<0 | 1>(0);
  const prepared = useRef<ChapterSource | null>(null);
  const controllerRef = useRef<FrameController | null>(null);
  const [ready, setReady] = useState(false);
  // The whole chapter is in the document (a long one goes in slices after its first screen): the reading session,
  // the search jump, highlights and read aloud get the controller only then (onReady), as does the spare frame.
  const [complete, setComplete] = useState(false);
  // The spare frame is made once the first chapter is on screen, when the page is idle: making a frame (its browsing
  // context and empty document) is a long task's worth of work on a phone, and in the commit that brings the first
  // chapter it lengthened the task the reader's first screen waits for (docs/performance.md "The reader's start").
  // Nothing uses the spare before then: the next chapter is prepared in it only once this one is complete.
  const [spareMade, setSpareMade] = useState(false);
  const spinner = useDelayedFlag(!ready || props.switching, SPINNER_DELAY_MS);
  // The latest props for the asynchronous steps, without rewriting the document when they change.
  const latest = useRef(props);
  latest.current = props;

  // (by value: a new object with the same attributes is the same document)
  const rootKey = JSON.stringify(props.root ?? null);

  // A new chapter: show it from the spare frame if it was prepared there, else write its document into the frame
  // now (in the commit that brought it); position it once its stylesheets are in, and only then show it.
  useLayoutEffect(() => {
    const p = latest.current;
    const source: ChapterSource = { html: p.html, label: p.label, stylesheets: p.stylesheets, baseHref: p.baseHref, href: p.href, root: p.root, alignXCenter: p.alignXCenter };
    const swap = prepared.current !== null && sameSource(prepared.current, source);
    const index = swap ? ((1 - activeRef.current) as 0 | 1) : activeRef.current;
    const frame = frameRefs[index].current;
    const old = frameRefs[activeRef.current].current;
    const doc = frame?.contentDocument;
    const win = frame?.contentWindow;
    if (!frame || !doc || !win) return;
    controllerRef.current?.destroy();
    controllerRef.current = null;
    setReady(false);
    setComplete(false);
    // A long chapter: the slice holding the reader's place first, the rest once it is on screen.
    const sliced = swap ? null : slicesOf(source.html);
    const start = sliced ? firstSlice(source.html, sliced, p.initial()) : null;
    let filling = false;
    if (!swap) {
      // a slide into the next chapter that did not end in it (another chapter came): both frames back in place
      settleSlide(frameRefs[0].current, frameRefs[1].current);
      const spare = frameRefs[(1 - activeRef.current) as 0 | 1].current;
      if (spare) spare.style.visibility = 'hidden';
    }
    if (swap) {
      performance.mark('reader:document-swapped');
      prepared.current = null;
      activeRef.current = index;
      setActive(index);
    } else {
      performance.mark('reader:document-built');
      const html = documentOf(sliced && start ? { ...source, html: chapterShell(source.html, sliced, start.index) } : source, frame, p.prefs);
      frame.style.visibility = 'hidden';
      doc.open();
      doc.write(html);
      doc.close();
      performance.mark('reader:document-written');
    }
    let cancelled = false;
    let stopWatching: (() => void) | null = null;
    let idleHandle: number | undefined;
    const idle = window.requestIdleCallback ?? ((cb: () => void) => window.setTimeout(cb, 16));
    const cancelIdle = window.cancelIdleCallback ?? window.clearTimeout;
    void stylesheetsSettled(doc, win).then(async () => {
      if (cancelled || !doc.body) return;
      performance.mark('reader:frame-loaded');
      // (A prepared chapter had this done before its layout; again it changes nothing.)
      adaptBookStyles(doc, doc.getElementById(ROOT_ID));
      // The hyphenation the book asks for where the browser has none, in before the pages are counted (the frame is
      // still hidden): null, nothing to wait for, in the usual case.
      const hyphens = supplyBookHyphens(doc, doc.getElementById(ROOT_ID));
      if (hyphens) {
        performance.mark('reader:hyphenating');
        await hyphens;
        if (cancelled || !doc.body) return;
        performance.mark('reader:hyphenated');
      }
      // A long chapter's first screen: its layout and positioning in a task of their own, apart from the document's
      // writing (the page's frame covers the reader meanwhile).
      if (sliced) {
        await yieldToBrowser();
        if (cancelled || !doc.body) return;
      }
      const now = latest.current;
      // (before the controller lays a right-to-left book's columns out right to left)
      if (now.rtl) keepTextDirection(doc);
      performance.mark('reader:book-styles');
      // Callbacks go through `latest` so the controller always calls the current handlers.
      const callbacks: FrameCallbacks = {
        // While the rest of a long chapter is going in, its percentages and pages are not yet the chapter's, and its
        // edge is not the chapter's end: nothing is reported, no turn leaves the chapter.
        onProgress: (pct, loc) => void (!filling && latest.current.callbacks.onProgress(pct, loc)),
        onEdge: (dir) => void (!filling && latest.current.callbacks.onEdge(dir)),
        onNavigate: (path) => latest.current.callbacks.onNavigate(path),
        onImage: (src, alt) => latest.current.callbacks.onImage(src, alt),
        onKey: (e) => latest.current.callbacks.onKey?.(e),
        onPages: (i, c) => void (!filling && latest.current.callbacks.onPages?.(i, c)),
        onMiddleTap: () => latest.current.callbacks.onMiddleTap?.(),
        onExternalLink: (url) => latest.current.callbacks.onExternalLink?.(url),
      };
      const controller = new FrameController(frame, now.prefs, now.href, now.bookId, now.readerPath, callbacks);
      controller.rtl = now.rtl === true;
      controllerRef.current = controller;
      const container = sliced && start ? SliceFiller.container(doc, ROOT_ID) : null;
      const filler = sliced && start && container ? new SliceFiller(doc, container, source.html, sliced, start.index) : null;
      filling = !!filler;
      if (filler) filler.onInsert = (first, last) => hyphenateInserted(doc, first, last);
      controller.filling = filling;
      controller.goToInitial(filler && start ? start.position : now.initial());
      performance.mark('reader:positioned');
      // Shown once positioned, so the reader never sees the chapter jump from its top to where they were:
      // goToInitial positions synchronously, so the next frame already paints the right place. Shown here rather
      // than by the render that `ready` brings, which would come before that frame and delay it.
      frame.style.visibility = 'visible';
      if (old && old !== frame) {
        // The keyboard goes with the chapter: focus left in the frame now spare would send the next key to a hidden
        // chapter whose controller is gone (turning past a chapter's end by key, then on or back, did nothing).
        const focused = document.activeElement === old;
        old.style.visibility = 'hidden';
        settleSlide(old, frame);
        if (focused) controller.focus();
      }
      // A book that reads as one scroll: on past this chapter's end or top into its neighbour (by wheel or finger;
      // keys do so through the controller). The next chapter, when laid out already, slides up from below.
      let sliding = false;
      const readOn = (direction: Direction) => {
        const at = latest.current;
        if (cancelled || filling || sliding || !readsContinuously(at.prefs.pagination, at.rendition) || verticalWriting(doc)) return;
        const spare = frameRefs[(1 - activeRef.current) as 0 | 1].current;
        if (direction === 'next' && spare && at.next && prepared.current && sameSource(prepared.current, at.next)) {
          sliding = true;
          void slideIn(frame, spare, window.matchMedia('(prefers-reduced-motion: reduce)').matches).then(() => void (!cancelled && latest.current.callbacks.onEdge('next')));
        } else at.callbacks.onEdge(direction);
      };
      stopWatching = watchContinuousScroll(doc, readOn);
      const whole = () => {
        filling = false;
        controller.complete();
        performance.mark('reader:chapter-complete');
        latest.current.onReady(controller);
        setComplete(true);
      };
      if (!filler) whole();
      win.requestAnimationFrame(() => {
        if (cancelled) return;
        setReady(true);
        // (read by the bench: the first screen of a chapter shown in slices is on screen)
        win.requestAnimationFrame(() => {
          if (cancelled) return;
          if (filler) performance.mark('reader:first-screen');
          // the reader's own first screen is painted where the page's showed: the page's frame goes
          releasePageFrame();
        });
      });
      if (!filler) return;
      // The rest, a slice per idle period: after the reader's place first, then before it. A slice going in before
      // the place in view would push it down (or onto a later page): the reader's place is kept in view.
      // Paged, the columns are laid out again from the start at every insertion (the browser has no partial
      // fragmentation): what goes after the place goes in at once, then what goes before, two layouts in all.
      const fill = () => {
        idleHandle = undefined;
        if (cancelled) return;
        const before = filler.nextIsBefore;
        const range = before ? controller.place() : null;
        do filler.insertNext();
        while (controller.paged && !filler.done && filler.nextIsBefore === before);
        if (range) controller.reveal(range);
        if (filler.done) whole();
        else idleHandle = idle(fill, { timeout: SLICE_IDLE_TIMEOUT_MS });
      };
      idleHandle = idle(fill, { timeout: SLICE_IDLE_TIMEOUT_MS });
    });
    return () => {
      cancelled = true;
      stopWatching?.();
      if (idleHandle !== undefined) cancelIdle(idleHandle);
    };
  }, [props.html, props.baseHref, props.stylesheets, props.label, props.href, rootKey, props.alignXCenter, frameRefs]);

  // The next chapter, written and laid out in the spare frame while the reader reads this one (when the page is
  // idle): turning into it then costs a swap.
  const next = props.next ?? null;
  useEffect(() => {
    if (!complete || !spareMade || !next || next.html.length > PREPARE_MAX_CHARS) return;
    if (prepared.current && sameSource(prepared.current, next)) return;
    const idle = window.requestIdleCallback ?? ((cb: () => void) => window.setTimeout(cb, 300));
    const cancelIdle = window.cancelIdleCallback ?? window.clearTimeout;
    let handle: number | undefined;
    // Not while the page is still settling after its load (the reader has only just started this chapter); the
    // write and the layout in two idle slices, each a short task.
    const timer = window.setTimeout(() => {
      handle = idle(
        () => {
          const spare = frameRefs[(1 - activeRef.current) as 0 | 1].current;
          const doc = spare?.contentDocument;
          const win = spare?.contentWindow;
          if (!spare || !doc || !win) return;
          prepared.current = null;
          doc.open();
          doc.write(documentOf(next, spare, latest.current.prefs));
          doc.close();
          prepared.current = next;
          // Laid out now, once its stylesheets are in, not at the turn.
          void stylesheetsSettled(doc, win).then(async () => {
            adaptBookStyles(doc, doc.getElementById(ROOT_ID));
            await supplyBookHyphens(doc, doc.getElementById(ROOT_ID));
            if (prepared.current !== next) return;
            const vertical = verticalWriting(doc);
            if (next.rtl || vertical) {
              // its columns right to left (or, in vertical writing, one screen high) before its layout, as the
              // controller will have them at the swap
              if (next.rtl) keepTextDirection(doc);
              const prefs = latest.current.prefs;
              const pageHeight = vertical ? spare.clientHeight || window.innerHeight : undefined;
              setReaderClasses(doc.documentElement, htmlClasses(prefs, { pagination: prefs.pagination, pageWidth: spare.clientWidth || window.innerWidth, rtl: next.rtl === true, vertical, pageHeight }));
            }
            handle = idle(() => void doc.body?.offsetHeight, { timeout: 2000 });
          });
        },
        { timeout: 2000 },
      );
    }, PREPARE_AFTER_MS);
    return () => {
      window.clearTimeout(timer);
      if (handle !== undefined) cancelIdle(handle);
    };
  }, [complete, spareMade, next, frameRefs]);

  useEffect(() => {
    if (!ready || spareMade) return;
    const idle = window.requestIdleCallback ?? ((cb: () => void) => window.setTimeout(cb, 16));
    const cancelIdle = window.cancelIdleCallback ?? window.clearTimeout;
    const handle = idle(() => setSpareMade(true), { timeout: PREPARE_AFTER_MS });
    return () => cancelIdle(handle);
  }, [ready, spareMade]);

  // Settings change in place.
  useEffect(() => {
    controllerRef.current?.applyPrefs(props.prefs);
  }, [props.prefs]);

  useEffect(
    () => () => {
      releasePageFrame();
      controllerRef.current?.destroy();
      controllerRef.current = null;
      latest.current.onReady(null);
    },
    [],
  );

  const frameProps = (index: 0 | 1) => {
    const shown = index === active;
    return {
      ref: frameRefs[index],
      // Only the frame on show is "the chapter frame" (tests, styles, the accessibility tree); the spare is hidden.
      className: shown ? 'chapter-frame__iframe chapter-view__frame' : 'chapter-view__spare',
      title: shown ? props.label || 'Chapter' : undefined,
      'aria-hidden': shown ? undefined : true,
      tabIndex: shown ? undefined : -1,
      // Never scripts (docs/decisions.md "Scripted titles"): allow-same-origin lets the app write and lay out the
      // chapter, and together with allow-scripts it would let a book script lift its own sandbox and act as the reader.
      sandbox: CHAPTER_FRAME_SANDBOX,
    };
  };

  return (
    <div ref={viewRef} className={`chapter-view chapter-view--${props.prefs.pagination}${side ? ` chapter-view--side-${side}` : ''}`} data-side={side ?? undefined}>
      {spinner ? (
        <div className="chapter-view__loading chapter-view__loading--over">
          <Spinner size="lg" label="Loading chapter…" />
        </div>
      ) : null}
      <iframe {...frameProps(0)} />
      {spareMade ? <iframe {...frameProps(1)} /> : null}
    </div>
  );
}
