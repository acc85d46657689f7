/**
 * Fixed layout and flow (issue 12): how a title and each of its spine items ask to be laid out (EPUB 3.3 §8,
 * ingest/rendition.ts). On the title, the package's defaults; on each chapter, the spine item's own values (its
 * itemref overrides applied), the side of a spread it goes on and a fixed-layout page's size. Null for everything
 * imported before (read as reflowable) and for PDFs.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // 'reflowable' | 'pre-paginated'; 'none' | 'landscape' | 'both' | 'auto'; 'paginated' | 'scrolled-continuous' | 'scrolled-doc' | 'auto'
  await db.schema.alterTable('titles').addColumn('rendition_layout', 'text').execute();
  await db.schema.alterTable('titles').addColumn('rendition_spread', 'text').execute();
  await db.schema.alterTable('titles').addColumn('rendition_flow', 'text').execute();
  // the package's rendition:viewport, in CSS pixels
  await db.schema.alterTable('titles').addColumn('viewport_width', 'integer').execute();
  await db.schema.alterTable('titles').addColumn('viewport_height', 'integer').execute();
  await db.schema.alterTable('chapters').addColumn('rendition_layout', 'text').execute();
  await db.schema.alterTable('chapters').addColumn('rendition_spread', 'text').execute();
  await db.schema.alterTable('chapters').addColumn('rendition_flow', 'text').execute();
  // 'left' | 'right' | 'center'; null: either side
  await db.schema.alterTable('chapters').addColumn('page_spread', 'text').execute();
  // a fixed-layout page's size (its viewport meta, its image's size, else the package's rendition:viewport)
  await db.schema.alterTable('chapters').addColumn('viewport_width', 'integer').execute();
  await db.schema.alterTable('chapters').addColumn('viewport_height', 'integer').execute();
}
