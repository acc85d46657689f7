/**
 * Migration 0028 on a library imported with the old rules (docs/decisions.md "What a title is, and what makes two files
 * one work"), on both engines: W3C tests renamed "Link to main page" after their first contents entry and grouped as
 * one work get their ids back as titles and stand alone, their search rows are indexed again by the backfill (SQLite's
 * FTS tables consistent); an EPUB and a PDF of one book stay one work; a book whose title is its first contents entry
 * but whose identifier is not its file's name keeps it.
 */
import { bookDetailSchema, titleSortKey, workKey } from '@lectern/core';
import { sql } from 'kysely';
import { unzipSync } from 'fflate';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { up as repair } from '../../src/db/migrations/0028_titles_and_works.ts';
import { rebuildAllListings } from '../../src/repositories/listings.ts';
import { SearchRepository } from '../../src/repositories/search.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { minimalEpub3 } from '../ingest/helpers.ts';

const base = minimalEpub3();
const OPF = new TextDecoder().decode(unzipSync(base)['OEBPS/content.opf']);
const NAV = new TextDecoder().decode(unzipSync(base)['OEBPS/nav/toc.xhtml']);
const OLD = 'Link to main page';

function publication(identifier: string, title: string, firstEntry: string): Uint8Array {
  return minimalEpub3({
    'OEBPS/content.opf': OPF.replace('urn:uuid:5a1e0c3e-0000-4000-8000-000000000001', identifier).replace('A Small Book', title),
    'OEBPS/nav/toc.xhtml': NAV.replace('>Part One<', `>${firstEntry}<`).replace('>Part Two<', `>${identifier}<`),
  });
}

describe.each(ENGINES)('migration 0028 on titles and works imported before it, on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
    // ready now: its start-up search backfill (of an empty library) is not to run in the middle of the test
    await t.lectern.app.ready();
  });
  afterAll(() => t.close());

  it('gives the W3C tests their titles back, each its own work, and leaves real works and real titles alone', async () => {
    const importer = t.lectern.services.importer;
    const k = t.lectern.db.kysely;
    const ids = ['cnt-css-fonts_woff', 'pkg-title-order', 'lay-fxl-xhtml-icb_units'];
    const tests = [];
    for (const id of ids) tests.push(await importer.importBytes(publication(id, id, OLD), `${id}.epub`));
    const epub = await importer.importBytes(publication('urn:uuid:00000000-0000-4000-8000-0000000000e1', 'Two Formats', 'Two Formats'), 'two-formats.epub');
    const doc = await PDFDocument.create();
    doc.setTitle('Two Formats');
    doc.setAuthor('Ada Lovelace');
    doc.addPage();
    const pdf = await importer.importBytes(await doc.save(), 'two-formats.pdf');
    // Its title is its first contents entry, but its identifier is no file name: nothing says it was renamed.
    const real = await importer.importBytes(publication('real-guide', 'The Real Guide', 'The Real Guide'), 'a-real-guide.epub');

    // The rows as the old rules left them: the tests titled after their first contents entry, one work.
    const rowOf = (bookId: string) => k.selectFrom('titles').selectAll().where('book_id', '=', bookId).executeTakeFirstOrThrow();
    const first = await rowOf(tests[0]!.book_id);
    const search = new SearchRepository(k, engine);
    for (const [i, made] of tests.entries()) {
      const row = await rowOf(made.book_id);
      await k
        .updateTable('titles')
        .set({ title: OLD, title_safe: 'link-to-main-page', sort_title: titleSortKey(OLD), work_key: workKey(OLD, ['Ada Lovelace']), work_title_id: i === 0 ? null : first.id })
        .where('id', '=', row.id)
        .execute();
      const own = await k.selectFrom('search_docs').selectAll().where('title_id', '=', row.id).where('chapter_id', 'is', null).executeTakeFirstOrThrow();
      await k.transaction().execute(async (trx) => {
        await search.removeTitle(trx, row.id);
        await search.write(trx, row.id, { title: OLD, people: own.people, subjects: own.subjects, description: own.description, passages: [] }, new Map());
      });
    }
    await rebuildAllListings(k as never);
    const anon = new TestClient(t.lectern.app);
    const count = async () => (await anon.get('/api/v1/book/?page_size=100')).json().count as number;
    const formats = async (bookId: string) => bookDetailSchema.parse((await anon.get(`/api/v1/book/${bookId}/`)).json()).formats.map((f) => f.book_id);
    // (read from the rows: the API's caches would keep what they saw, and a real upgrade starts with none)
    expect(await k.selectFrom('titles').select('id').where('work_title_id', 'is', null).execute()).toHaveLength(3);

    await repair(k as never, engine);

    for (const [i, made] of tests.entries()) {
      const row = await rowOf(made.book_id);
      expect(row).toMatchObject({ title: ids[i], title_safe: ids[i]!.replaceAll('_', '-'), sort_title: titleSortKey(ids[i]!), work_key: workKey(ids[i]!, ['Ada Lovelace']), work_title_id: null });
      expect(await formats(made.book_id)).toEqual([made.book_id]);
      // its search rows are gone, for the backfill to index it again under its title
      expect(await k.selectFrom('search_docs').select('id').where('title_id', '=', row.id).execute()).toEqual([]);
    }
    expect(await formats(epub.book_id)).toEqual([epub.book_id, pdf.book_id]);
    expect((await rowOf(real.book_id)).title).toBe('The Real Guide');
    expect(await count()).toBe(5);
    const listed = (await anon.get('/api/v1/book/?page_size=100&sort=title')).json().results.map((b: { title: string }) => b.title);
    expect(listed).toEqual(['cnt-css-fonts_woff', 'lay-fxl-xhtml-icb_units', 'pkg-title-order', 'The Real Guide', 'Two Formats']);

    expect(await t.lectern.services.search.backfill()).toBe(3);
    const own = await k.selectFrom('search_docs').select('title').where('title_id', '=', first.id).where('chapter_id', 'is', null).executeTakeFirstOrThrow();
    expect(own.title).toBe('cnt-css-fonts_woff');
    expect(await k.selectFrom('search_docs').select('id').where('title', '=', OLD).execute()).toEqual([]);
    if (engine === 'sqlite') {
      for (const fts of ['search_name_fts', 'search_title_fts', 'search_passage_fts']) {
        await sql`insert into ${sql.table(fts)}(${sql.ref(fts)}) values ('integrity-check')`.execute(k);
      }
    }
    // Run again, it changes nothing.
    await repair(k as never, engine);
    expect(await count()).toBe(5);
  });
});
