import { describe, expect, it } from 'vitest';
import type { CatalogChange, CatalogChangesRepository } from '../../src/repositories/catalog-changes.ts';
import { CatalogChanges } from '../../src/services/catalog-changes.ts';

/** The table as a process sees it: rows become visible when their transaction commits, not in id order. */
class VisibleRows {
  rows: CatalogChange[] = [];
  async latest() {
    return Math.max(0, ...this.rows.map((r) => r.id));
  }
  async since(id: number) {
    return this.rows.filter((r) => r.id > id).sort((a, b) => a.id - b.id);
  }
  async record() {}
}

describe('new editions made by another process (catalog_changes)', () => {
  it('acts on a row that commits after a higher id, and on each row once', async () => {
    const table = new VisibleRows();
    const forgotten: string[] = [];
    const changes = new CatalogChanges(table as unknown as CatalogChangesRepository, (bookId) => forgotten.push(bookId));
    await changes.poll(); // at start: nothing kept yet, nothing to forget
    table.rows.push({ id: 11, book_id: 'b11', title_id: 11 });
    expect(await changes.poll()).toBe(1);
    // id 10 was handed out first but its transaction committed later.
    table.rows.push({ id: 10, book_id: 'b10', title_id: 10 });
    expect(await changes.poll()).toBe(1);
    expect(await changes.poll()).toBe(0);
    expect(forgotten).toEqual(['b11', 'b10']);
  });
});
