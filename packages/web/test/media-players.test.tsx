/**
 * The media players (docs/decisions.md "Media players"): the rules of reader.md §4 "Video", §5, §9 (mediaTime.ts),
 * usage intervals into the real usage queue and its validator (mediaUsage.ts), the video session with its retries and
 * the 90 s refresh throttle (api/media.ts, useMediaSession.ts), and the screens rendered in the DOM against answers
 * shaped as the server's: the header, the session's src, "Forbidden" with the preview, the timeout's sentences, the
 * visitor's preview without a session, the transcript that seeks, and the audiobook's controls and sleep timer.
 *
 * jsdom plays no media: the element is real, and the events a browser fires as it plays are dispatched on it (the
 * e2e suite plays real files in Chromium).
 */
import { MEDIA_MESSAGES, READER_CONSTANTS, validateUsageEvent, type BookDetail, type ChapterContent } from '@lectern/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, renderHook, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { getMediaSession, SESSION_ATTEMPTS } from '../src/api/media.ts';
import { MediaPage } from '../src/features/media/MediaPage.tsx';
import { activeCue, constrain, openAtOf, parseTranscript, playRange, resumeAt, textParagraphs, usageSpans } from '../src/features/media/mediaTime.ts';
import { MediaUsage } from '../src/features/media/mediaUsage.ts';
import { useMediaSession } from '../src/features/media/useMediaSession.ts';
import { UsageQueue, type StorageLike } from '../src/shared/reading/usageQueue.ts';
import { profile } from './fixtures.ts';
import { flush, json, stubFetch, type Call } from './helpers.tsx';

function memoryStorage(): StorageLike & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return { map, getItem: (k) => map.get(k) ?? null, setItem: (k, v) => void map.set(k, v), removeItem: (k) => void map.delete(k) };
}

describe('the players’ rules', () => {
  it('reads start and stop from the address (seconds or h:mm:ss) and keeps the playhead inside them', () => {
    expect(playRange('?start=30&stop=1:30')).toEqual({ start: 30, stop: 90 });
    expect(playRange('?start=0:01:05')).toEqual({ start: 65, stop: null });
    expect(playRange('?start=50&stop=40')).toEqual({ start: 50, stop: null });
    expect(playRange('?start=abc')).toEqual({ start: 0, stop: null });
    const r = { start: 30, stop: 90 };
    expect(constrain(10, r)).toBe('seek-start');
    expect(constrain(45, r)).toBeNull();
    expect(constrain(90, r)).toBe('stop');
  });

  it('reads a search hit’s second from ?t= (seconds or h:mm:ss), null without one', () => {
    expect(openAtOf('?q=rocks&t=2')).toBe(2);
    expect(openAtOf('?t=12.5')).toBe(12.5);
    expect(openAtOf('?t=1:02:05')).toBe(3725);
    expect(openAtOf('?q=rocks')).toBeNull();
    expect(openAtOf('?t=abc')).toBeNull();
  });

  it('resumes only at a saved position of at least 15 s, not at the end, and inside the range', () => {
    const all = { start: 0, stop: null };
    expect(READER_CONSTANTS.videoResumeThresholdS).toBe(15);
    expect(READER_CONSTANTS.videoResumeDelayMs).toBe(500);
    expect(resumeAt(14.9, 100, all)).toBeNull();
    expect(resumeAt(15, 100, all)).toBe(15);
    expect(resumeAt(99.5, 100, all)).toBeNull();
    expect(resumeAt(null, 100, all)).toBeNull();
    expect(resumeAt(20, 100, { start: 30, stop: null })).toBeNull();
    expect(resumeAt(40, 100, { start: 30, stop: 35 })).toBeNull();
  });

  it('splits a played interval into spans the video rules accept (start < end, at most 50)', () => {
    expect(usageSpans(10, 10)).toEqual([]);
    expect(usageSpans(40, 10)).toEqual([]);
    expect(usageSpans(0, 30)).toEqual([[0, 30]]);
    const long = usageSpans(0, 100);
    expect(long).toEqual([
      [0, 50],
      [50, 100],
    ]);
    for (const [a, b] of [...long, ...usageSpans(3.333, 97.777)]) {
      expect(a).toBeLessThan(b);
      expect(b - a).toBeLessThanOrEqual(READER_CONSTANTS.videoSpanLimit);
    }
  });

  it('reads the transcript and description as text, never as markup', () => {
    const cues = parseTranscript('<p data-start="0.000">Hello <b>there</b></p><p data-start="12.500">Second <img src=x onerror="alert(1)"></p><p>no time</p>');
    expect(cues).toEqual([
      { start: 0, text: 'Hello there' },
      { start: 12.5, text: 'Second' },
    ]);
    expect(activeCue(cues, 0)).toBe(0);
    expect(activeCue(cues, 12.49)).toBe(1);
    expect(activeCue(cues, 11)).toBe(0);
    expect(activeCue([], 3)).toBe(-1);
    expect(textParagraphs('<p>One</p><ul><li>Two</li></ul><script>x</script>')).toEqual(['One', 'Two']);
  });
});

describe('media usage (reader.md §4 "Video")', () => {
  it('logs ready -> pause, seek start and the end into the queue; a seek end resets the start; every event is valid', async () => {
    const storage = memoryStorage();
    const sent: unknown[][] = [];
    const queue = new UsageQueue({ userId: 'u1', storage, send: async (events) => (sent.push(events), { accepted: events.map((e) => e.usage_uuid), rejected: [] }) });
    const usage = new MediaUsage({ queue, userId: 'u1', product: 'video', storage });
    usage.setChapter('/api/v1/book/b1/chapter/01-intro.mp4');
    usage.startAt(0); // ready
    usage.logTo(20); // pause at 20 %
    usage.startAt(20); // play again (the start stays where the pause left it)
    usage.logTo(30); // seek start from 30 %
    usage.startAt(80); // seek end at 80 %
    usage.logTo(80); // a pause right there: nothing moved, nothing logged
    usage.logTo(100); // the end
    while (queue.pending().length) await queue.flush();
    const events = sent.flat() as { start_percentage: number; end_percentage: number; product: string; usage_is_complete: boolean }[];
    expect(events.map((e) => [e.start_percentage, e.end_percentage])).toEqual([
      [0, 20],
      [20, 30],
      [80, 100],
    ]);
    expect(events.every((e) => e.product === 'video' && validateUsageEvent(e).ok)).toBe(true);
    expect(events.map((e) => e.usage_is_complete)).toEqual([false, false, false]);
  });

  it('marks the event that plays the part through as complete, and an audiobook’s as product audio', async () => {
    const storage = memoryStorage();
    const sent: { end_percentage: number; usage_is_complete: boolean; product: string }[] = [];
    const queue = new UsageQueue({ userId: 'u2', storage, send: async (events) => (sent.push(...(events as never[])), { accepted: events.map((e) => e.usage_uuid), rejected: [] }) });
    const usage = new MediaUsage({ queue, userId: 'u2', product: 'audio', storage });
    usage.setChapter('/api/v1/book/b2/chapter/01.mp3');
    usage.startAt(0);
    usage.logTo(100);
    while (queue.pending().length) await queue.flush();
    expect(sent.map((e) => [e.end_percentage, e.usage_is_complete, e.product])).toEqual([
      [50, false, 'audio'],
      [100, true, 'audio'],
    ]);
  });
});

/** Runs the fake clock until the promise settles (the request chain resolves between the timers it sets). */
async function settle<T>(promise: Promise<T>): Promise<T> {
  let done = false;
  void promise.finally(() => (done = true)).catch(() => undefined);
  for (let i = 0; i < 2000 && !done; i++) await vi.advanceTimersByTimeAsync(100);
  return promise;
}

describe('the video session', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('retries a failing request and answers the session', async () => {
    // (the clock also runs by itself: the client's first request loads its schemas module, which takes real time)
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let n = 0;
    const calls = stubFetch(() => (++n < SESSION_ATTEMPTS ? json(502, { detail: 'Bad gateway' }) : json(200, { ks: 'tok', expires_at: '2030-01-01T00:00:00Z' })));
    expect(await settle(getMediaSession('b1'))).toEqual({ kind: 'ok', session: { ks: 'tok', expires_at: '2030-01-01T00:00:00Z' } });
    expect(calls).toHaveLength(SESSION_ATTEMPTS);
    expect(calls[0]!.url).toContain('/api/v1/player/kaltura_session/?reference_id=b1');
  });

  it('takes 403 and 401 as answers (no retry) and only server errors as a timeout', async () => {
    vi.useFakeTimers();
    let status = 403;
    const calls = stubFetch(() => json(status, { detail: 'no' }));
    expect(await getMediaSession('b1')).toEqual({ kind: 'forbidden' });
    status = 401;
    expect(await getMediaSession('b1')).toEqual({ kind: 'anonymous' });
    expect(calls).toHaveLength(2);
    status = 500;
    expect(await settle(getMediaSession('b1'))).toEqual({ kind: 'timeout' });
    expect(calls).toHaveLength(2 + SESSION_ATTEMPTS);
  });

  it('re-fetches on a media error at most once per 90 s', async () => {
    let t = 1_000_000;
    let asked = 0;
    stubFetch(() => json(200, { ks: `tok${++asked}`, expires_at: '2030-01-01T00:00:00Z' }));
    const client = new QueryClient();
    const { result } = renderHook(() => useMediaSession('b1', true, () => t), {
      wrapper: ({ children }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>,
    });
    await waitFor(() => expect(result.current.state).toMatchObject({ kind: 'ok', session: { ks: 'tok1' } }));
    let refreshed = false;
    act(() => void (refreshed = result.current.refresh()));
    expect(refreshed).toBe(true);
    await waitFor(() => expect(result.current.state).toMatchObject({ session: { ks: 'tok2' } }));
    t += READER_CONSTANTS.mediaSessionRefreshMs - 1;
    act(() => void (refreshed = result.current.refresh()));
    expect(refreshed).toBe(false);
    t += 1;
    act(() => void (refreshed = result.current.refresh()));
    expect(refreshed).toBe(true);
    await waitFor(() => expect(result.current.state).toMatchObject({ session: { ks: 'tok3' } }));
    expect(asked).toBe(3);
  });
});

// ---- the screens ----

const chapters = [
  { label: 'Welcome', full_path: '01-welcome.mp4', duration_ms: 60_000 },
  { label: 'Second steps', full_path: '02-second.mp4', duration_ms: 40_000 },
].map((c) => ({ ...c, url: `/api/v1/book/v1/chapter/${c.full_path}`, web_url: `/library/view/course/v1/${c.full_path}`, as_sample: false, is_public: false, minutes_required: 1 }));

function detail(format: 'video' | 'audiobook'): BookDetail {
  return {
    api_url: '/api/v1/book/v1/',
    authors: ['Ada Lovelace'],
    content_format: format,
    continue_url: '/library/view/course/v1/01-welcome.mp4',
    cover_image_url: '/api/v1/book/v1/cover',
    identifier: 'v1',
    issued: null,
    publishers: [],
    title: 'The Course',
    topics: [],
    url: '/library/book/v1/',
    book_id: 'v1',
    title_safe: 'course',
    description: null,
    language: 'en',
    source: format === 'video' ? 'video/mp4' : 'audio/mpeg',
    page_count: null,
    publisher_entries: [],
    chapters,
    toc: [],
    minutes_required: 2,
    formats: [],
  };
}

function chapterAnswer(fullPath: string): ChapterContent {
  const i = chapters.findIndex((c) => c.full_path === fullPath);
  return {
    book_id: 'v1',
    chapter_href: fullPath,
    full_path: fullPath,
    title: 'The Course',
    title_safe: 'course',
    label: chapters[i]!.label,
    content_type: 'video/mp4',
    content: '<p data-start="0.000">Hello and welcome.</p><p data-start="20.000">Now the second point.</p>',
    stylesheets: [],
    item_order: i,
    as_sample: false,
    is_public: false,
    allow_scripts: false,
    format: 'video',
    source: 'video/mp4',
    next_chapter_uri: chapters[i + 1]?.full_path ?? null,
    previous_chapter_uri: chapters[i - 1]?.full_path ?? null,
    file_url: null,
    media: {
      mime: 'video/mp4',
      duration_ms: chapters[i]!.duration_ms,
      width: 640,
      height: 360,
      description: '<p>What this part covers.</p>',
      captions_url: `/api/v1/media/v1/${fullPath}/captions.vtt`,
      poster_url: null,
      src_path: `/api/v1/media/v1/${fullPath}`,
      preview_url: '/api/v1/media/v1/preview',
    },
  };
}

const toc = {
  book_id: 'v1',
  title: 'The Course',
  title_safe: 'course',
  authors: ['Ada Lovelace'],
  publisher: null,
  pub_date: null,
  detail_url: '/library/book/v1/',
  detail_position: 0,
  thumbnail_tag: null,
  chapters: chapters.map((c, i) => ({ label: c.label, depth: 0, uri: c.full_path, selected: i === 0, minutes_required: 1, url: c.web_url })),
  items: [],
  landmarks: [],
  page_list: [],
};

function server(format: 'video' | 'audiobook', session: (call: Call) => Response) {
  return stubFetch((call) => {
    const path = new URL(call.url, 'http://x').pathname;
    if (path === '/api/v1/book/v1/') return json(200, detail(format));
    if (path.startsWith('/api/v1/book/v1/chapter/')) return json(200, chapterAnswer(decodeURIComponent(path.slice('/api/v1/book/v1/chapter/'.length))));
    if (path === '/api/v1/player/kaltura_session/') return session(call);
    if (path === '/api/v1/book/v1/position/') return json(200, { position: null });
    if (path === '/nest/epub/toc/') return json(200, toc);
      if (path.includes('chapter-progress')) return json(200, { count: 0, next: null, previous: null, results: [] });
    if (path === '/api/v1/usage-event/') return json(200, { accepted: (call.body as { usage_uuid: string }[]).map((e) => e.usage_uuid), rejected: [] });
    if (path.startsWith('/api/v2/collections') || path.startsWith('/nest/api')) return json(200, []);
    return json(404, { detail: 'Not found.' });
  });
}

function renderPage(path: string, signedIn: boolean) {
  if (signedIn) document.cookie = 'logged_in=1; path=/';
  else document.cookie = 'logged_in=; path=/; max-age=0';
  document.cookie = 'csrftoken=tok; path=/';
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  client.setQueryData(['profile'], signedIn ? profile : null);
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/library/view/:titleSafe/:bookId/*" element={<MediaPage />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

/** The page's media element, once the title has loaded. */
async function element<T extends HTMLMediaElement>(container: HTMLElement, selector: 'video' | 'audio'): Promise<T> {
  return waitFor(() => {
    const el = container.querySelector<T>(selector);
    if (!el) throw new Error(`no ${selector} yet`);
    return el;
  });
}

/** The events a browser fires as a loaded part becomes ready. */
function ready(el: HTMLMediaElement, duration: number) {
  Object.defineProperty(el, 'duration', { configurable: true, get: () => duration });
  fireEvent(el, new Event('loadedmetadata'));
}

describe('the video screen', () => {
  beforeEach(() => {
    localStorage.clear();
    // jsdom has no media pipeline: loading and playing are the browser's part (the e2e suite has them).
    vi.spyOn(HTMLMediaElement.prototype, 'load').mockImplementation(() => undefined);
    vi.spyOn(HTMLMediaElement.prototype, 'pause').mockImplementation(() => undefined);
    vi.spyOn(HTMLMediaElement.prototype, 'play').mockImplementation(() => Promise.resolve());
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
  });

  it('plays the part with the session, heads it "Video X of Y from {title}", and seeks from the transcript', async () => {
    const calls = server('video', () => json(200, { ks: 'sess 1', expires_at: '2030-01-01T00:00:00Z' }));
    const { container } = renderPage('/library/view/course/v1/01-welcome.mp4', true);
    expect(await screen.findByRole('heading', { level: 1, name: 'Video 1 of 2 from The Course' })).toBeTruthy();
    const video = container.querySelector('video')!;
    await waitFor(() => expect(video.getAttribute('src')).toBe('/api/v1/media/v1/01-welcome.mp4?ks=sess%201'));
    expect(container.querySelector('track')!.getAttribute('src')).toBe('/api/v1/media/v1/01-welcome.mp4/captions.vtt?ks=sess%201');
    expect(calls.filter((c) => c.url.includes('kaltura_session'))).toHaveLength(1);
    // the speeds of reader.md §9, in order
    const speeds = screen.getByRole('combobox', { name: MEDIA_MESSAGES.speed });
    expect([...speeds.querySelectorAll('option')].map((o) => o.value)).toEqual(['0.5', '0.75', '1', '1.25', '1.5', '1.75', '2']);
    fireEvent.change(speeds, { target: { value: '1.5' } });
    expect(video.playbackRate).toBe(1.5);

    ready(video, 60);
    fireEvent.click(screen.getByRole('tab', { name: MEDIA_MESSAGES.tabTranscript }));
    const second = await screen.findByRole('button', { name: /Now the second point\./ });
    fireEvent.click(second);
    expect(video.currentTime).toBe(20);
    fireEvent(video, new Event('timeupdate'));
    await waitFor(() => expect(second.getAttribute('aria-current')).toBe('true'));
    fireEvent.click(screen.getByRole('tab', { name: MEDIA_MESSAGES.tabDescription }));
    expect(screen.getByText('What this part covers.')).toBeTruthy();
  });

  it('a 403 on the session says "Forbidden" and plays the preview', async () => {
    server('video', () => json(403, { detail: 'Forbidden' }));
    const { container } = renderPage('/library/view/course/v1/01-welcome.mp4', true);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(MEDIA_MESSAGES.forbidden);
    expect(alert.textContent).toContain('You may not have permission to view this clip in full.');
    await waitFor(() => expect(container.querySelector('video')!.getAttribute('src')).toBe('/api/v1/media/v1/preview'));
    const video = container.querySelector('video')!;
    ready(video, 30);
    fireEvent(video, new Event('ended'));
    expect(await screen.findByText('The preview has ended.')).toBeTruthy();
  });

  it('a visitor gets the preview without asking for a session or logging usage', async () => {
    const calls = server('video', () => json(200, { ks: 'x', expires_at: '2030-01-01T00:00:00Z' }));
    const { container } = renderPage('/library/view/course/v1/01-welcome.mp4', false);
    await waitFor(() => expect(container.querySelector('video')?.getAttribute('src')).toBe('/api/v1/media/v1/preview'));
    const video = container.querySelector('video')!;
    ready(video, 30);
    fireEvent(video, new Event('pause'));
    fireEvent(video, new Event('ended'));
    await flush();
    expect(await screen.findByText('The preview has ended.')).toBeTruthy();
    expect(calls.some((c) => c.url.includes('kaltura_session') || c.url.includes('usage-event') || c.url.includes('/chapter/'))).toBe(false);
  });

  it('a session that times out says so, then plays the preview', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    server('video', () => json(504, { detail: 'Gateway timeout' }));
    const { container } = renderPage('/library/view/course/v1/01-welcome.mp4', true);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(5000);
    });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Very sorry, the video provider timed out generating a session.');
    expect(alert.textContent).toContain('Reload the page to try again.');
    expect(alert.textContent).toContain('A preview of the clip will now play.');
    expect(container.querySelector('video')!.getAttribute('src')).toBe('/api/v1/media/v1/preview');
    vi.useRealTimers();
  });

  it('resumes at the saved position (>= 15 s) after 500 ms, logs played intervals, and goes on to the next part at the end', async () => {
    localStorage.setItem('reader_positions', JSON.stringify({ 'v1/01-welcome.mp4': { href: '01-welcome.mp4', progression: 50, at: Date.now() } }));
    const calls = server('video', () => json(200, { ks: 'k', expires_at: '2030-01-01T00:00:00Z' }));
    const { container } = renderPage('/library/view/course/v1/01-welcome.mp4', true);
    const video = await element(container, 'video');
    await waitFor(() => expect(video.getAttribute('src')).toContain('?ks=k'));
    vi.useFakeTimers();
    ready(video, 60);
    expect(video.currentTime).toBe(0);
    act(() => void vi.advanceTimersByTime(READER_CONSTANTS.videoResumeDelayMs - 1));
    expect(video.currentTime).toBe(0);
    act(() => void vi.advanceTimersByTime(1));
    expect(video.currentTime).toBe(30);
    vi.useRealTimers();
    fireEvent(video, new Event('seeking'));
    fireEvent(video, new Event('seeked'));
    video.currentTime = 45;
    fireEvent(video, new Event('timeupdate'));
    fireEvent(video, new Event('pause'));
    await waitFor(() => expect(calls.some((c) => c.url.includes('usage-event'))).toBe(true));
    const sent = calls.filter((c) => c.url.includes('usage-event')).flatMap((c) => c.body as { start_percentage: number; end_percentage: number; product: string; chapter: string }[]);
    expect(sent).toEqual([expect.objectContaining({ start_percentage: 50, end_percentage: 75, product: 'video', chapter: '/api/v1/book/v1/chapter/01-welcome.mp4' })]);
    fireEvent(video, new Event('ended'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Video 2 of 2 from The Course' })).toBeTruthy();
    await waitFor(() => expect(video.getAttribute('src')).toBe('/api/v1/media/v1/02-second.mp4?ks=k'));
    // the same element goes on playing: the new part starts at once
    expect(container.querySelectorAll('video')).toHaveLength(1);
  });

  it('opens a search hit at its second (?t=) once ready, before and instead of the saved position, and leaves later seeks free', async () => {
    localStorage.setItem('reader_positions', JSON.stringify({ 'v1/01-welcome.mp4': { href: '01-welcome.mp4', progression: 50, at: Date.now() } }));
    server('video', () => json(200, { ks: 'k', expires_at: '2030-01-01T00:00:00Z' }));
    const { container } = renderPage('/library/view/course/v1/01-welcome.mp4?q=point&t=20', true);
    const video = await element(container, 'video');
    await waitFor(() => expect(video.getAttribute('src')).toContain('?ks=k'));
    vi.useFakeTimers();
    expect(video.currentTime).toBe(0);
    ready(video, 60);
    expect(video.currentTime).toBe(20);
    // the saved position (30 s) does not follow 500 ms later
    act(() => void vi.advanceTimersByTime(READER_CONSTANTS.videoResumeDelayMs * 2));
    expect(video.currentTime).toBe(20);
    // a seek before the hit's second stays where the reader put it (`t` is no `start`)
    video.currentTime = 5;
    fireEvent(video, new Event('seeking'));
    fireEvent(video, new Event('seeked'));
    fireEvent(video, new Event('timeupdate'));
    expect(video.currentTime).toBe(5);
    // the part ready again (the browser reloading it) is not sent back to the hit
    ready(video, 60);
    expect(video.currentTime).toBe(5);
    vi.useRealTimers();
  });
});

describe('the audiobook player', () => {
  beforeEach(() => {
    localStorage.clear();
    vi.spyOn(HTMLMediaElement.prototype, 'load').mockImplementation(() => undefined);
    vi.spyOn(HTMLMediaElement.prototype, 'play').mockImplementation(function (this: HTMLMediaElement) {
      Object.defineProperty(this, 'paused', { configurable: true, get: () => false });
      this.dispatchEvent(new Event('play'));
      return Promise.resolve();
    });
    vi.spyOn(HTMLMediaElement.prototype, 'pause').mockImplementation(function (this: HTMLMediaElement) {
      Object.defineProperty(this, 'paused', { configurable: true, get: () => true });
      this.dispatchEvent(new Event('pause'));
    });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
  });

  it('plays, skips back 10 s and on 30 s, lists the chapters, and the sleep timer pauses after its minutes', async () => {
    server('audiobook', () => json(200, { ks: 'a', expires_at: '2030-01-01T00:00:00Z' }));
    const { container } = renderPage('/library/view/course/v1/01-welcome.mp4', true);
    const audio = await element(container, 'audio');
    await waitFor(() => expect(audio.getAttribute('src')).toBe('/api/v1/media/v1/01-welcome.mp4?ks=a'));
    ready(audio, 60);
    const chaptersNav = screen.getByRole('navigation', { name: MEDIA_MESSAGES.chapters });
    expect([...chaptersNav.querySelectorAll('a')].map((a) => a.textContent)).toEqual(['1Welcome1:00', '2Second steps0:40']);
    fireEvent.click(screen.getByRole('button', { name: MEDIA_MESSAGES.play }));
    expect(await screen.findByRole('button', { name: MEDIA_MESSAGES.pause })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: MEDIA_MESSAGES.forward30 }));
    expect(audio.currentTime).toBe(30);
    fireEvent.click(screen.getByRole('button', { name: MEDIA_MESSAGES.back10 }));
    expect(audio.currentTime).toBe(20);

    vi.useFakeTimers();
    fireEvent.change(screen.getByRole('combobox', { name: MEDIA_MESSAGES.sleepTimer }), { target: { value: '5' } });
    act(() => void vi.advanceTimersByTime(5 * 60_000 - 1));
    expect(audio.paused).toBe(false);
    act(() => void vi.advanceTimersByTime(1));
    expect(audio.paused).toBe(true);
    expect(screen.getByText(MEDIA_MESSAGES.sleepDone)).toBeTruthy();
  });

  it('changing chapter mid-play logs the interval played so far and saves the old chapter’s position', async () => {
    const calls = server('audiobook', () => json(200, { ks: 'a', expires_at: '2030-01-01T00:00:00Z' }));
    const { container } = renderPage('/library/view/course/v1/01-welcome.mp4', true);
    const audio = await element(container, 'audio');
    await waitFor(() => expect(audio.getAttribute('src')).toBe('/api/v1/media/v1/01-welcome.mp4?ks=a'));
    // (only the date is frozen: the local position is written at most once a second as it plays)
    vi.useFakeTimers({ toFake: ['Date'] });
    ready(audio, 60);
    fireEvent.click(screen.getByRole('button', { name: MEDIA_MESSAGES.play }));
    audio.currentTime = 6;
    fireEvent(audio, new Event('timeupdate'));
    audio.currentTime = 30;
    fireEvent(audio, new Event('timeupdate'));
    // the same element takes the next chapter's source: no pause is fired
    fireEvent.click(screen.getByRole('button', { name: MEDIA_MESSAGES.nextChapter }));
    await waitFor(() => expect(audio.getAttribute('src')).toBe('/api/v1/media/v1/02-second.mp4?ks=a'));
    const saved = JSON.parse(localStorage.getItem('reader_positions') ?? '{}') as Record<string, { progression: number }>;
    expect(saved['v1/01-welcome.mp4']?.progression).toBe(50);
    await waitFor(() => expect(calls.some((c) => c.url.includes('usage-event'))).toBe(true));
    const sent = calls.filter((c) => c.url.includes('usage-event')).flatMap((c) => c.body as { start_percentage: number; end_percentage: number; chapter: string }[]);
    expect(sent.map((e) => [e.chapter, e.start_percentage, e.end_percentage])).toEqual([['/api/v1/book/v1/chapter/01-welcome.mp4', 0, 50]]);
  });

  it('a seek within the 500 ms before resuming is not overridden by the saved position', async () => {
    localStorage.setItem('reader_positions', JSON.stringify({ 'v1/01-welcome.mp4': { href: '01-welcome.mp4', progression: 75, at: Date.now() } }));
    server('audiobook', () => json(200, { ks: 'a', expires_at: '2030-01-01T00:00:00Z' }));
    const { container } = renderPage('/library/view/course/v1/01-welcome.mp4', true);
    const audio = await element(container, 'audio');
    await waitFor(() => expect(audio.getAttribute('src')).toContain('?ks=a'));
    vi.useFakeTimers();
    ready(audio, 60);
    act(() => void vi.advanceTimersByTime(100));
    fireEvent.click(screen.getByRole('button', { name: MEDIA_MESSAGES.forward30 }));
    expect(audio.currentTime).toBe(30);
    act(() => void vi.advanceTimersByTime(READER_CONSTANTS.videoResumeDelayMs));
    expect(audio.currentTime).toBe(30);
  });

  it('a part changed within 500 ms of ready: the old part’s resume does not seek the new one', async () => {
    localStorage.setItem(
      'reader_positions',
      JSON.stringify({
        'v1/01-welcome.mp4': { href: '01-welcome.mp4', progression: 50, at: Date.now() },
        'v1/02-second.mp4': { href: '02-second.mp4', progression: 50, at: Date.now() },
      }),
    );
    server('audiobook', () => json(200, { ks: 'a', expires_at: '2030-01-01T00:00:00Z' }));
    const { container } = renderPage('/library/view/course/v1/01-welcome.mp4', true);
    const audio = await element(container, 'audio');
    await waitFor(() => expect(audio.getAttribute('src')).toContain('01-welcome.mp4?ks=a'));
    // (the fake clock runs by itself too, so the next chapter's answer arrives; the 500 ms are advanced by hand)
    vi.useFakeTimers({ shouldAdvanceTime: true });
    ready(audio, 60);
    audio.currentTime = 3;
    fireEvent.click(screen.getByRole('button', { name: MEDIA_MESSAGES.nextChapter }));
    await waitFor(() => expect(audio.getAttribute('src')).toContain('02-second.mp4?ks=a'));
    act(() => void vi.advanceTimersByTime(READER_CONSTANTS.videoResumeDelayMs));
    // the new part's place is decided when it is ready (its own 500 ms), not by the old part's timer
    expect(audio.currentTime).toBe(3);
    ready(audio, 40);
    act(() => void vi.advanceTimersByTime(READER_CONSTANTS.videoResumeDelayMs));
    expect(audio.currentTime).toBe(20);
  });

  it('sets the Media Session once per chapter, not on every timeupdate, and its next track goes on', async () => {
    const made: { title: string }[] = [];
    vi.stubGlobal(
      'MediaMetadata',
      class {
        constructor(init: { title: string }) {
          made.push(init);
        }
      },
    );
    const handlers = new Map<string, ((d: object) => void) | null>();
    const setActionHandler = vi.fn((action: string, handler: ((d: object) => void) | null) => void handlers.set(action, handler));
    Object.defineProperty(navigator, 'mediaSession', { configurable: true, value: { metadata: null, playbackState: 'none', setActionHandler, setPositionState: () => undefined } });
    try {
      server('audiobook', () => json(200, { ks: 'a', expires_at: '2030-01-01T00:00:00Z' }));
      const { container } = renderPage('/library/view/course/v1/01-welcome.mp4', true);
      const audio = await element(container, 'audio');
      await waitFor(() => expect(audio.getAttribute('src')).toContain('01-welcome.mp4?ks=a'));
      ready(audio, 60);
      fireEvent.click(screen.getByRole('button', { name: MEDIA_MESSAGES.play }));
      await waitFor(() => expect(handlers.get('nexttrack')).toBeTypeOf('function'));
      const metadataBefore = made.length;
      const handlersBefore = setActionHandler.mock.calls.length;
      for (let t = 1; t <= 5; t++) {
        audio.currentTime = t;
        fireEvent(audio, new Event('timeupdate'));
      }
      await waitFor(() => expect(screen.getAllByText('0:05').length).toBeGreaterThan(0));
      expect(made.length).toBe(metadataBefore);
      expect(setActionHandler.mock.calls.length).toBe(handlersBefore);
      act(() => handlers.get('nexttrack')!({ action: 'nexttrack' }));
      await waitFor(() => expect(audio.getAttribute('src')).toContain('02-second.mp4?ks=a'));
      await waitFor(() => expect(made.at(-1)?.title).toBe('Second steps'));
    } finally {
      delete (navigator as { mediaSession?: unknown }).mediaSession;
    }
  });

  it('with the sleep timer at the end of the chapter, stops there instead of going on', async () => {
    server('audiobook', () => json(200, { ks: 'a', expires_at: '2030-01-01T00:00:00Z' }));
    const { container } = renderPage('/library/view/course/v1/01-welcome.mp4', true);
    const audio = await element(container, 'audio');
    await waitFor(() => expect(audio.getAttribute('src')).toContain('?ks=a'));
    ready(audio, 60);
    fireEvent.change(screen.getByRole('combobox', { name: MEDIA_MESSAGES.sleepTimer }), { target: { value: 'end' } });
    fireEvent(audio, new Event('ended'));
    await flush();
    expect(audio.getAttribute('src')).toContain('01-welcome.mp4');
    expect(await screen.findByText(MEDIA_MESSAGES.sleepDone)).toBeTruthy();
    // Without the timer, the end goes on into the next chapter.
    fireEvent(audio, new Event('ended'));
    await waitFor(() => expect(audio.getAttribute('src')).toBe('/api/v1/media/v1/02-second.mp4?ks=a'));
  });
});
