/// <reference types="node" />
/**
 * The live-training banner (library-playlists-account.md §4, §6) against a real HTTP server (node:http on a free
 * port; the page's relative calls are sent there): no banner for empty data, 'Online training starting soon' with
 * 'Go to course' before the start, 'Online Training in Progress' with 'Join now' after it (changing on time, with no
 * new request), the join address used only when it is http(s), dismissal remembered per event across renders, and
 * none for an expired account.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { type AccountProfile, LIVE_TRAINING_DISMISSED_KEY_PREFIX, LIVE_TRAINING_MESSAGES as M } from '@lectern/core';
import { LiveTrainingBanner } from '../src/shared/live-training/LiveTrainingBanner.tsx';
import { profile } from './fixtures.ts';

let server: Server;
let base: string;
let answer: unknown = {};
let requests = 0;
/** calls the page made (the server counts those that reached it) */
let fetches = 0;

const at = (ms: number) => new Date(Date.now() + ms).toISOString();
const course = (event: { event_id?: string; start: number; end: number; join_url?: string | null }) => ({
  slug: 'kubernetes-in-three-weeks',
  course_id: '12',
  title: 'Kubernetes in Three Weeks',
  description: '',
  marketing_image2: null,
  url: '/live-training/courses/kubernetes-in-three-weeks/12/',
  topics: [],
  events: [
    {
      event_id: event.event_id ?? '40',
      start_datetime: at(event.start),
      end_datetime: at(event.end),
      join_url: event.join_url === undefined ? 'https://meet.example.com/k8s' : event.join_url,
      presenters: [{ name: 'Ada Lovelace', headshot_url1: null }],
    },
  ],
});

beforeAll(async () => {
  await import('../src/api/schemas.ts');
  server = createServer((req, res) => {
    if (req.url === '/api/v1/live-training/current-event/') {
      requests += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  localStorage.clear();
  requests = 0;
  fetches = 0;
  const realFetch = globalThis.fetch;
  vi.stubGlobal('fetch', (url: string, init?: RequestInit) => (fetches++, realFetch(new URL(url, base), init)));
});
afterEach(() => {
  vi.unstubAllGlobals();
  document.cookie = 'logged_in=; path=/; max-age=0';
});

function show(who: AccountProfile | null = profile, variant: 'site' | 'reader' = 'site') {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  if (who) {
    document.cookie = 'logged_in=1; path=/';
    client.setQueryData(['profile'], who);
  }
  const view = render(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <LiveTrainingBanner variant={variant} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return { ...view, client };
}

/** The banner's request answered and its answer rendered: what it shows now is what it shows for that answer. */
async function answered(client: QueryClient) {
  await waitFor(() => expect(client.isFetching()).toBe(0));
  await act(() => Promise.resolve());
}

describe('the live-training banner', () => {
  it('shows nothing for empty current-event data', async () => {
    answer = {};
    const { container, client } = show();
    await waitFor(() => expect(requests).toBe(1));
    await answered(client);
    expect(container.innerHTML).toBe('');
  });

  it("says 'Online training starting soon' with 'Go to course' before the start, then 'Online Training in Progress' with 'Join now' at it", async () => {
    // The clock stands still until the test moves it past the start: however slowly a loaded machine renders, the
    // banner is seen before the start, and its change comes from its own timer (real), not from a request.
    vi.useFakeTimers({ toFake: ['Date'] });
    onTestFinished(() => void vi.useRealTimers());
    answer = course({ start: 1500, end: 60 * 60_000 });
    show(profile, 'reader');
    const region = await screen.findByRole('region', { name: M.startingSoon });
    expect(region.querySelector('h2')?.textContent).toBe(M.startingSoon);
    expect(region.textContent).toContain('Kubernetes in Three Weeks');
    expect(region.textContent).toContain('With Ada Lovelace');
    const go = screen.getByRole('link', { name: M.goToCourse });
    expect(go.getAttribute('href')).toBe('/live-training/courses/kubernetes-in-three-weeks/12/');
    // the start passes: the banner changes by the clock, without asking again
    vi.setSystemTime(Date.now() + 2000);
    const join = await screen.findByRole('link', { name: M.joinNow }, { timeout: 15_000 });
    expect(screen.getByRole('region', { name: M.inProgress })).toBeTruthy();
    expect(join.getAttribute('href')).toBe('https://meet.example.com/k8s');
    expect(join.getAttribute('target')).toBe('_blank');
    expect(join.getAttribute('rel')).toBe('noopener noreferrer');
    expect(requests).toBe(1);
  });

  it("leads 'Join now' to the course page when there is no http(s) join address", async () => {
    for (const join_url of [null, 'javascript:alert(1)']) {
      answer = course({ start: -60_000, end: 60 * 60_000, join_url });
      const { unmount } = show(null);
      const join = await screen.findByRole('link', { name: M.joinNow });
      expect(join.getAttribute('href')).toBe('/live-training/courses/kubernetes-in-three-weeks/12/');
      unmount();
    }
  });

  it('hides a dismissed event for good (remembered locally, per event), and shows another one', async () => {
    answer = course({ event_id: '41', start: 10 * 60_000, end: 70 * 60_000 });
    const first = show();
    const dismiss = await screen.findByRole('button', { name: M.dismiss });
    dismiss.focus();
    expect(document.activeElement).toBe(dismiss);
    fireEvent.click(dismiss);
    expect(screen.queryByRole('region')).toBeNull();
    expect(localStorage.getItem(`${LIVE_TRAINING_DISMISSED_KEY_PREFIX}41`)).not.toBeNull();
    first.unmount();

    // a new page (a reload): still hidden
    const again = show();
    await waitFor(() => expect(requests).toBe(2));
    await answered(again.client);
    expect(screen.queryByRole('region')).toBeNull();
    // its next session is a new event: shown again
    answer = course({ event_id: '42', start: 10 * 60_000, end: 70 * 60_000 });
    show();
    expect(await screen.findByRole('region', { name: M.startingSoon })).toBeTruthy();
  });

  it('asks nothing and shows nothing for an expired account (§6)', async () => {
    answer = course({ start: 10 * 60_000, end: 70 * 60_000 });
    const { container, client } = show({ ...profile, subscription_status: 'expired', account: { ...profile.account, type: 'Expired' } });
    // a banner that asked would have started its request as it mounted (render runs the effects)
    await act(() => Promise.resolve());
    expect(fetches).toBe(0);
    expect(client.isFetching()).toBe(0);
    expect(requests).toBe(0);
    expect(container.innerHTML).toBe('');
  });
});
