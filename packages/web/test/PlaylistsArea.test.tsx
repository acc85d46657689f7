import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Collection } from '@lectern/core';
import { ApiError } from '../src/api/client.ts';
import { clearError, getErrorState } from '../src/shared/errorState.ts';
import PlaylistsArea from '../src/features/playlists/PlaylistsArea.tsx';
import { playlistKeys } from '../src/shared/playlists/store.ts';
import { item, playlist, profile, queue } from './fixtures.ts';
import { flush, json, stubFetch } from './helpers.tsx';

function Where() {
  const l = useLocation();
  return (
    <p data-testid="where" data-notice={(l.state as { notice?: string } | null)?.notice ?? ''}>
      {l.pathname + l.search}
    </p>
  );
}

const topics6: [string, string][] = [
  ['a', 'Alpha'],
  ['b', 'Beta'],
  ['c', 'Gamma'],
  ['d', 'Delta'],
  ['e', 'Epsilon'],
  ['f', 'Zeta'],
];
const bigQueue = queue(
  Array.from({ length: 23 }, (_, i) => item(`q${i}`, i < 2 ? [['python', 'Python']] : i === 2 ? [['go', 'Go']] : [])),
);
const rust = playlist('3', 'rust', [item('r1', [['python', 'Python']]), item('r2', [['python', 'Python'], ['go', 'Go']]), item('r3', topics6)], {
  description: 'Ownership and borrowing',
});
const lists = (): Collection[] => [rust, bigQueue, playlist('1', 'Go')];

function renderArea(path: string, data: Collection[] | Error = lists(), signedIn: typeof profile | null = profile) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  if (signedIn) client.setQueryData(['profile'], signedIn);
  if (Array.isArray(data)) client.setQueryData(playlistKeys.collections, data);
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/c/*" element={<PlaylistsArea />} />
          <Route path="*" element={<Where />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return client;
}

beforeEach(() => {
  document.cookie = 'logged_in=1; path=/';
  document.cookie = 'csrftoken=tok; path=/';
  localStorage.clear();
  clearError();
  stubFetch((call) => {
    const urls = (call.body as { urls?: string[] } | undefined)?.urls ?? [];
    if (call.url.startsWith('/api/v1/metadata/')) return json(200, urls.map((u) => ({ api_url: u, title: `Title ${u.split('/')[4]}`, url: '/library/book/x/', continue_url: '/library/view/x/y/', topics: [] })));
    if (call.url.startsWith('/api/v1/user_progress/')) return json(200, urls.map((u, i) => ({ api_url: u, progress: i === 0 ? 42 : 0 })));
    if (call.url.startsWith('/nest/api/api/v2/collections/')) return json(500, { detail: 'boom' });
    return json(404, { detail: 'Not found.' });
  });
});
afterEach(() => vi.unstubAllGlobals());

const cards = () => screen.queryAllByRole('article');

describe('playlist screens (spec §2, §4)', () => {
  it('/c/ shows the default playlist: heading, count line, 10 cards, Show more, sorted navigation, Edit disabled', async () => {
    renderArea('/c/');
    expect(screen.getByRole('heading', { level: 1, name: 'Queue' })).toBeTruthy();
    expect(screen.queryByText('Ownership and borrowing')).toBeNull();
    expect(screen.getByText('23 items in Queue')).toBeTruthy();
    await vi.waitFor(() => expect(cards()).toHaveLength(10));

    // progress: 'N% Complete' and Continue on the first card, Start on the others
    const first = cards()[0]!;
    expect(within(first).getByText('42% Complete')).toBeTruthy();
    expect(within(first).getByRole('link', { name: /^Continue / })).toBeTruthy();
    expect(within(cards()[1]!).getByRole('link', { name: /^Start / })).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Show more' }));
    await vi.waitFor(() => expect(cards()).toHaveLength(20));
    fireEvent.click(screen.getByRole('button', { name: 'Show more' }));
    await vi.waitFor(() => expect(cards()).toHaveLength(23));
    expect(screen.queryByRole('button', { name: 'Show more' })).toBeNull();

    const nav = screen.getByRole('navigation', { name: 'Your playlists' });
    const links = within(nav).getAllByRole('link');
    // display order: the default first, then by name ignoring case
    expect(links.map((a) => a.textContent)).toEqual(['Queue, 23 items', 'Go, 0 items', 'rust, 3 items']);
    expect(links[0]?.getAttribute('aria-current')).toBe('page');
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['/c/', '/c/collection/1/', '/c/collection/3/']);

    const select = screen.getByRole<HTMLSelectElement>('combobox', { name: 'Playlist' });
    expect(Array.from(select.options).map((o) => o.textContent)).toEqual(['Queue (23)', 'Go (0)', 'rust (3)']);
    expect(select.value).toBe('q');

    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Edit' }).disabled).toBe(true);
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'New' }).disabled).toBe(false);
    // 23 cards with their controls: jsdom's role queries are slow on shared cores, hence the room
  }, 20_000);

  it('a playlist shows its description, its topics (5 + More topics) and filters by topic', async () => {
    renderArea('/c/collection/3/');
    expect(screen.getByRole('heading', { level: 1, name: 'rust' })).toBeTruthy();
    expect(screen.getByText('Ownership and borrowing')).toBeTruthy();
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Edit' }).disabled).toBe(false);
    const bar = screen.getByRole('navigation', { name: 'Filter by topic' });
    const names = () => within(bar).getAllByRole('link').map((a) => a.firstChild?.textContent);
    // All, then by item count, then name; 5 topics before the toggle
    expect(names()).toEqual(['All', 'Python', 'Alpha', 'Beta', 'Delta', 'Epsilon']);
    fireEvent.click(within(bar).getByRole('button', { name: 'More topics' }));
    expect(names()).toEqual(['All', 'Python', 'Alpha', 'Beta', 'Delta', 'Epsilon', 'Gamma', 'Go', 'Zeta']);
    expect(within(bar).getByRole('button', { name: 'Fewer topics' }).getAttribute('aria-expanded')).toBe('true');

    fireEvent.click(within(bar).getByRole('link', { name: /^Python/ }));
    expect(screen.getByText('2 items in Python')).toBeTruthy();
    await vi.waitFor(() => expect(cards()).toHaveLength(2));
    expect(within(bar).getByRole('link', { name: /^Python/ }).getAttribute('aria-current')).toBe('page');
  });

  it('the default playlist filters at /c/topic/{slug}/', async () => {
    renderArea('/c/topic/go/');
    expect(screen.getByText('1 item in Go')).toBeTruthy();
    await vi.waitFor(() => expect(cards()).toHaveLength(1));
  });

  it('moves a queue item up with its button: shown at once, sent as the whole list, undone when the server fails', async () => {
    const calls = stubFetch((call) => {
      const urls = (call.body as { urls?: string[] } | undefined)?.urls ?? [];
      if (call.url.startsWith('/api/v1/metadata/')) return json(200, urls.map((u) => ({ api_url: u, title: `Title ${u.split('/')[4]}` })));
      if (call.url.startsWith('/api/v1/user_progress/')) return json(200, []);
      if (call.url.endsWith('/order/')) {
        const content = (call.body as { content: string[] }).content;
        if (content[1]!.includes('m2')) return json(500, { detail: 'boom' });
        return json(200, queue(content.map((u) => item(u.split('/')[4]!))));
      }
      return json(404, { detail: 'Not found.' });
    });
    renderArea('/c/', [queue([item('m1'), item('m2'), item('m3')])]);
    await vi.waitFor(() => expect(cards()).toHaveLength(3));
    const order = () => cards().map((c) => within(c).getByRole('heading').textContent);
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Move Title m1 up' }).disabled).toBe(true);
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Move Title m3 down' }).disabled).toBe(true);

    fireEvent.click(screen.getByRole('button', { name: 'Move Title m3 up' }));
    await vi.waitFor(() => expect(order()).toEqual(['Title m1', 'Title m3', 'Title m2']));
    const put = calls.find((c) => c.method === 'PUT')!;
    expect(put.url).toBe('/nest/api/api/v2/collections/q/order/');
    expect(put.body).toEqual({ content: ['/api/v1/book/m1/', '/api/v1/book/m3/', '/api/v1/book/m2/'] });
    expect(screen.getByText('Moved Title m3 to position 2 of 3.')).toBeTruthy();

    // the server refuses: the old order comes back and the error bar says so
    fireEvent.click(screen.getByRole('button', { name: 'Move Title m2 up' }));
    await vi.waitFor(() => expect(getErrorState().message).toContain('There was a problem updating your playlist.'));
    await vi.waitFor(() => expect(order()).toEqual(['Title m1', 'Title m3', 'Title m2']));
  });

  it("shows the empty-playlist message with a link to /", () => {
    renderArea('/c/collection/1/');
    // the spec's sentence with the playlist icon where its '...' stands (not three dots)
    const sentence = screen.getByText('Start exploring! You can add any title to this playlist just by tapping the playlist icon.');
    expect(sentence.textContent).not.toContain('...');
    expect(sentence.querySelector('.empty-state__inline-icon svg')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Browse the library' }).getAttribute('href')).toBe('/');
    expect(screen.getByText('0 items in Go')).toBeTruthy();
  });

  it("says 'Start exploring! You do not yet have any playlists.' with a link to the library and the icon's hint when there are none", async () => {
    renderArea('/c/', []);
    const empty = await screen.findByText('Start exploring! You do not yet have any playlists.', {}, { timeout: 10_000 });
    const state = empty.closest('.empty-state')!;
    expect(state.textContent).toContain('Tap the playlist icon on any title to start one.');
    // the main site: the library
    expect(within(state as HTMLElement).getByRole('link', { name: 'Browse the library' }).getAttribute('href')).toBe('/library/');
    expect(cards()).toEqual([]);
  });

  it("says 'Error, the machines failed. Please try again soon.' when the account cannot be loaded, and Retry asks again", async () => {
    let profileCalls = 0;
    stubFetch((call) => {
      if (call.url.startsWith('/u/information_for_javascript')) {
        profileCalls++;
        return profileCalls <= 2 ? json(500, { detail: 'boom' }) : json(200, profile);
      }
      return json(404, { detail: 'Not found.' });
    });
    renderArea('/c/', lists(), null);
    const failed = await screen.findByRole('alert', {}, { timeout: 10_000 });
    expect(failed.querySelector('.error-state__message')!.textContent).toBe('Error, the machines failed. Please try again soon.');
    expect(cards()).toEqual([]);
    fireEvent.click(within(failed).getByRole('button', { name: 'Retry' }));
    await screen.findByRole('heading', { level: 1, name: 'Queue' }, { timeout: 10_000 });
    expect(screen.queryByText('Error, the machines failed. Please try again soon.')).toBeNull();
  });

  it('an unknown playlist goes to /c/ with the WARN flash', async () => {
    renderArea('/c/collection/404/');
    await screen.findByRole('heading', { level: 1, name: 'Queue' });
    expect(getErrorState()).toMatchObject({ didError: true, errorLevel: 'WARN', message: 'We could not find the playlist that you requested. Please try again soon.' });
  });

  it('a failed list fetch shows the fatal screen with both toolbar buttons disabled', async () => {
    const client = renderArea('/c/', new Error('not cached'));
    await act(async () => {
      await client.fetchQuery({ queryKey: playlistKeys.collections, queryFn: () => Promise.reject(new ApiError(500, 'boom')) }).catch(() => undefined);
    });
    await screen.findByText("Something has gone wrong and we can't display your playlists. Please try again soon.");
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'New' }).disabled).toBe(true);
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Edit' }).disabled).toBe(true);
  });

  it("sends anonymous visitors to sign in with 'Please log in to continue.'", async () => {
    document.cookie = 'logged_in=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/';
    renderArea('/c/collection/3/');
    const where = await screen.findByTestId('where');
    expect(where.textContent).toBe('/login/?next=%2Fc%2Fcollection%2F3%2F');
    expect(where.getAttribute('data-notice')).toBe('Please log in to continue.');
  });

  it('keeps a title removed from the queue on screen while its overlay and banner show, then lets it go', async () => {
    await import('../src/api/schemas.ts');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      stubFetch((call) => {
        const urls = (call.body as { urls?: string[] } | undefined)?.urls ?? [];
        if (call.url.startsWith('/api/v1/metadata/')) return json(200, urls.map((u) => ({ api_url: u, title: `Title ${u.split('/')[4]}` })));
        if (call.url.startsWith('/api/v1/user_progress/')) return json(200, []);
        return json(200, { results: [] });
      });
      renderArea('/c/', [queue([item('lq1'), item('lq2')])]);
      await flush();
      expect(cards()).toHaveLength(2);
      fireEvent.click(within(cards()[0]!).getByRole('button', { name: 'Remove from Queue' }));
      await flush();
      expect(within(cards()[0]!).getByText('Removing from your queue...', { selector: '.queue-overlay span' })).toBeTruthy();
      await act(async () => vi.advanceTimersByTime(800));
      // removed from the playlist, but still on screen, leaving, with its banner
      expect(screen.getByText('1 item in Queue')).toBeTruthy();
      expect(cards()).toHaveLength(2);
      expect(within(cards()[0]!).getByText('Removed from your queue', { selector: '.queue-banner span' })).toBeTruthy();
      expect(cards()[0]!.closest('li')?.className).toContain('title-grid__item--leaving');
      // the same card can put it back
      expect(within(cards()[0]!).getByRole('button', { name: 'Add to Queue' })).toBeTruthy();
      // it goes 2 s (overlay + banner) after it left the playlist
      await act(async () => vi.advanceTimersByTime(2000));
      expect(cards()).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
