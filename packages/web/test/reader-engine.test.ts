import { DEFAULT_PREFERENCES, LIMITS, READER_LIMITS, type UsageEvent } from '@lectern/core';
import { describe, expect, it, vi } from 'vitest';
import type { UsageAck } from '../src/api/reader.ts';
import { buildChapterDocument, CHAPTER_CSP, htmlClasses, ROOT_ID, setReaderClasses, SETTINGS_STYLE_ID, settingsCss } from '../src/features/reader/engine/chapterDocument.ts';
import {
  classifySwipe,
  isVertical,
  isVerticalRl,
  keyTurn,
  pageAt,
  pageCount,
  pageForPercentage,
  pageIndex,
  pageOffset,
  pagedPercentage,
  scrollLeftForPercentage,
  scrollPercentage,
  SidewaysWheel,
  sidewaysScrollPercentage,
  tapZone,
  turnsRtl,
  turnTarget,
  verticalFlow,
} from '../src/features/reader/engine/paging.ts';
import { PositionStore, resolveInitialPosition } from '../src/shared/reading/position.ts';
import { loadPreferences, PREFERENCES_KEY, savePreferences, type PreferenceStores } from '../src/features/reader/engine/preferences.ts';
import { UsageQueue, type StorageLike } from '../src/shared/reading/usageQueue.ts';
import { UsageTracker } from '../src/shared/reading/usageTracker.ts';

/** A Storage that survives "reloads": new queue instances over the same map. */
function memoryStorage(): StorageLike & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, v),
    removeItem: (k) => void map.delete(k),
  };
}

let n = 0;
const event = (over: Partial<UsageEvent> = {}): UsageEvent => ({
  chapter: 'api/v1/book/b1/chapter/ch1.xhtml',
  start_percentage: 0,
  end_percentage: 10,
  client_timestamp: new Date(1_700_000_000_000 + n * 1000).toISOString(),
  usage_uuid: `uuid-${++n}`,
  ...over,
});

const acceptAll = async (events: UsageEvent[]): Promise<UsageAck> => ({ accepted: events.map((e) => e.usage_uuid), rejected: [] });

describe('usage queue', () => {
  it('validates every event before queueing and drops invalid ones', () => {
    const q = new UsageQueue({ userId: 'u1', storage: memoryStorage(), send: acceptAll });
    expect(q.enqueue(event())).toBe(true);
    expect(q.enqueue(event({ start_percentage: 5, end_percentage: 5 }))).toBe(false); // position unchanged
    expect(q.enqueue(event({ end_percentage: 101 }))).toBe(false);
    expect(q.enqueue({ ...event(), surprise: 1 })).toBe(false);
    expect(q.enqueue({ ...event(), chapter: null })).toBe(false);
    expect(q.enqueue(event({ is_offline: 'yes' as unknown as boolean }))).toBe(false);
    expect(q.pending()).toHaveLength(1);
  });

  it('sends in batches of at most 20 and removes what the server acknowledged', async () => {
    const storage = memoryStorage();
    const sizes: number[] = [];
    const send = vi.fn(async (events: UsageEvent[]) => {
      sizes.push(events.length);
      return acceptAll(events);
    });
    const q = new UsageQueue({ userId: 'u1', storage, send });
    for (let i = 0; i < 45; i++) q.enqueue(event());
    const r = await q.flush();
    expect(sizes).toEqual([20, 20, 5]);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(LIMITS.maxEventsPerRequest);
    expect(r.acknowledged).toBe(45);
    expect(q.pending()).toEqual([]);
  });

  it('forgets rejected events too (the server will never take them) but keeps unacknowledged ones', async () => {
    const q = new UsageQueue({
      userId: 'u1',
      storage: memoryStorage(),
      send: async (events) => ({ accepted: [events[0]!.usage_uuid], rejected: [{ index: 1, usage_uuid: events[1]!.usage_uuid, reason: 'no' }] }),
    });
    q.enqueue(event());
    q.enqueue(event());
    const third = event();
    q.enqueue(third);
    await q.flush();
    expect(q.pending().map((e) => e.usage_uuid)).toEqual([third.usage_uuid]);
  });

  it('marks events is_offline when a sync fails, keeps them across a reload and sends them later', async () => {
    const storage = memoryStorage();
    const failing = new UsageQueue({ userId: 'u1', storage, send: async () => Promise.reject(new Error('offline')), onError: () => {} });
    for (let i = 0; i < 25; i++) failing.enqueue(event());
    const r = await failing.flush();
    expect(r.failed).toBe(25);
    expect(failing.pending()).toHaveLength(25);
    expect(failing.pending().every((e) => e.is_offline === true)).toBe(true);

    // A reload: a new instance over the same storage finds them all and sends them.
    const received: UsageEvent[] = [];
    const again = new UsageQueue({
      userId: 'u1',
      storage,
      send: async (events) => {
        received.push(...events);
        return acceptAll(events);
      },
    });
    expect(again.pending()).toHaveLength(25);
    await again.flush();
    expect(received).toHaveLength(25);
    expect(received.every((e) => e.is_offline === true)).toBe(true);
    expect(new Set(received.map((e) => e.usage_uuid)).size).toBe(25);
    expect(again.pending()).toEqual([]);
  });

  it('keeps each user’s events apart and ignores garbage in storage', () => {
    const storage = memoryStorage();
    const a = new UsageQueue({ userId: 'a', storage, send: acceptAll });
    const b = new UsageQueue({ userId: 'b', storage, send: acceptAll });
    a.enqueue(event());
    expect(b.pending()).toEqual([]);
    storage.setItem(b.key, '[{"chapter":1}, "x", null]');
    expect(b.pending()).toEqual([]);
  });

  it('does not store the same uuid twice', () => {
    const q = new UsageQueue({ userId: 'u1', storage: memoryStorage(), send: acceptAll });
    const e = event();
    q.enqueue(e);
    q.enqueue({ ...e });
    expect(q.pending()).toHaveLength(1);
  });
});

describe('usage tracker', () => {
  function setup() {
    const storage = memoryStorage();
    const queue = new UsageQueue({ userId: 'u1', storage, send: acceptAll });
    vi.spyOn(queue, 'flush').mockResolvedValue({ sent: 0, acknowledged: 0, failed: 0 });
    let now = 1_700_000_000_000;
    let id = 0;
    const tracker = new UsageTracker({ queue, userId: 'u1', storage, now: () => now, uuid: () => `t-${++id}` });
    return { queue, tracker, storage, advance: (ms: number) => (now += ms) };
  }

  it('throttles reading to the 15 s interval and logs the interval', () => {
    const { queue, tracker, advance } = setup();
    tracker.newChapter('api/v1/book/b1/chapter/c1');
    tracker.newStart(10);
    tracker.reading(20);
    advance(5_000);
    tracker.reading(30);
    expect(queue.pending()).toHaveLength(0);
    advance(10_000);
    tracker.reading(40);
    expect(queue.pending().map((e) => [e.start_percentage, e.end_percentage])).toEqual([[10, 40]]);
  });

  it('logs the end when leaving, clamps to 0-100 and marks completion when the available percentage runs out', () => {
    const { queue, tracker } = setup();
    const ch = 'api/v1/book/b1/chapter/c1';
    tracker.newChapter(ch);
    tracker.leave(60);
    tracker.newChapter(ch);
    tracker.leave(130); // clamped to 100: span 100, 60 + 100 > 100 -> complete
    const events = queue.pending();
    expect(events.map((e) => [e.start_percentage, e.end_percentage, e.usage_is_complete])).toEqual([
      [0, 60, false],
      [0, 100, true],
    ]);
    expect(tracker.available(ch)).toBe(-60);
  });

  it('logs nothing when the position has not changed', () => {
    const { queue, tracker } = setup();
    tracker.newChapter('api/v1/book/b1/chapter/c1');
    tracker.newStart(50);
    tracker.leave(50);
    expect(queue.pending()).toEqual([]);
  });

  it('leaving for a new chapter logs the old chapter first', () => {
    const { queue, tracker } = setup();
    tracker.newChapter('api/v1/book/b1/chapter/c1');
    tracker.reading(80);
    tracker.newChapter('api/v1/book/b1/chapter/c2');
    expect(queue.pending().map((e) => e.chapter)).toEqual(['api/v1/book/b1/chapter/c1']);
  });
});

describe('preferences', () => {
  function stores(): PreferenceStores & { jar: string[] } {
    const storage = memoryStorage();
    const jar: string[] = [];
    return { storage, jar, cookies: { get: () => jar.map((c) => c.split(';')[0]).join('; '), set: (c) => void jar.push(c) } };
  }

  it('defaults to day mode, scroll, font size 1 and column width 65', () => {
    const p = loadPreferences(stores());
    expect(p).toEqual(DEFAULT_PREFERENCES.brightness === 255 ? { ...DEFAULT_PREFERENCES, brightness: p.brightness } : DEFAULT_PREFERENCES);
    expect(p.reading_mode).toBe('day-mode');
    expect(p.pagination).toBe('scroll');
    expect(p.column_width).toBe(65);
  });

  it('persists in local storage (everything) and the cookie (the four fields, 365 days)', () => {
    const s = stores();
    savePreferences({ ...DEFAULT_PREFERENCES, reading_mode: 'night-mode', font_size: 1.3, pagination: 'page', zoom_factor: 2, brightness: 150 }, s);
    const stored = JSON.parse(s.storage!.getItem(PREFERENCES_KEY)!);
    expect(stored).toMatchObject({ reading_mode: 'night-mode', font_size: 1.3, pagination: 'page', zoom_factor: 2, brightness: 150 });
    const cookie = s.jar.at(-1)!;
    expect(cookie).toMatch(/^reader_preferences=/);
    expect(cookie).toContain(`Max-Age=${365 * 24 * 3600}`);
    const value = JSON.parse(decodeURIComponent(cookie.split(';')[0]!.slice('reader_preferences='.length)));
    expect(Object.keys(value).sort()).toEqual(['column_width', 'font_name', 'font_size', 'reading_mode']);
    // "reload"
    expect(loadPreferences(s)).toMatchObject({ reading_mode: 'night-mode', font_size: 1.3, pagination: 'page', zoom_factor: 2, brightness: 150 });
  });

  it('falls back to the cookie when local storage is empty, and clamps whatever it finds', () => {
    const s = stores();
    s.jar.push(`reader_preferences=${encodeURIComponent(JSON.stringify({ font_size: 9, column_width: 3, reading_mode: 'cloudy-mode' }))}`);
    const p = loadPreferences(s);
    expect(p.font_size).toBe(READER_LIMITS.fontSize.max);
    expect(p.column_width).toBe(READER_LIMITS.columnWidth.min);
    expect(p.reading_mode).toBe('cloudy-mode');
    s.storage!.setItem(PREFERENCES_KEY, JSON.stringify({ zoom_factor: 0.1, brightness: 7, pagination: 'sideways', reading_mode: 'neon' }));
    const q = loadPreferences(s);
    expect(q.zoom_factor).toBe(READER_LIMITS.zoom.min);
    expect(q.brightness).toBe(READER_LIMITS.brightness.min);
    expect(q.pagination).toBe('scroll');
    expect(q.reading_mode).toBe('cloudy-mode'); // the invalid stored value falls back, the cookie's stands
  });

  it('survives broken JSON', () => {
    const s = stores();
    s.storage!.setItem(PREFERENCES_KEY, '{oops');
    expect(loadPreferences(s).font_size).toBe(1);
  });
});

describe('initial position priority (reader.md §4)', () => {
  const stored = { href: 'c1', progression: 0.4 };
  it('1. the URL hash wins over everything', () => {
    expect(resolveInitialPosition({ hash: '#sec%202', comingBack: true, stored, topPercentage: 70 })).toEqual({ kind: 'anchor', id: 'sec 2' });
  });
  it('2. the end of the chapter when coming back from the next one', () => {
    expect(resolveInitialPosition({ hash: '', comingBack: true, stored, topPercentage: 70 })).toEqual({ kind: 'end' });
  });
  it('3. the stored position', () => {
    expect(resolveInitialPosition({ stored, topPercentage: 70 })).toEqual({ kind: 'stored', locator: stored });
  });
  it('4. top_percentage, clamped', () => {
    expect(resolveInitialPosition({ topPercentage: 70 })).toEqual({ kind: 'percentage', value: 70 });
    expect(resolveInitialPosition({ topPercentage: 170 })).toEqual({ kind: 'percentage', value: 100 });
    expect(resolveInitialPosition({})).toEqual({ kind: 'percentage', value: 0 });
  });
  it('stores positions per book and chapter', () => {
    const s = new PositionStore(memoryStorage());
    s.set('b1', { href: 'c1', progression: 0.25, text: { before: 'a', highlight: 'b', after: 'c' } });
    s.set('b2', { href: 'c1', progression: 1.5 });
    expect(s.get('b1', 'c1')).toEqual({ href: 'c1', progression: 0.25, text: { before: 'a', highlight: 'b', after: 'c' } });
    expect(s.get('b2', 'c1')?.progression).toBe(1);
    expect(s.get('b1', 'c2')).toBeNull();
  });
});

describe('paging math', () => {
  it('counts pages without an extra one for rounding', () => {
    expect(pageCount(1000, 1000)).toBe(1);
    expect(pageCount(1001, 1000)).toBe(1);
    expect(pageCount(3000, 1000)).toBe(3);
    expect(pageCount(3500, 1000)).toBe(4);
    expect(pageCount(0, 1000)).toBe(1);
  });
  it('maps offsets, pages and percentages both ways', () => {
    expect(pageIndex(2000, 1000, 5)).toBe(2);
    expect(pageIndex(2400, 1000, 5)).toBe(2);
    expect(pageIndex(99_000, 1000, 5)).toBe(4);
    expect(pageOffset(3, 375)).toBe(1125);
    expect(pagedPercentage(0, 5)).toBe(0);
    expect(pagedPercentage(4, 5)).toBe(100);
    expect(pagedPercentage(0, 1)).toBe(100);
    for (let i = 0; i < 9; i++) expect(pageForPercentage(pagedPercentage(i, 9), 9)).toBe(i);
    expect(scrollPercentage(0, 5000, 800)).toBe(0);
    expect(scrollPercentage(4200, 5000, 800)).toBe(100);
    expect(scrollPercentage(2100, 5000, 800)).toBe(50);
  });
  it('turns into the neighbouring chapters past either end', () => {
    expect(turnTarget(0, 3, 'next')).toEqual({ page: 1 });
    expect(turnTarget(2, 3, 'next')).toEqual({ chapter: 'next' });
    expect(turnTarget(0, 3, 'prev')).toEqual({ chapter: 'prev' });
    expect(turnTarget(1, 3, 'prev')).toEqual({ page: 0 });
  });
  it('swipes: 60 px horizontal, under 20 px vertical', () => {
    expect(classifySwipe(-60, 0)).toBe('next');
    expect(classifySwipe(80, 10)).toBe('prev');
    expect(classifySwipe(-59, 0)).toBeNull();
    expect(classifySwipe(-100, 20)).toBeNull();
  });
  it('a sideways wheel gesture is judged as a swipe over its whole length, and turns once', () => {
    // a trackpad's swipe, fingers moving left (deltaX > 0), in 20 px steps 16 ms apart: on at the third step
    const wheel = new SidewaysWheel();
    expect(wheel.step(20, 0, 0)).toBeNull();
    expect(wheel.step(20, 1, 16)).toBeNull();
    expect(wheel.step(20, 1, 32)).toBe('next');
    // its momentum runs on (into the next chapter): no second turn until a pause ends the gesture
    for (let t = 48; t < 1000; t += 16) expect(wheel.step(30, 0, t)).toBeNull();
    expect(wheel.step(-70, 0, 1000 + 301)).toBe('prev');
    // mirrored in a right-to-left book
    expect(wheel.step(70, 0, 2000, true)).toBe('prev');
    expect(wheel.step(-70, 0, 3000, true)).toBe('next');
  });
  it('a sideways wheel does not turn on a vertical scroll drifting sideways, nor on a gesture something else scrolled', () => {
    const wheel = new SidewaysWheel();
    // 400 px down drifting 80 px sideways, then sideways: all one gesture, too far down to be a swipe
    expect(wheel.step(40, 200, 0)).toBeNull();
    expect(wheel.step(40, 200, 16)).toBeNull();
    expect(wheel.step(100, 0, 32)).toBeNull();
    // a gesture that began over a code block still able to scroll that way is the block's, to its end
    wheel.taken(1000);
    expect(wheel.step(100, 0, 1016)).toBeNull();
    // short of 60 px, or a pause between two short moves: no turn
    expect(wheel.step(50, 0, 2000)).toBeNull();
    expect(wheel.step(50, 0, 2000 + 301)).toBeNull();
    expect(wheel.step(10, 0, 2000 + 310)).toBe('next');
  });
  it('tap zones: left and right 40% of the width', () => {
    expect(tapZone(10, 1000)).toBe('prev');
    expect(tapZone(399, 1000)).toBe('prev');
    expect(tapZone(500, 1000)).toBeNull();
    expect(tapZone(601, 1000)).toBe('next');
  });
  it('keys', () => {
    expect(keyTurn('ArrowRight')).toBe('next');
    expect(keyTurn('ArrowLeft')).toBe('prev');
    expect(keyTurn(' ')).toBe('next');
    expect(keyTurn(' ', true)).toBe('prev');
    expect(keyTurn('x')).toBeNull();
  });
  it('a right-to-left book (page-progression-direction rtl): taps, swipes and arrows turn the other way', () => {
    expect(tapZone(10, 1000, true)).toBe('next');
    expect(tapZone(900, 1000, true)).toBe('prev');
    expect(tapZone(500, 1000, true)).toBeNull();
    expect(classifySwipe(80, 0, true)).toBe('next');
    expect(classifySwipe(-80, 0, true)).toBe('prev');
    expect(keyTurn('ArrowLeft', false, true)).toBe('next');
    expect(keyTurn('ArrowRight', false, true)).toBe('prev');
    // Page Down and the space bar mean "onward" whichever way the book goes
    expect(keyTurn('PageDown', false, true)).toBe('next');
    expect(keyTurn(' ', false, true)).toBe('next');
  });
  it('a right-to-left column strip: offsets run from 0 to negative, page 0 at the right', () => {
    // 4 pages of 800 px: scrollLeft 0 shows page 0, -800 page 1, ... -2400 page 3
    expect(pageOffset(0, 800, true)).toBe(0);
    expect(Object.is(pageOffset(0, 800, true), -0)).toBe(false);
    expect(pageOffset(1, 800, true)).toBe(-800);
    expect(pageOffset(3, 800, true)).toBe(-2400);
    expect(pageOffset(-2, 800, true)).toBe(0);
    expect(pageIndex(0, 800, 4, true)).toBe(0);
    expect(pageIndex(-800, 800, 4, true)).toBe(1);
    expect(pageIndex(-1150, 800, 4, true)).toBe(1); // mid-slide: the nearer page
    expect(pageIndex(-1250, 800, 4, true)).toBe(2);
    expect(pageIndex(-99_000, 800, 4, true)).toBe(3);
    expect(pageIndex(500, 800, 4, true)).toBe(0);
    for (let i = 0; i < 4; i++) expect(pageIndex(pageOffset(i, 800, true), 800, 4, true)).toBe(i);
    // a left-to-right strip is as before
    for (let i = 0; i < 4; i++) expect(pageIndex(pageOffset(i, 800), 800, 4)).toBe(i);
  });
  it('finds the page of a point on screen in either direction, wherever the view is', () => {
    const w = 390;
    const count = 6;
    for (const rtl of [false, true]) {
      for (let view = 0; view < count; view++) {
        const scrollLeft = pageOffset(view, w, rtl);
        for (let page = 0; page < count; page++) {
          // where a glyph 30 px into the column of `page` is on screen with `view` in the viewport: pages after the
          // one in view are to its right (ltr) or to its left (rtl)
          const shift = (page - view) * w * (rtl ? -1 : 1);
          const x = shift + (rtl ? w - 30 - 12 : 30);
          expect(pageAt(scrollLeft, x + 1, w, count, rtl), `rtl ${rtl} view ${view} page ${page}`).toBe(page);
        }
      }
    }
    // the ltr arithmetic the reader used before: floor((scrollLeft + left + 1) / width)
    expect(pageAt(800, 81, 800, 4)).toBe(Math.floor((800 + 81) / 800));
    // out of the strip: clamped to its pages
    expect(pageAt(0, 5000, 800, 4, true)).toBe(0);
    expect(pageAt(0, -5000, 800, 4, true)).toBe(3);
  });
  it('lays a right-to-left book out right to left in paged mode only', () => {
    const prefs = DEFAULT_PREFERENCES;
    expect(htmlClasses(prefs, { pagination: 'page', pageWidth: 800, rtl: true }).split(' ')).toContain('lectern-rtl');
    expect(htmlClasses(prefs, { pagination: 'scroll', pageWidth: 800, rtl: true }).split(' ')).not.toContain('lectern-rtl');
    expect(htmlClasses(prefs, { pagination: 'page', pageWidth: 800 }).split(' ')).not.toContain('lectern-rtl');
    expect(htmlClasses(prefs, { pagination: 'page', pageWidth: 800, rtl: false })).toBe(htmlClasses(prefs, { pagination: 'page', pageWidth: 800 }));
  });
  it('lays a chapter in vertical-rl writing out as vertical, never as a right-to-left strip', () => {
    const prefs = DEFAULT_PREFERENCES;
    for (const pagination of ['page', 'scroll'] as const) {
      const classes = htmlClasses(prefs, { pagination, pageWidth: 800, rtl: true, vertical: true }).split(' ');
      expect(classes).toContain('lectern-vertical');
      expect(classes).not.toContain('lectern-rtl');
    }
    // a horizontal chapter's classes are what they were
    expect(htmlClasses(prefs, { pagination: 'page', pageWidth: 800, rtl: true, vertical: false })).toBe(htmlClasses(prefs, { pagination: 'page', pageWidth: 800, rtl: true }));
    expect(htmlClasses(prefs, { pagination: 'page', pageWidth: 800, vertical: false }).split(' ')).not.toContain('lectern-vertical');
    // the page height of a vertical chapter's columns: the frame's, else the viewport's
    expect(settingsCss(prefs, { pagination: 'page', pageWidth: 390, pageHeight: 700.6, vertical: true })).toContain('--lectern-page-height: 700px;');
    expect(settingsCss(prefs, { pagination: 'page', pageWidth: 390 })).toContain('--lectern-page-height: 100vh;');
  });
  it('recognises vertical-rl writing from the computed writing-mode only', () => {
    expect(isVerticalRl('vertical-rl')).toBe(true);
    expect(isVerticalRl('sideways-rl')).toBe(true);
    for (const mode of ['horizontal-tb', 'vertical-lr', 'sideways-lr', '', null, undefined]) expect(isVerticalRl(mode)).toBe(false);
    // taps, swipes and arrows: right to left for an rtl book or a vertical chapter
    expect(turnsRtl(false, false)).toBe(false);
    expect(turnsRtl(true, false)).toBe(true);
    expect(turnsRtl(false, true)).toBe(true);
    expect(tapZone(10, 400, turnsRtl(false, true))).toBe('next');
    expect(keyTurn('ArrowLeft', false, turnsRtl(false, true))).toBe('next');
    expect(classifySwipe(80, 0, turnsRtl(false, true))).toBe('next');
  });
  it('pages a vertical chapter downwards: scrollTop by the frame height, a point found by its y', () => {
    // pages stack downwards, one frame high: the same left-to-right arithmetic on the other axis
    const h = 700;
    const count = pageCount(3 * h + 1, h);
    expect(count).toBe(3);
    expect(pageOffset(2, h)).toBe(1400);
    expect(pageIndex(1400, h, count)).toBe(2);
    // the first line of page 2 (its top 32 px down the frame), the viewport at page 1 or page 3
    expect(pageAt(0, h + 32 + 1, h, count)).toBe(1);
    expect(pageAt(2 * h, -h + 32 + 1, h, count)).toBe(1);
  });
  it('scrolls a vertical chapter sideways from its right end', () => {
    // scrollLeft 0 is the start (the right end); the left end is -(scrollWidth - clientWidth)
    expect(sidewaysScrollPercentage(0, 4000, 1000)).toBe(0);
    expect(sidewaysScrollPercentage(-3000, 4000, 1000)).toBe(100);
    expect(sidewaysScrollPercentage(-1500, 4000, 1000)).toBeCloseTo(50);
    expect(sidewaysScrollPercentage(0, 1000, 1000)).toBe(100);
    expect(scrollLeftForPercentage(0, 4000, 1000)).toBe(0);
    expect(Object.is(scrollLeftForPercentage(0, 4000, 1000), -0)).toBe(false);
    expect(scrollLeftForPercentage(50, 4000, 1000)).toBe(-1500);
    expect(scrollLeftForPercentage(100, 4000, 1000)).toBe(-3000);
    for (const pct of [0, 12.5, 50, 99, 100]) expect(sidewaysScrollPercentage(scrollLeftForPercentage(pct, 4000, 1000), 4000, 1000)).toBeCloseTo(pct);
  });
});

describe('vertical-lr and sideways writing', () => {
  it('tells the four vertical writing modes apart by how their lines and pages run', () => {
    // lines right to left, pages downwards
    expect(verticalFlow('vertical-rl', 'ltr')).toEqual({ lr: false, upward: false });
    expect(verticalFlow('sideways-rl', 'ltr')).toEqual({ lr: false, upward: false });
    // lines left to right (Mongolian), pages downwards
    expect(verticalFlow('vertical-lr', 'ltr')).toEqual({ lr: true, upward: false });
    expect(verticalFlow('vertical-lr')).toEqual({ lr: true, upward: false });
    // lines left to right, read bottom to top: the strip of pages runs upwards
    expect(verticalFlow('sideways-lr', 'ltr')).toEqual({ lr: true, upward: true });
    // a right-to-left direction turns the inline direction, and with it the strip, round
    expect(verticalFlow('vertical-rl', 'rtl')).toEqual({ lr: false, upward: true });
    expect(verticalFlow('vertical-lr', 'rtl')).toEqual({ lr: true, upward: true });
    expect(verticalFlow('sideways-lr', 'rtl')).toEqual({ lr: true, upward: false });
    for (const mode of ['horizontal-tb', '', null, undefined, 'tb-rl']) expect(verticalFlow(mode, 'ltr')).toBeNull();
    for (const mode of ['vertical-rl', 'vertical-lr', 'sideways-rl', 'sideways-lr']) expect(isVertical(mode)).toBe(true);
    for (const mode of ['horizontal-tb', '', null, undefined]) expect(isVertical(mode)).toBe(false);
    // isVerticalRl still means lines read right to left only
    expect(isVerticalRl('vertical-lr')).toBe(false);
  });
  it('turns a left-to-right vertical chapter the way the book turns: the right arrow on, unless the book is rtl', () => {
    const lr = verticalFlow('vertical-lr', 'ltr')!;
    const inputRtl = (bookRtl: boolean) => turnsRtl(bookRtl, !lr.lr);
    expect(inputRtl(false)).toBe(false);
    expect(keyTurn('ArrowRight', false, inputRtl(false))).toBe('next');
    expect(keyTurn('ArrowLeft', false, inputRtl(false))).toBe('prev');
    expect(tapZone(390, 400, inputRtl(false))).toBe('next');
    expect(classifySwipe(-80, 0, inputRtl(false))).toBe('next');
    // in a book whose pages turn right to left the left arrow goes on, as in its other chapters
    expect(keyTurn('ArrowLeft', false, inputRtl(true))).toBe('next');
    expect(tapZone(10, 400, inputRtl(true))).toBe('next');
    // a vertical-rl chapter turns right to left whatever the book says
    expect(turnsRtl(false, !verticalFlow('vertical-rl')!.lr)).toBe(true);
    expect(turnsRtl(false, !verticalFlow('sideways-rl')!.lr)).toBe(true);
    expect(turnsRtl(false, !verticalFlow('sideways-lr')!.lr)).toBe(false);
  });
  it('pages a vertical-lr chapter downwards like a vertical-rl one', () => {
    const h = 844;
    const count = pageCount(4 * h, h);
    expect(count).toBe(4);
    expect(pageOffset(3, h, false)).toBe(3 * h);
    expect(pageIndex(h, h, count, false)).toBe(1);
    // page 3's first glyph (32 px down the frame), seen from page 1
    expect(pageAt(0, 2 * h + 33, h, count, false)).toBe(2);
    expect(pagedPercentage(pageIndex(pageOffset(2, h), h, count), count)).toBeCloseTo(200 / 3);
  });
  it('pages a sideways-lr chapter upwards: page 0 at the bottom, negative scrollTop, a point found by its y', () => {
    const h = 600;
    const upward = verticalFlow('sideways-lr', 'ltr')!.upward;
    const count = pageCount(5 * h, h);
    expect(count).toBe(5);
    // the strip's start is the bottom of page 0; the next page is above it, scrolled to -600
    expect(pageOffset(0, h, upward)).toBe(0);
    expect(Object.is(pageOffset(0, h, upward), -0)).toBe(false);
    expect(pageOffset(1, h, upward)).toBe(-600);
    expect(pageOffset(4, h, upward)).toBe(-2400);
    expect(pageIndex(-1200, h, count, upward)).toBe(2);
    expect(pageIndex(-1190, h, count, upward)).toBe(2);
    expect(pageIndex(0, h, count, upward)).toBe(0);
    // a line's first glyph near the bottom of page 0 (y 560), then of page 1 seen from page 0 (y -40) and from page 2
    expect(pageAt(0, 560, h, count, upward)).toBe(0);
    expect(pageAt(0, -40, h, count, upward)).toBe(1);
    expect(pageAt(-1200, 560 + h, h, count, upward)).toBe(1);
    // the last page and its percentage, and back
    expect(pageIndex(pageOffset(pageForPercentage(100, count), h, upward), h, count, upward)).toBe(4);
    for (const page of [0, 1, 2, 3, 4]) expect(pageIndex(pageOffset(page, h, upward), h, count, upward)).toBe(page);
  });
  it('scrolls a left-to-right vertical chapter sideways from its left end', () => {
    expect(sidewaysScrollPercentage(0, 4000, 1000, true)).toBe(0);
    expect(sidewaysScrollPercentage(3000, 4000, 1000, true)).toBe(100);
    expect(sidewaysScrollPercentage(1500, 4000, 1000, true)).toBeCloseTo(50);
    expect(sidewaysScrollPercentage(0, 1000, 1000, true)).toBe(100);
    expect(scrollLeftForPercentage(0, 4000, 1000, true)).toBe(0);
    expect(scrollLeftForPercentage(25, 4000, 1000, true)).toBe(750);
    expect(scrollLeftForPercentage(100, 4000, 1000, true)).toBe(3000);
    for (const pct of [0, 12.5, 50, 99, 100]) expect(sidewaysScrollPercentage(scrollLeftForPercentage(pct, 4000, 1000, true), 4000, 1000, true)).toBeCloseTo(pct);
    // the right-to-left one is unchanged
    expect(scrollLeftForPercentage(25, 4000, 1000)).toBe(-750);
    expect(sidewaysScrollPercentage(-750, 4000, 1000, false)).toBeCloseTo(25);
  });
  it('lays a vertical-lr chapter out as vertical, never as a right-to-left strip, in an rtl book too', () => {
    for (const pagination of ['page', 'scroll'] as const) {
      const classes = htmlClasses(DEFAULT_PREFERENCES, { pagination, pageWidth: 390, rtl: true, vertical: true, pageHeight: 700 }).split(' ');
      expect(classes).toContain('lectern-vertical');
      expect(classes).not.toContain('lectern-rtl');
    }
  });
});

describe('chapter document', () => {
  const doc = () =>
    new DOMParser().parseFromString(
      buildChapterDocument({
        html: '<h2>Down the Rabbit-Hole</h2><p>Alice</p>',
        label: 'Chapter <1>',
        stylesheets: ['/api/v1/book/b1/chapter/style.css'],
        baseHref: 'http://x.test/api/v1/book/b1/chapter/OEBPS/ch1.xhtml',
        prefs: { ...DEFAULT_PREFERENCES, reading_mode: 'night-mode', font_size: 1.2 },
        layout: { pagination: 'page', pageWidth: 375 },
      }),
      'text/html',
    );
  it('has the base, a CSP forbidding scripts, the book stylesheets before ours and one settings style', () => {
    const d = doc();
    expect(d.querySelector('base')?.getAttribute('href')).toBe('http://x.test/api/v1/book/b1/chapter/OEBPS/ch1.xhtml');
    const csp = d.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content');
    expect(csp).toBe(CHAPTER_CSP);
    expect(csp).toContain("script-src 'none'");
    expect(d.querySelectorAll(`#${SETTINGS_STYLE_ID}`)).toHaveLength(1);
    expect(d.getElementById(SETTINGS_STYLE_ID)?.textContent).toContain('--lectern-font-size: 1.2');
    expect(d.getElementById(SETTINGS_STYLE_ID)?.textContent).toContain('--lectern-page: 375px');
    expect(d.documentElement.className).toContain('lectern-paged');
    expect(d.documentElement.className).toContain('night-mode');
    expect(d.getElementById(ROOT_ID)?.querySelector('h2')?.textContent).toBe('Down the Rabbit-Hole');
    // The layer order comes before the book's sheets (a layer is ordered where it is first named), then ours.
    const order = Array.from(d.head.children).map((el) => (el.tagName === 'STYLE' ? `STYLE:${(el.textContent ?? '').trim().slice(0, 22)}` : el.tagName));
    expect(order.indexOf('STYLE:@layer lectern, book;')).toBeGreaterThanOrEqual(0);
    expect(order.indexOf('STYLE:@layer lectern, book;')).toBeLessThan(order.indexOf('LINK'));
    expect(order.findIndex((tag) => tag.startsWith('STYLE:@layer lectern {'))).toBeGreaterThan(order.indexOf('LINK'));
  });

  it("puts the book's own html and body attributes on the frame's, and keeps them when the reader's classes change", () => {
    const d = new DOMParser().parseFromString(
      buildChapterDocument({
        html: '<p>本文</p>',
        label: '縦書き',
        stylesheets: [],
        baseHref: 'http://x.test/api/v1/book/b1/chapter/ch1.xhtml',
        prefs: DEFAULT_PREFERENCES,
        layout: { pagination: 'page', pageWidth: 375 },
        root: { html: { class: 'vrtl', id: 'top', style: 'writing-mode: vertical-rl' }, body: { class: 'p-text "x"', id: 'b' } },
      }),
      'text/html',
    );
    const html = d.documentElement;
    expect(html.classList.contains('vrtl')).toBe(true);
    expect(html.classList.contains('lectern-paged')).toBe(true);
    expect(html.id).toBe('top');
    expect(html.getAttribute('style')).toBe('writing-mode: vertical-rl');
    expect(d.body.className).toBe('p-text "x"'); // escaped into the attribute, read back whole
    expect(d.body.id).toBe('b');
    html.classList.add('-epub-media-overlay-playing'); // what read aloud sets there
    setReaderClasses(html, htmlClasses({ ...DEFAULT_PREFERENCES, reading_mode: 'night-mode' }, { pagination: 'scroll', pageWidth: 375, vertical: true }));
    const classes = html.className.split(' ');
    expect(classes).toEqual(expect.arrayContaining(['lectern-scroll', 'lectern-vertical', 'night-mode', 'vrtl', '-epub-media-overlay-playing']));
    expect(classes).not.toContain('lectern-paged');
    expect(classes).not.toContain('day-mode');
  });
});

describe('coming back to a book', () => {
  it('finds the chapter of that book read most recently in this browser', () => {
    const store = new PositionStore(memoryStorage());
    expect(store.latestHref('b1')).toBeNull();
    store.set('b1', { href: 'ch01.xhtml', progression: 0.4 }, 1000);
    store.set('b2', { href: 'other.xhtml', progression: 0.1 }, 3000);
    store.set('b1', { href: 'ch07.xhtml', progression: 0.05 }, 2000);
    expect(store.latestHref('b1')).toBe('ch07.xhtml');
    store.set('b1', { href: 'ch01.xhtml', progression: 0.6 }, 4000);
    expect(store.latestHref('b1')).toBe('ch01.xhtml');
    expect(store.latestHref('b')).toBeNull();
  });
});
