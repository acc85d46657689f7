import { describe, expect, it } from 'vitest';
import { IdCache, valueBytes } from '../../src/repositories/id-cache.ts';

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
    let now = 0;
    const calls: number[][] = [];
    const cache = new IdCache<string | null>(100, 1_000, () => now);
    await cache.getMany([1], 0, loader(calls), null);
    await cache.getMany([1], 1, loader(calls), null);
    now = 999;
    await cache.getMany([1], 1, loader(calls), null);
    now = 2_000;
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
