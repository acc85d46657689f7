/**
 * rendition:align-x-center (issue 24): a spine item that asks to be centred horizontally in the viewport or spread
 * (EPUB 3.3 Reading Systems §8.3, W3C epub-tests lay-reflow-align-x-center). 1 when its itemref carries the property,
 * 0 when it does not; null for chapters imported before (read as not centred) and for PDFs.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('chapters').addColumn('align_x_center', 'integer').execute();
}
