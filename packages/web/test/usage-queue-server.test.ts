/// <reference types="node" />
/**
 * The usage queue against a real HTTP server (node:http on a free port) through the real API client: a server
 * error (5xx) is not an answer about the events, so the queue keeps every one of them (marked is_offline) and
 * sends them again; only what the server acknowledged — accepted, or rejected as invalid — is forgotten.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { usageEventsResponseSchema, type UsageEvent } from '@lectern/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../src/api/client.ts';
import { UsageQueue, type StorageLike } from '../src/shared/reading/usageQueue.ts';

let server: Server;
let client: ReturnType<typeof createApiClient>;
/** What the server answers next: a status and body, taken in order. */
const answers: { status: number; body: (events: UsageEvent[]) => unknown }[] = [];
const received: UsageEvent[][] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const events = JSON.parse(body || '[]') as UsageEvent[];
      received.push(events);
      const answer = answers.shift() ?? { status: 200, body: (e: UsageEvent[]) => ({ accepted: e.map((x) => x.usage_uuid), rejected: [] }) };
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body(events)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = createApiClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  answers.length = 0;
  received.length = 0;
  document.cookie = 'csrftoken=tok-123; path=/';
});

function memoryStorage(): StorageLike {
  const map = new Map<string, string>();
  return { getItem: (k) => map.get(k) ?? null, setItem: (k, v) => void map.set(k, v), removeItem: (k) => void map.delete(k) };
}

const event = (n: number): UsageEvent => ({
  chapter: 'api/v1/book/b1/chapter/ch1.xhtml',
  start_percentage: 0,
  end_percentage: 10 + n,
  client_timestamp: new Date(1_700_000_000_000 + n * 1000).toISOString(),
  usage_uuid: `event-${n}`,
});

const queueOver = () =>
  new UsageQueue({
    userId: 'u1',
    storage: memoryStorage(),
    send: (events) => client.request('/api/v1/usage-event/', usageEventsResponseSchema, { method: 'POST', body: events }),
    onError: () => {},
  });

describe('usage queue against a server', () => {
  it.each([500, 502, 503])('keeps every event when the server answers %i, and sends them again', async (status) => {
    const q = queueOver();
    for (let i = 1; i <= 3; i++) q.enqueue(event(i));
    // The error body even looks like an acknowledgement: a 5xx is never read as one.
    answers.push({ status, body: (e) => ({ detail: 'Internal server error.', accepted: [], rejected: e.map((x, index) => ({ index, usage_uuid: x.usage_uuid, reason: 'no' })) }) });
    const failed = await q.flush();
    expect(failed).toMatchObject({ failed: 3, acknowledged: 0 });
    expect(q.pending().map((e) => [e.usage_uuid, e.is_offline])).toEqual([
      ['event-1', true],
      ['event-2', true],
      ['event-3', true],
    ]);

    const ok = await q.flush();
    expect(ok).toMatchObject({ sent: 3, acknowledged: 3, failed: 0 });
    expect(received.at(-1)!.map((e) => e.usage_uuid)).toEqual(['event-1', 'event-2', 'event-3']);
    expect(received.at(-1)!.every((e) => e.is_offline === true)).toBe(true);
    expect(q.pending()).toEqual([]);
  });

  it('forgets only what a 200 acknowledged: the accepted and the rejected-as-invalid', async () => {
    const q = queueOver();
    for (let i = 1; i <= 3; i++) q.enqueue(event(i));
    answers.push({ status: 200, body: () => ({ accepted: ['event-1'], rejected: [{ index: 1, usage_uuid: 'event-2', reason: 'chapter is not a chapter of this library.' }] }) });
    await q.flush();
    expect(q.pending().map((e) => e.usage_uuid)).toEqual(['event-3']);
  });
});
