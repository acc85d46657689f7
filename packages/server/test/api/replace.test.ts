/**
 * Replacing a book's content with a new edition (`POST /api/v1/admin/import/?replace=<book_id>`, `import <file>
 * --replace <book_id>`), on both engines: the book id and the rows of chapters still in the book are kept (and what
 * hangs on them: positions), the new text is served and found while the old is not, annotations stay under their
 * chapter paths, and a replacement that fails, or is of the other format, changes nothing.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  annotationExportSchema,
  annotationPaths,
  annotationSchema,
  annotationSearchResponseSchema,
  AUTH_TOKEN_HEADER,
  bookDetailSchema,
  catalogSearchResponseSchema,
  chapterContentSchema,
  importReportSchema,
  inBookSearchResponseSchema,
  searchPaths,
} from '@lectern/core';
import { PDFDocument } from 'pdf-lib';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SearchRepository } from '../../src/repositories/search.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { epubBook, PNG } from '../ingest/helpers.ts';
import { multipart } from '../helpers/multipart.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../../../..');
const PASSWORD = 'a long enough password';

/** One book in two editions: the same package identifier, chapters given as path -> [heading, text]. */
function edition(title: string, chapters: [string, string, string][], cover = PNG): Uint8Array {
  return epubBook({
    identifier: 'urn:uuid:7e1ace00-0000-4000-8000-00000000ed17',
    title,
    creator: 'Ann Editor',
    cover,
    chapters: chapters.map(([p, heading, text]) => ({ path: p, label: heading, body: `<h1>${heading}</h1><p>${text} ${'Filler words to make a page of it. '.repeat(20)}</p>` })),
  });
}

const FIRST = edition('The Tidal Atlas', [
  ['intro.xhtml', 'Introduction', 'The old edition speaks of marmalade.'],
  ['dropped.xhtml', 'A Chapter Dropped', 'This chapter is only in the first edition.'],
  ['tides.xhtml', 'Tides', 'Tides rise twice a day.'],
]);
const SECOND = edition('The Tidal Atlas, Corrected', [
  ['intro.xhtml', 'Introduction', 'The corrected edition speaks of quinces.'],
  ['tides.xhtml', 'Tides', 'Tides rise twice a day.'],
  ['currents.xhtml', 'Currents', 'A new chapter on currents.'],
]);

async function twoPagePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle('A Printed Atlas');
  doc.addPage();
  doc.addPage();
  return doc.save();
}

describe.each(ENGINES)('replacing a book on %s', (engine) => {
  let t: TestApp;
  let admin: TestClient;
  let reader: TestClient;
  let bookId: string;
  let token: string;
  const upload = (files: { name: string; data: Uint8Array }[], replace?: string) =>
    admin.request('POST', `/api/v1/admin/import/${replace === undefined ? '' : `?replace=${encodeURIComponent(replace)}`}`, multipart(files));
  const detail = async () => bookDetailSchema.parse((await reader.get(`/api/v1/book/${bookId}/`)).json());
  const chapterText = async (p: string) => {
    const res = await reader.get(`/api/v1/book/${bookId}/chapter/${p}`);
    return res.statusCode === 200 ? chapterContentSchema.parse(res.json()).content : `HTTP ${res.statusCode}`;
  };
  const inBook = async (q: string) => inBookSearchResponseSchema.parse((await reader.get(`${searchPaths.inBook()}?query=${q}&identifier=${bookId}`)).json()).total;
  const found = async (q: string) => catalogSearchResponseSchema.parse((await reader.get(`${searchPaths.catalog()}?q=${q}`)).json()).results.map((r) => r.metadata.book_id);
  const chapterRows = async () =>
    Object.fromEntries(
      (await t.lectern.db.kysely.selectFrom('chapters').innerJoin('titles', 'titles.id', 'chapters.title_id').select(['chapters.id', 'chapters.full_path']).where('titles.book_id', '=', bookId).execute()).map((c) => [
        c.full_path,
        c.id,
      ]),
    );
  /** Everything a failed replacement must leave as it was: rows, search rows, content folders. */
  const snapshot = async () => {
    const k = t.lectern.db.kysely;
    return {
      titles: await k.selectFrom('titles').selectAll().orderBy('id').execute(),
      chapters: await k.selectFrom('chapters').select(['id', 'full_path', 'content', 'as_sample']).orderBy('id').execute(),
      resources: await k.selectFrom('resources').select(['full_path', 'storage_path']).orderBy('id').execute(),
      search: (await k.selectFrom('search_docs').select(['id', 'body']).orderBy('id').execute()).length,
      // the titles' folders (the upload area beside them is the queue's)
      content: fs.readdirSync(path.join(t.dataDir, 'content')).filter((f) => f !== '.uploads').sort(),
    };
  };

  beforeAll(async () => {
    t = await startTestApp(engine);
    await t.lectern.services.accounts.createUser({ email: 'admin@example.com', password: PASSWORD, status: 'subscriber', role: 'admin' });
    admin = new TestClient(t.lectern.app);
    await admin.login('admin@example.com', PASSWORD);
    [reader] = await signedInSubscribers(t.lectern, ['reader@example.com']);
    const first = await upload([{ name: 'atlas.epub', data: FIRST }]);
    expect(first.statusCode, first.body).toBe(201);
    bookId = importReportSchema.parse(first.json()).imported[0]!.book_id;
    token = (await reader.get(annotationPaths.token())).body;
  });
  afterAll(() => t.close());

  it('keeps the book id and the rows of chapters still in the book; serves and finds the new text, not the old; keeps annotations', async () => {
    const before = await chapterRows();
    const book = await detail();
    const introPath = book.chapters.find((c) => c.label === 'Introduction')!.full_path;
    const droppedPath = book.chapters.find((c) => c.label === 'A Chapter Dropped')!.full_path;
    // What the reader leaves behind in the first edition: a position, two notes (one on a chapter that will go).
    expect((await reader.request('PUT', `/api/v1/book/${bookId}/position/`, { json: { locator: { href: introPath, progression: 0.3 } } })).statusCode).toBe(200);
    const note = async (href: string, quote: string) => {
      const res = await t.lectern.app.inject({
        method: 'POST',
        url: annotationPaths.annotations(annotationPaths.prefix(book.title_safe, bookId, href)),
        headers: { [AUTH_TOKEN_HEADER]: token },
        payload: { quote, text: `note on ${quote}` },
      });
      expect(res.statusCode, res.body).toBe(200);
      return annotationSchema.parse(res.json());
    };
    const onIntro = await note(introPath, 'marmalade');
    const onDropped = await note(droppedPath, 'only in the first edition');
    // Read (and so cached) before the replacement: the caches must not serve it after.
    expect(await chapterText(introPath)).toContain('marmalade');
    expect(await inBook('marmalade')).toBe(1);
    expect(await found('marmalade')).toEqual([bookId]);
    const coverBefore = (await reader.get(`/api/v1/book/${bookId}/cover`)).rawPayload;

    const res = await upload([{ name: 'atlas-2.epub', data: SECOND }], bookId);
    expect(res.statusCode, res.body).toBe(200);
    const report = importReportSchema.parse(res.json());
    expect(report.imported[0]).toMatchObject({ book_id: bookId, title: 'The Tidal Atlas, Corrected', chapters: 3 });
    expect(report.imported[0]!.replaced).toMatchObject({ kept: 2, added: 1, removed: [droppedPath] });

    const after = await chapterRows();
    expect(after['intro.xhtml']).toBe(before['intro.xhtml']);
    expect(after['tides.xhtml']).toBe(before['tides.xhtml']);
    expect(after['dropped.xhtml']).toBeUndefined();
    expect(after['currents.xhtml']).toBeGreaterThan(Math.max(...Object.values(before)));
    expect(await t.lectern.db.kysely.selectFrom('titles').select('id').execute()).toHaveLength(1);

    const now = await detail();
    expect(now.title).toBe('The Tidal Atlas, Corrected');
    expect(now.chapters.map((c) => c.label)).toEqual(['Introduction', 'Tides', 'Currents']);
    expect(now.toc.map((e) => e.label)).toEqual(['Introduction', 'Tides', 'Currents']);
    expect(await chapterText(introPath)).toContain('quinces');
    expect(await chapterText(introPath)).not.toContain('marmalade');
    expect(await chapterText(droppedPath)).toBe('HTTP 404');
    const block = await reader.post('/nest/epub/block/', { book_id: bookId, hrefs: now.chapters.find((c) => c.label === 'Currents')!.full_path });
    expect(block.statusCode, block.body).toBe(200);
    const toc = await reader.get(`/nest/epub/toc/?book_id=${bookId}`);
    expect(toc.body).toContain('Currents');
    expect(toc.body).not.toContain('A Chapter Dropped');
    expect(await inBook('marmalade')).toBe(0);
    expect(await inBook('quinces')).toBe(1);
    expect(await found('marmalade')).toEqual([]);
    expect(await found('quinces')).toEqual([bookId]);
    expect(await found('corrected')).toEqual([bookId]);
    if (engine === 'sqlite') {
      for (const fts of ['search_name_fts', 'search_title_fts', 'search_passage_fts']) {
        await sql`insert into ${sql.table(fts)}(${sql.ref(fts)}) values ('integrity-check')`.execute(t.lectern.db.kysely);
      }
    }
    // The new cover is served, the old edition's folder is gone and nothing staged is left.
    expect((await reader.get(`/api/v1/book/${bookId}/cover`)).statusCode).toBe(200);
    expect(coverBefore.length).toBeGreaterThan(0);
    const folders = fs.readdirSync(path.join(t.dataDir, 'content')).filter((f) => f !== '.uploads');
    expect(folders).toHaveLength(1);
    expect(folders[0]).toMatch(new RegExp(`^${bookId}\\.`));

    // The position on a kept chapter survives; both notes are kept under their paths, the dropped one orphaned.
    const position = await reader.get(`/api/v1/book/${bookId}/position/`);
    expect(position.json()).toMatchObject({ position: { locator: { href: introPath, progression: 0.3 } } });
    const listed = annotationSearchResponseSchema.parse(
      (await t.lectern.app.inject({ method: 'GET', url: annotationPaths.search(annotationPaths.prefix(now.title_safe, bookId)), headers: { [AUTH_TOKEN_HEADER]: token } })).json(),
    );
    expect(listed.rows.map((r) => [r.id, r.chapter_href]).sort()).toEqual([
      [onIntro.id, introPath],
      [onDropped.id, droppedPath],
    ].sort());
    const onChapter = annotationSearchResponseSchema.parse(
      (await t.lectern.app.inject({ method: 'GET', url: annotationPaths.search(annotationPaths.prefix(now.title_safe, bookId, droppedPath)), headers: { [AUTH_TOKEN_HEADER]: token } })).json(),
    );
    expect(onChapter.rows.map((r) => r.id)).toEqual([onDropped.id]);
    const exported = annotationExportSchema.parse((await reader.get(annotationPaths.export(bookId, 'json'))).json());
    expect(exported.chapters.map((c) => [c.chapter_href, c.in_book])).toEqual([
      [introPath, true],
      [droppedPath, false],
    ]);
  });

  it('refuses a broken file, a PDF for an EPUB and the edition it already has, changing nothing', async () => {
    const before = await snapshot();
    const broken = await upload([{ name: 'atlas-3.epub', data: SECOND.subarray(0, Math.floor(SECOND.length / 2)) }], bookId);
    expect(broken.statusCode).toBe(400);
    expect(broken.json().errors.file[0]).toMatch(/^atlas-3\.epub: /);
    const pdf = await upload([{ name: 'atlas.pdf', data: await twoPagePdf() }], bookId);
    expect(pdf.statusCode).toBe(400);
    expect(pdf.json().detail).toBe(`atlas.pdf: "The Tidal Atlas, Corrected" (book id ${bookId}) is an EPUB; a PDF cannot replace it`);
    const same = await upload([{ name: 'again.epub', data: SECOND }], bookId);
    expect(same.json().detail).toMatch(/this file is already the edition of "The Tidal Atlas, Corrected"/);
    expect(await snapshot()).toEqual(before);
    expect(await chapterText((await detail()).chapters[0]!.full_path)).toContain('quinces');
  });

  it('rolls a replacement back whole when its transaction fails late (search rows written last)', async () => {
    const before = await snapshot();
    const third = edition('The Tidal Atlas, Third', [['intro.xhtml', 'Introduction', 'A third edition about figs.']]);
    const spy = vi.spyOn(SearchRepository.prototype, 'write').mockRejectedValueOnce(new Error('disk full'));
    try {
      const res = await upload([{ name: 'atlas-3.epub', data: third }], bookId);
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toBe('atlas-3.epub: import failed: disk full');
    } finally {
      spy.mockRestore();
    }
    expect(await snapshot()).toEqual(before);
    expect(await inBook('quinces')).toBe(1);
    expect(await inBook('figs')).toBe(0);
    if (engine === 'sqlite') {
      // the FTS tables (external content) still agree with their rows
      for (const fts of ['search_name_fts', 'search_title_fts', 'search_passage_fts']) {
        await sql`insert into ${sql.table(fts)}(${sql.ref(fts)}) values ('integrity-check')`.execute(t.lectern.db.kysely);
      }
    }
  });

  it('answers 404 for an unknown book and 400 naming replace for a bad value or more than one file', async () => {
    const unknown = await upload([{ name: 'x.epub', data: FIRST }], 'no-such-book');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().detail).toMatch(/no-such-book/);
    const empty = await upload([{ name: 'x.epub', data: FIRST }], '');
    expect(empty.statusCode).toBe(400);
    expect(Object.keys(empty.json().errors)).toEqual(['replace']);
    const two = await upload([{ name: 'x.epub', data: FIRST }, { name: 'y.epub', data: FIRST }], bookId);
    expect(two.statusCode).toBe(400);
    expect(two.json().errors.replace[0]).toMatch(/exactly one file/);
    expect((await reader.request('POST', `/api/v1/admin/import/?replace=${bookId}`, multipart([{ name: 'x.epub', data: FIRST }]))).statusCode).toBe(403);
  });

  it('keeps a topic and a chapter flag another process set after this one had read the book', async () => {
    // Read, and so cached (names are kept a minute): the replacement must read what the book has now, not this.
    const shown = await detail();
    const k = t.lectern.db.kysely;
    const title = await k.selectFrom('titles').select('id').where('book_id', '=', bookId).executeTakeFirstOrThrow();
    const topic = await k.insertInto('topics').values({ slug: 'harbours', name: 'Harbours' }).returning('id').executeTakeFirstOrThrow();
    await k.insertInto('title_topics').values({ title_id: title.id, topic_id: topic.id }).execute();
    const tides = shown.chapters.find((c) => c.label === 'Tides')!.full_path;
    await k.updateTable('chapters').set({ is_public: 1 }).where('title_id', '=', title.id).where('full_path', '=', tides).execute();

    const res = await upload([{ name: 'atlas-again.epub', data: FIRST }], bookId);
    expect(res.statusCode, res.body).toBe(200);
    const topics = await k.selectFrom('title_topics').innerJoin('topics', 'topics.id', 'title_topics.topic_id').select('topics.slug').where('title_id', '=', title.id).execute();
    expect(topics.map((r) => r.slug)).toContain('harbours');
    const flags = await k.selectFrom('chapters').select(['full_path', 'is_public']).where('title_id', '=', title.id).execute();
    expect(flags.find((c) => c.full_path === tides)?.is_public).toBe(1);
    expect(await found('harbours')).toEqual([bookId]);
  });

  it('replaces a PDF with a PDF', async () => {
    const first = await upload([{ name: 'printed.pdf', data: await twoPagePdf() }]);
    expect(first.statusCode, first.body).toBe(201);
    const pdfId = importReportSchema.parse(first.json()).imported[0]!.book_id;
    const doc = await PDFDocument.create();
    doc.setTitle('A Printed Atlas, Second Printing');
    for (let i = 0; i < 3; i++) doc.addPage();
    const res = await upload([{ name: 'printed-2.pdf', data: await doc.save() }], pdfId);
    expect(res.statusCode, res.body).toBe(200);
    const now = bookDetailSchema.parse((await reader.get(`/api/v1/book/${pdfId}/`)).json());
    expect(now).toMatchObject({ book_id: pdfId, title: 'A Printed Atlas, Second Printing', page_count: 3 });
    const epub = await upload([{ name: 'atlas.epub', data: FIRST }], pdfId);
    expect(epub.json().detail).toMatch(/is a PDF; an EPUB cannot replace it$/);
  });
});

describe('import --replace on the command line', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-cli-replace-'));
  const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' };
  const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'packages/server/src/cli/main.ts', ...args], { cwd: root, env });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('replaces a book named by its id, says what was kept, and names a book that is not there', async () => {
    fs.writeFileSync(path.join(dataDir, 'first.epub'), FIRST);
    fs.writeFileSync(path.join(dataDir, 'second.epub'), SECOND);
    const out = await cli('import', path.join(dataDir, 'first.epub'));
    const bookId = /imported\s+(\S+)/.exec(out.stdout)![1]!;
    const replaced = await cli('import', path.join(dataDir, 'second.epub'), '--replace', bookId);
    expect(replaced.stdout).toContain(`replaced  ${bookId}  "The Tidal Atlas, Corrected"  3 chapters (2 kept, 1 new, 1 removed)`);
    expect(replaced.stdout).toMatch(/removed: dropped\.xhtml/);
    const missing = await cli('import', path.join(dataDir, 'second.epub'), '--replace', 'nope').catch((e) => e);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain('there is no book with id "nope" to replace');
    const two = await cli('import', path.join(dataDir, 'first.epub'), path.join(dataDir, 'second.epub'), '--replace', bookId).catch((e) => e);
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/import --replace takes exactly one file \(2 given\)/);
    const help = await cli('help');
    expect(help.stdout).toMatch(/import <file> --replace <book_id>/);
  });
});
