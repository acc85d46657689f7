/**
 * Issue 21: titles and works repaired. The importer used to take a dc:title that "looked like a file name" (a W3C
 * test's id, "cnt-css-fonts_woff") for one, and put the first contents entry or heading in its place ("Link to main
 * page"); and any two files with one title and first author became one work. Both rules are gone (ingest/epub.ts,
 * repositories/catalog.ts workTitleId); this puts right what they did, on both engines.
 *
 * 1. Titles. The dc:title a book was imported with is stored nowhere (neither the package nor the file is kept, nor
 *    the import's warning), so it is given back only where the row itself shows it: an EPUB whose package identifier
 *    is its file's name without the extension and a slug (no spaces, no capitals) — as each W3C test's is — and whose
 *    title is the text of its first contents entry, of its first chapter's label or is found in that chapter, as
 *    the old rule's replacements were. Its title becomes the identifier, which for those books was the dc:title too.
 *    Sort, slug and work keys follow, and the title's search rows are taken out (on SQLite out of the FTS tables
 *    with the values they were indexed with, as SearchRepository.removeTitle does) for the search backfill to index
 *    the title again at the next start. Other titles renamed so keep their name: re-importing the file (remove,
 *    then import) reads it with today's rule.
 * 2. Works. Every title's work is found again in the order the titles came (by id), with the rule imports now use:
 *    the same ISBN (the first title with it has it as its book id); else the same package identifier and work key;
 *    else the one work of the same work key that has no title of this format yet (an EPUB and a PDF of one book).
 *    Titles that were editions of a work by their title alone stand on their own again; the listings are derived
 *    again when anything moved.
 *
 * What the rules need is copied here (core's slugify, titleSortKey and workKey, the import's ISBN reading, search's
 * spacing of Chinese and Japanese, the listings' derivation) as they are at this migration, so that later changes to
 * them do not change what this migration does.
 */
import { type Kysely, sql } from 'kysely';

interface TitleRow {
  id: number;
  book_id: string;
  title: string;
  identifier: string | null;
  origin: string | null;
  source: string;
  content_format: string;
  work_key: string;
  work_title_id: number | null;
}

export async function up(db: Kysely<unknown>, engine: 'sqlite' | 'postgres'): Promise<void> {
  const k = db as Kysely<Tables>;
  const titles = (await k
    .selectFrom('titles')
    .select(['id', 'book_id', 'title', 'identifier', 'origin', 'source', 'content_format', 'work_key', 'work_title_id'])
    .orderBy('id')
    .execute()) as TitleRow[];
  if (titles.length === 0) return;

  const renamed = await restoreTitles(k, engine, titles);
  const moved = await regroupWorks(k, titles);
  if (renamed > 0 || moved > 0) await rebuildListings(k);
}

// ---- 1. titles ----

/** Gives back the test-id titles the old rule replaced; answers how many. Updates `titles` in place. */
async function restoreTitles(k: Kysely<Tables>, engine: 'sqlite' | 'postgres', titles: TitleRow[]): Promise<number> {
  let count = 0;
  for (const t of titles) {
    if (t.source !== 'application/epub+zip' || !t.identifier || !t.origin) continue;
    const id = t.identifier.trim();
    if (!id || id !== fileStem(t.origin) || /\s/.test(id) || id !== id.toLowerCase() || t.title === id || nameKey(t.title) === nameKey(id)) continue;
    if (!(await replacedByOldRule(k, t))) continue;
    const authors = (await k.selectFrom('title_authors').select('name').where('title_id', '=', t.id).orderBy('position').execute()).map((a) => a.name);
    t.title = id;
    t.work_key = workKey(id, authors);
    await k
      .updateTable('titles')
      .set({ title: id, title_safe: slugify(id), sort_title: titleSortKey(id), work_key: t.work_key })
      .where('id', '=', t.id)
      .execute();
    await removeSearchRows(k, engine, t.id);
    count++;
  }
  return count;
}

/** Whether the title is what the old rule put in place of a dc:title: the first contents entry, or the first chapter's label or heading. */
async function replacedByOldRule(k: Kysely<Tables>, t: TitleRow): Promise<boolean> {
  const entry = await k.selectFrom('toc_entries').select('label').where('title_id', '=', t.id).where('kind', '=', 'toc').orderBy('position').limit(1).executeTakeFirst();
  if (entry?.label.trim() === t.title) return true;
  const chapter = await k.selectFrom('chapters').select(['label', 'content']).where('title_id', '=', t.id).orderBy('item_order').limit(1).executeTakeFirst();
  if (!chapter) return false;
  return chapter.label.trim() === t.title || chapter.content.includes(t.title) || chapter.content.includes(escapeHtml(t.title));
}

/** A title's search rows out of the index (SearchRepository.removeTitle as at this migration). */
async function removeSearchRows(k: Kysely<Tables>, engine: 'sqlite' | 'postgres', titleId: number): Promise<void> {
  if (engine === 'sqlite') {
    const rows = await k.selectFrom('search_docs').select(['id', 'chapter_id', 'title', 'people', 'subjects', 'description', 'body']).where('title_id', '=', titleId).execute();
    for (let i = 0; i < rows.length; i += 100) {
      const batch = rows.slice(i, i + 100);
      const own = batch.filter((r) => r.chapter_id === null);
      const text = batch.filter((r) => r.chapter_id !== null);
      if (own.length) {
        await sql`insert into search_name_fts(search_name_fts, rowid, title) values ${sql.join(own.map((r) => sql`('delete', ${r.id}, ${spaceCjk(r.title)})`))}`.execute(k);
        await sql`insert into search_title_fts(search_title_fts, rowid, title, people, subjects, description) values ${sql.join(
          own.map((r) => sql`('delete', ${r.id}, ${spaceCjk(r.title)}, ${spaceCjk(r.people)}, ${spaceCjk(r.subjects)}, ${spaceCjk(r.description)})`),
        )}`.execute(k);
      }
      if (text.length) await sql`insert into search_passage_fts(search_passage_fts, rowid, body) values ${sql.join(text.map((r) => sql`('delete', ${r.id}, ${spaceCjk(r.body)})`))}`.execute(k);
    }
  }
  await k.deleteFrom('search_docs').where('title_id', '=', titleId).execute();
}

// ---- 2. works ----

/** Finds every title's work again, in import order; answers how many titles changed work. */
async function regroupWorks(k: Kysely<Tables>, titles: TitleRow[]): Promise<number> {
  const workOf = new Map<number, number>();
  const byBookId = new Map<string, TitleRow>();
  const byKey = new Map<string, TitleRow[]>();
  const formats = new Map<number, Set<string>>();
  let moved = 0;
  for (const t of titles) {
    let work: number | undefined;
    const isbn = isbnOf(t.identifier);
    const withIsbn = isbn ? byBookId.get(isbn) : undefined;
    if (withIsbn) work = workOf.get(withIsbn.id);
    const sameKey = t.work_key ? (byKey.get(t.work_key) ?? []) : [];
    if (work === undefined && t.identifier) {
      const same = sameKey.find((o) => o.identifier === t.identifier);
      if (same) work = workOf.get(same.id);
    }
    if (work === undefined) {
      const works = [...new Set(sameKey.map((o) => workOf.get(o.id)!))];
      const lacking = works.filter((w) => !formats.get(w)?.has(t.content_format));
      if (lacking.length === 1) work = lacking[0];
    }
    const standing = work ?? t.id;
    workOf.set(t.id, standing);
    formats.set(standing, (formats.get(standing) ?? new Set()).add(t.content_format));
    if (!byBookId.has(t.book_id)) byBookId.set(t.book_id, t);
    if (t.work_key) byKey.set(t.work_key, [...sameKey, t]);
    const workTitleId = standing === t.id ? null : standing;
    if (workTitleId !== t.work_title_id) {
      await k.updateTable('titles').set({ work_title_id: workTitleId }).where('id', '=', t.id).execute();
      t.work_title_id = workTitleId;
      moved++;
    }
  }
  return moved;
}

/** Every listing row and count from scratch (repositories/listings.ts rebuildAllListings as at this migration). */
async function rebuildListings(k: Kysely<Tables>): Promise<void> {
  await sql`delete from title_listings`.execute(k);
  await sql`delete from listing_counts`.execute(k);
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
    where t.work_title_id is null`.execute(k);
  await sql`insert into listing_counts (listing, n) select listing, count(*) from title_listings group by listing`.execute(k);
}

// ---- copies of the rules, as they are at this migration ----

function fileStem(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  const dot = base.lastIndexOf('.');
  return (dot > 0 ? base.slice(0, dot) : base).trim();
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function nameKey(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

function titleSortKey(title: string): string {
  const folded = nameKey(title);
  const stripped = folded.replace(/^(?:the|a|an) (?=\S)/, '');
  return stripped || folded;
}

function workKey(title: string, authors: readonly string[]): string {
  return `${titleSortKey(title)}|${nameKey(authors[0] ?? '')}`;
}

function slugify(text: string): string {
  const words = text
    .normalize('NFKD')
    .replace(/(?<=\p{Script=Latin})[\u0300-\u036f]+/gu, '')
    .normalize('NFC')
    .toLowerCase()
    .replace(/(?:[^\p{L}\p{N}]|(?![a-z])\p{Script=Latin})+/gu, '-')
    .replace(/^-+|-+$/g, '');
  const slug = Array.from(words).slice(0, 80).join('').replace(/-+$/g, '');
  return slug || 'untitled';
}

function isbnOf(identifier: string | null): string | null {
  return identifier?.replace(/[-\s]/g, '').match(/(?:^|[^0-9])(97[89][0-9]{10}|[0-9]{9}[0-9X])(?:$|[^0-9])/i)?.[1] ?? null;
}

const CJK_CHARACTERS = /(?![\u2e80-\u2fdf])[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;
const ASCII = /^[\x00-\x7f]*$/;

function spaceCjk(text: string): string {
  return ASCII.test(text) ? text : text.replace(CJK_CHARACTERS, ' $& ');
}

interface Tables {
  titles: TitleRow & { title_safe: string; sort_title: string };
  title_authors: { title_id: number; name: string; position: number };
  toc_entries: { title_id: number; kind: string; position: number; label: string };
  chapters: { title_id: number; item_order: number; label: string; content: string };
  search_docs: { id: number; title_id: number; chapter_id: number | null; title: string; people: string; subjects: string; description: string; body: string };
}
