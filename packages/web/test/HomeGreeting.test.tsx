/// <reference types="node" />
/**
 * The home's greeting (docs/decisions.md "The paying reader's path") against a real HTTP server (node:http on a free
 * port; the page's relative calls are sent there): a reader's first home page says "Welcome, ada" — "Welcome back"
 * greeted readers who had just signed up — and the next one, in this browser, "Welcome back, ada".
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { HOME_MESSAGES, searchPaths } from '@lectern/core';
import { HomePage } from '../src/features/home/HomePage.tsx';
import { profile } from './fixtures.ts';

let server: Server;
let base: string;

// A loaded machine (the suite runs beside others) can take seconds for a page's round trips.
vi.setConfig({ testTimeout: 30_000 });

beforeAll(async () => {
  await import('../src/api/schemas.ts');
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === searchPaths.home()) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ announcements: [], sections: [], topics: [] }));
    else res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not found."}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  localStorage.clear();
  document.cookie = 'logged_in=1; path=/';
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

describe('the home greeting', () => {
  it('welcomes a first visit without "back", and says "back" the next time', async () => {
    const first = showHome();
    const heading = await screen.findByRole('heading', { level: 1 }, { timeout: 10_000 });
    expect(heading.textContent).toBe('Welcome, ada');
    expect(heading.textContent).toBe(HOME_MESSAGES.welcome('ada'));
    first.unmount();
    showHome();
    expect((await screen.findByRole('heading', { level: 1 }, { timeout: 10_000 })).textContent).toBe('Welcome back, ada');
  });
});
