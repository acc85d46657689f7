/**
 * The SQL form of a title's progress (repositories/title-progress-sql.ts) against core's titleProgress, on both
 * engines: for the same rows, every reader's figure is the same whole percentage - weights by text length, a media
 * part by its duration, equal weights without text, clamping, half-up rounding, no chapters at all.
 */
import { titleProgress } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProgressRepository } from '../../src/repositories/progress.ts';
import { readersProgressSql } from '../../src/repositories/title-progress-sql.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { bareTitleRow } from '../helpers/rows.ts';

interface Chapter {
  textLength: number;
  /** a media part's duration, which weighs instead of its transcript's length */
  durationMs?: number;
}

/** title -> its chapters, and each reader's furthest positions by chapter index (absent: never opened) */
interface Case {
  name: string;
  chapters: Chapter[];
  readers: Record<number, number>[];
  /** worked out by hand, so that the SQL and core cannot agree on a wrong figure */
  expected?: number[];
}

const CASES: Case[] = [
  {
    name: 'text lengths weigh',
    chapters: [{ textLength: 1000 }, { textLength: 3000 }, { textLength: 500 }, { textLength: 0 }],
    readers: [{ 0: 100 }, { 0: 100, 1: 50 }, { 1: 100, 2: 100, 3: 100 }, { 3: 100 }, { 0: 100, 1: 100, 2: 100, 3: 100 }, { 2: 33.3 }],
    // 1000/4500 = 22.2; 2500/4500 = 55.6; 3500/4500 = 77.8; a chapter without text weighs nothing; all; 166.5/4500
    expected: [22, 56, 78, 0, 100, 4],
  },
  {
    name: 'half up, as Math.round (not to even)',
    chapters: [{ textLength: 1 }, { textLength: 1 }],
    readers: [{ 0: 50, 1: 51 }, { 0: 0, 1: 1 }, { 0: 100, 1: 99 }, { 0: 12.5, 1: 12.5 }],
    expected: [51, 1, 100, 13],
  },
  {
    name: 'without text, chapters weigh equally',
    chapters: [{ textLength: 0 }, { textLength: 0 }, { textLength: 0 }],
    readers: [{ 0: 100, 1: 50 }, { 0: 33.3 }, { 0: 100, 1: 100, 2: 100 }, { 2: 1.5 }],
    expected: [50, 11, 100, 1],
  },
  {
    name: 'past 100 and below 0 are clamped',
    chapters: [{ textLength: 200 }, { textLength: 600 }],
    readers: [{ 0: 150, 1: 100 }, { 0: -20, 1: 50 }, { 0: 250 }],
    expected: [100, 38, 25],
  },
  {
    name: 'a media part weighs its duration',
    chapters: [{ textLength: 9000, durationMs: 60_000 }, { textLength: 0, durationMs: 180_000 }, { textLength: 20_000 }],
    readers: [{ 0: 100 }, { 1: 100 }, { 2: 100 }],
    // of 260 000 ms: 60 000, 180 000, and the text chapter's 20 000 characters
    expected: [23, 69, 8],
  },
  { name: 'no chapters', chapters: [], readers: [{}], expected: [0] },
];

/** Many readers over chapters of varied lengths and fractional positions: sums in whatever order the engine takes. */
function generated(): Case {
  let seed = 7;
  const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const chapters = Array.from({ length: 9 }, (_, i) => ({ textLength: i === 4 ? 0 : Math.floor(next() * 40_000) }));
  const readers = Array.from({ length: 40 }, () => {
    const r: Record<number, number> = {};
    chapters.forEach((_, i) => {
      if (next() < 0.6) r[i] = Math.round(next() * 1000) / 10;
    });
    return r;
  });
  return { name: 'generated', chapters, readers };
}

describe.each(ENGINES)('title progress in SQL (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(() => t.close());

  async function load(c: Case, n: number) {
    const k = t.lectern.db.kysely;
    const now = new Date().toISOString();
    const title = await k
      .insertInto('titles')
      .values(bareTitleRow(`progress-${n}`, { title: c.name, title_safe: c.name, file_sha256: `sha-${n}`, created_at: now }))
      .returning('id')
      .executeTakeFirstOrThrow();
    const chapterIds: number[] = [];
    for (const [i, ch] of c.chapters.entries()) {
      const row = await k
        .insertInto('chapters')
        .values({ title_id: title.id, full_path: `c${i}.xhtml`, label: `${i}`, item_order: i, media_type: 'application/xhtml+xml', content: '', stylesheets: '[]', text_length: ch.textLength, as_sample: 0, is_public: 0, sample_content: null })
        .returning('id')
        .executeTakeFirstOrThrow();
      chapterIds.push(row.id);
      if (ch.durationMs !== undefined) {
        await k.insertInto('media_files').values({ chapter_id: row.id, title_id: title.id, storage_path: `m/${n}/${i}`, mime: 'video/mp4', size: 1, duration_ms: ch.durationMs, width: null, height: null, video_codec: null, audio_codec: null }).execute();
      }
    }
    const userIds: number[] = [];
    for (const [r, furthest] of c.readers.entries()) {
      const email = `r${n}-${r}@example.com`;
      const user = await k
        .insertInto('users')
        .values({ uuid: `u-${n}-${r}`, email, username: email, password_hash: 'x', status: 'subscriber', trial_ends_at: null, team_id: null, is_admin: 0, is_content_creator: 0, is_preview_creator: 0, created_at: now, plan: null, subscription_ends_at: null })
        .returning('id')
        .executeTakeFirstOrThrow();
      userIds.push(user.id);
      const rows = Object.entries(furthest).map(([i, top]) => ({ user_id: user.id, chapter_id: chapterIds[Number(i)]!, title_id: title.id, top_percentage: top, updated_at: now }));
      if (rows.length) await k.insertInto('chapter_progress').values(rows).execute();
    }
    return { titleId: title.id, userIds };
  }

  it.each([...CASES, generated()].map((c, n) => [c.name, c, n] as const))('%s: each reader’s figure is titleProgress’s', async (_, c, n) => {
    const { titleId, userIds } = await load(c, n);
    const { rows } = await readersProgressSql(t.lectern.db.kysely, titleId).execute(t.lectern.db.kysely);
    const bySql = new Map(rows.map((r) => [Number(r.user_id), Number(r.progress)]));
    const progress = new ProgressRepository(t.lectern.db.kysely);
    const core: number[] = [];
    for (const id of userIds) core.push(titleProgress((await progress.chapterReadings(id, [titleId])).get(titleId) ?? []));
    // a reader without chapter progress is not listed: their figure is 0
    const sql = userIds.map((id) => bySql.get(id) ?? 0);
    expect(sql).toEqual(core);
    if (c.expected) expect(core).toEqual(c.expected);
    expect(bySql.size).toBe(c.readers.filter((r) => Object.keys(r).length > 0).length);

    // the console reads it so: its readers' page and the detail's totals over the readers it lists
    const listed = userIds.flatMap((id, r) => (bySql.has(id) ? [{ email: `r${n}-${r}@example.com`, progress: core[r]! }] : []));
    const page = await t.lectern.services.admin.titles.readers(`progress-${n}`, { limit: 100 });
    expect(page.results.map((r) => ({ email: r.email, progress: Math.round(r.completion * 100) })).sort((a, b) => a.email.localeCompare(b.email))).toEqual(
      listed.sort((a, b) => a.email.localeCompare(b.email)),
    );
    const { stats } = await t.lectern.services.admin.titles.detail(`progress-${n}`);
    const mean = listed.length ? listed.reduce((sum, r) => sum + r.progress, 0) / listed.length : 0;
    expect([stats.readers, stats.completed_readers, stats.completion]).toEqual([listed.length, listed.filter((r) => r.progress === 100).length, Math.round((mean / 100) * 100) / 100]);
  });
});
