/**
 * The profile is asked for as the app starts (startSession, called where App makes its query client), not in the
 * effects after the first render; the session hook then finds that request under way and sends no second one.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BOOT_DATA_ID } from '@lectern/core';
import { resetBootData } from '../src/api/boot.ts';
import { startSession, useSession } from '../src/shared/useSession.ts';
import { profile } from './fixtures.ts';
import { flush, json, stubFetch } from './helpers.tsx';

function Who() {
  const { profile: p, isLoading } = useSession();
  return <p>{isLoading ? 'loading' : (p?.username ?? 'visitor')}</p>;
}

afterEach(() => {
  vi.unstubAllGlobals();
  document.getElementById(BOOT_DATA_ID)?.remove();
  resetBootData();
  document.cookie = 'logged_in=; max-age=0; path=/';
});

describe('startSession', () => {
  it('asks for the profile before anything renders, once, when the logged_in cookie is set', async () => {
    document.cookie = 'logged_in=1; path=/';
    const calls = stubFetch((call) => (call.url === '/u/information_for_javascript' ? json(200, profile) : json(404, { detail: 'Not found.' })));
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    startSession(client);
    expect(calls.map((c) => c.url)).toEqual(['/u/information_for_javascript']);
    render(
      <QueryClientProvider client={client}>
        <Who />
      </QueryClientProvider>,
    );
    await flush();
    await screen.findByText(profile.username);
    expect(calls.map((c) => c.url)).toEqual(['/u/information_for_javascript']);
  });

  it('asks nothing of a visitor without the cookie', async () => {
    const calls = stubFetch(() => json(401, { detail: 'Authentication credentials were not provided.' }));
    const client = new QueryClient();
    startSession(client);
    await flush();
    expect(calls).toEqual([]);
  });
});

/** The page as the server writes it for a request with a session (packages/server/src/routes/web.ts). */
function pageWithBootData(text: string) {
  const el = document.createElement('script');
  el.type = 'application/json';
  el.id = BOOT_DATA_ID;
  el.textContent = text;
  document.body.append(el);
}

describe('startSession with the profile in the page', () => {
  it('takes the profile from the page and asks nothing', async () => {
    document.cookie = 'logged_in=1; path=/';
    // as the server escapes it: a `<` in a name arrives as \u003c
    pageWithBootData(JSON.stringify({ profile: { ...profile, username: '<b>Ada' } }).replace(/</g, '\\u003c'));
    const calls = stubFetch(() => json(500, { detail: 'no request was expected' }));
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    startSession(client);
    render(
      <QueryClientProvider client={client}>
        <Who />
      </QueryClientProvider>,
    );
    expect(screen.getByText('<b>Ada')).toBeTruthy(); // in the first render, no request in between
    await flush();
    expect(calls).toEqual([]);
    expect(document.getElementById(BOOT_DATA_ID)).toBeNull(); // read once
  });

  it('takes a null profile (the session has gone) as a visitor, without asking', async () => {
    document.cookie = 'logged_in=1; path=/';
    pageWithBootData('{"profile":null}');
    const calls = stubFetch(() => json(401, { detail: 'Authentication credentials were not provided.' }));
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    startSession(client);
    render(
      <QueryClientProvider client={client}>
        <Who />
      </QueryClientProvider>,
    );
    expect(screen.getByText('visitor')).toBeTruthy();
    await flush();
    expect(calls).toEqual([]);
  });

  it('asks again when the profile in the page does not match its schema, once the schemas are loaded', async () => {
    document.cookie = 'logged_in=1; path=/';
    pageWithBootData(JSON.stringify({ profile: { username: 'stale shape' } }));
    const calls = stubFetch((call) => (call.url === '/u/information_for_javascript' ? json(200, profile) : json(404, { detail: 'Not found.' })));
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    startSession(client);
    render(
      <QueryClientProvider client={client}>
        <Who />
      </QueryClientProvider>,
    );
    await screen.findByText(profile.username);
    expect(calls.map((c) => c.url)).toEqual(['/u/information_for_javascript']);
  });

  it('asks as before when the page holds nothing readable', async () => {
    document.cookie = 'logged_in=1; path=/';
    pageWithBootData('{not json');
    const calls = stubFetch((call) => (call.url === '/u/information_for_javascript' ? json(200, profile) : json(404, { detail: 'Not found.' })));
    startSession(new QueryClient({ defaultOptions: { queries: { retry: false } } }));
    expect(calls.map((c) => c.url)).toEqual(['/u/information_for_javascript']);
  });
});
