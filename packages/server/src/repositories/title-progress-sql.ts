/**
 * The SQL form of core's titleProgress (core/progress.ts), for figures over every reader of a title that must not load
 * their chapter rows (the operators' console: completed readers and the mean completion). Written here once, with
 * the same weights as ProgressRepository.chapterReadings (a media part weighs its duration, a chapter its text
 * length; no weight at all: chapters weigh equally) and the same rounding; test/db/title-progress-sql.test.ts holds
 * it to titleProgress on both engines. Everything else computes progress with core.
 */
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../db/schema.ts';
import { onPostgres } from './conflicts.ts';

export interface ReaderProgressRow {
  user_id: number;
  /** 0-100, a whole number, equal to titleProgress of the reader's chapters */
  progress: number | string;
  /** the reader's latest chapter progress */
  updated_at: string;
}

/**
 * One row per reader with chapter progress in the title. Readers without any are not listed: their progress is 0,
 * as titleProgress says of unread chapters (and of a title without chapters).
 */
export function readersProgressSql(db: Kysely<Database>, titleId: number): RawBuilder<ReaderProgressRow> {
  const pg = onPostgres(db);
  // PostgreSQL keeps top_percentage as float4: read through its text form, it is the double the driver hands core
  const top = pg ? sql`cast(cast(cp.top_percentage as text) as double precision)` : sql`cp.top_percentage`;
  // clamped to 0-100 as core clamps; 100.0 and 0.0 keep SQLite from dividing integers
  const furthest = sql`(case when ${top} > 100 then 100.0 when ${top} > 0 then ${top} * 1.0 else 0.0 end)`;
  const share = sql`(case when max(ch.total) > 0 then sum(ch.weight * ${furthest}) / max(ch.total) else sum(${furthest}) / max(ch.n) end)`;
  // half up as Math.round (the share is >= 0): PostgreSQL rounds a double to even, SQLite has no floor
  const progress = pg ? sql`floor(${share} + 0.5)` : sql`cast(${share} + 0.5 as integer)`;
  return sql<ReaderProgressRow>`select cp.user_id, ${progress} as progress, max(cp.updated_at) as updated_at
    from chapter_progress cp join (
      select w.id, w.weight, sum(w.weight) over () as total, count(*) over () as n from (
        select c.id, case when coalesce(mf.duration_ms, c.text_length) > 0 then coalesce(mf.duration_ms, c.text_length) else 0 end as weight
        from chapters c left join media_files mf on mf.chapter_id = c.id
        where c.title_id = ${titleId}
      ) w
    ) ch on ch.id = cp.chapter_id
    where cp.title_id = ${titleId}
    group by cp.user_id`;
}
