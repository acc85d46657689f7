/**
 * The gate of heavy requests (util/gate.ts): bounded concurrency, turns in order of arrival, a bounded queue, a
 * bounded wait (fake clock), and a waiter whose client has gone leaving the queue without its work run.
 */
import http from 'node:http';
import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { Busy, ClientGone, Gate, inTurn } from '../../src/util/gate.ts';

/** A piece of work the test ends when it chooses. */
function held() {
  let end!: () => void;
  let fail!: (err: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    end = resolve;
    fail = reject;
  });
  return { done, end, fail };
}

describe('Gate', () => {
  it('lets `concurrency` run at once and the rest in order of arrival', async () => {
    const gate = new Gate(2, 10);
    const order: number[] = [];
    const works = Array.from({ length: 5 }, () => held());
    const runs = works.map((w, i) =>
      gate.run(async () => {
        order.push(i);
        await w.done;
        return i;
      }),
    );
    await Promise.resolve();
    expect(order).toEqual([0, 1]);
    expect(gate.load).toEqual({ active: 2, waiting: 3 });
    works[1]!.end();
    await runs[1];
    await Promise.resolve();
    expect(order).toEqual([0, 1, 2]);
    expect(gate.load).toEqual({ active: 2, waiting: 2 });
    for (const w of works) w.end();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
  });

  it('passes the turn on when the work fails', async () => {
    const gate = new Gate(1, 10);
    const first = held();
    const failing = gate.run(() => first.done);
    const next = gate.run(async () => 'next');
    first.fail(new Error('boom'));
    await expect(failing).rejects.toThrow('boom');
    expect(await next).toBe('next');
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
  });

  it('refuses at once when the queue is full, and takes again once it has room', async () => {
    const gate = new Gate(1, 1);
    const first = held();
    const running = gate.run(() => first.done);
    const queued = gate.run(async () => 'queued');
    await expect(gate.run(async () => 'refused')).rejects.toBeInstanceOf(Busy);
    expect(gate.load).toEqual({ active: 1, waiting: 1 });
    first.end();
    await running;
    expect(await queued).toBe('queued');
    expect(await gate.run(async () => 'later')).toBe('later');
  });
});

describe('Gate: a bounded wait, and waiters that leave', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('refuses a waiter whose turn has not come within maxWaitMs (Busy), and its place is not kept', async () => {
    vi.useFakeTimers();
    const gate = new Gate(1, 10, 1000);
    const first = held();
    const running = gate.run(() => first.done);
    let ran = false;
    const waiting = gate.run(async () => {
      ran = true;
    });
    const outcome = waiting.then(
      () => 'ran',
      (err: unknown) => err,
    );
    await vi.advanceTimersByTimeAsync(999);
    expect(gate.load).toEqual({ active: 1, waiting: 1 });
    await vi.advanceTimersByTimeAsync(1);
    const err = await outcome;
    expect(err).toBeInstanceOf(Busy);
    expect((err as Busy).retryAfterSeconds).toBe(1);
    expect(gate.load).toEqual({ active: 1, waiting: 0 });
    first.end();
    await running;
    expect(ran).toBe(false);
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
    expect(await gate.run(async () => 'next')).toBe('next');
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
  });

  it('a waiter served in time is not refused later, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    const gate = new Gate(1, 10, 1000);
    const first = held();
    const running = gate.run(() => first.done);
    const second = held();
    const waiting = gate.run(() => second.done.then(() => 'second'));
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(500);
    first.end();
    await running;
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(5000); // long past the bound while it works
    second.end();
    expect(await waiting).toBe('second');
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
  });

  it('drops a waiter whose signal aborts: its work never runs, the turn goes to the next, no slot is kept', async () => {
    vi.useFakeTimers();
    const gate = new Gate(1, 10, 1000);
    const first = held();
    const running = gate.run(() => first.done);
    const order: string[] = [];
    const left = new AbortController();
    const gone = gate.run(async () => void order.push('gone'), left.signal);
    const goneOutcome = gone.catch((err: unknown) => err);
    const next = gate.run(async () => void order.push('next'));
    expect(gate.load).toEqual({ active: 1, waiting: 2 });
    left.abort();
    expect(await goneOutcome).toBeInstanceOf(ClientGone);
    expect(gate.load).toEqual({ active: 1, waiting: 1 });
    expect(vi.getTimerCount()).toBe(1); // the one left waiting
    first.end();
    await running;
    await next;
    expect(order).toEqual(['next']);
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
    expect(vi.getTimerCount()).toBe(0);
    // a signal aborted already takes no turn, even a free one
    const already = new AbortController();
    already.abort();
    await expect(gate.run(async () => void order.push('late'), already.signal)).rejects.toBeInstanceOf(ClientGone);
    expect(order).toEqual(['next']);
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
  });

  it('in a route (inTurn): a client that closes its connection while waiting leaves the queue and its work is not run', async () => {
    const gate = new Gate(1, 10, 60_000);
    const app = Fastify();
    const worked: string[] = [];
    app.get('/work/:name', async (request, reply) => {
      const { name } = request.params as { name: string };
      return inTurn(gate, reply, async () => {
        worked.push(name);
        return { name };
      });
    });
    await app.listen({ port: 4800, host: '127.0.0.1' });
    try {
      await gate.enter(); // a heavy request at work holds the only turn
      const client = http.get('http://127.0.0.1:4800/work/gone');
      const closed = new Promise<void>((resolve) => client.on('error', () => resolve()).on('close', () => resolve()));
      await vi.waitFor(() => expect(gate.load).toEqual({ active: 1, waiting: 1 }));
      client.destroy();
      await closed;
      await vi.waitFor(() => expect(gate.load).toEqual({ active: 1, waiting: 0 }));
      gate.leave();
      expect(gate.load).toEqual({ active: 0, waiting: 0 });
      // the turn is free: the next request is served at once, and the gone one's work never ran
      const res = await app.inject({ method: 'GET', url: '/work/next' });
      expect(res.json()).toEqual({ name: 'next' });
      expect(worked).toEqual(['next']);
      expect(gate.load).toEqual({ active: 0, waiting: 0 });
    } finally {
      await app.close();
    }
  });

  it('in a route (inTurn): a wait past the bound is a 503 with Retry-After', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const gate = new Gate(1, 10, 1000);
    const app = Fastify();
    app.get('/work', async (_request, reply) => inTurn(gate, reply, async () => ({ ok: true })));
    await app.ready();
    try {
      await gate.enter();
      const answer = app.inject({ method: 'GET', url: '/work' });
      await vi.waitFor(() => expect(gate.load).toEqual({ active: 1, waiting: 1 }));
      await vi.advanceTimersByTimeAsync(1000);
      const res = await answer;
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(gate.load).toEqual({ active: 1, waiting: 0 });
      gate.leave();
      expect(gate.load).toEqual({ active: 0, waiting: 0 });
    } finally {
      await app.close();
    }
  });
});

describe('the gates from the environment', () => {
  it('reads HEAVY_REQUESTS, LISTING_REQUESTS, HEAVY_REQUESTS_QUEUE and HEAVY_REQUESTS_WAIT_SECONDS, defaults per engine when unset, and names a bad one', () => {
    expect(loadConfig({}).heavyRequests).toEqual({ concurrency: null, listingConcurrency: null, maxWaiting: 1000, maxWaitMs: 30_000 });
    expect(loadConfig({ HEAVY_REQUESTS: '3', LISTING_REQUESTS: '6', HEAVY_REQUESTS_QUEUE: '50', HEAVY_REQUESTS_WAIT_SECONDS: '5' }).heavyRequests).toEqual({
      concurrency: 3,
      listingConcurrency: 6,
      maxWaiting: 50,
      maxWaitMs: 5000,
    });
    expect(() => loadConfig({ HEAVY_REQUESTS: '0', LISTING_REQUESTS: 'many', HEAVY_REQUESTS_WAIT_SECONDS: '-1' })).toThrow(
      new ConfigError([
        'HEAVY_REQUESTS must be a positive whole number, got "0"',
        'HEAVY_REQUESTS_WAIT_SECONDS must be a positive whole number, got "-1"',
        'LISTING_REQUESTS must be a positive whole number, got "many"',
      ]),
    );
  });
});
