/**
 * Listing rows: one row per (listing, title) for every catalog listing a title appears in, carrying the title's
 * sort keys, so that each listing (the whole catalog, a topic, a publisher, a format, a topic or publisher within a
 * format) is one index range read in any of its orders, and keyset paging never sorts. `listing_counts` holds the
 * number of rows per listing, kept in the same transaction as the rows: no listing counts per request.
 *
 * Listing keys: `all`, `t:{topic id}`, `p:{publisher id}`, `f:{format}`, `t:{topic id}|f:{format}`,
 * `p:{publisher id}|f:{format}`. Only titles that stand for their work are listed (work_title_id is null); a
 * format listing holds the works that have a title in that format. Retired titles (an operator's, docs/decisions.md
 * "Operators' console: the server side") are in none.
 *
 * The derivation is SQL, once, here: an import refreshes its work's rows (migrations keep copies as they were).
 */
import { type Kysely, type RawBuilder, sql } from 'kysely';

export const listingKeys = {
  all: () => 'all',
  topic: (topicId: number) => `t:${topicId}`,
  publisher: (publisherId: number) => `p:${publisherId}`,
  format: (format: string) => `f:${format}`,
  topicFormat: (topicId: number, format: string) => `t:${topicId}|f:${format}`,
  publisherFormat: (publisherId: number, format: string) => `p:${publisherId}|f:${format}`,
} as const;

/** The INSERT … SELECT that derives the rows of the standing titles `ids` (all of them when null). */
function insertRows(ids: number[] | null): RawBuilder<unknown> {
  const listed = (alias: string) => sql` and ${sql.ref(`${alias}.retired_at`)} is null`;
  const only = (column: string) => (ids ? sql` and ${sql.ref(column)} in (${sql.join(ids)})` : sql``);
  // The formats of each work: the standing title's own and those of the titles that point at it.
  return sql`
    insert into title_listings (listing, title_id, sort_title, author_last, sort_author, created_at)
    with wf as (
      select distinct coalesce(f.work_title_id, f.id) as work, f.content_format as fmt from titles f
      where 1 = 1 ${listed('f')} ${ids ? sql` and coalesce(f.work_title_id, f.id) in (${sql.join(ids)})` : sql``}
    ),
    x as (
      select s.id as title_id, 'all' as listing from titles s where s.work_title_id is null ${only('s.id')}
      union all select tt.title_id, 't:' || tt.topic_id from title_topics tt where 1 = 1 ${only('tt.title_id')}
      union all select tp.title_id, 'p:' || tp.publisher_id from title_publishers tp where 1 = 1 ${only('tp.title_id')}
      union all select wf.work, 'f:' || wf.fmt from wf
      union all select tt.title_id, 't:' || tt.topic_id || '|f:' || wf.fmt from title_topics tt join wf on wf.work = tt.title_id
      union all select tp.title_id, 'p:' || tp.publisher_id || '|f:' || wf.fmt from title_publishers tp join wf on wf.work = tp.title_id
    )
    select x.listing, t.id, t.sort_title, case when t.sort_author = '' then 1 else 0 end, t.sort_author, t.created_at
    from x join titles t on t.id = x.title_id
    where t.work_title_id is null ${listed('t')} ${only('t.id')}`;
}

/** Every listing row and count from scratch (the bench after its bulk insert). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the bench's database and migrations' share it, each of its own schema type
export async function rebuildAllListings(db: Kysely<any>): Promise<void> {
  await sql`delete from title_listings`.execute(db);
  await sql`delete from listing_counts`.execute(db);
  await insertRows(null).execute(db);
  await sql`insert into listing_counts (listing, n) select listing, count(*) from title_listings group by listing`.execute(db);
}

/**
 * The rows of the works that `ids` stand for, derived again inside the caller's transaction; counts move by the
 * difference. Call it after any change to those titles, their topics, publishers or the titles of their work.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- called inside transactions of several schema types (see rebuildAllListings)
export async function refreshListings(trx: Kysely<any>, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  const countsOf = async () => {
    const { rows } = await sql<{ listing: string; n: string | number }>`
      select listing, count(*) as n from title_listings where title_id in (${sql.join(ids)}) group by listing`.execute(trx);
    return new Map(rows.map((r) => [r.listing, Number(r.n)]));
  };
  const before = await countsOf();
  await sql`delete from title_listings where title_id in (${sql.join(ids)})`.execute(trx);
  await insertRows(ids).execute(trx);
  const after = await countsOf();
  const deltas = new Map<string, number>();
  for (const [listing, n] of before) deltas.set(listing, -n);
  for (const [listing, n] of after) deltas.set(listing, (deltas.get(listing) ?? 0) + n);
  for (const [listing, delta] of deltas) {
    if (delta === 0) continue;
    await sql`insert into listing_counts (listing, n) values (${listing}, ${delta})
      on conflict (listing) do update set n = listing_counts.n + excluded.n`.execute(trx);
  }
}
