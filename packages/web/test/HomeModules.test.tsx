/// <reference types="node" />
/**
 * The home's marketing modules (docs/decisions.md "The marketing modules") against a real HTTP server (node:http on a
 * free port): the tutorial block dismissed with the dismissal sent, the newsletter promo's subscribe and sample, and
 * the recent items paged with the catalog's cursor by "Load more", the keyboard going on at the first new title.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { MARKETING_MESSAGES, marketingPaths, paths, searchPaths } from '@lectern/core';
import { HomePage } from '../src/features/home/HomePage.tsx';
import { RECENT_PAGE_SIZE } from '../src/features/home/HomeModules.tsx';
import { profile, title } from './fixtures.ts';

let server: Server;
let base: string;
let calls: { method: string; path: string; body: unknown }[] = [];
let modules: { newsletter: { subscribed: boolean; every_days: number } | null; dismissed: string[] };

vi.setConfig({ testTimeout: 30_000 });

const titles = Array.from({ length: 9 }, (_, i) => title(`b${i}`, `New title ${i}`));
const bodyOf = (req: IncomingMessage) =>
  new Promise<unknown>((resolve) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => resolve(raw ? JSON.parse(raw) : undefined));
  });

beforeAll(async () => {
  await import('../src/api/schemas.ts');
  // a body that does not parse answers 500, so the test fails on it rather than waiting on a request left open
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, body?: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(body === undefined ? '' : JSON.stringify(body));
    calls.push({ method: req.method ?? 'GET', path: url.pathname + url.search, body: await bodyOf(req) });
    if (url.pathname === searchPaths.home()) return send(200, { announcements: [], sections: [], topics: [] });
    if (url.pathname === marketingPaths.homeModules()) return send(200, modules);
    if (url.pathname === marketingPaths.homeDismissals()) return send(204);
    if (url.pathname === marketingPaths.newsletterSubscription()) return send(200, { subscribed: true });
    if (url.pathname === marketingPaths.newsletterSample()) return send(200, { titles: titles.slice(0, 2).map((t) => ({ book_id: t.book_id, title: t.title, url: t.url })), total: 2, since: '2026-11-21T00:00:00.000Z' });
    if (url.pathname === marketingPaths.transformationPlaylists())
      return send(200, {
        results: [{ id: 'p1', name: 'From zero to Python', description: 'Read these in order.', topic: { name: 'Python', slug: 'python' }, curator: 'editor', titles: titles.slice(0, 2), count: 5 }],
      });
    if (url.pathname === paths.bookList()) {
      const start = url.searchParams.get('cursor') === 'c1' ? RECENT_PAGE_SIZE : 0;
      const results = titles.slice(start, start + RECENT_PAGE_SIZE);
      return send(200, { count: titles.length, next: start === 0 ? '/api/v1/book/?sort=recent&cursor=c1' : null, previous: null, results });
    }
    send(404, { detail: 'Not found.' });
  };
  server = createServer((req, res) => {
    answer(req, res).catch((e: unknown) => res.writeHead(500).end(String(e)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  calls = [];
  modules = { newsletter: { subscribed: false, every_days: 7 }, dismissed: [] };
  localStorage.clear();
  document.cookie = 'logged_in=1; path=/';
  document.cookie = 'csrftoken=token; path=/';
  const realFetch = globalThis.fetch;
  vi.stubGlobal('fetch', (url: string, init?: RequestInit) => realFetch(new URL(url, base), init));
});
afterEach(() => {
  vi.unstubAllGlobals();
  document.cookie = 'logged_in=; path=/; max-age=0';
});

function showHome() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  client.setQueryData(['profile'], profile);
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={['/home/']}>
        <HomePage />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('the home marketing modules', () => {
  it('shows the tutorial until it is dismissed, and remembers that on the server', async () => {
    showHome();
    const tutorial = await screen.findByRole('region', { name: MARKETING_MESSAGES.tutorialTitle }, { timeout: 10_000 });
    expect(within(tutorial).getAllByRole('listitem')).toHaveLength(MARKETING_MESSAGES.tutorialSteps.length);
    fireEvent.click(within(tutorial).getByRole('button', { name: MARKETING_MESSAGES.tutorialDismiss }));
    await waitFor(() => expect(screen.queryByRole('region', { name: MARKETING_MESSAGES.tutorialTitle })).toBeNull());
    await waitFor(() => expect(calls.find((c) => c.path === marketingPaths.homeDismissals())?.body).toEqual({ module: 'tutorial' }));
  });

  it('leaves out what the reader dismissed or already has', async () => {
    modules = { newsletter: { subscribed: true, every_days: 7 }, dismissed: ['tutorial'] };
    showHome();
    await screen.findByRole('region', { name: MARKETING_MESSAGES.recentHeading }, { timeout: 10_000 });
    expect(screen.queryByRole('region', { name: MARKETING_MESSAGES.tutorialTitle })).toBeNull();
    expect(screen.queryByRole('region', { name: MARKETING_MESSAGES.newsletterTitle })).toBeNull();
  });

  it('subscribes to the newsletter from the promo, and shows a sample of the next email', async () => {
    showHome();
    const promo = await screen.findByRole('region', { name: MARKETING_MESSAGES.newsletterTitle }, { timeout: 10_000 });
    const sampleButton = within(promo).getByRole('button', { name: MARKETING_MESSAGES.newsletterSample });
    expect(sampleButton.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(sampleButton);
    expect(await within(promo).findByRole('link', { name: 'New title 1' })).toBeTruthy();
    expect(sampleButton.getAttribute('aria-expanded')).toBe('true');
    expect(within(promo).getByRole('link', { name: MARKETING_MESSAGES.newsletterSeeAll }).getAttribute('href')).toBe('/library/?sort=recent');
    fireEvent.click(within(promo).getByRole('button', { name: MARKETING_MESSAGES.newsletterSubscribe }));
    expect(await within(promo).findByText(MARKETING_MESSAGES.newsletterSubscribed)).toBeTruthy();
    expect(calls.find((c) => c.method === 'PUT')).toMatchObject({ path: marketingPaths.newsletterSubscription(), body: { subscribed: true } });
  });

  it("shows an editor's transformation playlist under its topic's banner", async () => {
    showHome();
    const banner = await screen.findByRole('region', { name: 'From zero to Python' }, { timeout: 10_000 });
    expect(within(banner).getByText(MARKETING_MESSAGES.transformationEyebrow('Python'))).toBeTruthy();
    expect(within(banner).getByText(/Curated by editor · 5 titles/)).toBeTruthy();
    expect(within(banner).getByRole('link', { name: MARKETING_MESSAGES.transformationBrowseTopic('Python') }).getAttribute('href')).toBe('/topics/python');
    expect(within(banner).getAllByRole('heading', { name: /New title/ })).toHaveLength(2);
  });

  it('loads more recent titles with the cursor, and the keyboard goes on at the first new one', async () => {
    showHome();
    const recent = await screen.findByRole('region', { name: MARKETING_MESSAGES.recentHeading }, { timeout: 10_000 });
    expect(await within(recent).findAllByRole('heading', { name: /New title/ })).toHaveLength(RECENT_PAGE_SIZE);
    fireEvent.click(within(recent).getByRole('button', { name: MARKETING_MESSAGES.recentLoadMore }));
    await waitFor(() => expect(within(recent).getAllByRole('heading', { name: /New title/ })).toHaveLength(titles.length), { timeout: 10_000 });
    expect(calls.some((c) => c.path.startsWith(paths.bookList()) && c.path.includes('cursor=c1'))).toBe(true);
    await waitFor(() => expect(document.activeElement?.textContent).toBe(`New title ${RECENT_PAGE_SIZE}`), { timeout: 10_000 });
    expect(within(recent).queryByRole('button', { name: MARKETING_MESSAGES.recentLoadMore })).toBeNull();
    expect(within(recent).getByText(MARKETING_MESSAGES.recentEnd)).toBeTruthy();
  });
});
