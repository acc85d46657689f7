/**
 * Search that costs the same at 100,000 titles as at 1,000 (issue 11). One FTS5 table over every row meant a common
 * word ranked every passage of the library (bm25 over 500,000 rows per request). Now each kind of row has its own
 * index, so a query can take the newest N matches of one kind and stop (FTS5 walks a doclist in rowid order and a
 * LIMIT ends the walk; on PostgreSQL a partial GIN index per kind):
 * - names: a title's own title only (a title named by the word is found however old it is),
 * - titles: a title's own row (title, people, subjects, description),
 * - passages: the chapters' text.
 * Suggestions look names up by their folded beginning in an index (authors get a folded key column; titles already
 * have sort_title); PostgreSQL compares them byte-wise (COLLATE "C") so a prefix is an index range whatever the
 * database's collation.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>, engine: 'sqlite' | 'postgres'): Promise<void> {
  if (engine === 'sqlite') {
    const fts = (name: string, columns: string) =>
      sql.raw(`create virtual table ${name} using fts5(${columns}, content='search_docs', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')`);
    await fts('search_name_fts', 'title').execute(db);
    await fts('search_title_fts', 'title, people, subjects, description').execute(db);
    await fts('search_passage_fts', 'body').execute(db);
    await sql`insert into search_name_fts(rowid, title) select id, title from search_docs where chapter_id is null`.execute(db);
    await sql`insert into search_title_fts(rowid, title, people, subjects, description) select id, title, people, subjects, description from search_docs where chapter_id is null`.execute(db);
    await sql`insert into search_passage_fts(rowid, body) select id, body from search_docs where chapter_id is not null`.execute(db);
    await sql`drop table search_fts`.execute(db);
  } else {
    await sql`create index search_docs_title_doc_idx on search_docs using gin (doc) where chapter_id is null`.execute(db);
    await sql`create index search_docs_passage_doc_idx on search_docs using gin (doc) where chapter_id is not null`.execute(db);
    // the title's own words (weight A) alone
    await sql`create index search_docs_name_doc_idx on search_docs using gin (ts_filter(doc, '{a}')) where chapter_id is null`.execute(db);
    await sql`drop index search_docs_doc_idx`.execute(db);
    // the title rows newest first, without walking past the passages between them (9 rows in 10 are passages)
    await sql`create index search_docs_title_rows_idx on search_docs (id) where chapter_id is null`.execute(db);
  }

  await db.schema.alterTable('title_authors').addColumn('name_key', 'text', (c) => c.notNull().defaultTo('')).execute();
  for (const table of ['topics', 'publishers'] as const) await db.schema.alterTable(table).addColumn('name_key', 'text', (c) => c.notNull().defaultTo('')).execute();
  // Folding is Unicode normalisation, done here as the app does it (the engines have no such function).
  for (const table of ['title_authors', 'topics', 'publishers'] as const) {
    const names = await sql<{ name: string }>`select distinct name from ${sql.table(table)}`.execute(db);
    for (const { name } of names.rows) await sql`update ${sql.table(table)} set name_key = ${nameKey(name)} where name = ${name}`.execute(db);
  }
  const c = engine === 'postgres' ? sql` collate "C"` : sql``;
  await sql`create index title_authors_name_key_idx on title_authors (name_key${c}, name)`.execute(db);
  await sql`create index topics_name_key_idx on topics (name_key${c})`.execute(db);
  await sql`create index publishers_name_key_idx on publishers (name_key${c})`.execute(db);
  // SQLite walks titles_sort_title_idx (0007), already in byte order
  if (engine === 'postgres') await sql`create index titles_sort_title_c_idx on titles (sort_title collate "C") where work_title_id is null`.execute(db);
}

// core's nameKey as it was when this migration was written: a migration keeps its own copy (layering test).
function nameKey(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
