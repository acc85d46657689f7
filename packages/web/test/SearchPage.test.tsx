/**
 * The search page's results as a phone downloads them: each result's cover is the 360h variant the title cards
 * use (library-playlists-account.md §2), not the book's own cover (the sample library's Moby-Dick cover is 841 KB).
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CatalogSearchResponse } from '@lectern/core';
import SearchPage from '../src/features/search/SearchPage.tsx';
import { whaleSearch } from './fixtures.ts';
import { flush, json, stubFetch } from './helpers.tsx';

const answer = (): CatalogSearchResponse => whaleSearch();

beforeEach(() => {
  document.cookie = 'logged_in=; max-age=0; path=/';
  stubFetch((call) => (call.url.startsWith('/api/v2/search/') ? json(200, answer()) : json(404, { detail: 'Not found.' })));
});
afterEach(() => vi.unstubAllGlobals());

describe('SearchPage', () => {
  it("shows each result's 360h cover, not the book's own", async () => {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <MemoryRouter initialEntries={['/search/?q=whale']}>
          <SearchPage />
        </MemoryRouter>
      </QueryClientProvider>,
    );
    await flush();
    await screen.findByRole('heading', { name: 'Moby-Dick' });
    const covers = [...document.querySelectorAll<HTMLImageElement>('.search-result__cover img')];
    expect(covers.map((img) => img.getAttribute('src'))).toEqual(['/api/v1/book/moby/cover?h=360']);
  });
});
