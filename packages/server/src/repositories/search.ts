/**
 * The search index on both engines behind one interface (DESIGN.md): SQLite FTS5 over `search_docs` (external
 * content, bm25 with column weights) and PostgreSQL's weighted tsvector with ts_rank. The same documents, the same
 * terms (services/search-text.ts makes them safe), the same intent: a hit in a title outranks one in its people,
 * subjects, description, and those outrank one in the text.
 */
import { type Kysely, sql } from 'kysely';
import type { Engine } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { fold, type ParsedQuery, toFts5, toTsquery } from '../services/search-text.ts';

export interface SearchDocument {
  title: string;
  people: string;
  subjects: string;
  description: string;
  passages: { full_path: string; passage_no: number; body: string }[];
}

export interface Match {
  id: number;
  title_id: number;
  chapter_id: number | null;
  /** smaller is better on both engines */
  rank: number;
}

const chunks = <T>(items: readonly T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};

export class SearchRepository {
  constructor(
    private readonly db: Kysely<Database>,
    readonly engine: Engine,
  ) {}

  /** Indexes one title: its own row and every passage. Called inside the import's transaction (`trx`). */
  async write(trx: Kysely<Database>, titleId: number, doc: SearchDocument, chapterIds: ReadonlyMap<string, number>): Promise<void> {
    const rows = [
      { title_id: titleId, chapter_id: null, passage_no: 0, title: doc.title, people: doc.people, subjects: doc.subjects, description: doc.description, body: '' },
      ...doc.passages
        .filter((p) => chapterIds.has(p.full_path))
        .map((p) => ({ title_id: titleId, chapter_id: chapterIds.get(p.full_path)!, passage_no: p.passage_no, title: '', people: '', subjects: '', description: '', body: p.body })),
    ];
    for (const batch of chunks(rows, 100)) {
      const inserted = await trx.insertInto('search_docs').values(batch).returning('id').execute();
      if (this.engine === 'sqlite') {
        const values = sql.join(
          batch.map((r, i) => sql`(${inserted[i]!.id}, ${r.title}, ${r.people}, ${r.subjects}, ${r.description}, ${r.body})`),
        );
        await sql`insert into search_fts(rowid, title, people, subjects, description, body) values ${values}`.execute(trx);
      } else {
        // The tsvector is made from folded text (accents removed in TypeScript, as the query is): one rule for both.
        for (const [i, r] of batch.entries()) {
          await sql`update search_docs set doc =
              setweight(to_tsvector('lectern', ${fold(r.title)}), 'A') ||
              setweight(to_tsvector('lectern', ${fold(r.people)}), 'B') ||
              setweight(to_tsvector('lectern', ${fold(r.subjects)}), 'C') ||
              setweight(to_tsvector('lectern', ${fold(`${r.description} ${r.body}`)}), 'D')
            where id = ${inserted[i]!.id}`.execute(trx);
        }
      }
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
   * The best `limit` rows matching `q`, best first: over the whole library, or one title's passages (`titleId`,
   * `passagesOnly`). Ties keep the index's order.
   */
  async match(q: ParsedQuery, opts: { titleId?: number; passagesOnly?: boolean; limit: number }): Promise<Match[]> {
    const title = opts.titleId === undefined ? sql`` : sql`and d.title_id = ${opts.titleId}`;
    const passages = opts.passagesOnly ? sql`and d.chapter_id is not null` : sql``;
    if (this.engine === 'sqlite') {
      const { rows } = await sql<Match>`
        select d.id, d.title_id, d.chapter_id, bm25(search_fts, 10.0, 5.0, 3.0, 2.0, 1.0) as rank
        from search_fts join search_docs d on d.id = search_fts.rowid
        where search_fts match ${toFts5(q)} ${title} ${passages}
        order by rank, d.id limit ${opts.limit}`.execute(this.db);
      return rows;
    }
    const { rows } = await sql<Match>`
      select d.id, d.title_id, d.chapter_id, -ts_rank(d.doc, q) as rank
      from search_docs d, to_tsquery('lectern', ${toTsquery(q)}) q
      where d.doc @@ q ${title} ${passages}
      order by rank, d.id limit ${opts.limit}`.execute(this.db);
    return rows.map((r) => ({ ...r, rank: Number(r.rank) }));
  }

  /** The passages' text and where they are. */
  async passages(
    ids: readonly number[],
  ): Promise<
    { id: number; title_id: number; chapter_id: number; passage_no: number; item_order: number; media_type: string; body: string; full_path: string; label: string; text_length: number; as_sample: number; is_public: number }[]
  > {
    if (ids.length === 0) return [];
    return this.db
      .selectFrom('search_docs as d')
      .innerJoin('chapters as c', 'c.id', 'd.chapter_id')
      .select(['d.id', 'd.title_id', 'c.id as chapter_id', 'd.passage_no', 'c.item_order', 'c.media_type', 'd.body', 'c.full_path', 'c.label', 'c.text_length', 'c.as_sample', 'c.is_public'])
      .where('d.id', 'in', [...ids])
      .execute();
  }

  /** Names that start with `prefix` (folded), for the header's suggestions. */
  async suggest(prefix: string, limit: number) {
    const like = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const ci = this.engine === 'postgres' ? sql`ilike` : sql`like`;
    const [titles, authors, topics, publishers] = await Promise.all([
      this.db
        .selectFrom('titles')
        .select(['book_id', 'title'])
        .where('work_title_id', 'is', null)
        .where((eb) => eb.or([eb('sort_title', '>=', prefix).and('sort_title', '<', `${prefix}\uffff`), sql<boolean>`title ${ci} ${like} escape '\\'`]))
        .orderBy('sort_title')
        .limit(limit)
        .execute(),
      this.db.selectFrom('title_authors').select('name').distinct().where(sql<boolean>`name ${ci} ${like} escape '\\'`).orderBy('name').limit(limit).execute(),
      this.db.selectFrom('topics').select(['slug', 'name']).where(sql<boolean>`name ${ci} ${like} escape '\\'`).orderBy('name').limit(limit).execute(),
      this.db.selectFrom('publishers').select(['slug', 'name']).where(sql<boolean>`name ${ci} ${like} escape '\\'`).orderBy('name').limit(limit).execute(),
    ]);
    return { titles, authors, topics, publishers };
  }

  /** Facet counts over a set of titles. */
  async facets(titleIds: readonly number[]) {
    if (titleIds.length === 0) return { format: [], topic: [], publisher: [], language: [] };
    const format: Map<string, number> = new Map();
    const language: Map<string, number> = new Map();
    const topic: Map<string, { label: string; count: number }> = new Map();
    const publisher: Map<string, { label: string; count: number }> = new Map();
    for (const ids of chunks(titleIds, 500)) {
      const [t, tp, pb] = await Promise.all([
        this.db.selectFrom('titles').select(['content_format', 'language']).where('id', 'in', ids).execute(),
        this.db
          .selectFrom('title_topics as tt')
          .innerJoin('topics as x', 'x.id', 'tt.topic_id')
          .select(['x.slug', 'x.name', (eb) => eb.fn.countAll<string | number>().as('n')])
          .where('tt.title_id', 'in', ids)
          .groupBy(['x.slug', 'x.name'])
          .execute(),
        this.db
          .selectFrom('title_publishers as tp')
          .innerJoin('publishers as x', 'x.id', 'tp.publisher_id')
          .select(['x.slug', 'x.name', (eb) => eb.fn.countAll<string | number>().as('n')])
          .where('tp.title_id', 'in', ids)
          .groupBy(['x.slug', 'x.name'])
          .execute(),
      ]);
      for (const r of t) {
        format.set(r.content_format, (format.get(r.content_format) ?? 0) + 1);
        if (r.language) language.set(r.language, (language.get(r.language) ?? 0) + 1);
      }
      for (const r of tp) topic.set(r.slug, { label: r.name, count: (topic.get(r.slug)?.count ?? 0) + Number(r.n) });
      for (const r of pb) publisher.set(r.slug, { label: r.name, count: (publisher.get(r.slug)?.count ?? 0) + Number(r.n) });
    }
    const sorted = (m: Map<string, { label: string; count: number }>) =>
      [...m].map(([value, v]) => ({ value, label: v.label, count: v.count })).sort((a, b) => b.count - a.count || a.label.localeCompare(b.label));
    return {
      format: [...format].map(([value, count]) => ({ value, label: value, count })).sort((a, b) => b.count - a.count),
      topic: sorted(topic).slice(0, 20),
      publisher: sorted(publisher).slice(0, 20),
      language: [...language].map(([value, count]) => ({ value, label: value, count })).sort((a, b) => b.count - a.count),
    };
  }

  async recordSelection(row: Omit<Database['search_selections'], 'id'>): Promise<void> {
    await this.db.insertInto('search_selections').values(row).execute();
  }
}
