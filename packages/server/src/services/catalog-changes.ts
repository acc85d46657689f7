/**
 * New editions made by another process reach this one's caches. `import --replace` on the command line runs beside
 * the server, in a process of its own: it forgets only its own caches, while the server kept the old edition's
 * chapters, title row and contents for their minute — text the new edition no longer has, and covers and images in
 * the old edition's folder, which the replacement has deleted. So each replacement is recorded (`catalog_changes`)
 * and every server process reads the rows it has not seen once a second (app.ts), forgetting those titles.
 */
import type { CatalogChange, CatalogChangesRepository } from '../repositories/catalog-changes.ts';
import { FeedCursor } from './server-changes.ts';

/** How often a server process asks for replacements made elsewhere. */
export const CATALOG_CHANGES_POLL_MS = 1_000;

export class CatalogChanges {
  /** reads each row once, also those committed out of id order (services/server-changes.ts) */
  private readonly cursor: FeedCursor<CatalogChange>;

  constructor(
    private readonly changes: CatalogChangesRepository,
    /** forgets what this process keeps of a title (CatalogCache.forgetTitle, the repository's caches by id) */
    private readonly forget: (bookId: string, titleId: number) => void,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.cursor = new FeedCursor(changes);
  }

  /** Says that `bookId` has a new edition (after its transaction committed). */
  record(bookId: string, titleId: number): Promise<void> {
    return this.changes.record(bookId, titleId, this.now().toISOString());
  }

  /** Forgets the titles replaced since the last poll, by any process (this one's own are forgotten twice: harmless). */
  poll(): Promise<number> {
    return this.cursor.poll((r) => this.forget(r.book_id, r.title_id));
  }
}
