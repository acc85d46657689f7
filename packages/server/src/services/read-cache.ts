/**
 * A small in-process read-through cache with a time limit and a size limit (the oldest entry goes first: reads
 * do not reorder, which keeps a hit to one map lookup — this sits on the hottest routes).
 * Hot reads (sessions, chapters) are served from memory; the time limit bounds how stale another server process
 * can see a change that this process did not make itself (changes made here invalidate at once).
 */
export class ReadCache<K, V> {
  private readonly entries = new Map<K, { value: V; expires: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, { value, expires: this.now() + this.ttlMs });
  }

  async getOrLoad(key: K, load: () => Promise<V>): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const value = await load();
    if (value !== undefined && value !== null) this.set(key, value);
    return value;
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  deleteWhere(test: (key: K) => boolean): void {
    for (const key of [...this.entries.keys()]) if (test(key)) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
