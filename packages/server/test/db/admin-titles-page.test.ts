/**
 * The console's titles page (repositories/admin-titles.ts) on both engines, on a generated library: a search for
 * the title prefix most titles share, paged through, gives every title whose title or an author starts with it
 * (retired ones left out), once each, in byte order of the sort key; and its titles' part reads the title index in
 * key order and stops at the page (at 100,000 titles it sorted every match: docs/performance.md).
 */
import { nameKey, titleSortKey } from '@lectern/core';
import path from 'node:path';
import { type CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLibrary } from '../../../../bench/generate-library.ts';
import { sqliteDriver } from '../../src/db/database.ts';
import type { Database, TitleRow } from '../../src/db/schema.ts';
import { AdminTitlesRepository } from '../../src/repositories/admin-titles.ts';
import type { SearchRepository } from '../../src/repositories/search.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';

const PAGE = 20;
const bytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

describe.each(ENGINES)('the console titles page on %s', (engine) => {
  let t: TestApp;
  let prefix = '';

  beforeAll(async () => {
    t = await startTestApp(engine);
    await generateLibrary(t.lectern.db, { titles: 600, users: 2, topics: 4, publishers: 3, chaptersPerTitle: 1, wordsPerChapter: 20, searchIndex: false });
    const k = t.lectern.db.kysely;
    const { rows } = await sql<{ p: string; n: number }>`select substr(sort_title, 1, 3) as p, count(*) as n from titles group by substr(sort_title, 1, 3) order by count(*) desc, p limit 1`.execute(k);
    prefix = rows[0]!.p;
    // every third title of the prefix retired: the page leaves them out
    await sql`update titles set retired_at = '2026-01-01T00:00:00.000Z' where sort_title like ${`${prefix}%`} and id % 3 = 0`.execute(k);
    if (engine === 'postgres') await sql`analyze`.execute(k);
  }, 120_000);
  afterAll(() => t?.close());

  it('pages a common title prefix in key order, every match once, retired ones left out', async () => {
    const k = t.lectern.db.kysely;
    const titles = await k.selectFrom('titles').selectAll().execute();
    const authors = await k.selectFrom('title_authors').select(['title_id', 'name_key']).execute();
    const p = titleSortKey(prefix);
    const a = nameKey(prefix);
    const byAuthor = new Set(authors.filter((x) => x.name_key.startsWith(a)).map((x) => x.title_id));
    const expected = titles
      .filter((r) => r.retired_at === null && (r.sort_title.startsWith(p) || byAuthor.has(r.id) || r.book_id === prefix))
      .sort((x, y) => bytes(x.sort_title, y.sort_title) || x.id - y.id)
      .map((r) => r.id);
    expect(expected.length).toBeGreaterThan(3 * PAGE);

    const repo = new AdminTitlesRepository(k, null as unknown as SearchRepository);
    const seen: number[] = [];
    let after: { sortTitle: string; id: number } | undefined;
    for (;;) {
      const rows: TitleRow[] = await repo.page({ titlePrefix: p, authorPrefix: a, bookId: prefix, state: 'active', limit: PAGE, ...(after ? { after } : {}) });
      seen.push(...rows.slice(0, PAGE).map((r) => r.id));
      if (rows.length <= PAGE) break;
      const last = rows[PAGE - 1]!;
      after = { sortTitle: last.sort_title, id: last.id };
    }
    expect(seen).toEqual(expected);
  });

  it("reads the titles' part of a search in key order and stops at the page", async () => {
    // the statement as the repository sends it, captured on a connection of its own, explained by the engine
    const captured: CompiledQuery[] = [];
    const log = (e: { query: CompiledQuery }) => void captured.push(e.query);
    const file = engine === 'sqlite' ? new (sqliteDriver())(path.join(t.dataDir, 'lectern.sqlite'), { readonly: true }) : null;
    const pool = engine === 'postgres' ? new pg.Pool({ connectionString: t.lectern.config.databaseUrl! }) : null;
    const db = new Kysely<Database>({ dialect: file ? new SqliteDialect({ database: file }) : new PostgresDialect({ pool: pool! }), log });
    try {
      await new AdminTitlesRepository(db, null as unknown as SearchRepository).page({ titlePrefix: titleSortKey(prefix), authorPrefix: nameKey(prefix), bookId: prefix, state: 'active', limit: PAGE });
      const q = captured.at(-1)!;
      if (file) {
        const plan = file.prepare(`explain query plan ${q.sql}`).all(...(q.parameters as unknown[])) as { id: number; parent: number; detail: string }[];
        const part = plan.find((r) => r.detail === 'CO-ROUTINE by_title');
        expect(part, JSON.stringify(plan)).toBeDefined();
        const inside = plan.filter((r) => r.parent === part!.id).map((r) => r.detail);
        expect(inside).toEqual([expect.stringMatching(/^SEARCH p USING (COVERING )?INDEX titles_sort_title_idx \(sort_title>\? AND sort_title<\?\)$/)]);
      } else {
        const { rows } = await pool!.query(`explain (analyze, format json) ${q.sql}`, q.parameters as unknown[]);
        type Node = { 'Node Type': string; Alias?: string; 'Index Name'?: string; 'Actual Rows': number; Plans?: Node[] };
        const nodes: Node[] = [];
        const walk = (n: Node) => {
          nodes.push(n);
          for (const c of n.Plans ?? []) walk(c);
        };
        walk((rows[0] as { 'QUERY PLAN': [{ Plan: Node }] })['QUERY PLAN'][0].Plan);
        const part = nodes.find((n) => n.Alias === 'p');
        expect(part).toMatchObject({ 'Node Type': 'Index Scan', 'Index Name': 'titles_sort_title_all_c_idx' });
        // the page and the one after it tells whether there is a next page, of the many that match
        expect(part!['Actual Rows']).toBeLessThanOrEqual(PAGE + 1);
      }
    } finally {
      await db.destroy();
    }
  });
});
