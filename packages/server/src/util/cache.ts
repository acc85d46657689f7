/**
 * The one in-process cache of the server, on `lru-cache`: bounded by entries, by bytes (as `sizeOf` estimates a
 * value) and by time. Hot reads (sessions, chapters, title rows) are served from memory; the time limit bounds how
 * stale another server process can see a change that this process did not make itself (changes made here
 * invalidate at once, and a new edition elsewhere reaches every process through `catalog_changes`).
 *
 * On top of it: single flight (`getOrLoad`, `loadOnce`: concurrent misses for a key share one load) and the
 * generation wrapper (`IdCache`: rows by id, all forgotten when this process changes the catalog).
 *
 * Bytes: a cache of big values (chapters, serialised lists) is bounded by what its values weigh, not only by their
 * number: 2,000 chapters of 212 KB were a gigabyte. A value heavier than the whole budget is not kept at all.
 */
import { LRUCache } from 'lru-cache';

export interface ReadCacheOptions<V> {
  /** the most the values may weigh together, as sizeOf counts; default: no byte limit */
  maxBytes?: number;
  /** a value's weight in bytes (an estimate of the memory it holds); default 0 */
  sizeOf?: (value: V) => number;
}

/** The memory a JS string holds, at most: two bytes a character (one-byte strings hold half that). */
export const stringBytes = (s: string): number => s.length * 2;

/**
 * The cache's clock. lru-cache reads a start time of 0 as "no time limit", so a clock standing at 0 (a fake clock's
 * epoch in a test) would keep entries for ever: the clock starts at 1. Date.now is read at each call, so a test's
 * fake timers drive it; `ttlResolution: 0` below keeps lru-cache from caching a reading behind a timer of its own.
 */
const clock = { now: () => Date.now() + 1 };

/** Values are boxed: lru-cache keeps no null or undefined, and a row that does not exist is worth keeping too. */
interface Box<V> {
  value: V;
  bytes: number;
}

export class ReadCache<K, V> {
  /** null when the cache keeps nothing (no entries allowed): it only shares loads */
  private readonly entries: LRUCache<NonNullable<K>, Box<V>> | null;
  /** loads under way, by key: concurrent misses for one key share one load (single flight) */
  private readonly loading = new Map<K, { promise: Promise<V>; dropped: boolean }>();
  private readonly sizeOf: (value: V) => number;
  private readonly maxBytes: number;
  private totalBytes = 0;

  constructor(maxEntries: number, ttlMs: number, options: ReadCacheOptions<V> = {}) {
    this.sizeOf = options.sizeOf ?? (() => 0);
    this.maxBytes = options.maxBytes ?? Infinity;
    this.entries =
      maxEntries > 0 && ttlMs > 0
        ? new LRUCache<NonNullable<K>, Box<V>>({
            max: maxEntries,
            ttl: Math.ceil(ttlMs),
            ttlResolution: 0,
            perf: clock,
            // lru-cache counts sizes in positive integers; our own count (`bytes`) keeps the estimate as it is
            ...(Number.isFinite(this.maxBytes) ? { maxSize: Math.max(1, Math.floor(this.maxBytes)), sizeCalculation: (box: Box<V>) => Math.max(1, Math.ceil(box.bytes)) } : {}),
            disposeAfter: (box) => {
              this.totalBytes -= box.bytes;
            },
          })
        : null;
  }

  /** What the values held weigh together, as sizeOf counts. */
  get bytes(): number {
    return this.totalBytes;
  }

  get size(): number {
    return this.entries?.size ?? 0;
  }

  get(key: K): V | undefined {
    return this.entries?.get(key as NonNullable<K>)?.value;
  }

  set(key: K, value: V): void {
    if (!this.entries) return;
    const bytes = this.sizeOf(value);
    // A value heavier than the whole budget is not kept; one kept under the key before goes too.
    if (bytes > this.maxBytes) {
      this.entries.delete(key as NonNullable<K>);
      return;
    }
    this.entries.set(key as NonNullable<K>, { value, bytes });
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
    this.entries?.delete(key as NonNullable<K>);
  }

  deleteWhere(test: (key: K, value: V) => boolean): void {
    if (!this.entries) return;
    const doomed: K[] = [];
    for (const [key, box] of this.entries.entries()) if (test(key, box.value)) doomed.push(key);
    for (const key of doomed) this.delete(key);
  }

  clear(): void {
    for (const flight of this.loading.values()) flight.dropped = true;
    this.loading.clear();
    this.entries?.clear();
  }
}

/**
 * The generation wrapper: rows kept by id for the reads that every listing, search and home repeats (a title's row,
 * its authors, publishers and topics), so a page of 24 titles costs the database its page query and the viewer's
 * own fields, not three more statements. All of it is forgotten at once when the generation moves (this process
 * changed the catalog: an import or a new edition); otherwise entries live `ttlMs`, as ReadCache keeps them.
 */
export class IdCache<V> {
  private readonly rows: ReadCache<number, V>;
  private generation = -1;

  constructor(maxEntries: number, ttlMs: number, options: { maxBytes?: number } = {}) {
    this.rows = new ReadCache<number, V>(maxEntries, ttlMs, { maxBytes: options.maxBytes, sizeOf: valueBytes });
  }

  /** What the values kept weigh together, as valueBytes estimates them. */
  get bytes(): number {
    return this.rows.bytes;
  }

  get size(): number {
    return this.rows.size;
  }

  /**
   * The values of `ids` (a Map by id, in the order asked; an id with no row has `empty`), loading those not kept with
   * `load` (one call for all of them) and keeping what it answers, also the ids it has no value for.
   */
  async getMany(ids: readonly number[], generation: number, load: (missing: number[]) => Promise<Map<number, V>>, empty: V): Promise<Map<number, V>> {
    if (generation !== this.generation) {
      this.rows.clear();
      this.generation = generation;
    }
    const held = new Map<number, V>();
    const missing: number[] = [];
    for (const id of new Set(ids)) {
      // a kept "no row" is `empty` (null, []), never undefined
      const kept = this.rows.get(id);
      if (kept !== undefined) held.set(id, kept);
      else missing.push(id);
    }
    if (missing.length) {
      const loaded = await load(missing);
      // A change made while loading: what was read may be the old edition, so it is answered but not kept.
      const keep = generation === this.generation;
      for (const id of missing) {
        const value = loaded.get(id) ?? empty;
        held.set(id, value);
        if (keep) this.rows.set(id, value);
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
