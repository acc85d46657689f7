import { afterEach, describe, expect, it, vi } from 'vitest';
import { IdCache, ReadCache, valueBytes } from '../../src/util/cache.ts';

const kb = (n: number) => Buffer.alloc(n * 1024);
const byLength = { sizeOf: (b: Buffer) => b.byteLength };

afterEach(() => {
  vi.useRealTimers();
});

describe('ReadCache time limit (lru-cache TTL, on a fake clock)', () => {
  // lru-cache reads a start time of 0 as "never stale": a fake clock at its epoch must still expire entries.
  it.each([0, Date.UTC(2026, 0, 1)])('keeps a value for its time and forgets it after, the clock starting at %i', (start) => {
    vi.useFakeTimers({ now: start });
    const cache = new ReadCache<string, string>(10, 1000);
    cache.set('k', 'v');
    vi.advanceTimersByTime(999);
    expect(cache.get('k')).toBe('v');
    vi.advanceTimersByTime(2);
    expect(cache.get('k')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('reads the clock at each call: no reading is cached behind a timer of its own', () => {
    vi.useFakeTimers({ now: 0 });
    const cache = new ReadCache<string, string>(10, 1000);
    cache.set('k', 'v');
    expect(cache.get('k')).toBe('v');
    // the clock jumps without running timers (a timer-debounced reading would still say "fresh")
    vi.setSystemTime(5000);
    expect(cache.get('k')).toBeUndefined();
  });

  it('keeps nothing when it may keep no entries or for no time, and still shares loads', async () => {
    for (const cache of [new ReadCache<string, string>(0, 0), new ReadCache<string, string>(10, 0)]) {
      cache.set('k', 'v');
      expect([cache.get('k'), cache.size]).toEqual([undefined, 0]);
      let loads = 0;
      const load = async () => `load ${++loads}`;
      expect(await Promise.all([cache.getOrLoad('k', load), cache.getOrLoad('k', load)])).toEqual(['load 1', 'load 1']);
      expect(await cache.getOrLoad('k', load)).toBe('load 2');
    }
  });
});

describe('ReadCache byte accounting', () => {
  it('counts the bytes of what it holds, and gives them back on delete, replace, expiry and clear', () => {
    vi.useFakeTimers({ now: 0 });
    const cache = new ReadCache<string, Buffer>(100, 1000, { ...byLength, maxBytes: 1024 * 1024 });
    cache.set('a', kb(10));
    cache.set('b', kb(20));
    expect(cache.bytes).toBe(30 * 1024);
    cache.set('a', kb(5));
    expect(cache.bytes).toBe(25 * 1024);
    cache.delete('b');
    expect(cache.bytes).toBe(5 * 1024);
    vi.advanceTimersByTime(1001);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.bytes).toBe(0);
    cache.set('c', kb(1));
    cache.clear();
    expect([cache.bytes, cache.size]).toEqual([0, 0]);
  });

  it('evicts the oldest entries until the new one fits in the byte budget', () => {
    const cache = new ReadCache<string, Buffer>(1000, 60_000, { ...byLength, maxBytes: 100 * 1024 });
    for (const key of ['a', 'b', 'c', 'd']) cache.set(key, kb(30));
    // 4 x 30 KB > 100 KB: 'a' went to make room for 'd'.
    expect(cache.get('a')).toBeUndefined();
    expect(['b', 'c', 'd'].map((k) => cache.get(k)?.byteLength)).toEqual([30 * 1024, 30 * 1024, 30 * 1024]);
    cache.set('e', kb(70));
    // 'b' and 'c' went: 30 (d) + 70 (e) = 100 KB.
    expect(['b', 'c', 'd', 'e'].map((k) => cache.get(k) !== undefined)).toEqual([false, false, true, true]);
    expect(cache.bytes).toBe(100 * 1024);
  });

  it('keeps nothing heavier than the whole budget, and never holds more than the budget', () => {
    const cache = new ReadCache<number, Buffer>(10_000, 60_000, { ...byLength, maxBytes: 1024 * 1024 });
    cache.set(-1, kb(2048));
    expect(cache.get(-1)).toBeUndefined();
    // 2,000 chapters of 212 KB: the case that took the server to 1 GB.
    for (let i = 0; i < 2000; i++) {
      cache.set(i, kb(212));
      expect(cache.bytes).toBeLessThanOrEqual(1024 * 1024);
    }
    expect(cache.size).toBe(4);
    expect(cache.get(1999)).toBeDefined();
  });

  it('still bounds the number of entries, the least recently read going first', () => {
    const cache = new ReadCache<number, number>(3, 60_000);
    for (let i = 0; i < 5; i++) cache.set(i, i);
    expect([0, 1, 2, 3, 4].map((k) => cache.get(k))).toEqual([undefined, undefined, 2, 3, 4]);
    // reading 3 and 4 leaves 2 the least recently read, so it goes first
    cache.get(3);
    cache.get(4);
    cache.set(5, 5);
    expect([2, 3, 4, 5].map((k) => cache.get(k))).toEqual([undefined, 3, 4, 5]);
  });

  it('drops what a key held when a value too heavy to keep replaces it', () => {
    const cache = new ReadCache<string, Buffer>(10, 60_000, { ...byLength, maxBytes: 1024 });
    cache.set('k', kb(1));
    cache.set('k', kb(2));
    expect([cache.get('k'), cache.bytes, cache.size]).toEqual([undefined, 0, 0]);
  });
});

describe('ReadCache single flight', () => {
  it('runs one load for concurrent misses of a key, and keeps its value', async () => {
    const cache = new ReadCache<string, string>(10, 60_000);
    let loads = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const load = async () => {
      loads++;
      await gate;
      return 'built';
    };
    const all = Promise.all(Array.from({ length: 50 }, () => cache.getOrLoad('k', load)));
    release();
    expect(await all).toEqual(Array(50).fill('built'));
    expect(loads).toBe(1);
    expect(await cache.getOrLoad('k', load)).toBe('built');
    expect(loads).toBe(1);
  });

  it('does not keep a value whose key was invalidated while it loaded, and loads again after', async () => {
    const cache = new ReadCache<string, string>(10, 60_000);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const stale = cache.getOrLoad('k', async () => {
      await gate;
      return 'before the change';
    });
    cache.delete('k');
    const fresh = cache.getOrLoad('k', async () => 'after the change');
    release();
    expect(await stale).toBe('before the change');
    expect(await fresh).toBe('after the change');
    expect(cache.get('k')).toBe('after the change');
  });

  it('lets a failed load fail every waiter, and tries again on the next call', async () => {
    const cache = new ReadCache<string, string>(10, 60_000);
    const failing = () => Promise.reject(new Error('database down'));
    await expect(Promise.all([cache.getOrLoad('k', failing), cache.getOrLoad('k', failing)])).rejects.toThrow('database down');
    expect(await cache.getOrLoad('k', async () => 'ok')).toBe('ok');
  });
});

describe('IdCache (rows kept by id)', () => {
  const loader = (calls: number[][]) => async (missing: number[]) => {
    calls.push(missing);
    return new Map(missing.filter((id) => id !== 404).map((id) => [id, `row ${id}`]));
  };

  it('loads only what it does not hold, in one call, and remembers ids that have no row', async () => {
    const calls: number[][] = [];
    const cache = new IdCache<string | null>(100, 60_000);
    expect([...(await cache.getMany([1, 2, 404], 0, loader(calls), null))]).toEqual([[1, 'row 1'], [2, 'row 2'], [404, null]]);
    expect([...(await cache.getMany([2, 3, 404, 3], 0, loader(calls), null))]).toEqual([[2, 'row 2'], [3, 'row 3'], [404, null]]);
    expect(calls).toEqual([[1, 2, 404], [3]]);
  });

  it('forgets everything when the generation moves (an import or a new edition here), and after its time', async () => {
    vi.useFakeTimers({ now: 0 });
    const calls: number[][] = [];
    const cache = new IdCache<string | null>(100, 1_000);
    await cache.getMany([1], 0, loader(calls), null);
    await cache.getMany([1], 1, loader(calls), null);
    vi.advanceTimersByTime(999);
    await cache.getMany([1], 1, loader(calls), null);
    vi.advanceTimersByTime(1_001);
    await cache.getMany([1], 1, loader(calls), null);
    expect(calls).toEqual([[1], [1], [1]]);
  });

  it('keeps at most maxEntries, the oldest going first', async () => {
    const calls: number[][] = [];
    const cache = new IdCache<string | null>(2, 60_000);
    await cache.getMany([1, 2, 3], 0, loader(calls), null);
    await cache.getMany([2, 3], 0, loader(calls), null);
    await cache.getMany([1], 0, loader(calls), null);
    expect(calls).toEqual([[1, 2, 3], [1]]);
  });

  it('does not keep what it loaded while the generation moved', async () => {
    const calls: number[][] = [];
    const cache = new IdCache<string | null>(100, 60_000);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const old = cache.getMany([1], 0, async (missing) => {
      await gate;
      return new Map(missing.map((id) => [id, `old ${id}`]));
    }, null);
    await cache.getMany([2], 1, loader(calls), null);
    release();
    expect((await old).get(1)).toBe('old 1');
    expect((await cache.getMany([1], 1, loader(calls), null)).get(1)).toBe('row 1');
  });

  it('keeps at most maxBytes of values, the oldest going first; a value heavier than the budget is answered, not kept', async () => {
    const calls: number[][] = [];
    const big = (id: number) => `row ${id} `.padEnd(100_000, '.');
    const load = async (missing: number[]) => {
      calls.push(missing);
      return new Map(missing.map((id) => [id, id === 999 ? 'x'.repeat(1_000_000) : big(id)]));
    };
    const cache = new IdCache<string>(10_000, 60_000, { maxBytes: 1_000_000 });
    for (let i = 0; i < 1_000; i += 10) await cache.getMany(Array.from({ length: 10 }, (_, j) => i + j), 0, load, '');
    expect(cache.bytes).toBeLessThanOrEqual(1_000_000);
    expect(cache.bytes).toBe(cache.size * valueBytes(big(0)));
    // the newest are kept: asking for them loads nothing; the oldest went
    const newest = Array.from({ length: cache.size }, (_, j) => 999 - j).filter((id) => id !== 999);
    calls.length = 0;
    expect((await cache.getMany(newest.slice(0, 3), 0, load, '')).get(998)).toBe(big(998));
    expect(calls).toEqual([]);
    await cache.getMany([0], 0, load, '');
    expect(calls).toEqual([[0]]);
    // too heavy to keep: answered, and loaded again next time
    calls.length = 0;
    expect((await cache.getMany([999], 0, load, '')).get(999)).toHaveLength(1_000_000);
    await cache.getMany([999], 0, load, '');
    expect(calls).toEqual([[999], [999]]);
    expect(cache.bytes).toBeLessThanOrEqual(1_000_000);
  });

  it('estimates a row by its strings and fields', () => {
    expect(valueBytes('abcd')).toBe(16 + 8);
    expect(valueBytes({ a: 'abcd', b: 1 })).toBe(32 + 16 + 24 + 16 + 8);
    expect(valueBytes([{ id: 1, text_length: 5 }])).toBe(32 + 8 + (32 + 2 * (16 + 8)));
  });
});
