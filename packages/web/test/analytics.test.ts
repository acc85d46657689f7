/// <reference types="node" />
/**
 * The page's tracker (shared/analytics.ts) through the real API client against a real HTTP server (node:http on a
 * free port): events gathered for a moment and sent as one batch with the CSRF header, batches of at most
 * ANALYTICS_LIMITS.batch, at once (keepalive) when the page is hidden, labels kept within bounds, and a failing
 * server only logged — `track` itself never throws or waits. The app's own tracker is off under the test runner.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ANALYTICS_LIMITS, analyticsBatchSchema, analyticsPaths } from '@lectern/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, createApiClient } from '../src/api/client.ts';
import { createTracker, track } from '../src/shared/analytics.ts';

let server: Server;
let client: ReturnType<typeof createApiClient>;
const received: { url: string; headers: IncomingHttpHeaders; body: unknown }[] = [];
let status = 202;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, body: JSON.parse(body || 'null') });
      res.writeHead(status, { 'content-type': 'application/json' }).end(status === 202 ? '{"stored":1}' : '{"detail":"no"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = createApiClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});
beforeEach(() => {
  received.length = 0;
  status = 202;
  document.cookie = 'csrftoken=tok-analytics; path=/';
});

describe('track()', () => {
  it('sends nothing from the app under the test runner', () => {
    vi.useFakeTimers();
    const send = vi.spyOn(api, 'sendAnalytics');
    track('topic', 'click', 'databases');
    // a tracker that gathers would have set its timer; none is waiting, and nothing was sent
    expect(vi.getTimerCount()).toBe(0);
    vi.runAllTimers();
    expect(send).not.toHaveBeenCalled();
  });

  it('gathers events for a moment and sends them as one batch the server schema accepts, with the CSRF header', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const sends: Promise<unknown>[] = [];
    const tracker = createTracker({ send: (events, keepalive) => sends[sends.push(client.sendAnalytics(events, keepalive)) - 1]!, delayMs: 40, path: () => '/register/' });
    tracker.track('registration', 'submit', 'basic');
    tracker.track('account', 'trial-created', 'basic');
    tracker.track('account', 'sign-up-completed', 'topic-form', 3);
    vi.advanceTimersByTime(39);
    expect(sends).toHaveLength(0);
    vi.advanceTimersByTime(1);
    // one send for the three, and no timer left that could send another
    expect(sends).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
    await sends[0];
    expect(received).toHaveLength(1);
    expect(received[0]!.url).toBe(analyticsPaths.events());
    expect(received[0]!.headers['x-csrftoken']).toBe('tok-analytics');
    expect(analyticsBatchSchema.parse(received[0]!.body)).toEqual({
      events: [
        { category: 'registration', action: 'submit', label: 'basic', path: '/register/' },
        { category: 'account', action: 'trial-created', label: 'basic', path: '/register/' },
        { category: 'account', action: 'sign-up-completed', label: 'topic-form', value: 3, path: '/register/' },
      ],
    });
  });

  it('splits a burst into batches of the limit, keeps labels within bounds and leaves out a path with a query', async () => {
    const tracker = createTracker({ send: (events, keepalive) => client.sendAnalytics(events, keepalive), delayMs: 10_000, path: () => '/search/?q=x' });
    for (let i = 0; i < ANALYTICS_LIMITS.batch + 3; i++) tracker.track('topic', 'click', `topic-${i}\n\u009b2J\u202e${'x'.repeat(300)}`);
    await tracker.flush();
    expect(received.map((r) => (r.body as { events: unknown[] }).events.length)).toEqual([ANALYTICS_LIMITS.batch, 3]);
    for (const r of received) {
      for (const e of analyticsBatchSchema.parse(r.body).events) {
        expect(e.label.length).toBe(ANALYTICS_LIMITS.label);
        expect(e.path).toBeUndefined();
      }
    }
  });

  it('sends at once when the page is hidden', async () => {
    const sends: Promise<unknown>[] = [];
    const tracker = createTracker({ send: (events, keepalive) => sends[sends.push(client.sendAnalytics(events, keepalive)) - 1]!, delayMs: 60_000, flushOnHide: true });
    tracker.track('subscribe-nag', 'open', 'visitor');
    expect(sends).toHaveLength(0);
    window.dispatchEvent(new Event('pagehide'));
    // sent as the page goes, not when the minute is up
    expect(sends).toHaveLength(1);
    await sends[0];
    expect((received[0]!.body as { events: { action: string }[] }).events.map((e) => e.action)).toEqual(['open']);
  });

  it('only logs a failed send; track itself never throws', async () => {
    status = 500;
    const logged: string[] = [];
    const tracker = createTracker({ send: (events, keepalive) => client.sendAnalytics(events, keepalive), delayMs: 10_000, log: (m) => logged.push(m) });
    tracker.track('promotion', 'applied', 'spring10');
    await tracker.flush();
    expect(received).toHaveLength(1);
    expect(logged).toEqual(['analytics: sending events failed']);
    const throwing = createTracker({
      send: () => {
        throw new Error('offline');
      },
      delayMs: 10_000,
      log: (m) => logged.push(m),
      path: () => {
        throw new Error('no location');
      },
    });
    expect(() => throwing.track('topic', 'click', 'x')).not.toThrow();
  });
});
