/**
 * Reading positions (one per user and title) and the chapters reading starts at: what "Continue" and "Start" on
 * a title card link to.
 */
import { type Kysely, sql } from 'kysely';
import type { Database, Flag } from '../db/schema.ts';

export interface StoredPosition {
  locator: string;
  updated_at: string;
}

/** The chapter a stored position is in, with what the reading policy needs to know of it. */
export interface PositionChapter {
  title_id: number;
  full_path: string;
  as_sample: Flag;
  is_public: Flag;
}

/** Per title: its first chapter, its first sample chapter and its first public chapter (paths, null when none). */
export interface EntryChapters {
  first: string | null;
  sample: string | null;
  open: string | null;
}

export class PositionsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  find(userId: number, titleId: number): Promise<StoredPosition | undefined> {
    return this.db
      .selectFrom('reading_positions')
      .select(['locator', 'updated_at'])
      .where('user_id', '=', userId)
      .where('title_id', '=', titleId)
      .executeTakeFirst();
  }

  /**
   * Stores a position; one statement (INSERT … ON CONFLICT DO UPDATE), so two writes at once never collide on the
   * key. A write stamped earlier than the stored one (another server process whose clock is behind) changes nothing.
   * Returns what is stored afterwards.
   */
  async upsert(row: { user_id: number; title_id: number; chapter_id: number; locator: string; updated_at: string }): Promise<StoredPosition> {
    await this.db
      .insertInto('reading_positions')
      .values(row)
      .onConflict((oc) =>
        oc
          .columns(['user_id', 'title_id'])
          .doUpdateSet({
            chapter_id: (eb) => eb.ref('excluded.chapter_id'),
            locator: (eb) => eb.ref('excluded.locator'),
            updated_at: (eb) => eb.ref('excluded.updated_at'),
          })
          .where(sql.ref('excluded.updated_at'), '>=', sql.ref('reading_positions.updated_at')),
      )
      .execute();
    return (await this.find(row.user_id, row.title_id))!;
  }

  /** Where reading starts in each title (see EntryChapters), one query for a page of titles. */
  async entryChapters(titleIds: number[]): Promise<Map<number, EntryChapters>> {
    const result = new Map<number, EntryChapters>();
    if (titleIds.length === 0) return result;
    const rows = await this.db
      .selectFrom('titles')
      .select((eb) => {
        // The first chapter in reading order, of those with `flag` when one is given (chapters_order_idx serves it).
        const firstWhere = (flag: 'as_sample' | 'is_public' | null) =>
          eb
            .selectFrom('chapters as c')
            .select('c.full_path')
            .whereRef('c.title_id', '=', 'titles.id')
            .$if(flag !== null, (q) => q.where(`c.${flag!}`, '=', 1))
            .orderBy('c.item_order')
            .limit(1);
        return ['titles.id', firstWhere(null).as('first'), firstWhere('as_sample').as('sample'), firstWhere('is_public').as('open')];
      })
      .where('titles.id', 'in', titleIds)
      .execute();
    for (const r of rows) result.set(r.id, { first: r.first ?? null, sample: r.sample ?? null, open: r.open ?? null });
    return result;
  }
}
