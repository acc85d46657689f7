/**
 * docs/decisions.md "Playlists and the home: no keyboard trap, one title one row, the light playlist list": a signed-in
 * page with title cards reads the light playlist list (names and counts), the queue's addresses, and which playlists
 * hold the titles on screen (one call for all the cards), never the whole list of every playlist's items (51 playlists
 * of 100 items were a megabyte on every page).
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CollectionSummary } from '@lectern/core';
import PlaylistsArea from '../src/features/playlists/PlaylistsArea.tsx';
import { PlaylistTitleCard } from '../src/shared/playlists/PlaylistTitleCard.tsx';
import { playlistKeys } from '../src/shared/playlists/store.ts';
import { item, playlist, profile, title } from './fixtures.ts';
import { flush, json, stubFetch } from './helpers.tsx';

afterEach(() => vi.unstubAllGlobals());

const summary = (id: string, name: string, count: number, extra: Partial<CollectionSummary> = {}): CollectionSummary => ({
  id,
  name,
  description: '',
  is_default: false,
  is_owned: true,
  url: `/c/collection/${id}/`,
  created: '2024-01-01T00:00:00Z',
  modified: '2024-01-01T00:00:00Z',
  content_count: count,
  ...extra,
});

function renderCards(bookIds: string[]) {
  document.cookie = 'logged_in=1; path=/';
  document.cookie = 'csrftoken=tok; path=/';
  localStorage.clear();
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  client.setQueryData(['profile'], profile);
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        {bookIds.map((id) => (
          <PlaylistTitleCard key={id} title={title(id, `Book ${id}`)} />
        ))}
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return client;
}

describe('title cards on a signed-in page read the light playlist list', () => {
  it('asks for names and counts, the queue, and one holding call for every card on screen; never the whole list', async () => {
    const lists = [summary('q', 'Queue', 1, { is_default: true, url: '/c/' }), summary('1', 'Rust', 100), summary('2', 'Zig', 100)];
    const calls = stubFetch((call) => {
      if (call.url.endsWith('/collections/?content=none')) return json(200, lists);
      if (call.url === '/api/v1/queue-simple/') return json(200, { results: [{ url: '/api/v1/book/b1/', is_whole_book: true, natural_key: ['b1'] }] });
      if (call.url.endsWith('/collections/holding/')) return json(200, { results: { '/api/v1/book/b1/': ['q'], '/api/v1/book/b2/': ['2'], '/api/v1/book/b3/': [] } });
      return json(500);
    });
    const client = renderCards(['b1', 'b2', 'b3']);
    const card = (name: string) => (screen.getByRole('heading', { name }).closest('article') ?? document.body);
    await within(card('Book b2')).findByRole('button', { name: 'Added to Playlist' });
    await within(card('Book b1')).findByRole('button', { name: 'Remove from Queue' });
    await flush();
    expect(calls.filter((c) => c.url.includes('/collections/') && !c.url.includes('?content=none') && !c.url.endsWith('/holding/'))).toEqual([]);
    expect(calls.map((c) => `${c.method} ${c.url}`).sort()).toEqual(
      ['GET /nest/api/api/v2/collections/?content=none', 'GET /api/v1/queue-simple/', 'POST /nest/api/api/v2/collections/holding/'].sort(),
    );
    expect((calls.find((c) => c.url.endsWith('/holding/'))!.body as { content: string[] }).content.sort()).toEqual([
      '/api/v1/book/b1/',
      '/api/v1/book/b2/',
      '/api/v1/book/b3/',
    ]);
    expect(client.getQueryData(playlistKeys.collections)).toBeUndefined();

    // b1 is queued (the queue call), b2 is in Zig (the holding call), b3 in nothing
    expect(within(card('Book b1')).getByRole('button', { name: 'Remove from Queue' })).toBeTruthy();
    expect(within(card('Book b2')).getByRole('button', { name: 'Added to Playlist' })).toBeTruthy();
    expect(within(card('Book b3')).getByRole('button', { name: 'Add to Playlist' })).toBeTruthy();

    // the menu lists names (holders first) with no further request; adding updates the light forms
    fireEvent.click(within(card('Book b2')).getByRole('button', { name: 'Added to Playlist' }));
    const menu = screen.getByRole('menu');
    const names = Array.from(menu.querySelectorAll('[role^="menuitem"]')).map((el) => `${el.textContent}${el.getAttribute('aria-checked') === 'true' ? ' [x]' : ''}`);
    expect(names.slice(0, 3)).toEqual(['Zig [x]', 'Queue', 'Rust']);
  });
});

describe('the playlists area loads the items of the playlist it opens, and only those', () => {
  it('names and counts for the navigation, GET /collections/{id}/ for the one shown; never the whole list', async () => {
    const lists = [summary('q', 'Queue', 100, { is_default: true, url: '/c/' }), summary('7', 'Rust', 2), summary('8', 'Zig', 100)];
    const rust = playlist('7', 'Rust', [item('r1', [['python', 'Python']]), item('r2')], { description: 'Ownership' });
    const calls = stubFetch((call) => {
      const urls = (call.body as { urls?: string[] } | undefined)?.urls ?? [];
      if (call.url.endsWith('/collections/?content=none')) return json(200, lists);
      if (call.url.endsWith('/collections/7/')) return json(200, rust);
      if (call.url === '/api/v1/queue-simple/') return json(200, { results: [] });
      if (call.url.endsWith('/collections/holding/')) return json(200, { results: {} });
      if (call.url.startsWith('/api/v1/metadata/')) return json(200, urls.map((u) => ({ api_url: u, title: `Title ${u.split('/')[4]}`, url: '/library/book/x/', continue_url: '/library/view/x/y/', topics: [] })));
      if (call.url.startsWith('/api/v1/user_progress/')) return json(200, urls.map((u) => ({ api_url: u, progress: 0 })));
      return json(500);
    });
    document.cookie = 'logged_in=1; path=/';
    document.cookie = 'csrftoken=tok; path=/';
    localStorage.clear();
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    client.setQueryData(['profile'], profile);
    render(
      <QueryClientProvider client={client}>
        <MemoryRouter initialEntries={['/c/collection/7/']}>
          <Routes>
            <Route path="/c/*" element={<PlaylistsArea />} />
          </Routes>
        </MemoryRouter>
      </QueryClientProvider>,
    );
    await screen.findByRole('heading', { level: 1, name: 'Rust' });
    await screen.findByText('2 items in Rust');
    // the navigation's counts come from the light list
    const nav = screen.getByRole('navigation', { name: 'Your playlists' });
    expect(within(nav).getByRole('link', { name: /Zig/ }).textContent).toContain('100');
    await flush();
    const asked = calls.filter((c) => c.url.startsWith('/nest/api/api/v2/collections/')).map((c) => `${c.method} ${c.url}`);
    expect(asked).not.toContain('GET /nest/api/api/v2/collections/');
    expect(asked).toContain('GET /nest/api/api/v2/collections/7/');
    expect(asked).toContain('GET /nest/api/api/v2/collections/?content=none');
    expect(client.getQueryData(playlistKeys.collections)).toBeUndefined();
  });
});
