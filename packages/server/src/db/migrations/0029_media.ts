/**
 * Video courses and audiobooks: a media title is a `titles` row (content_format 'video' or 'audiobook') whose
 * chapters are its parts in order. Each part's playable file (converted at import when browsers cannot play the
 * source) is one `media_files` row, kept in the content store like a book's files; the part's transcript is the
 * chapter's content (searchable like a book's text) and its captions are WebVTT here. The title keeps its total
 * length and the preview clip that visitors and readers without rights are given.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('media_files')
    .addColumn('chapter_id', 'integer', (c) => c.primaryKey().references('chapters.id').onDelete('cascade'))
    .addColumn('title_id', 'integer', (c) => c.notNull().references('titles.id').onDelete('cascade'))
    .addColumn('storage_path', 'text', (c) => c.notNull())
    .addColumn('mime', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('video_codec', 'text')
    .addColumn('audio_codec', 'text')
    .addColumn('description', 'text')
    .addColumn('captions_vtt', 'text')
    .execute();
  await db.schema.createIndex('media_files_title_idx').on('media_files').column('title_id').execute();
  await db.schema.alterTable('titles').addColumn('duration_ms', 'integer').execute();
  await db.schema.alterTable('titles').addColumn('preview_path', 'text').execute();
  await db.schema.alterTable('titles').addColumn('preview_mime', 'text').execute();
}
