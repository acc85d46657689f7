import { describe, expect, it } from 'vitest';
import { IdCache } from '../../src/repositories/id-cache.ts';

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
});
