/**
 * The catalog issue: titles get sort keys (title ignoring case and a leading article; first author) and a work
 * (an EPUB and a PDF of one book are one work, shown as one card); chapters may keep the bounded sample of a
 * one-chapter book; a PDF resource may have a small sample file beside it. Existing titles are filled in here.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('titles').addColumn('sort_title', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('titles').addColumn('sort_author', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('titles').addColumn('work_key', 'text', (c) => c.notNull().defaultTo('')).execute();
  // null: the title stands for its work in the catalog; else the id of the title that does.
  await db.schema.alterTable('titles').addColumn('work_title_id', 'integer').execute();
  await db.schema.alterTable('chapters').addColumn('sample_content', 'text').execute();
  await db.schema.alterTable('resources').addColumn('sample_storage_path', 'text').execute();
  await db.schema.alterTable('resources').addColumn('sample_size', 'integer').execute();
  await db.schema.createIndex('titles_sort_title_idx').on('titles').columns(['sort_title', 'id']).execute();
  await db.schema.createIndex('titles_work_key_idx').on('titles').column('work_key').execute();
  await db.schema.createIndex('titles_work_title_idx').on('titles').column('work_title_id').execute();

  await fillCatalogKeys(db);
}

/** Existing titles: their sort and work keys; the first title of each work (by id) stands for it. */
export async function fillCatalogKeys(db: Kysely<unknown>): Promise<void> {
  const k = db as Kysely<Backfill>;
  const titles = await k.selectFrom('titles').select(['id', 'title']).orderBy('id').execute();
  const authors = await k.selectFrom('title_authors').select(['title_id', 'name']).orderBy('title_id').orderBy('position').execute();
  const authorsOf = new Map<number, string[]>();
  for (const a of authors) authorsOf.set(a.title_id, [...(authorsOf.get(a.title_id) ?? []), a.name]);
  const firstOfWork = new Map<string, number>();
  for (const t of titles) {
    const names = authorsOf.get(t.id) ?? [];
    const key = workKey(t.title, names);
    const first = firstOfWork.get(key);
    if (first === undefined) firstOfWork.set(key, t.id);
    await k
      .updateTable('titles')
      .set({ sort_title: titleSortKey(t.title), sort_author: authorSortKey(names), work_key: key, work_title_id: first ?? null })
      .where('id', '=', t.id)
      .execute();
  }
}

interface Backfill {
  titles: { id: number; title: string; sort_title: string; sort_author: string; work_key: string; work_title_id: number | null };
  title_authors: { title_id: number; name: string; position: number };
}

// The rules as they were when this migration was written (core/catalog.ts then): a migration keeps its own copy,
// so that changing today's rules never changes what an old migration did (the layering test holds it).
function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
function titleSortKey(title: string): string {
  const folded = fold(title);
  const stripped = folded.replace(/^(?:the|a|an) (?=\S)/, '');
  return stripped || folded;
}
function authorSortKey(authors: readonly string[]): string {
  return fold(authors[0] ?? '');
}
function workKey(title: string, authors: readonly string[]): string {
  return `${titleSortKey(title)}|${authorSortKey(authors)}`;
}
