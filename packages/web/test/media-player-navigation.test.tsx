/**
 * The media players' last parts (docs/decisions.md "Media players: support, `?t=` in the app, leaving a part, new
 * editions"), in the DOM against answers shaped as the server's (jsdom plays no media: the element is real and the
 * events a browser fires are dispatched on it; e2e/media.e2e.ts plays real files):
 * - the video-failure page points to support: the operator's SUPPORT_EMAIL as a mailto link naming the title;
 * - a search hit's `?t=` followed inside the app while the part is already playing seeks there (each navigation once);
 * - back and forward between parts settle the part left (its interval logged, its position saved);
 * - VideoView attaches its element once, not at every render.
 */
import { MEDIA_MESSAGES, type BookDetail, type ChapterContent } from '@lectern/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useNavigate, type NavigateFunction } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MediaPage } from '../src/features/media/MediaPage.tsx';
import type { Player } from '../src/features/media/usePlayer.ts';
import { VideoView } from '../src/features/media/VideoView.tsx';
import { profile } from './fixtures.ts';
import { json, stubFetch, type Call } from './helpers.tsx';

const chapters = [
  { label: 'Welcome', full_path: '01-welcome.mp4', duration_ms: 60_000 },
  { label: 'Second steps', full_path: '02-second.mp4', duration_ms: 40_000 },
].map((c) => ({ ...c, url: `/api/v1/book/v1/chapter/${c.full_path}`, web_url: `/library/view/course/v1/${c.full_path}`, as_sample: false, is_public: false, minutes_required: 1 }));

const book: BookDetail = {
  api_url: '/api/v1/book/v1/',
  authors: ['Ada Lovelace'],
  content_format: 'video',
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
  source: 'video/mp4',
  page_count: null,
  publisher_entries: [],
  chapters,
  toc: [],
  minutes_required: 2,
  formats: [],
};

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
      description: null,
      captions_url: null,
      poster_url: null,
      src_path: `/api/v1/media/v1/${fullPath}`,
      preview_url: '/api/v1/media/v1/preview',
    },
  };
}

function server(support: string | null = null) {
  let ks = 0;
  return stubFetch((call: Call) => {
    const path = new URL(call.url, 'http://x').pathname;
    if (path === '/api/v1/book/v1/') return json(200, book);
    if (path.startsWith('/api/v1/book/v1/chapter/')) return json(200, chapterAnswer(decodeURIComponent(path.slice('/api/v1/book/v1/chapter/'.length))));
    if (path === '/api/v1/player/kaltura_session/') return json(200, { ks: `k${++ks}`, expires_at: '2030-01-01T00:00:00Z' });
    if (path === '/api/v1/player/support/') return json(200, { support_email: support });
    if (path === '/api/v1/book/v1/position/') return json(200, { position: null });
    if (path === '/api/v1/usage-event/') return json(200, { accepted: (call.body as { usage_uuid: string }[]).map((e) => e.usage_uuid), rejected: [] });
    if (path.includes('chapter-progress')) return json(200, { count: 0, next: null, previous: null, results: [] });
    if (path === '/nest/epub/toc/') return json(404, { detail: 'Not found.' });
    if (path.startsWith('/api/v2/collections') || path.startsWith('/nest/api')) return json(200, []);
    return json(404, { detail: 'Not found.' });
  });
}

/** The page at `path`; `nav.current` navigates inside the app as a link or the browser's back and forward do. */
function renderPage(path: string) {
  document.cookie = 'logged_in=1; path=/';
  document.cookie = 'csrftoken=tok; path=/';
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  client.setQueryData(['profile'], profile);
  const nav: { current: NavigateFunction | null } = { current: null };
  function Navigator() {
    nav.current = useNavigate();
    return null;
  }
  const result = render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[path]}>
        <Navigator />
        <Routes>
          <Route path="/library/view/:titleSafe/:bookId/*" element={<MediaPage />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return { ...result, nav: nav as { current: NavigateFunction } };
}

async function videoOf(container: HTMLElement, src: string) {
  return waitFor(() => {
    const el = container.querySelector('video');
    if (!el?.getAttribute('src')?.startsWith(src)) throw new Error(`no ${src} yet`);
    return el;
  });
}

function ready(el: HTMLMediaElement, duration: number) {
  Object.defineProperty(el, 'duration', { configurable: true, get: () => duration });
  fireEvent(el, new Event('loadedmetadata'));
}

const usageSent = (calls: Call[]) =>
  calls.filter((c) => c.url.includes('usage-event')).flatMap((c) => c.body as { chapter: string; start_percentage: number; end_percentage: number }[]).map((e) => [e.chapter, e.start_percentage, e.end_percentage]);

beforeEach(() => {
  localStorage.clear();
  vi.spyOn(HTMLMediaElement.prototype, 'load').mockImplementation(() => undefined);
  vi.spyOn(HTMLMediaElement.prototype, 'pause').mockImplementation(() => undefined);
  vi.spyOn(HTMLMediaElement.prototype, 'play').mockImplementation(() => Promise.resolve());
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('the video-failure page', () => {
  it('points to support: the operator’s address as a mailto link naming the title and chapter', async () => {
    server('help@library.example');
    const { container } = renderPage('/library/view/course/v1/01-welcome.mp4');
    const video = await videoOf(container, '/api/v1/media/v1/01-welcome.mp4?ks=k1');
    ready(video, 60);
    // a media error asks for a new session once (reader.md §4), a second one within 90 s is the failure page
    fireEvent(video, new Event('error'));
    await videoOf(container, '/api/v1/media/v1/01-welcome.mp4?ks=k2');
    fireEvent(video, new Event('error'));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(MEDIA_MESSAGES.failureBlockers);
    expect(alert.textContent).toContain(MEDIA_MESSAGES.failureNetwork);
    const link = await screen.findByRole('link', { name: 'help@library.example' });
    expect(link.getAttribute('href')).toBe(`mailto:help@library.example?subject=${encodeURIComponent('Video could not be played: The Course / Welcome')}`);
    expect(alert.textContent).toContain(`${MEDIA_MESSAGES.failureSupportAt} help@library.example ${MEDIA_MESSAGES.failureSupportAtEnd}`);
  });

  it('without an address set, still points to support in words', async () => {
    const calls = server(null);
    const { container } = renderPage('/library/view/course/v1/01-welcome.mp4');
    const video = await videoOf(container, '/api/v1/media/v1/01-welcome.mp4?ks=k1');
    fireEvent(video, new Event('error'));
    await videoOf(container, '/api/v1/media/v1/01-welcome.mp4?ks=k2');
    fireEvent(video, new Event('error'));
    await waitFor(() => expect(calls.some((c) => c.url.includes('/api/v1/player/support/'))).toBe(true));
    const alert = await screen.findByRole('alert');
    await waitFor(() => expect(alert.textContent).toContain(MEDIA_MESSAGES.failureSupport));
    expect(alert.querySelector('a[href^="mailto:"]')).toBeNull();
  });
});

describe('a search hit’s ?t= inside the app', () => {
  it('seeks the part already playing when the address’s t changes, once per navigation', async () => {
    server();
    const { container, nav } = renderPage('/library/view/course/v1/01-welcome.mp4');
    const video = await videoOf(container, '/api/v1/media/v1/01-welcome.mp4?ks=k1');
    ready(video, 60);
    video.currentTime = 3;
    act(() => void nav.current('/library/view/course/v1/01-welcome.mp4?q=point&t=20'));
    await waitFor(() => expect(video.currentTime).toBe(20));
    // the reader moves on; the same hit followed again seeks again (a new navigation)
    video.currentTime = 41;
    fireEvent(video, new Event('seeking'));
    fireEvent(video, new Event('seeked'));
    act(() => void nav.current('/library/view/course/v1/01-welcome.mp4?q=point&t=20'));
    await waitFor(() => expect(video.currentTime).toBe(20));
    // the source is the same: nothing was reloaded
    expect(video.getAttribute('src')).toBe('/api/v1/media/v1/01-welcome.mp4?ks=k1');
    // a re-render of the same navigation (the player's clock) does not seek again
    video.currentTime = 30;
    fireEvent(video, new Event('timeupdate'));
    await act(async () => undefined);
    expect(video.currentTime).toBe(30);
  });
});

describe('a search hit’s ?t= and the browser’s back button', () => {
  it('opens the part at its t again when back comes to its address from another part', async () => {
    server();
    const { container, nav } = renderPage('/library/view/course/v1/01-welcome.mp4?q=point&t=20');
    const video = await videoOf(container, '/api/v1/media/v1/01-welcome.mp4?ks=k1');
    ready(video, 60);
    expect(video.currentTime).toBe(20);
    fireEvent.click(screen.getByRole('button', { name: MEDIA_MESSAGES.nextChapter }));
    await videoOf(container, '/api/v1/media/v1/02-second.mp4?ks=k1');
    video.currentTime = 0;
    ready(video, 40);
    // back: the same history entry (its location key) as the first visit
    act(() => void nav.current(-1));
    await videoOf(container, '/api/v1/media/v1/01-welcome.mp4?ks=k1');
    video.currentTime = 0;
    ready(video, 60);
    expect(video.currentTime).toBe(20);
  });
});

describe('back and forward between parts', () => {
  it('logs the interval played in the part left and saves its position', async () => {
    const calls = server();
    const { container, nav } = renderPage('/library/view/course/v1/01-welcome.mp4');
    const video = await videoOf(container, '/api/v1/media/v1/01-welcome.mp4?ks=k1');
    ready(video, 60);
    fireEvent.click(screen.getByRole('button', { name: MEDIA_MESSAGES.nextChapter }));
    await videoOf(container, '/api/v1/media/v1/02-second.mp4?ks=k1');
    video.currentTime = 0;
    ready(video, 40);
    video.currentTime = 10;
    fireEvent(video, new Event('timeupdate'));
    video.currentTime = 20;
    fireEvent(video, new Event('timeupdate'));
    // the browser's back button: no button of ours, no pause event (a new src fires none)
    act(() => void nav.current(-1));
    await videoOf(container, '/api/v1/media/v1/01-welcome.mp4?ks=k1');
    await waitFor(() => expect(usageSent(calls)).toContainEqual(['/api/v1/book/v1/chapter/02-second.mp4', 0, 50]));
    const saved = JSON.parse(localStorage.getItem('reader_positions') ?? '{}') as Record<string, { href: string; progression: number }>;
    expect(saved['v1/02-second.mp4']).toMatchObject({ href: '02-second.mp4', progression: 50 });
    // and forward again: the first part's interval (ready at 0, now at 30 s) is logged against the first part
    video.currentTime = 0; // (a browser's load() does this)
    ready(video, 60);
    video.currentTime = 30;
    fireEvent(video, new Event('timeupdate'));
    act(() => void nav.current(1));
    await videoOf(container, '/api/v1/media/v1/02-second.mp4?ks=k1');
    await waitFor(() => expect(usageSent(calls)).toContainEqual(['/api/v1/book/v1/chapter/01-welcome.mp4', 0, 50]));
    const again = JSON.parse(localStorage.getItem('reader_positions') ?? '{}') as Record<string, { href: string; progression: number }>;
    expect(again['v1/01-welcome.mp4']).toMatchObject({ href: '01-welcome.mp4', progression: 50 });
  });
});

describe('VideoView', () => {
  it('attaches its element to the player once, however often it renders', async () => {
    server();
    const ref = vi.fn();
    const player = (time: number): Player => ({
      ref,
      element: null,
      time,
      duration: 60,
      paused: true,
      rate: 1,
      setRate: () => undefined,
      toggle: () => undefined,
      play: () => undefined,
      pause: () => undefined,
      seekTo: () => undefined,
      skip: () => undefined,
    });
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const view = (time: number) => (
      <QueryClientProvider client={client}>
        <MemoryRouter>
          <VideoView
            book={book}
            href="01-welcome.mp4"
            index={0}
            part={chapterAnswer('01-welcome.mp4')}
            media={chapterAnswer('01-welcome.mp4').media}
            mode="full"
            player={player(time)}
            notices={{ title: null, lines: [] }}
            previewEnded={false}
            signedIn
            next="02-second.mp4"
            previous={null}
            goPart={() => undefined}
            captions={null}
          />
        </MemoryRouter>
      </QueryClientProvider>
    );
    const { rerender, container } = render(view(0));
    for (let t = 1; t <= 5; t++) rerender(view(t));
    expect(ref.mock.calls).toEqual([[container.querySelector('video')]]);
  });
});
