/** New editions, one row each, for every server process to forget what it kept of those titles (services/catalog-changes.ts). */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

export interface CatalogChange {
  id: number;
  book_id: string;
  title_id: number;
}

export class CatalogChangesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async record(bookId: string, titleId: number, at: string): Promise<void> {
    await this.db.insertInto('catalog_changes').values({ book_id: bookId, title_id: titleId, changed_at: at }).execute();
  }

  /** The newest row's id (0 when there is none). */
  async latest(): Promise<number> {
    const row = await this.db.selectFrom('catalog_changes').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
    return Number(row?.id ?? 0);
  }

  /** Rows after `id`, oldest first. */
  since(id: number, limit = 1_000): Promise<CatalogChange[]> {
    return this.db.selectFrom('catalog_changes').select(['id', 'book_id', 'title_id']).where('id', '>', id).orderBy('id').limit(limit).execute();
  }
}
