/**
 * A chapter that is not well-formed XML (docs/decisions.md "A chapter that is not well-formed"), through the real
 * importer on both engines: it is kept, read with the HTML parser's recovery and sanitised as every chapter is; the
 * reader's item says it was recovered (the reader's notice); the import's warnings are kept on the title for the
 * operators' console (content creators and admins, not readers).
 */
import { adminPaths, adminTitleWarningsSchema, archiveItemSchema } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { BROKEN_PATH, BROKEN_TITLE, BROKEN_WORDS, brokenChapterEpub } from '../fixtures/broken-chapter.ts';

const PASSWORD = 'a long enough password';

describe.each(ENGINES)('a chapter that is not well-formed on %s', (engine) => {
  let t: TestApp;
  let bookId: string;
  let admin: TestClient;
  let maker: TestClient;
  let reader: TestClient;

  beforeAll(async () => {
    t = await startTestApp(engine);
    const imported = await t.lectern.services.importer.importBytes(brokenChapterEpub(), 'broken.epub');
    expect(imported.title).toBe(BROKEN_TITLE);
    bookId = imported.book_id;
    const accounts = t.lectern.services.accounts;
    await accounts.createUser({ email: 'root@example.com', password: PASSWORD, role: 'admin' });
    await accounts.createUser({ email: 'maker@example.com', password: PASSWORD, role: 'content-creator' });
    admin = new TestClient(t.lectern.app);
    await admin.login('root@example.com', PASSWORD);
    maker = new TestClient(t.lectern.app);
    await maker.login('maker@example.com', PASSWORD);
    [reader] = await signedInSubscribers(t.lectern, ['reader@example.com']);
  });
  afterAll(() => t.close());

  it('keeps the chapter, recovered and sanitised like any other', async () => {
    const rows = await t.lectern.db.kysely
      .selectFrom('chapters')
      .innerJoin('titles', 'titles.id', 'chapters.title_id')
      .where('titles.book_id', '=', bookId)
      .select(['chapters.full_path', 'chapters.content', 'chapters.markup_error'])
      .orderBy('chapters.item_order')
      .execute();
    expect(rows.map((r) => [r.full_path, r.markup_error])).toEqual([
      ['good.xhtml', null],
      [BROKEN_PATH, '<br> is never closed'],
      ['after.xhtml', null],
    ]);
    const broken = rows[1]!.content;
    expect(broken).toContain(BROKEN_WORDS);
    expect(broken).toContain('and a second paragraph');
    // the HTML parser's recovery: the open <p> ends where the next begins, <br> is an element
    expect(broken).toMatch(/<p>[^<]*<br>after a line break<\/p>\s*<p>and a second paragraph/);
    expect(broken).not.toMatch(/onclick|<script|alert\(|javascript:/i);
  });

  it("tells the reader's item that the chapter was recovered, and only that one", async () => {
    const block = async (href: string) => archiveItemSchema.parse((await reader!.post('/nest/epub/block/', { book_id: bookId, hrefs: href })).json()[0]);
    const broken = await block(BROKEN_PATH);
    expect(broken.error).toBeNull();
    expect(broken.markup_recovered).toBe(true);
    expect((await block('good.xhtml')).markup_recovered).toBeUndefined();
    const chapter = await reader!.get(`/api/v1/book/${bookId}/chapter/${BROKEN_PATH}`);
    expect(chapter.json().markup_recovered).toBe(true);
  });

  it("keeps the import's warnings on the title for admins and content creators, not readers", async () => {
    const url = adminPaths.titleWarnings(bookId);
    for (const who of [admin, maker]) {
      const res = await who.get(url);
      expect(res.statusCode, res.body).toBe(200);
      const w = adminTitleWarningsSchema.parse(res.json());
      expect(w.recorded).toBe(true);
      expect(w.warnings).toContain(`${BROKEN_PATH} is not well-formed XHTML (<br> is never closed); read with the HTML parser's recovery`);
      expect(w.recovered_chapters).toEqual([{ full_path: BROKEN_PATH, label: 'A Broken Chapter', problem: '<br> is never closed' }]);
    }
    expect((await reader!.get(url)).statusCode).toBe(403);
    expect((await new TestClient(t.lectern.app).get(url)).statusCode).toBe(401);
    expect((await admin.get(adminPaths.titleWarnings('no-such-book'))).statusCode).toBe(404);
  });

  it('says a title imported before warnings were kept has none recorded', async () => {
    await t.lectern.db.kysely.updateTable('titles').set({ import_warnings: null }).where('book_id', '=', bookId).execute();
    const w = adminTitleWarningsSchema.parse((await admin.get(adminPaths.titleWarnings(bookId))).json());
    expect(w).toMatchObject({ recorded: false, warnings: [] });
    await t.lectern.db.kysely.updateTable('titles').set({ import_warnings: '[]' }).where('book_id', '=', bookId).execute();
  });
});
