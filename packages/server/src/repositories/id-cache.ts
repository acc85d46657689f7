/**
 * Rows kept by id for a while, for reads that every listing, search and home repeats (a title's row, its authors,
 * publishers and topics): a page of 24 titles then costs the database its page query and the viewer's own fields,
 * not three more statements. Entries live `ttlMs` (another server process's change shows within it) and are all
 * dropped at once when this process changes the catalog (`generation` moves: an import or a new edition).
 * At most `maxEntries`, and at most `maxBytes` as `valueBytes` estimates them (a row's size is the library's: a
 * long description or many authors weigh more, and an entry count alone let the rows of a search's thousands of
 * candidates grow with them); the oldest go first.
 */
export class IdCache<V> {
  private readonly entries = new Map<number, { value: V; expires: number; bytes: number }>();
  private generation = -1;
  private totalBytes = 0;
  private readonly now: () => number;
  private readonly maxBytes: number;

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
    options: (() => number) | { now?: () => number; maxBytes?: number } = {},
  ) {
    const opts = typeof options === 'function' ? { now: options } : options;
    this.now = opts.now ?? Date.now;
    this.maxBytes = opts.maxBytes ?? Infinity;
  }

  /** What the values kept weigh together, as valueBytes estimates them. */
  get bytes(): number {
    return this.totalBytes;
  }

  get size(): number {
    return this.entries.size;
  }

  private drop(id: number): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.totalBytes -= entry.bytes;
  }

  /**
   * The values of `ids` (a Map by id, in the order asked; an id with no row has `empty`), loading those not kept with `load` (one call
   * for all of them) and keeping what it answers, also the ids it has no value for.
   */
  async getMany(ids: readonly number[], generation: number, load: (missing: number[]) => Promise<Map<number, V>>, empty: V): Promise<Map<number, V>> {
    if (generation !== this.generation) {
      this.entries.clear();
      this.totalBytes = 0;
      this.generation = generation;
    }
    const now = this.now();
    const held = new Map<number, V>();
    const missing: number[] = [];
    for (const id of new Set(ids)) {
      const entry = this.entries.get(id);
      if (entry && entry.expires > now) held.set(id, entry.value);
      else missing.push(id);
    }
    if (missing.length) {
      const loaded = await load(missing);
      // A change made while loading: what was read may be the old edition, so it is answered but not kept.
      const keep = generation === this.generation;
      for (const id of missing) {
        const value = loaded.get(id) ?? empty;
        held.set(id, value);
        if (!keep) continue;
        this.drop(id);
        const bytes = valueBytes(value);
        // a value heavier than the whole budget is answered, not kept
        if (bytes > this.maxBytes) continue;
        this.entries.set(id, { value, expires: now + this.ttlMs, bytes });
        this.totalBytes += bytes;
      }
      for (const oldest of this.entries.keys()) {
        if (this.entries.size <= this.maxEntries && this.totalBytes <= this.maxBytes) break;
        this.drop(oldest);
      }
    }
    // In the order asked.
    return new Map([...new Set(ids)].map((id) => [id, held.get(id)!]));
  }
}

/**
 * The memory a value of rows holds, roughly: two bytes a string character, 8 a number or other scalar, and some room
 * for each object and array (V8's headers and property slots). An estimate to bound a cache by, not a measurement.
 */
export function valueBytes(value: unknown): number {
  if (typeof value === 'string') return 16 + value.length * 2;
  if (value === null || typeof value !== 'object') return 8;
  let n = 32;
  if (Array.isArray(value)) for (const v of value) n += 8 + valueBytes(v);
  else for (const v of Object.values(value)) n += 16 + valueBytes(v);
  return n;
}
