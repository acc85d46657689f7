/**
 * A reader address decides between the reader and the media players by the title's format (router.tsx ViewPage).
 * It asks the metadata call for the format, not the book detail: Moby-Dick's detail is 54 KB, downloaded and
 * checked before the reader could ask for its chapter (Lighthouse mobile). A detail already in the cache
 * (the title page) answers without a request; a video still opens the players.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { queryKeys } from '../src/api/queryKeys.ts';
import { AppRoutes } from '../src/app/router.tsx';
import { profile } from './fixtures.ts';
import { flush, json, renderSignedIn, stubFetch, type Call } from './helpers.tsx';

const BOOK = '/api/v1/book/moby/';
const answer = (format: string) => (call: Call) => {
  if (call.method === 'POST' && call.url.startsWith('/api/v1/metadata/')) {
    const urls = (call.body as { urls: string[] }).urls;
    return json(200, urls.map((u) => ({ api_url: u, content_format: format, title: 'Moby-Dick' })));
  }
  return json(404, { detail: 'Not found.' });
};
const bookDetailAsked = (calls: Call[]) => calls.some((c) => c.method === 'GET' && c.url.split('?')[0] === BOOK);

// jsdom lays nothing out and has no ResizeObserver, which the reader's notice area uses once it is open.
beforeEach(() => {
  vi.stubGlobal(
    'ResizeObserver',
    class {
      observe() {}
      unobserve() {}
      disconnect() {}
    },
  );
});
afterEach(() => vi.unstubAllGlobals());

describe('ViewPage (a reader address)', () => {
  it('asks the metadata call for the format and opens the reader, without the book detail', async () => {
    const calls = stubFetch(answer('book'));
    renderSignedIn(<AppRoutes />, [], '/library/view/moby-dick/moby/ch1.xhtml');
    // The reader's chapter request: the reader is open.
    await vi.waitFor(() => expect(calls.some((c) => c.url.startsWith('/nest/epub/block/'))).toBe(true), { timeout: 10_000 });
    const metadata = calls.filter((c) => c.url.startsWith('/api/v1/metadata/'));
    expect(metadata.map((c) => c.body)).toEqual([{ urls: [BOOK] }]);
    expect(bookDetailAsked(calls)).toBe(false);
  });

  it('opens the media players for a video (which fetch the detail themselves)', async () => {
    const calls = stubFetch(answer('video'));
    renderSignedIn(<AppRoutes />, [], '/library/view/a-course/moby/part1.mp4');
    await vi.waitFor(() => expect(bookDetailAsked(calls)).toBe(true), { timeout: 10_000 });
    await flush();
    expect(calls.some((c) => c.url.startsWith('/nest/epub/block/'))).toBe(false);
  });

  it('takes the format from a book detail already in the cache, asking nothing more', async () => {
    const calls = stubFetch(answer('video'));
    document.cookie = 'logged_in=1; path=/';
    document.cookie = 'csrftoken=tok; path=/';
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    client.setQueryData(['profile'], profile);
    client.setQueryData(queryKeys.book('moby'), { content_format: 'book' });
    render(
      <QueryClientProvider client={client}>
        <MemoryRouter initialEntries={['/library/view/moby-dick/moby/ch1.xhtml']}>
          <AppRoutes />
        </MemoryRouter>
      </QueryClientProvider>,
    );
    await vi.waitFor(() => expect(calls.some((c) => c.url.startsWith('/nest/epub/block/'))).toBe(true), { timeout: 10_000 });
    expect(calls.some((c) => c.url.startsWith('/api/v1/metadata/'))).toBe(false);
    expect(bookDetailAsked(calls)).toBe(false);
  });
});
