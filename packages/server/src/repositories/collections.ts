/** Playlists, their items, the per-user change counter and reading progress. */
import { type Kysely, sql } from 'kysely';
import type { CollectionRow, Database } from '../db/schema.ts';

export interface CollectionItemRow {
  collection_id: string;
  api_url: string;
  title_id: number;
}

export class CollectionsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  listForUser(userId: number): Promise<CollectionRow[]> {
    return this.db.selectFrom('collections').selectAll().where('user_id', '=', userId).execute();
  }

  find(userId: number, id: string): Promise<CollectionRow | undefined> {
    return this.db.selectFrom('collections').selectAll().where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  }

  findDefault(userId: number): Promise<CollectionRow | undefined> {
    return this.db.selectFrom('collections').selectAll().where('user_id', '=', userId).where('is_default', '=', 1).executeTakeFirst();
  }

  /** Items of the given playlists, newest first within each. */
  itemsOf(collectionIds: string[]): Promise<CollectionItemRow[]> {
    if (collectionIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('collection_items')
      .select(['collection_id', 'api_url', 'title_id'])
      .where('collection_id', 'in', collectionIds)
      .orderBy('collection_id')
      .orderBy('position', 'desc')
      .execute();
  }

  /** Creates the user's default playlist unless one exists (a unique index settles races between requests). */
  async ensureDefault(row: CollectionRow): Promise<void> {
    await this.db.insertInto('collections').values(row).onConflict((oc) => oc.doNothing()).execute();
  }

  async insert(row: CollectionRow): Promise<void> {
    await this.db.insertInto('collections').values(row).execute();
  }

  async update(id: string, changes: { name?: string; description?: string; updated_at: string }): Promise<void> {
    await this.db.updateTable('collections').set(changes).where('id', '=', id).execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('collections').where('id', '=', id).execute();
  }

  /**
   * Adds items in one transaction; the first given ends up newest. An item already there moves to the front.
   */
  async addItems(collectionId: string, items: { api_url: string; title_id: number; chapter_id: number | null }[], now: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const top = await trx
        .selectFrom('collection_items')
        .select((eb) => eb.fn.max<number | null>('position').as('top'))
        .where('collection_id', '=', collectionId)
        .executeTakeFirst();
      const base = Number(top?.top ?? 0);
      await trx
        .deleteFrom('collection_items')
        .where('collection_id', '=', collectionId)
        .where('api_url', 'in', items.map((i) => i.api_url))
        .execute();
      await trx
        .insertInto('collection_items')
        .values(items.map((item, i) => ({ collection_id: collectionId, ...item, position: base + items.length - i, added_at: now })))
        .execute();
      await trx.updateTable('collections').set({ updated_at: now }).where('id', '=', collectionId).execute();
    });
  }

  async removeItems(collectionId: string, apiUrls: string[], now: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('collection_items').where('collection_id', '=', collectionId).where('api_url', 'in', apiUrls).execute();
      await trx.updateTable('collections').set({ updated_at: now }).where('id', '=', collectionId).execute();
    });
  }

  async bumpVersion(userId: number): Promise<number> {
    const row = await this.db
      .updateTable('users')
      .set({ collections_version: sql<number>`collections_version + 1` })
      .where('id', '=', userId)
      .returning('collections_version')
      .executeTakeFirstOrThrow();
    return Number(row.collections_version);
  }

  async version(userId: number): Promise<number> {
    const row = await this.db.selectFrom('users').select('collections_version').where('id', '=', userId).executeTakeFirst();
    return Number(row?.collections_version ?? 0);
  }

  /** Text-weighted reading progress (0–100) of whole titles for one user. */
  async titleProgress(userId: number, titleIds: number[]): Promise<Map<number, number>> {
    const result = new Map<number, number>();
    if (titleIds.length === 0) return result;
    const rows = await this.db
      .selectFrom('chapters')
      .leftJoin('chapter_progress', (join) =>
        join.onRef('chapter_progress.chapter_id', '=', 'chapters.id').on('chapter_progress.user_id', '=', userId),
      )
      .select([
        'chapters.title_id',
        (eb) => eb.fn.sum<number | string>('chapters.text_length').as('total'),
        (eb) => eb.fn.sum<number | string | null>(sql`chapters.text_length * coalesce(chapter_progress.top_percentage, 0) / 100.0`).as('read'),
        (eb) => eb.fn.count<number | string>('chapters.id').as('chapters'),
        (eb) => eb.fn.sum<number | string | null>(sql`coalesce(chapter_progress.top_percentage, 0)`).as('percent_sum'),
      ])
      .where('chapters.title_id', 'in', titleIds)
      .groupBy('chapters.title_id')
      .execute();
    for (const r of rows) {
      const total = Number(r.total);
      // Documents without extracted text (PDFs) weigh their chapters equally.
      const value = total > 0 ? (Number(r.read ?? 0) / total) * 100 : Number(r.percent_sum ?? 0) / Math.max(1, Number(r.chapters));
      result.set(r.title_id, Math.max(0, Math.min(100, Math.round(value))));
    }
    return result;
  }

  async chapterProgress(userId: number, chapterIds: number[]): Promise<Map<number, number>> {
    const result = new Map<number, number>();
    if (chapterIds.length === 0) return result;
    const rows = await this.db
      .selectFrom('chapter_progress')
      .select(['chapter_id', 'top_percentage'])
      .where('user_id', '=', userId)
      .where('chapter_id', 'in', chapterIds)
      .execute();
    for (const r of rows) result.set(r.chapter_id, Math.round(Number(r.top_percentage)));
    return result;
  }

  /** Records how far a chapter was read (never moves back); the reader's usage events call this. */
  async recordProgress(row: { user_id: number; chapter_id: number; title_id: number; top_percentage: number; updated_at: string }): Promise<void> {
    await this.db
      .insertInto('chapter_progress')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['user_id', 'chapter_id']).doUpdateSet({
          // portable max(): SQLite spells it max(a, b), PostgreSQL greatest(a, b)
          top_percentage: sql`case when excluded.top_percentage > chapter_progress.top_percentage then excluded.top_percentage else chapter_progress.top_percentage end`,
          updated_at: (eb) => eb.ref('excluded.updated_at'),
        }),
      )
      .execute();
  }
}
