/**
 * The answers a screen's first content is made of come with the page (docs/decisions.md "Each screen's first answers in
 * its page, its chunks named with it, renders in slices"; the server writes them, packages/server/src/routes/web.ts,
 * keyed by core's firstScreenRequests): the home, the catalog and a search render from them without asking. And the
 * addresses core names are exactly the ones these screens ask for without them, so the server's keys cannot drift from
 * the client's requests unseen.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BOOT_DATA_ID, firstScreenRequests, MARKETING_MESSAGES, type CatalogSearchResponse, type HomeModules, type HomeResponse } from '@lectern/core';
import { resetBootData, takeBootData } from '../src/api/boot.ts';
import { LibraryPage } from '../src/features/catalog/CatalogPage.tsx';
import { HomePage } from '../src/features/home/HomePage.tsx';
import PlaylistsArea from '../src/features/playlists/PlaylistsArea.tsx';
import SearchPage from '../src/features/search/SearchPage.tsx';
import { item, playlist, profile, title } from './fixtures.ts';
import { flush, json, stubFetch } from './helpers.tsx';

vi.setConfig({ testTimeout: 30_000 });
/** A loaded machine (the suite runs beside others) can take seconds to render a screen. */
const WAIT = { timeout: 10_000 };

const home: HomeResponse = { announcements: [], sections: [{ key: 'new', heading: 'New in the library', titles: [title('moby', 'Moby-Dick')] }], topics: [] };
const modules: HomeModules = { newsletter: { subscribed: true, every_days: 7 }, dismissed: [] };
const books = { count: 1, next: null, previous: null, results: [title('moby', 'Moby-Dick')] };
const search: CatalogSearchResponse = {
  query: 'whale',
  count: 1,
  count_exact: true,
  page: 1,
  next: null,
  previous: null,
  results: [{ metadata: title('moby', 'Moby-Dick'), snippet: null, passages: [], language: 'en' }],
  facets: { format: [], topic: [], publisher: [], language: [] },
};

const whales = playlist('abc', 'Whale reading', [item('moby')]);

/** Each screen: its address, its page, what its first answers are, and what shows once they are in. */
type Screen = { name: string; address: string; page: ReactNode; answer: (url: string) => unknown; shows: () => Promise<unknown> };

/**
 * A playlist: its answers are taken from the page (the addresses it asks without them are checked by core's and the
 * server's tests; the playlists area's own queries, mounted again in one file, did not settle between cases here).
 */
const PLAYLIST: Screen = {
    name: 'playlist',
    address: '/c/collection/abc/',
    page: (
      <Routes>
        <Route path="/c/*" element={<PlaylistsArea />} />
      </Routes>
    ),
    answer: (url) =>
      url === '/nest/api/api/v2/collections/?content=none'
        ? [{ ...whales, content: undefined, content_count: 1 }]
        : url === '/nest/api/api/v2/collections/abc/'
          ? whales
          : url === '/api/v1/queue-simple/'
            ? { results: [] }
            : url.startsWith('/api/v1/metadata/')
              ? [{ ...title('moby', 'Moby-Dick') }]
              : undefined,
    shows: () => screen.findByRole('heading', { level: 1, name: 'Whale reading' }, WAIT),
  };

const SCREENS: Screen[] = [
  {
    name: 'home',
    address: '/home/',
    page: <HomePage />,
    answer: (url) => (url.startsWith('/api/v2/home/') ? home : url.startsWith('/api/v1/home/modules/') ? modules : undefined),
    // the section from the home's answer, and the tutorial block the modules' answer lets show
    shows: () => Promise.all([screen.findByText('New in the library', undefined, WAIT), screen.findByText(MARKETING_MESSAGES.tutorialTitle, undefined, WAIT)]),
  },
  {
    name: 'catalog',
    address: '/library/',
    page: <LibraryPage />,
    answer: (url) => (url.startsWith('/api/v1/book/?') ? books : undefined),
    shows: () => screen.findByRole('heading', { name: 'Moby-Dick' }, WAIT),
  },
  {
    name: 'search',
    address: '/search/?q=whale',
    page: <SearchPage />,
    answer: (url) => (url.startsWith('/api/v2/search/?') ? search : undefined),
    shows: () => screen.findByRole('heading', { name: 'Moby-Dick' }, WAIT),
  },
];

const firstOf = (address: string) => {
  const url = new URL(address, 'http://x');
  return firstScreenRequests(url.pathname, url.searchParams);
};

/** The screen at `address` (the window's own address is the test's to set: the page's answers are for the one it was loaded at). */
function show(address: string, page: ReactNode) {
  document.cookie = 'logged_in=1; path=/';
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  client.setQueryData(['profile'], profile);
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[address]}>{page}</MemoryRouter>
    </QueryClientProvider>,
  );
}

/** The page as the server writes it for a signed-in reader, with these answers. */
function pageWithAnswers(answers: Record<string, unknown>) {
  // (read afresh: work the last test left running, a request settling after its clean-up, may have read the page
  // since, found none, and kept that; under CI's load it did, and this page's profile was then not there)
  resetBootData();
  const el = document.createElement('script');
  el.type = 'application/json';
  el.id = BOOT_DATA_ID;
  el.textContent = JSON.stringify({ profile, answers });
  document.body.append(el);
}

beforeAll(async () => {
  await import('../src/api/schemas.ts');
});
afterEach(() => {
  vi.unstubAllGlobals();
  document.getElementById(BOOT_DATA_ID)?.remove();
  resetBootData();
  localStorage.clear();
  history.replaceState(null, '', '/');
  document.cookie = 'logged_in=; max-age=0; path=/';
});

it("the playlist's first answers are taken from the page: it shows them without asking", async () => {
  const first = firstOf(PLAYLIST.address);
  // the light list, the playlist, and the queue the page waits for before it shows the playlist
  expect(first).toHaveLength(3);
  pageWithAnswers(Object.fromEntries(first.map((url) => [url, PLAYLIST.answer(url)])));
  const calls = stubFetch((call) => {
    const body = PLAYLIST.answer(call.url);
    return body === undefined ? json(404, { detail: 'Not found.' }) : json(200, body);
  });
  history.replaceState(null, '', PLAYLIST.address);
  show(PLAYLIST.address, PLAYLIST.page);
  await flush();
  await PLAYLIST.shows();
  for (const url of first) expect(calls.map((c) => c.url), url).not.toContain(url);
});

describe.each(SCREENS)("the $name's first answers", ({ address, page, answer, shows }) => {
  const answering = () =>
    stubFetch((call) => {
      const body = answer(call.url);
      return body === undefined ? json(404, { detail: 'Not found.' }) : json(200, body);
    });

  it('are the addresses the screen asks for when the page brings none', async () => {
    const calls = answering();
    history.replaceState(null, '', address);
    show(address, page);
    await flush();
    await shows();
    const first = firstOf(address);
    expect(first.length).toBeGreaterThan(0);
    for (const url of first) expect(calls.map((c) => c.url), url).toContain(url);
  });

  it('are taken from the page: the screen shows them without asking', async () => {
    const first = firstOf(address);
    pageWithAnswers(Object.fromEntries(first.map((url) => [url, answer(url)])));
    const calls = answering();
    history.replaceState(null, '', address);
    show(address, page);
    await flush();
    await shows();
    for (const url of first) expect(calls.map((c) => c.url), url).not.toContain(url);
  });

  it('serve only the screen the page was loaded for', async () => {
    const first = firstOf(address);
    pageWithAnswers(Object.fromEntries(first.map((url) => [url, answer(url)])));
    const calls = answering();
    // the page is read as the app starts; the app has moved on from its address before the screen asks
    history.replaceState(null, '', address);
    expect(takeBootData()?.profile).toEqual(profile);
    history.replaceState(null, '', '/elsewhere/');
    show(address, page);
    await flush();
    await shows();
    for (const url of first) expect(calls.map((c) => c.url), url).toContain(url);
  });
});

describe('firstScreenRequests', () => {
  it("writes a search's words as URLSearchParams does, which is how the client asks", () => {
    for (const q of ['whale', 'moby dick', `C++ & "Moby" ~!'()*-._ ü 日本`, '100%']) {
      const address = `/search/?${new URLSearchParams({ q }).toString()}`;
      expect(firstOf(address)).toEqual([`/api/v2/search/?${new URLSearchParams({ q, page: '1', sort: 'relevance' }).toString()}`]);
    }
  });
});
