/**
 * Rows kept by id for a while, for reads that every listing, search and home repeats (a title's row, its authors,
 * publishers and topics): a page of 24 titles then costs the database its page query and the viewer's own fields,
 * not three more statements. Entries live `ttlMs` (another server process's change shows within it) and are all
 * dropped at once when this process changes the catalog (`generation` moves: an import or a new edition).
 * At most `maxEntries`; the oldest go first.
 */
export class IdCache<V> {
  private readonly entries = new Map<number, { value: V; expires: number }>();
  private generation = -1;

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The values of `ids` (a Map by id, in the order asked; an id with no row has `empty`), loading those not kept with `load` (one call
   * for all of them) and keeping what it answers, also the ids it has no value for.
   */
  async getMany(ids: readonly number[], generation: number, load: (missing: number[]) => Promise<Map<number, V>>, empty: V): Promise<Map<number, V>> {
    if (generation !== this.generation) {
      this.entries.clear();
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
        this.entries.delete(id);
        this.entries.set(id, { value, expires: now + this.ttlMs });
      }
      for (const oldest of this.entries.keys()) {
        if (this.entries.size <= this.maxEntries) break;
        this.entries.delete(oldest);
      }
    }
    // In the order asked.
    return new Map([...new Set(ids)].map((id) => [id, held.get(id)!]));
  }
}
