/**
 * Navigation beyond the contents (issue 12): a book's print pages (EPUB 3 page-list, EPUB 2 NCX pageList) and its
 * landmarks (where the body matter starts, the index, …) are kept beside the contents in `toc_entries`, told apart
 * by `kind`; and which way a title's pages turn. Books imported earlier have neither until imported again.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('toc_entries').addColumn('kind', 'text', (c) => c.notNull().defaultTo('toc')).execute();
  await db.schema.alterTable('toc_entries').addColumn('landmark', 'text').execute();
  // which way the title's pages turn (the spine's page-progression-direction): 'ltr' or 'rtl'; null for earlier imports
  await db.schema.alterTable('titles').addColumn('page_progression', 'text').execute();
}
