/**
 * Catalog listings that scale (issue 11): listing rows with the sort keys of their titles and maintained counts
 * (repositories/listings.ts), indexed for keyset paging in each order; and the indexes the titles lacked for what
 * listings filter and sort by (publisher, author and newest order, format). Existing titles are listed here.
 */
import type { Kysely } from 'kysely';
import { rebuildAllListings } from '../../repositories/listings.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('title_listings')
    .addColumn('listing', 'text', (c) => c.notNull())
    .addColumn('title_id', 'integer', (c) => c.notNull())
    .addColumn('sort_title', 'text', (c) => c.notNull())
    // 1 when the title has no author: those sort after the others in the author order
    .addColumn('author_last', 'integer', (c) => c.notNull())
    .addColumn('sort_author', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // One index per order, each led by the listing: a page is one range read, a deep page as cheap as the first.
  await db.schema.createIndex('title_listings_title_idx').on('title_listings').columns(['listing', 'sort_title', 'title_id']).unique().execute();
  await db.schema.createIndex('title_listings_recent_idx').on('title_listings').columns(['listing', 'created_at', 'title_id']).execute();
  await db.schema
    .createIndex('title_listings_author_idx')
    .on('title_listings')
    .columns(['listing', 'author_last', 'sort_author', 'sort_title', 'title_id'])
    .execute();
  await db.schema.createIndex('title_listings_by_title_idx').on('title_listings').column('title_id').execute();
  await db.schema
    .createTable('listing_counts')
    .addColumn('listing', 'text', (c) => c.primaryKey())
    .addColumn('n', 'integer', (c) => c.notNull())
    .execute();

  await db.schema.createIndex('title_publishers_publisher_idx').on('title_publishers').columns(['publisher_id', 'title_id']).execute();
  await db.schema.createIndex('titles_sort_author_idx').on('titles').columns(['sort_author', 'sort_title', 'id']).execute();
  await db.schema.createIndex('titles_created_idx').on('titles').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('titles_format_idx').on('titles').columns(['content_format', 'work_title_id']).execute();

  await rebuildAllListings(db, { beforeRetirement: true });
}
