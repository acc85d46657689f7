/**
 * A small in-process read-through cache with a time limit and two size limits, entries and bytes (the oldest
 * entry goes first: reads do not reorder, which keeps a hit to one map lookup — this sits on the hottest routes).
 * Hot reads (sessions, chapters) are served from memory; the time limit bounds how stale another server process
 * can see a change that this process did not make itself (changes made here invalidate at once).
 *
 * Bytes: a cache of big values (chapters, serialised lists) is bounded by what its values weigh, as `sizeOf`
 * estimates it, not only by their number: 2,000 chapters of 212 KB were a gigabyte. A value heavier than the whole
 * budget is not kept at all.
 */
export interface ReadCacheOptions<V> {
  /** the most the values may weigh together, as sizeOf counts; default: no byte limit */
  maxBytes?: number;
  /** a value's weight in bytes (an estimate of the memory it holds); default 0 */
  sizeOf?: (value: V) => number;
  now?: () => number;
}

/** The memory a JS string holds, at most: two bytes a character (one-byte strings hold half that). */
export const stringBytes = (s: string): number => s.length * 2;

export class ReadCache<K, V> {
  private readonly entries = new Map<K, { value: V; expires: number; bytes: number }>();
  /** loads under way, by key: concurrent misses for one key share one load (single flight) */
  private readonly loading = new Map<K, { promise: Promise<V>; dropped: boolean }>();
  private totalBytes = 0;
  private readonly maxBytes: number;
  private readonly sizeOf: (value: V) => number;
  private readonly now: () => number;

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
    options: ReadCacheOptions<V> | (() => number) = {},
  ) {
    const opts = typeof options === 'function' ? { now: options } : options;
    this.maxBytes = opts.maxBytes ?? Infinity;
    this.sizeOf = opts.sizeOf ?? (() => 0);
    this.now = opts.now ?? Date.now;
  }

  /** What the values held weigh together, as sizeOf counts. */
  get bytes(): number {
    return this.totalBytes;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= this.now()) {
      this.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const bytes = this.sizeOf(value);
    if (bytes > this.maxBytes) return;
    // Oldest first, until both the count and the bytes fit.
    for (const oldest of this.entries.keys()) {
      if (this.entries.size < this.maxEntries && this.totalBytes + bytes <= this.maxBytes) break;
      this.delete(oldest);
    }
    this.entries.set(key, { value, expires: this.now() + this.ttlMs, bytes });
    this.totalBytes += bytes;
  }

  /**
   * The cached value, or the result of `load`, kept. Concurrent calls for a key that is not cached share one
   * `load` (a value that many ask for at once is built once).
   */
  getOrLoad(key: K, load: () => Promise<V>): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) return Promise.resolve(hit);
    return this.loadOnce(key, load, (value) => {
      if (value !== undefined && value !== null) this.set(key, value);
    });
  }

  /**
   * Single flight without caching: concurrent callers for `key` share one `load`; `keep` (optional) sees the result
   * once. For values whose freshness the caller checks itself.
   */
  loadOnce(key: K, load: () => Promise<V>, keep?: (value: V) => void): Promise<V> {
    const pending = this.loading.get(key);
    if (pending) return pending.promise;
    const flight = { promise: undefined as unknown as Promise<V>, dropped: false };
    flight.promise = (async () => {
      try {
        const value = await load();
        // A delete while loading (a change made here) means the value may predate the change: hand it to the
        // callers who asked before the change, but do not keep it.
        if (!flight.dropped) keep?.(value);
        return value;
      } finally {
        if (this.loading.get(key) === flight) this.loading.delete(key);
      }
    })();
    this.loading.set(key, flight);
    return flight.promise;
  }

  delete(key: K): void {
    const flight = this.loading.get(key);
    if (flight) {
      flight.dropped = true;
      this.loading.delete(key);
    }
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.totalBytes -= entry.bytes;
  }

  deleteWhere(test: (key: K, value: V) => boolean): void {
    for (const [key, entry] of [...this.entries]) if (test(key, entry.value)) this.delete(key);
  }

  clear(): void {
    for (const flight of this.loading.values()) flight.dropped = true;
    this.loading.clear();
    this.entries.clear();
    this.totalBytes = 0;
  }
}
