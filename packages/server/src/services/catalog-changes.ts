/**
 * New editions made by another process reach this one's caches. `import --replace` on the command line runs beside
 * the server, in a process of its own: it forgets only its own caches, while the server kept the old edition's
 * chapters, title row and contents for their minute — text the new edition no longer has, and covers and images in
 * the old edition's folder, which the replacement has deleted. So each replacement is recorded (`catalog_changes`)
 * and every server process reads the rows it has not seen once a second (app.ts), forgetting those titles.
 */
import type { CatalogChangesRepository } from '../repositories/catalog-changes.ts';

/** How often a server process asks for replacements made elsewhere. */
export const CATALOG_CHANGES_POLL_MS = 1_000;
/** How many ids below the newest seen are read again (replacements committed out of id order). */
const CATALOG_CHANGES_OVERLAP = 50;

export class CatalogChanges {
  /** the newest row this process has acted on; null until the first poll (at start nothing is kept to forget) */
  private seen: number | null = null;
  /** the rows acted on among the last CATALOG_CHANGES_OVERLAP ids */
  private readonly handled = new Set<number>();

  constructor(
    private readonly changes: CatalogChangesRepository,
    /** forgets what this process keeps of a title (CatalogCache.forgetTitle, the repository's caches by id) */
    private readonly forget: (bookId: string, titleId: number) => void,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Says that `bookId` has a new edition (after its transaction committed). */
  record(bookId: string, titleId: number): Promise<void> {
    return this.changes.record(bookId, titleId, this.now().toISOString());
  }

  /** Forgets the titles replaced since the last poll, by any process (this one's own are forgotten twice: harmless). */
  async poll(): Promise<number> {
    if (this.seen === null) {
      this.seen = await this.changes.latest();
      return 0;
    }
    // PostgreSQL hands out ids before commit: a row with a lower id may become visible after a higher one. So the
    // last OVERLAP ids are read again, and a row is acted on once.
    const rows = await this.changes.since(Math.max(0, this.seen - CATALOG_CHANGES_OVERLAP));
    let acted = 0;
    for (const r of rows) {
      if (this.handled.has(r.id)) continue;
      this.forget(r.book_id, r.title_id);
      this.handled.add(r.id);
      this.seen = Math.max(this.seen, r.id);
      acted++;
    }
    for (const id of this.handled) if (id <= this.seen - CATALOG_CHANGES_OVERLAP) this.handled.delete(id);
    return acted;
  }
}
