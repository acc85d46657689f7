/**
 * Reading progress and usage events: how far each user read each chapter (furthest position, never moving back)
 * and the events it was derived from.
 */
import { type ChapterReading, titleProgress } from '@lectern/core';
import { CompiledQuery, type Kysely, sql } from 'kysely';
import type { Insertable } from 'kysely';
import type { SyncGet } from '../db/database.ts';
import type { Database, Flag, UsageEventsTable } from '../db/schema.ts';
import type { PositionChapter } from './positions.ts';
import { ReadingSummaryRepository } from './reading-summary.ts';

export type NewUsageEvent = Insertable<UsageEventsTable>;

export class ProgressRepository {
  /** `syncGet`: SQLite's main connection, for chapterTop's read at once (db/database.ts); absent in a transaction's repository and on PostgreSQL */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly syncGet: SyncGet | null = null,
  ) {}

  /** Each chapter's text length and the user's furthest position in it, per title (the inputs of core's titleProgress). */
  async chapterReadings(userId: number, titleIds: number[]): Promise<Map<number, ChapterReading[]>> {
    const result = new Map<number, ChapterReading[]>();
    if (titleIds.length === 0) return result;
    const rows = await this.db
      .selectFrom('chapters')
      .leftJoin('chapter_progress', (join) =>
        join.onRef('chapter_progress.chapter_id', '=', 'chapters.id').on('chapter_progress.user_id', '=', userId),
      )
      // a media part weighs its length (as CatalogRepository.chapterLengths)
      .leftJoin('media_files', 'media_files.chapter_id', 'chapters.id')
      .select([
        'chapters.title_id',
        sql<number | string>`coalesce(media_files.duration_ms, chapters.text_length)`.as('text_length'),
        sql<number | string | null>`chapter_progress.top_percentage`.as('furthest'),
      ])
      .where('chapters.title_id', 'in', titleIds)
      .execute();
    for (const r of rows) {
      const list = result.get(r.title_id) ?? [];
      list.push({ textLength: Number(r.text_length), furthest: Number(r.furthest ?? 0) });
      result.set(r.title_id, list);
    }
    return result;
  }

  /** Reading progress (0–100) of whole titles for one user: the inputs from SQL, the formula from core. */
  async titleProgress(userId: number, titleIds: number[]): Promise<Map<number, number>> {
    const readings = await this.chapterReadings(userId, titleIds);
    return new Map([...readings].map(([titleId, chapters]) => [titleId, titleProgress(chapters)]));
  }

  /**
   * What a page of title cards needs of one reader, in one statement (a round trip costs more than either lookup):
   * the chapter their position in each title is in, and how far they read each chapter of those titles.
   */
  async readingState(userId: number, titleIds: number[]): Promise<{ positions: Map<number, PositionChapter>; furthest: Map<number, number> }> {
    const positions = new Map<number, PositionChapter>();
    const furthest = new Map<number, number>();
    if (titleIds.length === 0) return { positions, furthest };
    const ids = sql.join(titleIds);
    const { rows } = await sql<{ kind: number; title_id: number; chapter_id: number; full_path: string | null; as_sample: Flag | null; is_public: Flag | null; furthest: number | string | null }>`
      select 0 as kind, rp.title_id, rp.chapter_id, c.full_path, c.as_sample, c.is_public, null as furthest
      from reading_positions rp join chapters c on c.id = rp.chapter_id
      where rp.user_id = ${userId} and rp.title_id in (${ids})
      union all
      select 1, cp.title_id, cp.chapter_id, null, null, null, cp.top_percentage
      from chapter_progress cp where cp.user_id = ${userId} and cp.title_id in (${ids})`.execute(this.db);
    for (const r of rows) {
      if (Number(r.kind) === 0) positions.set(r.title_id, { title_id: r.title_id, full_path: r.full_path!, as_sample: Number(r.as_sample) as Flag, is_public: Number(r.is_public) as Flag });
      else furthest.set(r.chapter_id, Number(r.furthest ?? 0));
    }
    return { positions, furthest };
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

  /**
   * Stores accepted events (a usage_uuid already stored is skipped) and moves each chapter's progress forward: to
   * the furthest position an event reached, or, for `playedChapters` (media parts), to `played` of every span the
   * user has played of the part, stored events included (the rule is the service's: a replay counts once).
   */
  async recordEvents(
    events: NewUsageEvent[],
    media: { playedChapters: ReadonlySet<number>; played: (spans: { start: number; end: number }[]) => number } = { playedChapters: new Set(), played: () => 0 },
  ): Promise<void> {
    if (events.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      const added = await trx
        .insertInto('usage_events')
        .values(events)
        .onConflict((oc) => oc.columns(['user_id', 'usage_uuid']).doNothing())
        .returning(['user_id', 'usage_uuid'])
        .execute();
      // the dashboard's daily summary, with the events or not at all (a resent event is not added again)
      await new ReadingSummaryRepository(trx).add(added);
      const repo = new ProgressRepository(trx);
      const playedDone = new Set<string>();
      for (const e of events) {
        let top = Math.max(e.start_percentage, e.end_percentage);
        if (media.playedChapters.has(e.chapter_id)) {
          const key = `${e.user_id}|${e.chapter_id}`;
          if (playedDone.has(key)) continue;
          playedDone.add(key);
          const spans = await trx
            .selectFrom('usage_events')
            .select(['start_percentage', 'end_percentage'])
            .where('user_id', '=', e.user_id)
            .where('title_id', '=', e.title_id)
            .where('chapter_id', '=', e.chapter_id)
            .execute();
          top = media.played(spans.map((s) => ({ start: Number(s.start_percentage), end: Number(s.end_percentage) })));
        }
        await repo.recordProgress({ user_id: e.user_id, chapter_id: e.chapter_id, title_id: e.title_id, top_percentage: top, updated_at: e.received_at });
      }
    });
  }

  chapterTop(userId: number, titleId: number, fullPath: string): number | Promise<number> {
    // Built and compiled once: that cost three times what running it does, on every chapter a reader opens (the
    // block request, bench/http.ts). The SQL text depends only on the query's shape; the values go in order.
    this.chapterTopSql ??= this.db
      .selectFrom('chapter_progress')
      .innerJoin('chapters', 'chapters.id', 'chapter_progress.chapter_id')
      .select('chapter_progress.top_percentage')
      .where('chapter_progress.user_id', '=', 0)
      .where('chapters.title_id', '=', 0)
      .where('chapters.full_path', '=', '')
      .compile().sql;
    const parameters = [userId, titleId, fullPath];
    // On SQLite, outside a transaction, read at once: no promise for the block request to wait on.
    const now = this.syncGet?.<{ top_percentage: number }>(this.chapterTopSql, parameters);
    if (now) return Number(now.row?.top_percentage ?? 0);
    return this.db
      .executeQuery<{ top_percentage: number }>(CompiledQuery.raw(this.chapterTopSql, parameters))
      .then(({ rows }) => Number(rows[0]?.top_percentage ?? 0));
  }

  private chapterTopSql: string | undefined;

  /** Every chapter of a title in reading order with the user's furthest position (0 when unread), one page. */
  async chapterProgressPage(userId: number, titleId: number, offset: number, limit: number) {
    const [count, rows] = await Promise.all([
      this.db.selectFrom('chapters').select((eb) => eb.fn.countAll<string | number>().as('n')).where('title_id', '=', titleId).executeTakeFirstOrThrow(),
      this.db
        .selectFrom('chapters')
        .leftJoin('chapter_progress', (join) => join.onRef('chapter_progress.chapter_id', '=', 'chapters.id').on('chapter_progress.user_id', '=', userId))
        .select(['chapters.full_path', sql<number>`coalesce(chapter_progress.top_percentage, 0)`.as('top_percentage')])
        .where('chapters.title_id', '=', titleId)
        .orderBy('chapters.item_order')
        .offset(offset)
        .limit(limit)
        .execute(),
    ]);
    return { count: Number(count.n), rows };
  }
}
