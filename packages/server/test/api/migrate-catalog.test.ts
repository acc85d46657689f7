/** Migration 0007 on titles imported before it: sort keys, work keys and one standing title per work, on both engines. */
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillCatalogKeys } from '../../src/db/migrations/0007_catalog_works_samples.ts';
import { rebuildAllListings } from '../../src/repositories/listings.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { bareTitleRow } from '../helpers/rows.ts';

describe.each(ENGINES)('migration 0007 on existing titles on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(() => t.close());

  it('fills the keys and groups an EPUB and a PDF of one work, as if imported before the migration', async () => {
    const db = t.lectern.db.kysely;
    const row = (book_id: string, title: string, content_format: string, created_at: string) =>
      bareTitleRow(book_id, {
        title,
        content_format,
        source: content_format === 'book' ? 'application/epub+zip' : 'application/pdf',
        file_sha256: book_id,
        created_at,
      });

    // Rows as an older version left them: no keys, every title standing alone.
    const inserted = await db
      .insertInto('titles')
      .values([
        row('old-epub', 'The Old Guide', 'book', '2026-01-01T00:00:00Z'),
        row('old-pdf', 'the old guide', 'document', '2026-01-02T00:00:00Z'),
        row('other', 'An Other Book', 'book', '2026-01-03T00:00:00Z'),
      ])
      .returning(['id', 'book_id'])
      .execute();
    const id = (bookId: string) => inserted.find((r) => r.book_id === bookId)!.id;
    await db
      .insertInto('title_authors')
      .values([
        { title_id: id('old-epub'), position: 0, name: 'Ada Lovelace' },
        { title_id: id('old-pdf'), position: 0, name: 'ada lovelace' },
      ])
      .execute();

    await fillCatalogKeys(t.lectern.db.kysely as unknown as Kysely<unknown>);
    // Migration 0009 runs after 0007 on such a database: the titles get their listing rows and counts.
    await rebuildAllListings(t.lectern.db.kysely);

    const rows = await db.selectFrom('titles').select(['book_id', 'sort_title', 'sort_author', 'work_title_id']).orderBy('id').execute();
    expect(rows).toEqual([
      { book_id: 'old-epub', sort_title: 'old guide', sort_author: 'ada lovelace', work_title_id: null },
      { book_id: 'old-pdf', sort_title: 'old guide', sort_author: 'ada lovelace', work_title_id: id('old-epub') },
      { book_id: 'other', sort_title: 'other book', sort_author: '', work_title_id: null },
    ]);
    const list = (await new TestClient(t.lectern.app).get('/api/v1/book/')).json();
    expect(list.results.map((b: { book_id: string }) => b.book_id)).toEqual(['old-epub', 'other']);
  });
});
