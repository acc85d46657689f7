/** Playlists, their items and the per-user change counter behind the list's ETag. */
import { type Kysely, sql } from 'kysely';
import type { CollectionRow, Database } from '../db/schema.ts';
import { unlessTaken } from './conflicts.ts';

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

  /** Items of the given playlists in their order (highest position first: new items go on top, reorders rewrite it). */
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

  /** How many items each of a user's playlists holds, by playlist id (playlists without items are absent). */
  async itemCounts(userId: number): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('collection_items as ci')
      .innerJoin('collections as c', 'c.id', 'ci.collection_id')
      .select(['ci.collection_id', (eb) => eb.fn.countAll<number | string>().as('n')])
      .where('c.user_id', '=', userId)
      .groupBy('ci.collection_id')
      .execute();
    return new Map(rows.map((r) => [r.collection_id, Number(r.n)]));
  }

  /** Of these addresses, which of a user's playlists hold each (those held by none are absent). */
  async holding(userId: number, apiUrls: string[]): Promise<{ api_url: string; collection_id: string }[]> {
    if (apiUrls.length === 0) return [];
    return this.db
      .selectFrom('collection_items as ci')
      .innerJoin('collections as c', 'c.id', 'ci.collection_id')
      .select(['ci.api_url', 'ci.collection_id'])
      .where('c.user_id', '=', userId)
      .where('ci.api_url', 'in', apiUrls)
      .execute();
  }

  /** Creates the user's default playlist unless one exists (a unique index settles races between requests). */
  async ensureDefault(row: CollectionRow): Promise<void> {
    await this.db.insertInto('collections').values(row).onConflict((oc) => oc.doNothing()).execute();
  }

  /** False when the user has a playlist of that name already (the unique index settles two requests at once). */
  async insert(row: CollectionRow): Promise<boolean> {
    return (await unlessTaken(this.db.insertInto('collections').values(row).execute())) !== undefined;
  }

  /** False when the new name is another of the user's playlists' (as insert). */
  async update(id: string, changes: { name?: string; description?: string; updated_at: string }): Promise<boolean> {
    return (await unlessTaken(this.db.updateTable('collections').set(changes).where('id', '=', id).execute())) !== undefined;
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('collections').where('id', '=', id).execute();
  }

  /**
   * Adds items in one transaction, in front of what is there (spec §4: "added items go to the front"); the first
   * given ends up first. An item already there keeps its place: the order is the reader's.
   */
  async addItems(collectionId: string, items: { api_url: string; title_id: number; chapter_id: number | null }[], now: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const top = await trx
        .selectFrom('collection_items')
        .select((eb) => eb.fn.max<number | null>('position').as('top'))
        .where('collection_id', '=', collectionId)
        .executeTakeFirst();
      const base = Number(top?.top ?? 0);
      const present = new Set(
        (
          await trx
            .selectFrom('collection_items')
            .select('api_url')
            .where('collection_id', '=', collectionId)
            .where('api_url', 'in', items.map((i) => i.api_url))
            .execute()
        ).map((r) => r.api_url),
      );
      const fresh = items.filter((i) => !present.has(i.api_url));
      if (fresh.length) {
        await trx
          .insertInto('collection_items')
          .values(fresh.map((item, i) => ({ collection_id: collectionId, ...item, position: base + fresh.length - i, added_at: now })))
          // Two identical adds at once (a double click, a retry) both succeed on both engines: the second finds the
          // item inserted meanwhile and leaves it where it is.
          .onConflict((oc) => oc.columns(['collection_id', 'api_url']).doNothing())
          .execute();
      }
      await trx.updateTable('collections').set({ updated_at: now }).where('id', '=', collectionId).execute();
    });
  }

  /** Api_urls of one playlist's items, first shown first. */
  async itemUrls(collectionId: string): Promise<string[]> {
    return (await this.itemsOf([collectionId])).map((i) => i.api_url);
  }

  /** Rewrites the positions so the items read in the given order (first highest, as lists show highest first). */
  async setOrder(collectionId: string, apiUrls: string[], now: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const [i, apiUrl] of apiUrls.entries()) {
        await trx
          .updateTable('collection_items')
          .set({ position: apiUrls.length - i })
          .where('collection_id', '=', collectionId)
          .where('api_url', '=', apiUrl)
          .execute();
      }
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
}
