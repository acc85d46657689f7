/**
 * Video courses' and audiobooks' parts (0029_media.ts): each media chapter's playable file, what the players and the
 * contents panel need of it, and the spans a listener has played of a part (their usage events).
 */
import type { Kysely } from 'kysely';
import type { Database, Flag } from '../db/schema.ts';

/** A media part as the stream and the players need it: its chapter's flags and its stored file. */
export interface MediaPart {
  chapter_id: number;
  title_id: number;
  full_path: string;
  as_sample: Flag;
  is_public: Flag;
  storage_path: string;
  mime: string;
  size: number;
  duration_ms: number;
  width: number | null;
  height: number | null;
  description: string | null;
  has_captions: boolean;
  /** how many parts (chapters) the title has: the only one is never free in full */
  parts: number;
}

export class MediaRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** The part at this path of the title, or undefined when the path is no media part of it. */
  async partOf(titleId: number, fullPath: string): Promise<MediaPart | undefined> {
    const row = await this.db
      .selectFrom('chapters as c')
      .innerJoin('media_files as m', 'm.chapter_id', 'c.id')
      .select(['c.id as chapter_id', 'c.title_id', 'c.full_path', 'c.as_sample', 'c.is_public'])
      .select(['m.storage_path', 'm.mime', 'm.size', 'm.duration_ms', 'm.width', 'm.height', 'm.description'])
      .select((eb) => [
        eb.case().when('m.captions_vtt', 'is', null).then(0).else(1).end().as('has_captions'),
        eb.selectFrom('chapters as o').select((o) => o.fn.countAll<number | string>().as('n')).whereRef('o.title_id', '=', 'c.title_id').as('parts'),
      ])
      .where('c.title_id', '=', titleId)
      .where('c.full_path', '=', fullPath)
      .executeTakeFirst();
    if (!row) return undefined;
    return { ...row, size: Number(row.size), duration_ms: Number(row.duration_ms), has_captions: Number(row.has_captions) === 1, parts: Number(row.parts) };
  }

  /** A part's WebVTT captions; null when it has none (or there is no such part). */
  async captionsOf(chapterId: number): Promise<string | null> {
    const row = await this.db.selectFrom('media_files').select('captions_vtt').where('chapter_id', '=', chapterId).executeTakeFirst();
    return row?.captions_vtt ?? null;
  }

  /** Each part's length by its chapter path, for a title's contents (empty for a book). */
  async durationsOf(titleId: number): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('media_files as m')
      .innerJoin('chapters as c', 'c.id', 'm.chapter_id')
      .select(['c.full_path', 'm.duration_ms'])
      .where('m.title_id', '=', titleId)
      .execute();
    return new Map(rows.map((r) => [r.full_path, Number(r.duration_ms)]));
  }

  /** Which of these chapters are media parts. */
  async mediaChapterIds(chapterIds: number[]): Promise<Set<number>> {
    if (chapterIds.length === 0) return new Set();
    const rows = await this.db.selectFrom('media_files').select('chapter_id').where('chapter_id', 'in', chapterIds).execute();
    return new Set(rows.map((r) => r.chapter_id));
  }
}
