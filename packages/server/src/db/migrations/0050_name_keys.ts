/**
 * One fold (docs/decisions.md "Text folding: one rule in core"): core's nameKey became foldText with punctuation to
 * spaces, so a kana keeps its voicing (だんご was keyed "た んこ", now "だんご") and compatibility forms fold as search
 * folds them (ｶﾞ is ガ). Every stored key made by it is made again here: titles' sort_title, sort_author and work_key,
 * the listings' copies of the sort keys, and the name_key of authors, topics and publishers.
 *
 * Batch-wise: titles (with their authors and listing rows), topics and publishers are read BATCH rows at a time in
 * id order, and only the rows whose key changed are written, in one statement per table and batch (most keys, those
 * of ASCII names, do not change). Kysely runs a migration in one transaction on PostgreSQL but not on SQLite, where
 * each statement commits: run again after being cut off, it finishes the job (keys are made from the names, listing
 * rows compared with their titles, and a work_key already made by the new rule stays). Works are not regrouped: which files are one work stays as it was decided, and
 * work_key only decides what a later import joins. A work_key that was not made from the title and first author it
 * has now (an operator renamed the title; the key keeps the imported one) is left as it is.
 */
import { type Kysely, sql } from 'kysely';

const BATCH = 500;

interface Tables {
  titles: { id: number; title: string; sort_title: string; sort_author: string; work_key: string };
  title_authors: { title_id: number; position: number; name: string; name_key: string };
  topics: { id: number; name: string; name_key: string };
  publishers: { id: number; name: string; name_key: string };
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const k = db as Kysely<Tables>;
  await rekeyTitles(k);
  for (const table of ['topics', 'publishers'] as const) await rekeyNamed(k, table);
}

async function rekeyTitles(k: Kysely<Tables>): Promise<void> {
  for (let after = 0; ; ) {
    const titles = await k.selectFrom('titles').select(['id', 'title', 'sort_title', 'sort_author', 'work_key']).where('id', '>', after).orderBy('id').limit(BATCH).execute();
    if (titles.length === 0) return;
    const first = titles[0]!.id;
    after = titles[titles.length - 1]!.id;
    const authors = await k
      .selectFrom('title_authors')
      .select(['title_id', 'position', 'name', 'name_key'])
      .where('title_id', 'in', titles.map((t) => t.id))
      .orderBy('title_id')
      .orderBy('position')
      .execute();
    const firstAuthor = new Map<number, string>();
    const authorKeys: [number, number, string][] = [];
    for (const a of authors) {
      if (!firstAuthor.has(a.title_id)) firstAuthor.set(a.title_id, a.name);
      const key = nameKey(a.name);
      if (key !== a.name_key) authorKeys.push([a.title_id, a.position, key]);
    }
    const titleKeys: [number, string, string, string][] = [];
    for (const t of titles) {
      const names = firstAuthor.has(t.id) ? [firstAuthor.get(t.id)!] : [];
      const sortTitle = titleSortKey(t.title);
      const sortAuthor = authorSortKey(names);
      const work = t.work_key === oldWorkKey(t.title, names) ? workKey(t.title, names) : t.work_key;
      if (sortTitle !== t.sort_title || sortAuthor !== t.sort_author || work !== t.work_key) titleKeys.push([t.id, sortTitle, sortAuthor, work]);
    }
    // Each update names the batch's id range besides its join, so PostgreSQL reads the batch's rows by index rather
    // than the whole table once a batch (100,000 titles: 101 s before, 33 s with it).
    if (titleKeys.length > 0) {
      const values = sql.join(titleKeys.map(([id, s, a, w]) => sql`(cast(${id} as integer), ${s}, ${a}, ${w})`));
      await sql`with v (id, sort_title, sort_author, work_key) as (values ${values})
        update titles set sort_title = v.sort_title, sort_author = v.sort_author, work_key = v.work_key from v
        where titles.id = v.id and titles.id between ${first} and ${after}`.execute(k);
    }
    // The listings carry the standing titles' sort keys (repositories/listings.ts as of this migration). Compared with
    // the titles rather than following titleKeys, so a run cut off between the two statements is mended by the next.
    await sql`update title_listings set sort_title = t.sort_title, sort_author = t.sort_author, author_last = case when t.sort_author = '' then 1 else 0 end
      from titles t where t.id = title_listings.title_id and t.id between ${first} and ${after} and title_listings.title_id in (${sql.join(titles.map((r) => r.id))})
      and (title_listings.sort_title <> t.sort_title or title_listings.sort_author <> t.sort_author)`.execute(k);
    if (authorKeys.length > 0) {
      const values = sql.join(authorKeys.map(([id, position, key]) => sql`(cast(${id} as integer), cast(${position} as integer), ${key})`));
      await sql`with v (title_id, position, name_key) as (values ${values})
        update title_authors set name_key = v.name_key from v
        where title_authors.title_id = v.title_id and title_authors.position = v.position and title_authors.title_id between ${first} and ${after}`.execute(k);
    }
  }
}

async function rekeyNamed(k: Kysely<Tables>, table: 'topics' | 'publishers'): Promise<void> {
  for (let after = 0; ; ) {
    const rows = await k.selectFrom(table).select(['id', 'name', 'name_key']).where('id', '>', after).orderBy('id').limit(BATCH).execute();
    if (rows.length === 0) return;
    const first = rows[0]!.id;
    after = rows[rows.length - 1]!.id;
    const changed = rows.map((r) => [r.id, nameKey(r.name), r.name_key] as const).filter(([, key, was]) => key !== was);
    if (changed.length === 0) continue;
    const values = sql.join(changed.map(([id, key]) => sql`(cast(${id} as integer), ${key})`));
    await sql`with v (id, name_key) as (values ${values})
      update ${sql.table(table)} set name_key = v.name_key from v where ${sql.ref(`${table}.id`)} = v.id and ${sql.ref(`${table}.id`)} between ${first} and ${after}`.execute(k);
  }
}

// The rules as they are when this migration is written (core/text-fold.ts foldText, core/catalog.ts): a migration
// keeps its own copy, so that changing today's rules never changes what it does (the layering test holds it; the
// test of this migration holds the copy to core's table, test/api/migrate-name-keys.test.ts).
const ASCII = /^[\x00-\x7f]*$/;
const KANA_VOICING = /[\u3099\u309a]/;
const MARKS_NOT_ON_KANA = /(?<![\u3040-\u30ff])\p{M}+/gu;
const MARKS = /\p{M}+/gu;

function foldText(text: string): string {
  if (ASCII.test(text)) return text.toLowerCase();
  const decomposed = text.normalize('NFKD');
  if (!KANA_VOICING.test(decomposed)) return decomposed.replace(MARKS, '').toLowerCase();
  return decomposed.replace(MARKS_NOT_ON_KANA, '').normalize('NFC').toLowerCase();
}
export function nameKey(text: string): string {
  return foldText(text)
    .replace(/[^\p{L}\p{N}\p{M}]+/gu, ' ')
    .trim();
}
function titleSortKey(title: string): string {
  const folded = nameKey(title);
  const stripped = folded.replace(/^(?:the|a|an) (?=\S)/, '');
  return stripped || folded;
}
function authorSortKey(authors: readonly string[]): string {
  return nameKey(authors[0] ?? '');
}
function workKey(title: string, authors: readonly string[]): string {
  return `${titleSortKey(title)}|${authorSortKey(authors)}`;
}

// The rule before this migration, to tell a work_key made from the title it has now from one that was not (and for
// its test, which writes rows as that rule keyed them).
export function oldNameKey(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
export function oldWorkKey(title: string, authors: readonly string[]): string {
  const folded = oldNameKey(title);
  const sortTitle = folded.replace(/^(?:the|a|an) (?=\S)/, '') || folded;
  return `${sortTitle}|${oldNameKey(authors[0] ?? '')}`;
}
