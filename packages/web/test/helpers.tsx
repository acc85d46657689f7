import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter } from 'react-router';
import { vi } from 'vitest';
import type { Collection } from '@lectern/core';
import { playlistKeys } from '../src/shared/playlists/store.ts';
import { profile } from './fixtures.ts';

export interface Call {
  method: string;
  url: string;
  body: unknown;
}

/** Lets pending promise chains (the lazily imported schemas, fetch, JSON parsing) settle without moving fake timers. */
export async function flush(rounds = 20) {
  await act(async () => {
    for (let i = 0; i < rounds; i++) await Promise.resolve();
  });
}

export const json = (status: number, body?: unknown) =>
  new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** Replaces fetch with a function answering per call, recording what was sent. */
export function stubFetch(respond: (call: Call) => Response | Promise<Response>) {
  const calls: Call[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit = {}) => {
      const call = { method: init.method ?? 'GET', url, body: init.body ? JSON.parse(String(init.body)) : undefined };
      calls.push(call);
      return respond(call);
    }),
  );
  return calls;
}

/** A signed-in session with the given playlists already in the cache. */
export function renderSignedIn(ui: ReactNode, playlists: Collection[], path = '/') {
  document.cookie = 'logged_in=1; path=/';
  document.cookie = 'csrftoken=tok; path=/';
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  client.setQueryData(['profile'], profile);
  client.setQueryData(playlistKeys.collections, playlists);
  const result = render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[path]}>{ui}</MemoryRouter>
    </QueryClientProvider>,
  );
  return { client, ...result };
}
