/**
 * Read aloud (issue 12): a chapter's EPUB Media Overlay, reduced at import to the phrases the reader plays
 * (ingest/media-overlays.ts `storedOverlay`: compact JSON, the audio paths listed once). Null for chapters without
 * one and for books imported before, until they are imported again.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('chapters').addColumn('media_overlay', 'text').execute();
}
