/**
 * Search in Chinese and Japanese (core's CJK_CHARACTERS): the index now holds each such character as a word of its
 * own. Titles indexed before with such characters lose their search rows here (on SQLite taken out of the FTS
 * tables with the values they were indexed with, as SearchRepository.removeTitle does) and are indexed again by
 * the search backfill at the next start. Other titles' rows are the same either way and stay.
 *
 * Which rows: every character that is spaced lies in U+3000-9FFF or from U+F000 on (core's CJK_CHARACTERS), whose
 * UTF-8 starts with a byte E3-E9, EF or F0 — bytes no other character's UTF-8 holds. SQLite looks for those bytes
 * (a byte search: 4.6 s over 1.2 million passages, where a GLOB character class took 20 s); PostgreSQL matches the
 * same code points. Rows with only such neighbours of the spaced characters (CJK punctuation, full-width forms,
 * emoji) are indexed again too, which costs a little and changes nothing.
 */
import { type Kysely, sql } from 'kysely';

const COLUMNS = ['title', 'people', 'subjects', 'description', 'body'];
const LEAD_BYTES = ['E3', 'E4', 'E5', 'E6', 'E7', 'E8', 'E9', 'EF', 'F0'];
const POSTGRES_CLASS = String.raw`[\u3000-\u9fff\uf000-\uffff\U00010000-\U0003ffff]`;

/** The SQL condition "this search_docs row holds a character that is now spaced" (or a neighbour of one). */
export function holdsCjk(engine: 'sqlite' | 'postgres'): string {
  if (engine === 'postgres') return COLUMNS.map((c) => `${c} ~ '${POSTGRES_CLASS}'`).join(' or ');
  return COLUMNS.flatMap((c) => LEAD_BYTES.map((b) => `instr(cast(${c} as blob), x'${b}') > 0`)).join(' or ');
}

export async function up(db: Kysely<unknown>, engine: 'sqlite' | 'postgres'): Promise<void> {
  if (engine === 'postgres') {
    await sql`delete from search_docs where title_id in (select distinct title_id from search_docs where ${sql.raw(holdsCjk(engine))})`.execute(db);
    return;
  }
  const { rows: titles } = await sql<{ title_id: number }>`select distinct title_id from search_docs where ${sql.raw(holdsCjk(engine))}`.execute(db);
  for (const { title_id } of titles) {
    const { rows } = await sql<{ id: number; chapter_id: number | null; title: string; people: string; subjects: string; description: string; body: string }>`
      select id, chapter_id, title, people, subjects, description, body from search_docs where title_id = ${title_id}`.execute(db);
    // a hundred rows a statement, as SearchRepository.removeTitle takes them out
    for (let i = 0; i < rows.length; i += 100) {
      const batch = rows.slice(i, i + 100);
      const own = batch.filter((r) => r.chapter_id === null);
      const text = batch.filter((r) => r.chapter_id !== null);
      if (own.length) {
        await sql`insert into search_name_fts(search_name_fts, rowid, title) values ${sql.join(own.map((r) => sql`('delete', ${r.id}, ${r.title})`))}`.execute(db);
        await sql`insert into search_title_fts(search_title_fts, rowid, title, people, subjects, description) values ${sql.join(
          own.map((r) => sql`('delete', ${r.id}, ${r.title}, ${r.people}, ${r.subjects}, ${r.description})`),
        )}`.execute(db);
      }
      if (text.length) await sql`insert into search_passage_fts(search_passage_fts, rowid, body) values ${sql.join(text.map((r) => sql`('delete', ${r.id}, ${r.body})`))}`.execute(db);
    }
    await sql`delete from search_docs where title_id = ${title_id}`.execute(db);
  }
}
