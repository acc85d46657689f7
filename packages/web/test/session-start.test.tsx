/**
 * The profile is asked for as the app starts (startSession, called where App makes its query client), not in the
 * effects after the first render; the session hook then finds that request under way and sends no second one.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startSession, useSession } from '../src/shared/useSession.ts';
import { profile } from './fixtures.ts';
import { flush, json, stubFetch } from './helpers.tsx';

function Who() {
  const { profile: p, isLoading } = useSession();
  return <p>{isLoading ? 'loading' : (p?.username ?? 'visitor')}</p>;
}

afterEach(() => {
  vi.unstubAllGlobals();
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
