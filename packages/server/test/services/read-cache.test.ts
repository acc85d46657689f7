import { describe, expect, it } from 'vitest';
import { ReadCache } from '../../src/services/read-cache.ts';

const kb = (n: number) => Buffer.alloc(n * 1024);
const byLength = { sizeOf: (b: Buffer) => b.byteLength };

describe('ReadCache byte accounting', () => {
  it('counts the bytes of what it holds, and gives them back on delete, replace, expiry and clear', () => {
    let now = 0;
    const cache = new ReadCache<string, Buffer>(100, 1000, { ...byLength, maxBytes: 1024 * 1024, now: () => now });
    cache.set('a', kb(10));
    cache.set('b', kb(20));
    expect(cache.bytes).toBe(30 * 1024);
    cache.set('a', kb(5));
    expect(cache.bytes).toBe(25 * 1024);
    cache.delete('b');
    expect(cache.bytes).toBe(5 * 1024);
    now = 1000;
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

  it('still bounds the number of entries', () => {
    const cache = new ReadCache<number, number>(3, 60_000);
    for (let i = 0; i < 5; i++) cache.set(i, i);
    expect([0, 1, 2, 3, 4].map((k) => cache.get(k))).toEqual([undefined, undefined, 2, 3, 4]);
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
