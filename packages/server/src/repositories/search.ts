/**
 * The search index on both engines behind one interface (DESIGN.md): SQLite FTS5 over `search_docs` (external
 * content, bm25 with column weights) and PostgreSQL's weighted tsvector with ts_rank. The same documents, the same
 * terms (util/search-text.ts makes them safe), the same intent: a hit in a title outranks one in its people,
 * subjects, description, and those outrank one in the text.
 */
import { type Kysely, sql } from 'kysely';
import { foldText } from '@lectern/core';
import type { Engine } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { type ParsedQuery, spaceCjk, toFts5, toTsquery } from '../util/search-text.ts';

export interface SearchDocument {
  title: string;
  people: string;
  subjects: string;
  description: string;
  passages: { full_path: string; passage_no: number; body: string }[];
}

/**
 * PostgreSQL: how many of the newest rows holding a phrase's words are checked for the phrase itself. Title rows
 * are fewer and a phrase's words meet in fewer of them (1 in 100 for two common words): 100 candidates meant walking
 * 9,800 title rows at 100,000 titles, and the phrase's p99 was 152 ms and cost 4.3 times that at 1,000; 40 walk
 * about 4,000 (p99 98 ms, cost ratio 2.4; docs/performance.md). A phrase in a title further back is not found.
 */
const PHRASE_CANDIDATES = { passages: 500, titles: 40, names: 100 };

/** SQLite takes at most 500 terms in a compound select: the open chapters of a page's titles, each a term. */
const SPANS_PER_STATEMENT = 400;

/** The kinds of row search walks: a title's own title, a title's own row, chapters' text. */
export type SearchKind = 'names' | 'titles' | 'passages';

/** A row search found: its id and title, and for a title's own row the fields it is ranked by. */
/** What newestOfEach found of one kind: the rows, whether they are all, and the doc id (and its title) above which they are. */
export interface KindFound {
  rows: Candidate[];
  complete: boolean;
  floor: number | null;
  /** the title of the floor's row (which a phrase's bounded check may not hold among the rows) */
  floorTitle: number | null;
}

export interface Candidate {
  id: number;
  title_id: number;
  title?: string;
  people?: string;
  subjects?: string;
  description?: string;
}

/** PostgreSQL's text for a tsvector: folded and spaced as the query is (search-text.ts). */
const indexed = (text: string) => spaceCjk(foldText(text));

const chunks = <T>(items: readonly T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};

export class SearchRepository {
  constructor(
    private readonly db: Kysely<Database>,
    readonly engine: Engine,
    /**
     * Where the searches' reads run (Db.reads: SQLite's reader threads, db/sqlite-readers.ts); writes, and the
     * backfill's reads at start, stay on `db`.
     */
    private readonly reads: Kysely<Database> = db,
  ) {}

  /** Indexes one title: its own row and every passage. Called inside the import's transaction (`trx`). */
  async write(trx: Kysely<Database>, titleId: number, doc: SearchDocument, chapterIds: ReadonlyMap<string, number>): Promise<void> {
    await this.writeMany(trx, [{ titleId, doc, chapterIds }]);
  }

  /**
   * Indexes several titles, each as `write` does (its own row first, then its passages: one range of ids per title),
   * with up to `rowsPerStatement` rows a statement: the bulk path of a generated library (bench/generate-library.ts),
   * where a statement per title was most of an hour on PostgreSQL at 100,000 titles.
   */
  async writeMany(
    trx: Kysely<Database>,
    titles: readonly { titleId: number; doc: SearchDocument; chapterIds: ReadonlyMap<string, number> }[],
    rowsPerStatement = 100,
  ): Promise<void> {
    const rows = titles.flatMap(({ titleId, doc, chapterIds }) => [
      { title_id: titleId, chapter_id: null, passage_no: 0, title: doc.title, people: doc.people, subjects: doc.subjects, description: doc.description, body: '' },
      ...doc.passages
        .filter((p) => chapterIds.has(p.full_path))
        .map((p) => ({ title_id: titleId, chapter_id: chapterIds.get(p.full_path)!, passage_no: p.passage_no, title: '', people: '', subjects: '', description: '', body: p.body })),
    ]);
    for (const batch of chunks(rows, rowsPerStatement)) {
      if (this.engine === 'sqlite') {
        const inserted = await trx.insertInto('search_docs').values(batch).returning('id').execute();
        const own = batch.flatMap((r, i) => (r.chapter_id === null ? [{ ...r, id: inserted[i]!.id }] : []));
        const text = batch.flatMap((r, i) => (r.chapter_id === null ? [] : [{ ...r, id: inserted[i]!.id }]));
        if (own.length) {
          await sql`insert into search_name_fts(rowid, title) values ${sql.join(own.map((r) => sql`(${r.id}, ${spaceCjk(r.title)})`))}`.execute(trx);
          await sql`insert into search_title_fts(rowid, title, people, subjects, description) values ${sql.join(
            own.map((r) => sql`(${r.id}, ${spaceCjk(r.title)}, ${spaceCjk(r.people)}, ${spaceCjk(r.subjects)}, ${spaceCjk(r.description)})`),
          )}`.execute(trx);
        }
        if (text.length) await sql`insert into search_passage_fts(rowid, body) values ${sql.join(text.map((r) => sql`(${r.id}, ${spaceCjk(r.body)})`))}`.execute(trx);
      } else {
        // The tsvector is made from folded text (accents removed in TypeScript, as the query is; Chinese and Japanese
        // characters spaced apart): one rule for both engines.
        await trx
          .insertInto('search_docs')
          .values(
            batch.map((r) => ({
              ...r,
              doc: sql`setweight(to_tsvector('lectern', ${indexed(r.title)}), 'A') ||
                setweight(to_tsvector('lectern', ${indexed(r.people)}), 'B') ||
                setweight(to_tsvector('lectern', ${indexed(r.subjects)}), 'C') ||
                setweight(to_tsvector('lectern', ${indexed(`${r.description} ${r.body}`)}), 'D')`,
            })),
          )
          .execute();
      }
    }
  }

  /**
   * Removes every row of one title from the index (a replaced edition is indexed again in the same transaction).
   * SQLite's FTS tables hold external content: each row is taken out of them with the values it was indexed
   * with, before the document rows go (a cascade from chapters would leave the FTS entries behind).
   */
  async removeTitle(trx: Kysely<Database>, titleId: number): Promise<void> {
    if (this.engine === 'sqlite') {
      const rows = await trx
        .selectFrom('search_docs')
        .select(['id', 'chapter_id', 'title', 'people', 'subjects', 'description', 'body'])
        .where('title_id', '=', titleId)
        .execute();
      for (const batch of chunks(rows, 100)) {
        const own = batch.filter((r) => r.chapter_id === null);
        const text = batch.filter((r) => r.chapter_id !== null);
        if (own.length) {
          await sql`insert into search_name_fts(search_name_fts, rowid, title) values ${sql.join(own.map((r) => sql`('delete', ${r.id}, ${spaceCjk(r.title)})`))}`.execute(trx);
          await sql`insert into search_title_fts(search_title_fts, rowid, title, people, subjects, description) values ${sql.join(
            own.map((r) => sql`('delete', ${r.id}, ${spaceCjk(r.title)}, ${spaceCjk(r.people)}, ${spaceCjk(r.subjects)}, ${spaceCjk(r.description)})`),
          )}`.execute(trx);
        }
        if (text.length) await sql`insert into search_passage_fts(search_passage_fts, rowid, body) values ${sql.join(text.map((r) => sql`('delete', ${r.id}, ${spaceCjk(r.body)})`))}`.execute(trx);
      }
    }
    await trx.deleteFrom('search_docs').where('title_id', '=', titleId).execute();
  }

  /**
   * Rewrites a title's own row (title, people, subjects, description) in place after an operator's edit
   * (repositories/admin-titles.ts, in the edit's transaction). In place: the own row's id is the lowest of the title's
   * rows and bounds its range. A title not indexed yet is left to the backfill, which reads what it holds then.
   */
  async rewriteTitleRow(trx: Kysely<Database>, titleId: number, fields: Partial<Pick<SearchDocument, 'title' | 'people' | 'subjects' | 'description'>>): Promise<void> {
    const row = await trx
      .selectFrom('search_docs')
      .select(['id', 'title', 'people', 'subjects', 'description'])
      .where('title_id', '=', titleId)
      .where('chapter_id', 'is', null)
      .executeTakeFirst();
    if (!row) return;
    const r = { title: fields.title ?? row.title, people: fields.people ?? row.people, subjects: fields.subjects ?? row.subjects, description: fields.description ?? row.description };
    if (this.engine === 'sqlite') {
      // external content: out of the FTS tables with the values indexed, in again with the new ones, same rowid
      await sql`insert into search_name_fts(search_name_fts, rowid, title) values ('delete', ${row.id}, ${spaceCjk(row.title)})`.execute(trx);
      await sql`insert into search_title_fts(search_title_fts, rowid, title, people, subjects, description)
        values ('delete', ${row.id}, ${spaceCjk(row.title)}, ${spaceCjk(row.people)}, ${spaceCjk(row.subjects)}, ${spaceCjk(row.description)})`.execute(trx);
      await trx.updateTable('search_docs').set(r).where('id', '=', row.id).execute();
      await sql`insert into search_name_fts(rowid, title) values (${row.id}, ${spaceCjk(r.title)})`.execute(trx);
      await sql`insert into search_title_fts(rowid, title, people, subjects, description)
        values (${row.id}, ${spaceCjk(r.title)}, ${spaceCjk(r.people)}, ${spaceCjk(r.subjects)}, ${spaceCjk(r.description)})`.execute(trx);
    } else {
      await trx
        .updateTable('search_docs')
        .set({
          ...r,
          doc: sql`setweight(to_tsvector('lectern', ${indexed(r.title)}), 'A') ||
            setweight(to_tsvector('lectern', ${indexed(r.people)}), 'B') ||
            setweight(to_tsvector('lectern', ${indexed(r.subjects)}), 'C') ||
            setweight(to_tsvector('lectern', ${indexed(`${r.description} `)}), 'D')`,
        } as never)
        .where('id', '=', row.id)
        .execute();
    }
  }

  /** Indexes one title in a transaction of its own (the backfill of titles imported before search existed). */
  async writeAlone(titleId: number, doc: SearchDocument, chapterIds: ReadonlyMap<string, number>): Promise<void> {
    await this.db.transaction().execute((trx) => this.write(trx, titleId, doc, chapterIds));
  }

  /** Titles that have no search rows yet (imported before search existed), a batch at a time. */
  async unindexedTitleIds(limit: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('titles')
      .select('titles.id')
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('search_docs').select('search_docs.id').whereRef('search_docs.title_id', '=', 'titles.id'))))
      .orderBy('titles.id')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  /**
   * The newest rows of each kind matching `q` (names: a title's own title; titles: a title's own row; passages:
   * chapters' text), at most `limits[kind]` each, below the doc id `before` when given (a later part of the same
   * search: services/search.ts). Taking the newest and stopping is what keeps a common word as cheap at 100,000
   * titles as at 1,000: the engine walks its index from the end and the LIMIT ends the walk, where ranking would
   * have visited every match. Each kind says how far down it saw everything: `floor` is the lowest doc id above
   * which every matching row is in `rows` (null: `complete`, every match is there). On PostgreSQL the kinds are one
   * statement (a round trip cost more than a bounded walk); SQLite runs in this process and asks for each.
   */
  async newestOfEach(
    q: ParsedQuery,
    limits: Record<SearchKind, number>,
    opts: { before?: number | null; kinds?: readonly SearchKind[] } = {},
  ): Promise<Record<SearchKind, KindFound>> {
    const kinds: readonly SearchKind[] = opts.kinds ?? ['names', 'titles', 'passages'];
    const before = opts.before ?? null;
    const found = new Map<SearchKind, KindFound>((['names', 'titles', 'passages'] as const).map((k) => [k, { rows: [], complete: true, floor: null, floorTitle: null }]));
    if (kinds.length === 0) return Object.fromEntries(found) as Record<SearchKind, KindFound>;
    // the bound is cast: FTS5 seeks on its rowid only for integer values (passagesOfTitle)
    const below = (column: ReturnType<typeof sql>) => (before === null ? sql`` : sql` and ${column} < cast(${before} as integer)`);
    const byKind = new Map<SearchKind, Candidate[]>(kinds.map((k) => [k, []]));
    /** PostgreSQL, phrases: how many candidates a kind checked, and the lowest of them. */
    const checked = new Map<SearchKind, { n: number; low: number | null; lowTitle: number | null }>();
    if (this.engine === 'sqlite') {
      for (const kind of kinds) {
        const table = sql.table(`search_${kind === 'names' ? 'name' : kind === 'titles' ? 'title' : 'passage'}_fts`);
        const fields = kind === 'passages' ? sql`` : sql`, d.title, d.people, d.subjects, d.description`;
        const { rows } = await sql<Candidate>`
          select f.rowid as id, d.title_id ${fields} from ${table} f join search_docs d on d.id = f.rowid
          where ${table} match ${toFts5(q)}${below(sql`f.rowid`)} order by f.rowid desc limit ${limits[kind] + 1}`.execute(this.reads);
        byKind.set(kind, rows);
      }
    } else {
      const { rows } = await sql<Candidate & { kind: SearchKind; checked_n: number | null; checked_low: number | null; checked_low_title: number | null }>`${sql.join(
        kinds.map((kind) => sql`(${this.postgresNewest(kind, q, limits[kind], before)})`),
        sql` union all `,
      )}`.execute(this.reads);
      for (const r of rows) {
        if (r.checked_n !== null && r.checked_n !== undefined)
          checked.set(r.kind, { n: Number(r.checked_n), low: r.checked_low === null ? null : Number(r.checked_low), lowTitle: r.checked_low_title === null ? null : Number(r.checked_low_title) });
        if (r.id !== null) byKind.get(r.kind)!.push(r);
      }
      for (const list of byKind.values()) list.sort((a, b) => b.id - a.id);
    }
    for (const kind of kinds) {
      const rows = byKind.get(kind)!;
      const kept = rows.slice(0, limits[kind]);
      // more matches than the window: everything above the last one kept was seen
      let floor = rows.length > limits[kind] ? kept[kept.length - 1]!.id : null;
      let floorTitle = floor === null ? null : kept[kept.length - 1]!.title_id;
      // A phrase on PostgreSQL is checked on a bounded set of candidates: below the lowest of them nothing is known.
      // That lowest candidate need not hold the phrase, so its title comes with it (it is not among the rows).
      const c = checked.get(kind);
      if (c && c.n >= PHRASE_CANDIDATES[kind] && c.low !== null && (floor === null || c.low > floor)) {
        floor = c.low;
        floorTitle = c.lowTitle;
      }
      found.set(kind, { rows: kept, complete: floor === null, floor, floorTitle });
    }
    return Object.fromEntries(found) as Record<SearchKind, KindFound>;
  }

  /**
   * PostgreSQL: the newest `limit` + 1 rows of one kind matching `q` below `before`, as (kind, id, title_id, and a
   * title row's fields); for a phrase also how many candidates were checked and the lowest of them.
   */
  private postgresNewest(kind: SearchKind, q: ParsedQuery, limit: number, before: number | null) {
    const doc = kind === 'names' ? sql`ts_filter(d.doc, '{a}')` : sql`d.doc`;
    const rowsOfKind = kind === 'passages' ? sql`d.chapter_id is not null` : sql`d.chapter_id is null`;
    const below = before === null ? sql`` : sql` and d.id < ${before}`;
    // ts_filter builds a new tsvector for every row it sees (26 µs): the whole document is matched first, so only
    // rows holding the words anywhere pay it, and the planner, seeing both, reads the title index instead of walking
    // title rows newest first (134 ms -> 30 ms for a word in 1 title in 100 at 100,000 titles, loaded machine).
    const matches = (query: ReturnType<typeof sql>) => (kind === 'names' ? sql`d.doc @@ ${query} and ${doc} @@ ${query}` : sql`${doc} @@ ${query}`);
    // a passage carries no title fields (null, typed for the union)
    const fields = kind === 'passages' ? sql`null::text as title, null::text as people, null::text as subjects, null::text as description` : sql`d.title, d.people, d.subjects, d.description`;
    if (q.phrases.length === 0) {
      return sql`select ${kind}::text as kind, d.id, d.title_id, ${fields}, null::int as checked_n, null::bigint as checked_low, null::bigint as checked_low_title
        from search_docs d, to_tsquery('lectern', ${toTsquery(q)}) q
        where ${rowsOfKind} and ${matches(sql`q`)}${below} order by d.id desc limit ${limit + 1}`;
    }
    // A phrase of common words is rare among the rows holding both words: walking newest first until enough
    // phrases turn up would read most of the library (1.8 s at 100,000 titles). The newest rows holding every word
    // are taken first, a bounded number, and the phrase is checked on those alone; the row of counts (never empty)
    // says how far down that looked.
    const allWords = toTsquery({ words: [...q.words, ...q.phrases.flat().map((text) => ({ text, prefix: false }))], phrases: [] });
    return sql`with c as materialized (
        select d.id, d.title_id, ${doc} as doc, ${fields} from search_docs d, to_tsquery('lectern', ${allWords}) w
        where ${rowsOfKind} and ${matches(sql`w`)}${below} order by d.id desc limit ${PHRASE_CANDIDATES[kind]}
      ), seen as (select count(*)::int as n, min(id) as low, (select c2.title_id from c c2 order by c2.id limit 1)::bigint as low_title from c)
      select ${kind}::text as kind, m.id, m.title_id, m.title, m.people, m.subjects, m.description, seen.n as checked_n, seen.low as checked_low, seen.low_title as checked_low_title
      from seen left join lateral (
        select c.id, c.title_id, c.title, c.people, c.subjects, c.description from c, to_tsquery('lectern', ${toTsquery(q)}) q
        where c.doc @@ q order by c.id desc limit ${limit + 1}
      ) m on true`;
  }

  /**
   * The titles of these works (lead title ids) whose rows lie at or above the doc id `from` and match `q` (their own
   * row or a passage): a later part's works found by an earlier part through another of their formats
   * (services/search.ts). A title's rows are one range of ids and a part ends at a title's first row, so a title is
   * above the bound when its first row is: its own row, written first (`write`), found by the title index without
   * reading the title's passages; the last row is asked only of the few titles above the bound. One statement: the works' titles by their index, each title's range by
   * search_docs' title index, the match sought within that range (on PostgreSQL a subquery with a limit, run per
   * title along the title index: an EXISTS may become a semi-join that reads every row holding a common word).
   */
  async titlesMatchingFrom(q: ParsedQuery, workIds: readonly number[], from: number): Promise<number[]> {
    if (workIds.length === 0) return [];
    const ids = sql.join([...workIds]);
    const found =
      this.engine === 'sqlite'
        ? sql<{ id: number }>`
          with spans as (
            select t.id,
              (select min(s.id) from search_docs s where s.title_id = t.id and s.chapter_id is null) as lo,
              (select max(s.id) from search_docs s where s.title_id = t.id) as hi
            from titles t where t.id in (${ids}) or t.work_title_id in (${ids}))
          select id from spans where lo >= cast(${from} as integer) and (
            exists (select 1 from search_title_fts f where search_title_fts match ${toFts5(q)}
              and f.rowid between cast(lo as integer) and cast(hi as integer))
            or exists (select 1 from search_passage_fts f where search_passage_fts match ${toFts5(q)}
              and f.rowid between cast(lo as integer) and cast(hi as integer)))`
        : sql<{ id: number }>`
          select t.id from titles t, to_tsquery('lectern', ${toTsquery(q)}) q
          where (t.id in (${ids}) or t.work_title_id in (${ids}))
            and (select min(s.id) from search_docs s where s.title_id = t.id and s.chapter_id is null) >= ${from}
            and (select 1 from search_docs d where d.title_id = t.id and d.doc @@ q limit 1) is not null`;
    const { rows } = await found.execute(this.reads);
    return rows.map((r) => Number(r.id));
  }

  /** The first (lowest) doc id of a title's rows: a title's rows are written together, one range of ids. */
  async firstRowOf(titleId: number): Promise<number | null> {
    const row = await this.reads.selectFrom('search_docs').select((eb) => eb.fn.min('id').as('lo')).where('title_id', '=', titleId).executeTakeFirst();
    return row?.lo ?? null;
  }

  /**
   * Passages matching `q` best first (bm25 / ts_rank), with doc ids in [`from`, `before`) when given: for a set known
   * to be small (`newestOfEach` saw all of it).
   */
  async rankedPassages(q: ParsedQuery, limit: number, range: { before?: number | null; from?: number | null } = {}): Promise<Candidate[]> {
    const before = range.before ?? null;
    const from = range.from ?? null;
    if (this.engine === 'sqlite') {
      const within = sql`${before === null ? sql`` : sql` and f.rowid < cast(${before} as integer)`}${from === null ? sql`` : sql` and f.rowid >= cast(${from} as integer)`}`;
      const { rows } = await sql<Candidate>`
        select f.rowid as id, d.title_id from search_passage_fts f join search_docs d on d.id = f.rowid
        where search_passage_fts match ${toFts5(q)}${within} order by bm25(search_passage_fts), f.rowid limit ${limit}`.execute(this.reads);
      return rows;
    }
    const within = sql`${before === null ? sql`` : sql` and d.id < ${before}`}${from === null ? sql`` : sql` and d.id >= ${from}`}`;
    const { rows } = await sql<Candidate>`
      select d.id, d.title_id from search_docs d, to_tsquery('lectern', ${toTsquery(q)}) q
      where d.chapter_id is not null and d.doc @@ q${within} order by ts_rank(d.doc, q) desc, d.id limit ${limit}`.execute(this.reads);
    return rows;
  }

  /**
   * One title's passages matching `q` in reading order (at most `limit`), for search inside a book; `openOnly`: only
   * in chapters everyone may read (samples, public chapters), for a caller who may read no more.
   */
  async passagesOfTitle(q: ParsedQuery, titleId: number, limit: number, openOnly = false): Promise<number[]> {
    if (this.engine === 'sqlite') {
      // The title's rows are one range of ids (written in one transaction): the FTS walk seeks to it. The bounds
      // are cast: FTS5 seeks only on integer values, and a bound JS number arrives as a real (22 ms against 0.4 ms
      // for a common word in the last book of 100,000).
      const span = await this.reads
        .selectFrom('search_docs')
        .select((eb) => [eb.fn.min('id').as('lo'), eb.fn.max('id').as('hi')])
        .where('title_id', '=', titleId)
        .executeTakeFirst();
      if (!span || span.lo === null) return [];
      const open = openOnly ? sql` and exists (select 1 from chapters c where c.id = d.chapter_id and (c.as_sample = 1 or c.is_public = 1))` : sql``;
      const { rows } = await sql<{ id: number }>`
        select f.rowid as id from search_passage_fts f join search_docs d on d.id = f.rowid
        where search_passage_fts match ${toFts5(q)} and f.rowid between cast(${span.lo} as integer) and cast(${span.hi} as integer) and d.title_id = ${titleId}${open}
        order by f.rowid limit ${limit}`.execute(this.reads);
      return rows.map((r) => r.id);
    }
    const open = openOnly ? sql` and exists (select 1 from chapters c where c.id = d.chapter_id and (c.as_sample = 1 or c.is_public = 1))` : sql``;
    const { rows } = await sql<{ id: number }>`
      select d.id from search_docs d, to_tsquery('lectern', ${toTsquery(q)}) q
      where d.title_id = ${titleId} and d.chapter_id is not null and d.doc @@ q${open} order by d.id limit ${limit}`.execute(this.reads);
    return rows.map((r) => r.id);
  }

  /**
   * The first `perTitle` passages matching `q` of each title (reading order), `openOnly` as passagesOfTitle: the
   * passages a page of results shows for titles whose walk brought too few. One statement on PostgreSQL.
   */
  async passagesOfTitles(q: ParsedQuery, titleIds: readonly number[], perTitle: number, openOnly: boolean): Promise<{ id: number; title_id: number }[]> {
    if (titleIds.length === 0) return [];
    if (this.engine === 'sqlite') {
      // Each chapter's rows are one range of ids (written in order): the FTS walk seeks to each wanted chapter's
      // range, one statement for them all. (Looking rows up by rowid re-ran the match for each: 0.25 ms a row.)
      const open = openOnly ? sql` join chapters c on c.id = s.chapter_id and (c.as_sample = 1 or c.is_public = 1)` : sql``;
      const spans = (
        await sql<{ title_id: number; lo: number; hi: number }>`
          select s.title_id, min(s.id) as lo, max(s.id) as hi from search_docs s${open}
          where s.title_id in (${sql.join([...titleIds])}) and s.chapter_id is not null group by s.title_id, s.chapter_id order by lo`.execute(this.reads)
      ).rows.slice(0, SPANS_PER_STATEMENT);
      if (spans.length === 0) return [];
      const match = toFts5(q);
      // Each chapter's walk stops at `perTitle` rows, and the title's first `perTitle` of them (reading order) are
      // kept by row_number (SQLite 3.25+), as PostgreSQL's lateral limits each title.
      const { rows } = await sql<{ id: number; title_id: number }>`
        select id, title_id from (
          select id, title_id, row_number() over (partition by title_id order by id) as n from (${sql.join(
            spans.map(
              (span) =>
                sql`select * from (select f.rowid as id, ${span.title_id} as title_id from search_passage_fts f where search_passage_fts match ${match}
                  and f.rowid between cast(${span.lo} as integer) and cast(${span.hi} as integer) order by f.rowid limit ${perTitle})`,
            ),
            sql` union all `,
          )}))
        where n <= ${perTitle} order by id`.execute(this.reads);
      return rows;
    }
    const open = openOnly ? sql` and exists (select 1 from chapters c where c.id = d.chapter_id and (c.as_sample = 1 or c.is_public = 1))` : sql``;
    const { rows } = await sql<{ id: number; title_id: number }>`
      select p.id, t.title_id from unnest(${[...titleIds]}::int[]) as t(title_id), to_tsquery('lectern', ${toTsquery(q)}) q,
      lateral (select d.id from search_docs d where d.title_id = t.title_id and d.chapter_id is not null and d.doc @@ q${open} order by d.id limit ${perTitle}) p`.execute(this.reads);
    return rows;
  }

  /** The passages' text and where they are. */
  async passages(
    ids: readonly number[],
  ): Promise<
    { id: number; title_id: number; chapter_id: number; passage_no: number; item_order: number; media_type: string; body: string; full_path: string; label: string; text_length: number; as_sample: number; is_public: number }[]
  > {
    if (ids.length === 0) return [];
    return this.reads
      .selectFrom('search_docs as d')
      .innerJoin('chapters as c', 'c.id', 'd.chapter_id')
      .select(['d.id', 'd.title_id', 'c.id as chapter_id', 'd.passage_no', 'c.item_order', 'c.media_type', 'd.body', 'c.full_path', 'c.label', 'c.text_length', 'c.as_sample', 'c.is_public'])
      .where('d.id', 'in', [...ids])
      .execute();
  }

  /** The content of these chapters by id (a media part's transcript, to find the second a passage is said at). */
  async chapterContents(chapterIds: readonly number[]): Promise<Map<number, string>> {
    if (chapterIds.length === 0) return new Map();
    const rows = await this.reads.selectFrom('chapters').select(['id', 'content']).where('id', 'in', [...chapterIds]).execute();
    return new Map(rows.map((r) => [r.id, r.content]));
  }

  /**
   * Names whose key (core's nameKey) starts with `prefix`, for the header's suggestions: each an index range, so the
   * library's size does not matter. A title is looked up by its sort key too, so "the hob" finds "The Hobbit".
   */
  async suggest(prefixes: { title: readonly string[]; name: string }, limit: number) {
    const c = this.engine === 'postgres' ? sql` collate "C"` : sql``;
    const starts = (column: string, prefix: string) => sql<boolean>`${sql.ref(column)}${c} >= ${prefix} and ${sql.ref(column)}${c} < ${`${prefix}\uffff`}`;
    const titles = [];
    for (const prefix of new Set(prefixes.title)) {
      titles.push(
        ...(await this.db
          .selectFrom('titles')
          .select(['id', 'book_id', 'title', 'sort_title'])
          // SQLite would pick the index on work_title_id (most titles lead their work) and sort them all; the
          // unary plus keeps that term out of index choice, so the walk goes along sort_title's range instead
          .where(this.engine === 'sqlite' ? sql<boolean>`+"work_title_id" is null` : sql<boolean>`"work_title_id" is null`)
          .where(starts('sort_title', prefix))
          .where('retired_at', 'is', null)
          .orderBy(sql`sort_title${c}`)
          .limit(limit)
          .execute()),
      );
    }
    const authors = await this.db
      .selectFrom('title_authors')
      .select('name')
      .where(starts('name_key', prefixes.name))
      // an author of retired titles alone is not suggested
      .where(sql<boolean>`exists (select 1 from titles t where t.id = title_authors.title_id and t.retired_at is null)`)
      // grouped along the (name_key, name) index, so the walk stops at the limit
      .groupBy(['name_key', 'name'])
      .orderBy(sql`name_key${c}`)
      .orderBy('name')
      .limit(limit)
      .execute();
    const named = (table: 'topics' | 'publishers') =>
      this.db.selectFrom(table).select(['slug', 'name']).where(starts('name_key', prefixes.name)).orderBy(sql`name_key${c}`).limit(limit).execute();
    return {
      titles: [...new Map(titles.sort((a, b) => (a.sort_title < b.sort_title ? -1 : a.sort_title > b.sort_title ? 1 : a.id - b.id)).map((t) => [t.id, t])).values()].slice(0, limit),
      authors,
      topics: await named('topics'),
      publishers: await named('publishers'),
    };
  }


  async recordSelection(row: Omit<Database['search_selections'], 'id'>): Promise<void> {
    await this.db.insertInto('search_selections').values(row).execute();
  }
}
