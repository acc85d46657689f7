/**
 * A book that reads as one scroll (`rendition:flow scrolled-continuous`, EPUB 3.3 §8.2.2.2; docs/decisions.md
 * "`scrolled-continuous` reads as one scroll"), in scroll mode: its chapters stacked in one scroller, each in its own
 * frame as tall as its text (engine/frame/stack.ts). The next chapter comes in below as the reader nears the end of
 * the stack, the previous one above as they near its top (drawn in as it comes, the place kept), and chapters far
 * from the view go, so memory stays bounded. The chapter under the top of the view is the one read: its controller
 * is the page's (position, progress, the address, annotations, read aloud), and the page follows it (onChapterShown).
 * A chapter the reader may not read ends the stack with the usual message; a chapter that does not read on (another
 * flow, a PDF) ends it too, and is reached as any chapter is, by the keys or the footer.
 *
 * A title whose scripts the reader allowed stacks its chapters' pages of the scripted origin instead (`scripted`;
 * docs/decisions.md "A scripted book read as one scroll"): the app cannot look into them, so each page says its own
 * height (a bounded number, at most one height a frame) and the place is the stack's scroll, a fraction of the chapter.
 */
import { MESSAGES, paths, scriptedFrameMessageSchema, type ArchiveItem, type Locator, type ReaderPreferences, type ScriptedFrame } from '@lectern/core';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { adaptBookStyles } from './engine/bookStyles.ts';
import { supplyBookHyphens } from './engine/hyphenation.ts';
import { buildChapterDocument, CHAPTER_FRAME_SANDBOX, keepTextDirection, ROOT_ID } from './engine/chapterDocument.ts';
import { readsContinuously } from './engine/continuousScroll.ts';
import { FrameController, type FrameCallbacks } from './engine/frameController.ts';
import { contentHeight, planStack, type StackHost } from './engine/frame/stack.ts';
import { stylesheetsSettled, type ChapterSource } from './ChapterView.tsx';
import { chapterSource } from './chapterSource.ts';
import { progressionOf, type InitialPosition } from '../../shared/reading/position.ts';
import { isApiError } from '../../api/client.ts';
import { readerApi } from '../../api/reader.ts';
import { Spinner } from '../../components/Spinner.tsx';
import { Centered } from './ReaderMessage.tsx';
import { lookMessage } from './ScriptedChapterView.tsx';
import { useFetchReaderChapter, type ChapterLoad } from './useReaderChapter.ts';

type HtmlLoad = Extract<ChapterLoad, { kind: 'html' }>;

export interface ContinuousViewProps {
  bookId: string;
  userId: string | null;
  /** The chapter of the address (the page's): the stack is built around it, or follows it when it is in the stack. */
  load: HtmlLoad;
  prefs: ReaderPreferences;
  initial: () => InitialPosition;
  readerPath: (fullPath: string) => string;
  callbacks: FrameCallbacks;
  onReady: (controller: FrameController | null) => void;
  /** The chapter under the top of the view changed: the page moves its address there (the stack stays). */
  onChapterShown: (href: string) => void;
  /**
   * The title's scripts run (its reader allowed them: ScriptsGate): each chapter is its page of the scripted origin,
   * where the server gives one (a chapter it gives none for is stacked as any other, its scripts not run).
   */
  scripted?: boolean;
}

/**
 * Whether a loaded chapter goes on the stack: reflowable HTML that reads on, in scroll mode. (A scripted title's
 * chapters too: on the scripted origin when its scripts run, else as the stored chapter, its scripts never run.)
 */
export function stacks(load: ChapterLoad | undefined, prefs: ReaderPreferences): load is HtmlLoad {
  return load?.kind === 'html' && readsContinuously(prefs.pagination, load.item.rendition);
}

interface Slot {
  href: string;
  load: HtmlLoad;
  /** Only the first slot is placed (at the reader's position); the others are laid out where they fall. */
  initial: InitialPosition | null;
  /** The chapter's page on the scripted origin (its scripts run), or null: the stored chapter in a frame of ours. */
  frame: ScriptedFrame | null;
}

/** What ends the stack after its last chapter: a chapter the reader may not read (its message). */
interface Locked {
  item: ArchiveItem;
  message: string;
  url: string | null;
}

/** A slot's frame, once its document is written (or its page asked for), and how to read and move it once laid out. */
interface Live {
  frame: HTMLIFrameElement;
  /** A stored chapter's controller, once laid out (a scripted page has none: the app cannot reach into it). */
  controller: FrameController | null;
  /** Laid out: a stored chapter's controller made, a scripted page's first height taken. */
  ready: boolean;
  /** Puts a position (the reader's on opening, a chapter chosen) at the top of the view. */
  show: (at: InitialPosition) => void;
  /** The place now at the top of the view, as a way to put it back there (false once it is gone). */
  hold: () => (() => boolean) | null;
  /** Where the reader is in the chapter, as the page takes it. */
  progress: () => { percentage: number; locator: Locator } | null;
  cancel: () => void;
}

/** A scripted page's address, or null where the server runs no scripts for it (404): the stored chapter then. */
async function scriptedFrameOf(bookId: string, href: string): Promise<ScriptedFrame | null> {
  try {
    return await readerApi.getScriptedFrame(bookId, href);
  } catch (err) {
    if (isApiError(err) && err.status === 404) return null;
    throw err;
  }
}

/** A fraction's percentage as the page takes it (one decimal), and its Locator. */
const progressAt = (href: string, progression: number) => {
  const percentage = Math.round(progression * 1000) / 10;
  return { percentage, locator: { href, progression: percentage / 100 } };
};

const documentOf = (source: ChapterSource, frame: HTMLIFrameElement, prefs: ReaderPreferences) =>
  buildChapterDocument({ ...source, prefs, layout: { pagination: prefs.pagination, pageWidth: frame.clientWidth || window.innerWidth } });

export function ContinuousView(props: ContinuousViewProps) {
  const scrollerRef = useRef<HTMLDivElement>(null);
  const latest = useRef(props);
  latest.current = props;
  const fetchChapter = useFetchReaderChapter(props.bookId, props.userId);
  // (a scripted title's first page is asked for first: the stack starts empty, and the address's effect fills it)
  const [slots, setSlots] = useState<Slot[]>(() => (props.scripted ? [] : [{ href: props.load.item.chapter_href, load: props.load, initial: props.initial(), frame: null }]));
  const slotsRef = useRef(slots);
  slotsRef.current = slots;
  const [locked, setLocked] = useState<Locked | null>(null);
  const lockedRef = useRef(locked);
  lockedRef.current = locked;
  // The ends the stack cannot grow past (nothing there, or a chapter that does not read on); loads under way.
  const ends = useRef({ before: false, after: false });
  const loading = useRef<{ before: string | null; after: string | null }>({ before: null, after: null });
  const lives = useRef(new Map<string, Live>());
  // The chapter read: the one under the top of the view.
  const current = useRef(props.load.item.chapter_href);
  // Chapters the view moved the address to as the reader scrolled into them: the page following is no jump.
  const asked = useRef(new Set<string>());
  // Slots dropped above the view: their height comes off the scroll position in the commit that removes them,
  // taken from the position before (the browser clamps the scroll to the shorter stack as the frames go).
  const shift = useRef(0);
  const shiftFrom = useRef<number | null>(null);
  // The percentage last told the page for a scripted chapter (its place is the stack's scroll).
  const reported = useRef<number | null>(null);
  // A place put in view (the reader's position on opening, a chapter chosen) is held until the reader moves: as the
  // chapters around it come in and take their heights, it is put back at the top (docs/decisions.md
  // "`scrolled-continuous` reads as one scroll": a reload at a chapter boundary comes back exact).
  const pin = useRef<(() => boolean) | null>(null);
  // Where the view put the stack when it last put a held place back: a scroll elsewhere is the reader's (a wheel over
  // a scripted page reaches the stack, but not the app's listeners).
  const placed = useRef<number | null>(null);
  const pinAt = (href: string) => {
    pin.current = lives.current.get(href)?.hold() ?? null;
    placed.current = scrollerRef.current?.scrollTop ?? null;
  };
  /** The held place back at the top of the view (a chapter around it took its height); false when nothing is held. */
  const repin = () => {
    const held = pin.current;
    if (!held) return false;
    if (!held()) {
      pin.current = null;
      return false;
    }
    placed.current = scrollerRef.current?.scrollTop ?? null;
    return true;
  };
  const repinRef = useRef(repin);
  repinRef.current = repin;

  const boxes = () =>
    slotsRef.current.map((s) => {
      const f = lives.current.get(s.href)?.frame;
      return { top: f?.offsetTop ?? 0, height: f?.offsetHeight ?? 0 };
    });

  /** The stack, from where the view is: which chapter is read, what comes in, what goes. */
  const plan = useCallback(() => {
    const scroller = scrollerRef.current;
    const list = slotsRef.current;
    if (!scroller || list.length === 0) return;
    // Not before every slot is laid out (a frame still 0 px high is not yet where it will be).
    if (list.some((s) => !lives.current.get(s.href)?.ready)) return;
    const first = list[0]!;
    const last = list[list.length - 1]!;
    const b = boxes();
    const p = planStack({
      boxes: b,
      scrollTop: scroller.scrollTop,
      viewHeight: scroller.clientHeight,
      canGrowBefore: !ends.current.before && !!first.load.item.previous_chapter_uri,
      canGrowAfter: !ends.current.after && !lockedRef.current && !!last.load.item.next_chapter_uri,
    });
    const read = list[p.current];
    if (read && read.href !== current.current) {
      current.current = read.href;
      asked.current.add(read.href);
      latest.current.onChapterShown(read.href);
    }
    // A scripted page's place is the stack's scroll (a stored chapter's controller reports its own).
    if (read?.frame && read.href === latest.current.load.item.chapter_href) {
      const now = lives.current.get(read.href)?.progress();
      if (now && now.percentage !== reported.current) {
        reported.current = now.percentage;
        latest.current.callbacks.onProgress(now.percentage, now.locator);
      }
    }
    if (p.dropBefore || p.dropAfter) {
      shift.current -= b.slice(0, p.dropBefore).reduce((sum, box) => sum + box.height, 0);
      shiftFrom.current ??= scroller.scrollTop;
      if (p.dropBefore) ends.current.before = false;
      if (p.dropAfter) {
        ends.current.after = false;
        setLocked(null);
      }
      setSlots(list.slice(p.dropBefore, list.length - p.dropAfter));
      return;
    }
    const grow = (side: 'before' | 'after', href: string) => {
      if (loading.current[side]) return;
      loading.current[side] = href;
      void fetchChapter(href)
        .catch(() => null)
        .then(async (got) => {
          const load = got ?? undefined;
          // (a scripted title's page too; one that cannot be had now ends the stack there, reached as any chapter is)
          const frame =
            latest.current.scripted && stacks(load, latest.current.prefs)
              ? await scriptedFrameOf(latest.current.bookId, load.item.chapter_href).catch(() => undefined)
              : null;
          loading.current[side] = null;
          const now = slotsRef.current;
          const edge = side === 'before' ? now[0] : now[now.length - 1];
          const wanted = side === 'before' ? edge?.load.item.previous_chapter_uri : edge?.load.item.next_chapter_uri;
          if (wanted !== href) return; // the stack moved on meanwhile
          if (load?.kind === 'refused' && side === 'after') setLocked({ item: load.item, message: load.message, url: load.url });
          if (!stacks(load, latest.current.prefs) || frame === undefined) {
            ends.current[side] = true;
            return;
          }
          const slot: Slot = { href: load.item.chapter_href, load, initial: null, frame };
          setSlots(side === 'before' ? [slot, ...now] : [...now, slot]);
        });
    };
    if (p.loadNext && last.load.item.next_chapter_uri) grow('after', last.load.item.next_chapter_uri);
    if (p.loadPrev && first.load.item.previous_chapter_uri) grow('before', first.load.item.previous_chapter_uri);
  }, [fetchChapter]);
  const planRef = useRef(plan);
  planRef.current = plan;

  useLayoutEffect(() => {
    const scroller = scrollerRef.current;
    if (shift.current && scroller && !repinRef.current()) scroller.scrollTop = (shiftFrom.current ?? scroller.scrollTop) + shift.current;
    shift.current = 0;
    shiftFrom.current = null;
  }, [slots]);

  // The address moved: to a chapter in the stack (the reader scrolled into it, or chose it), or elsewhere (a new stack).
  const routeHref = props.load.item.chapter_href;
  useEffect(() => {
    const p = latest.current;
    const there = slotsRef.current.find((s) => s.href === routeHref);
    if (!there) {
      for (const live of lives.current.values()) live.cancel();
      ends.current = { before: false, after: false };
      loading.current = { before: null, after: null };
      current.current = routeHref;
      asked.current.clear();
      pin.current = null;
      reported.current = null;
      setLocked(null);
      const first = { href: routeHref, load: p.load, initial: p.initial() };
      if (!p.scripted) {
        setSlots([{ ...first, frame: null }]);
        return;
      }
      // a scripted title's page is asked for first (the stored chapter where there is none, or it cannot be had)
      setSlots([]);
      let stale = false;
      void scriptedFrameOf(p.bookId, routeHref)
        .catch(() => null)
        .then((frame) => {
          if (!stale) setSlots([{ ...first, frame }]);
        });
      return () => {
        stale = true;
      };
    }
    const live = lives.current.get(routeHref);
    const ready = live?.ready ? live : null;
    // (the reader may have scrolled on into another chapter meanwhile: the address follows that one next)
    const scrolledTo = asked.current.delete(routeHref);
    if (!scrolledTo && current.current !== routeHref) {
      // chosen (a link, the contents) rather than scrolled to: brought to the top of the view
      current.current = routeHref;
      if (ready) {
        pin.current = null;
        ready.show(p.initial());
        pinAt(routeHref);
      }
    }
    if (ready) {
      p.onReady(ready.controller);
      const now = ready.progress();
      if (now) {
        reported.current = now.percentage;
        p.callbacks.onProgress(now.percentage, now.locator);
      }
    }
  }, [routeHref]);

  /** The reader moved (wheel, finger, key, the scrollbar): the view is theirs, a held place is let go. */
  const letGo = useCallback(() => {
    pin.current = null;
  }, []);

  /**
   * A scripted slot's frame mounted: its page, loading from the scripted origin, says its height (checked: from that
   * frame's window and origin, a bounded number); the frame takes it, at most once a frame, the view keeping its place.
   */
  const attachScripted = useCallback((slot: Slot, frame: HTMLIFrameElement, origin: string) => {
    const scroller = frame.parentElement;
    if (!scroller) return;
    let pending: number | null = null;
    let raf = 0;
    const progression = () => {
      const max = frame.offsetHeight - scroller.clientHeight;
      return max > 0 ? Math.min(1, Math.max(0, (scroller.scrollTop - frame.offsetTop) / max)) : 0;
    };
    /** The view's top this far down the chapter (0 to 1, its last screen at 1), as the single scripted view puts it. */
    const scrollTo = (at: number) => {
      scroller.scrollTop = frame.offsetTop + at * Math.max(0, frame.offsetHeight - scroller.clientHeight);
    };
    /** A place held as a fraction of the chapter: put back where the chapter's height now puts it. */
    const holdAt = (at: number) => () => {
      if (!frame.isConnected) return false;
      scrollTo(at);
      return true;
    };
    const onMessage = (event: MessageEvent) => {
      if (event.origin !== origin || event.source !== frame.contentWindow) return;
      const parsed = scriptedFrameMessageSchema.safeParse(event.data);
      if (!parsed.success) return;
      const m = parsed.data;
      const send = (message: ReturnType<typeof lookMessage>) => frame.contentWindow?.postMessage(message, origin);
      if (m.lectern === 'height') {
        pending = m.height;
        if (!raf) raf = requestAnimationFrame(apply);
      } else if (m.lectern === 'ready') send(lookMessage(latest.current.prefs));
      else if (m.lectern === 'navigate') latest.current.callbacks.onNavigate(latest.current.readerPath(m.path) + (m.fragment ? `#${encodeURIComponent(m.fragment)}` : ''));
      else if (m.lectern === 'external') latest.current.callbacks.onExternalLink?.(m.url);
      // ('progress' is the page's own scroll, which a stacked page never has: the stack's scroll is the place)
    };
    const live: Live = {
      frame,
      controller: null,
      ready: false,
      show: (at) => scrollTo(progressionOf(at)),
      hold: () => holdAt(progression()),
      progress: () => progressAt(slot.href, progression()),
      cancel: () => {
        window.removeEventListener('message', onMessage);
        cancelAnimationFrame(raf);
        live.ready = false;
      },
    };
    /** The last height the page said, once a frame: a book's script may say many, the stack lays out once a frame. */
    const apply = () => {
      raf = 0;
      if (pending === null || !frame.isConnected) return;
      const height = pending;
      pending = null;
      const before = frame.offsetHeight;
      const above = frame.offsetTop + before <= scroller.scrollTop + 1 && slot.href !== current.current;
      frame.style.height = `${height}px`;
      const first = !live.ready;
      if (first && slot.initial) {
        // the place asked for, held as a fraction (not where a stack still one chapter tall let the view go)
        live.show(slot.initial);
        pin.current = holdAt(progressionOf(slot.initial));
        placed.current = scroller.scrollTop;
      } else if (height !== before && !repinRef.current() && above) scroller.scrollTop += height - before;
      if (!first) return;
      live.ready = true;
      frame.style.visibility = 'visible';
      if (slot.href === latest.current.load.item.chapter_href && current.current === slot.href) {
        latest.current.onReady(null);
        const now = progressAt(slot.href, progression());
        reported.current = now.percentage;
        latest.current.callbacks.onProgress(now.percentage, now.locator);
      }
      planRef.current();
    };
    window.addEventListener('message', onMessage);
    lives.current.set(slot.href, live);
  }, []);

  /** A slot's frame mounted: its document written, laid out once its stylesheets are in, then placed or fitted. */
  const attach = useCallback((slot: Slot, frame: HTMLIFrameElement) => {
    const doc = frame.contentDocument;
    const win = frame.contentWindow;
    // (the frame's parent: a child's ref is set before its parent's, so scrollerRef may not be yet)
    const scroller = frame.parentElement;
    if (!doc || !win || !scroller) return;
    let cancelled = false;
    let observer: ResizeObserver | null = null;
    const live: Live = {
      frame,
      controller: null,
      ready: false,
      show: (at) => live.controller?.goToInitial(at),
      hold: () => {
        const range = live.controller?.place() ?? null;
        if (!range) return null;
        return () => {
          if (!live.controller || !range.startContainer.isConnected) return false;
          live.controller.reveal(range);
          return true;
        };
      },
      progress: () => (live.controller ? { percentage: live.controller.percentage(), locator: live.controller.locator() } : null),
      cancel: () => {
        cancelled = true;
        observer?.disconnect();
        live.controller?.destroy();
        live.controller = null;
        live.ready = false;
      },
    };
    lives.current.set(slot.href, live);
    const source = chapterSource(latest.current.bookId, slot.load);
    frame.style.height = '0px';
    doc.open();
    doc.write(documentOf(source, frame, latest.current.prefs));
    doc.close();
    // The frame's height is its text's; a frame above the one read that changes height moves the view with it.
    const fit = () => {
      const height = contentHeight(doc);
      const before = frame.offsetHeight;
      if (!height || height === before) return;
      const above = frame.offsetTop + before <= scroller.scrollTop + 1 && slot.href !== current.current;
      frame.style.height = `${height}px`;
      if (repinRef.current()) return;
      if (above) scroller.scrollTop += height - before;
    };
    const host: StackHost = { scroller, fit };
    void stylesheetsSettled(doc, win).then(async () => {
      if (cancelled || !doc.body) return;
      adaptBookStyles(doc, doc.getElementById(ROOT_ID));
      // the hyphenation the book asks for where the browser has none, before the chapter is laid out
      const hyphens = supplyBookHyphens(doc, doc.getElementById(ROOT_ID));
      if (hyphens) {
        await hyphens;
        if (cancelled || !doc.body) return;
      }
      if (source.rtl) keepTextDirection(doc);
      // Only the chapter read reports to the page (its position, its progress); every key and link goes through.
      const isRead = () => current.current === slot.href && latest.current.load.item.chapter_href === slot.href;
      const callbacks: FrameCallbacks = {
        onProgress: (pct, loc) => void (isRead() && latest.current.callbacks.onProgress(pct, loc)),
        // A turn past a chapter's edge goes on in the stack when there is more of it; at its ends, as in any book.
        onEdge: (dir) => {
          const list = slotsRef.current;
          const i = list.findIndex((s) => s.href === slot.href);
          const more = dir === 'next' ? i < list.length - 1 : i > 0;
          if (more) scroller.scrollBy({ top: (dir === 'next' ? 1 : -1) * (scroller.clientHeight - 48) });
          else if (!(dir === 'next' && lockedRef.current)) latest.current.callbacks.onEdge(dir);
        },
        onNavigate: (path) => latest.current.callbacks.onNavigate(path),
        onImage: (src, alt) => latest.current.callbacks.onImage(src, alt),
        onKey: (e) => latest.current.callbacks.onKey?.(e),
        onMiddleTap: () => latest.current.callbacks.onMiddleTap?.(),
        onExternalLink: (url) => latest.current.callbacks.onExternalLink?.(url),
      };
      const now = latest.current;
      const controller = new FrameController(frame, now.prefs, slot.href, now.bookId, now.readerPath, callbacks, null, host);
      controller.rtl = source.rtl === true;
      live.controller = controller;
      live.ready = true;
      if (slot.initial) {
        controller.goToInitial(slot.initial);
        pinAt(slot.href);
      } else controller.layOut();
      // The reader moving in this chapter lets go of a held place.
      for (const type of ['wheel', 'touchstart', 'keydown', 'mousedown'] as const) doc.addEventListener(type, letGo, { passive: true });
      // Images and late fonts change the text's height: the frame follows.
      observer = new (win as unknown as typeof window).ResizeObserver(() => fit());
      observer.observe(doc.body);
      frame.style.visibility = 'visible';
      if (slot.href === latest.current.load.item.chapter_href && current.current === slot.href) {
        now.onReady(controller);
      }
      planRef.current();
    });
  }, [letGo]);
  const attachRef = useRef(attach);
  attachRef.current = attach;
  const attachScriptedRef = useRef(attachScripted);
  attachScriptedRef.current = attachScripted;

  // One ref callback per chapter, kept, so a render does not write its document again.
  const refs = useRef(new Map<string, (el: HTMLIFrameElement | null) => void>());
  const refOf = (slot: Slot) => {
    let ref = refs.current.get(slot.href);
    if (!ref) {
      ref = (el) => {
        if (el) {
          const had = lives.current.get(slot.href);
          if (had?.frame === el) return;
          had?.cancel();
          if (slot.frame) attachScriptedRef.current(slot, el, slot.frame.origin);
          else attachRef.current(slot, el);
        } else {
          lives.current.get(slot.href)?.cancel();
          lives.current.delete(slot.href);
          refs.current.delete(slot.href);
        }
      };
      refs.current.set(slot.href, ref);
    }
    return ref;
  };

  // The view scrolled: plan again, once a frame.
  useEffect(() => {
    const scroller = scrollerRef.current;
    if (!scroller) return;
    let frame = 0;
    const onScroll = () => {
      // a scroll the view did not make while it held a place (a wheel over a scripted page, which the app never
      // sees): the reader's, who has the view from now on
      if (pin.current && placed.current !== null && latest.current.scripted && Math.abs(scroller.scrollTop - placed.current) > 2) letGo();
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        planRef.current();
      });
    };
    scroller.addEventListener('scroll', onScroll, { passive: true });
    const moves = ['wheel', 'touchstart', 'keydown', 'mousedown'] as const;
    for (const type of moves) scroller.addEventListener(type, letGo, { passive: true });
    const resized = new ResizeObserver(() => {
      // every frame laid out again at the new width, then the place put back in the one read
      const read = lives.current.get(current.current)?.controller;
      const place = read?.place() ?? null;
      for (const live of lives.current.values()) if (live.controller !== read) live.controller?.layOut();
      read?.layOut();
      if (!repinRef.current() && read && place) read.reveal(place);
    });
    resized.observe(scroller);
    return () => {
      scroller.removeEventListener('scroll', onScroll);
      for (const type of moves) scroller.removeEventListener(type, letGo);
      resized.disconnect();
      cancelAnimationFrame(frame);
    };
  }, [letGo]);

  // Settings change in place, in every chapter of the stack; the place is kept in the one read.
  // (by value: the page hands a new object with the same settings on many renders)
  const prefsKey = JSON.stringify(props.prefs);
  const firstPrefs = useRef(prefsKey);
  useEffect(() => {
    if (firstPrefs.current === prefsKey) return;
    firstPrefs.current = prefsKey;
    const read = lives.current.get(current.current)?.controller;
    for (const live of lives.current.values()) if (live.controller !== read) live.controller?.layOut(props.prefs);
    read?.applyPrefs(props.prefs);
    // (a scripted page takes the colours and size by message, and says its new height)
    for (const slot of slotsRef.current) if (slot.frame) lives.current.get(slot.href)?.frame.contentWindow?.postMessage(lookMessage(props.prefs), slot.frame.origin);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- by value (prefsKey)
  }, [prefsKey]);

  // A new slot (or fewer): plan again once it is laid out (attach does); a stack that lost slots plans now.
  useEffect(() => {
    planRef.current();
  }, [slots]);

  useEffect(
    () => () => {
      for (const live of lives.current.values()) live.cancel();
      latest.current.onReady(null);
    },
    [],
  );

  return (
    <div className={`chapter-view chapter-view--${props.prefs.pagination} chapter-stack`}>
      <div ref={scrollerRef} className="chapter-stack__scroller">
        {slots.length === 0 ? (
          <Centered>
            <Spinner size="lg" label="Loading chapter…" />
          </Centered>
        ) : null}
        {slots.map((slot) => {
          const read = slot.href === routeHref;
          if (slot.frame)
            return (
              <iframe
                key={slot.href}
                ref={refOf(slot)}
                // The chapter of the address is "the chapter frame" (tests, styles, the accessibility tree's name).
                className={`chapter-stack__frame chapter-stack__frame--scripted${read ? ' chapter-frame__iframe' : ''}`}
                data-href={slot.href}
                src={slot.frame.url}
                title={slot.load.item.chapter_label || slot.load.chapter.label || 'Chapter'}
                // Its own origin, not the app's: same-origin there means the book's own storage, never the reader's.
                sandbox="allow-scripts allow-same-origin"
                referrerPolicy="no-referrer"
                scrolling="no"
                tabIndex={0}
                style={{ visibility: 'hidden' }}
              />
            );
          return (
            <iframe
              key={slot.href}
              ref={refOf(slot)}
              // The chapter of the address is "the chapter frame" (tests, styles, the accessibility tree's name).
              className={`chapter-stack__frame${read ? ' chapter-frame__iframe chapter-view__frame' : ''}`}
              data-href={slot.href}
              title={slot.load.item.chapter_label || slot.load.chapter.label || 'Chapter'}
              sandbox={CHAPTER_FRAME_SANDBOX}
              // (it never scrolls itself: the wheel goes on to the stack)
              scrolling="no"
              // In the tab order, as a frame is anyway, said out loud: the scroller's keyboard way in is its chapters.
              tabIndex={0}
              style={{ visibility: 'hidden' }}
            />
          );
        })}
        {locked ? (
          <div className="chapter-stack__locked reader-message">
            <p className="reader-message__text" role="alert">
              {locked.message}
            </p>
            {locked.url ? (
              <Link className="btn btn--primary btn--lg" to={locked.url}>
                {locked.message === MESSAGES.signInToRead ? 'Sign in' : 'Go to the title'}
              </Link>
            ) : null}
            <Link className="reader-message__link" to={paths.titlePage(props.bookId)}>
              Back to the title
            </Link>
          </div>
        ) : null}
      </div>
    </div>
  );
}
