/** The gate of heavy requests (util/gate.ts): bounded concurrency, turns in order of arrival, a bounded queue. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { Busy, Gate } from '../../src/util/gate.ts';

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

describe('the gates from the environment', () => {
  it('reads HEAVY_REQUESTS, LISTING_REQUESTS and HEAVY_REQUESTS_QUEUE, defaults per engine when unset, and names a bad one', () => {
    expect(loadConfig({}).heavyRequests).toEqual({ concurrency: null, listingConcurrency: null, maxWaiting: 1000 });
    expect(loadConfig({ HEAVY_REQUESTS: '3', LISTING_REQUESTS: '6', HEAVY_REQUESTS_QUEUE: '50' }).heavyRequests).toEqual({ concurrency: 3, listingConcurrency: 6, maxWaiting: 50 });
    expect(() => loadConfig({ HEAVY_REQUESTS: '0', LISTING_REQUESTS: 'many' })).toThrow(
      new ConfigError(['HEAVY_REQUESTS must be a positive whole number, got "0"', 'LISTING_REQUESTS must be a positive whole number, got "many"']),
    );
  });
});
