/**
 * Catalog listings that scale (issue 11): listing rows with the sort keys of their titles and maintained counts
 * (repositories/listings.ts), indexed for keyset paging in each order; and the indexes the titles lacked for what
 * listings filter and sort by (publisher, author and newest order, format). Existing titles are listed here.
 */
import { type Kysely, sql } from 'kysely';

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

  await rebuildAllListings(db);
}

/**
 * Every listing row and count from scratch, as repositories/listings.ts derived them when this migration was
 * written (a migration keeps its own copy: today's derivation reads columns later migrations add).
 */
async function rebuildAllListings(db: Kysely<unknown>): Promise<void> {
  await sql`delete from title_listings`.execute(db);
  await sql`delete from listing_counts`.execute(db);
  await sql`
    insert into title_listings (listing, title_id, sort_title, author_last, sort_author, created_at)
    with wf as (
      select distinct coalesce(f.work_title_id, f.id) as work, f.content_format as fmt from titles f
    ),
    x as (
      select s.id as title_id, 'all' as listing from titles s where s.work_title_id is null
      union all select tt.title_id, 't:' || tt.topic_id from title_topics tt
      union all select tp.title_id, 'p:' || tp.publisher_id from title_publishers tp
      union all select wf.work, 'f:' || wf.fmt from wf
      union all select tt.title_id, 't:' || tt.topic_id || '|f:' || wf.fmt from title_topics tt join wf on wf.work = tt.title_id
      union all select tp.title_id, 'p:' || tp.publisher_id || '|f:' || wf.fmt from title_publishers tp join wf on wf.work = tp.title_id
    )
    select x.listing, t.id, t.sort_title, case when t.sort_author = '' then 1 else 0 end, t.sort_author, t.created_at
    from x join titles t on t.id = x.title_id
    where t.work_title_id is null`.execute(db);
  await sql`insert into listing_counts (listing, n) select listing, count(*) from title_listings group by listing`.execute(db);
}
