import fs from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import {
  APP_MESSAGES,
  bookDetailSchema,
  chapterContentSchema,
  contentMetadataSchema,
  blockResponseSchema,
  MESSAGES,
  pagedSchema,
  titleSortKey,
} from '@lectern/core';
import { unzipSync } from 'fflate';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READING_MESSAGES } from '@lectern/core';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { importSamples } from '../helpers/sample.ts';
import { minimalEpub3 } from '../ingest/helpers.ts';
import { multipart } from '../helpers/multipart.ts';

const PASSWORD = 'a long enough password';

describe.each(ENGINES)('catalog API on %s', (engine) => {
  let t: TestApp;
  // Alice is one spine item (Gutenberg put the whole book in one file); The War of the Worlds has 35 chapters.
  let alice: ReturnType<typeof bookDetailSchema.parse>;
  let wotw: ReturnType<typeof bookDetailSchema.parse>;
  let moby: ReturnType<typeof bookDetailSchema.parse>;
  const reader = new Map<string, TestClient>();

  beforeAll(async () => {
    t = await startTestApp(engine);
    const report = await importSamples(t.lectern);
    expect(report.failed).toEqual([]);
    const accounts = t.lectern.services.accounts;
    await accounts.createUser({ email: 'sub@example.com', password: PASSWORD, status: 'subscriber' });
    await accounts.createUser({ email: 'gone@example.com', password: PASSWORD, status: 'expired' });
    await accounts.createUser({ email: 'admin@example.com', password: PASSWORD, status: 'subscriber', role: 'admin' });
    for (const who of ['sub', 'gone', 'admin']) {
      const c = new TestClient(t.lectern.app);
      await c.login(`${who}@example.com`, PASSWORD);
      reader.set(who, c);
    }
    const list = await new TestClient(t.lectern.app).get('/api/v1/book/?page_size=100');
    const detail = async (pattern: RegExp) => {
      const found = list.json().results.find((b: { title: string }) => pattern.test(b.title));
      return bookDetailSchema.parse((await new TestClient(t.lectern.app).get(found.api_url)).json());
    };
    alice = await detail(/^Alice's Adventures/);
    wotw = await detail(/War of the Worlds/);
    moby = await detail(/^Moby-Dick/);
  });
  afterAll(() => t.close());

  it('lists the catalog in pages with count, next and previous', async () => {
    const anon = new TestClient(t.lectern.app);
    const first = await anon.get('/api/v1/book/?page_size=2');
    expect(first.statusCode).toBe(200);
    const page1 = pagedSchema(contentMetadataSchema).parse(first.json());
    expect(page1.count).toBeGreaterThanOrEqual(3);
    expect(page1.results).toHaveLength(2);
    expect(page1.previous).toBeNull();
    const page2 = pagedSchema(contentMetadataSchema).parse((await anon.get(page1.next!)).json());
    expect(page2.previous).not.toBeNull();
    const titles = [...page1.results, ...page2.results].map((b) => b.title);
    expect(new Set(titles).size).toBe(titles.length);
    expect(titles).toEqual([...titles].sort((a, b) => (titleSortKey(a) < titleSortKey(b) ? -1 : 1)));
  });

  it('describes a title with the content metadata fields of the spec', async () => {
    expect(alice.authors.join(' ')).toMatch(/Carroll/);
    expect(alice.api_url).toBe(`/api/v1/book/${alice.book_id}/`);
    expect(alice.identifier).toBe(alice.book_id);
    expect(alice.content_format).toBe('book');
    // Asked anonymously: Start opens the sample chapter (the continue_url rule, services/positions.ts).
    expect(alice.continue_url).toBe(alice.chapters.find((c) => c.as_sample)!.web_url);
    expect(alice.topics.map((x) => x.slug)).toContain('classics');
    expect(alice.toc.length).toBeGreaterThan(10);
    expect(new Set(alice.toc.map((e) => e.depth)).size).toBeGreaterThan(1);
    expect(wotw.chapters.length).toBeGreaterThan(20);
    for (const c of wotw.chapters) expect(c.url).toBe(`/api/v1/book/${wotw.book_id}/chapter/${c.full_path.split('/').map(encodeURIComponent).join('/')}`);
    expect(wotw.chapters.filter((c) => c.as_sample)).toHaveLength(1);
  });

  it('serves the cover image', async () => {
    expect(alice.cover_image_url).not.toBeNull();
    const res = await new TestClient(t.lectern.app).get(alice.cover_image_url!);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\//);
    expect(res.rawPayload.byteLength).toBeGreaterThan(1000);
    // Cached for a day: the route's header, not the static plugin's max-age=0.
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
  });

  it('serves title cards the cover 360 pixels high, made once and a fraction of the original', async () => {
    const client = new TestClient(t.lectern.app);
    for (const book of [alice, wotw]) {
      const original = await client.get(book.cover_image_url!);
      const card = await client.get(`${book.cover_image_url!}?h=360`);
      expect(card.statusCode).toBe(200);
      expect(card.headers['content-type']).toBe('image/webp');
      expect(card.headers['cache-control']).toBe('public, max-age=86400');
      const meta = await sharp(card.rawPayload).metadata();
      expect(meta.format).toBe('webp');
      expect(meta.height).toBe(360);
      expect(card.rawPayload.byteLength).toBeLessThan(original.rawPayload.byteLength);
      // The second request gets the same file, kept beside the original.
      expect((await client.get(`${book.cover_image_url!}?h=360`)).rawPayload.equals(card.rawPayload)).toBe(true);
    }
    const bad = await client.get(`${alice.cover_image_url!}?h=9000`);
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json().errors)).toEqual(['h']);
  });

  it('filters by topic and rejects a bad page size with the field named', async () => {
    const anon = new TestClient(t.lectern.app);
    const classics = (await anon.get('/api/v1/book/?topic=classics')).json();
    expect(classics.count).toBeGreaterThanOrEqual(3);
    expect((await anon.get('/api/v1/book/?topic=no-such-topic')).json().count).toBe(0);
    const bad = await anon.get('/api/v1/book/?page_size=1000');
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json().errors)).toEqual(['page_size']);
  });

  it("makes each book's first real chapter its sample, not its front matter", () => {
    expect(wotw.chapters.filter((c) => c.as_sample).map((c) => c.label)).toEqual(['Chapter 1 - The Eve of the War']);
    expect(moby.chapters.filter((c) => c.as_sample).map((c) => c.label)).toEqual(['Chapter 1. Loomings.']);
    expect(alice.chapters.filter((c) => c.as_sample).map((c) => c.label)).toEqual(["ALICE'S ADVENTURES IN WONDERLAND"]);
  });

  it("gives visitors only the opening part of a one-chapter book; the rest is not sent", async () => {
    const [only] = alice.chapters;
    const anon = new TestClient(t.lectern.app);
    const sample = chapterContentSchema.parse((await anon.get(only!.url)).json());
    const whole = chapterContentSchema.parse((await reader.get('sub')!.get(only!.url)).json());
    expect(sample.partial).toBe(true);
    expect(whole.partial).toBeUndefined();
    expect(sample.content).toContain('DOWN THE RABBIT-HOLE');
    expect(sample.content).toContain('This is the end of the sample.');
    // The last chapter's words are only in the whole.
    expect(whole.content).toContain("ALICE'S EVIDENCE");
    expect(sample.content).not.toContain("ALICE'S EVIDENCE");
    expect(sample.content.length).toBeLessThan(whole.content.length / 5);
    // The reader's block call gives the same part, in the clear.
    const res = await anon.post('/nest/epub/block/', { book_id: alice.book_id, hrefs: only!.full_path });
    const [item] = blockResponseSchema.parse(res.json());
    expect(item?.resources[0]?.content).toBe(sample.content);
    // An expired account is a visitor too; a subscriber gets it all through the block call as well.
    expect(chapterContentSchema.parse((await reader.get('gone')!.get(only!.url)).json()).partial).toBe(true);
  });

  it('serves visitors the first pages of a PDF instead of the file, and a PDF too short to part with not at all', async () => {
    const build = async (pages: number, title: string) => {
      const doc = await PDFDocument.create();
      doc.setTitle(title);
      for (let i = 0; i < pages; i++) doc.addPage();
      return t.lectern.services.importer.importBytes(await doc.save(), `${title}.pdf`);
    };
    const pageCount = async (res: { rawPayload: Buffer }) => (await PDFDocument.load(res.rawPayload)).getPageCount();
    const long = await build(300, 'Three Hundred Pages');
    const detail = bookDetailSchema.parse((await new TestClient(t.lectern.app).get(`/api/v1/book/${long.book_id}/`)).json());
    const fileUrl = chapterContentSchema.parse((await new TestClient(t.lectern.app).get(detail.chapters[0]!.url)).json()).file_url!;
    const anonymous = await new TestClient(t.lectern.app).get(fileUrl);
    expect(anonymous.statusCode).toBe(200);
    expect(await pageCount(anonymous)).toBe(20); // 10% would be 30; at most 20
    expect(anonymous.headers['cache-control']).toBe('private, no-cache');
    expect(anonymous.headers.vary).toMatch(/cookie/i);
    expect(await pageCount(await reader.get('gone')!.get(fileUrl))).toBe(20);
    const full = await reader.get('sub')!.get(fileUrl);
    expect(await pageCount(full)).toBe(300);
    expect(anonymous.rawPayload.byteLength).toBeLessThan(full.rawPayload.byteLength);

    const fifty = await build(50, 'Fifty Pages');
    const fiftyFile = `/api/v1/book/${fifty.book_id}/chapter/document.pdf?download=1`;
    expect(await pageCount(await new TestClient(t.lectern.app).get(fiftyFile))).toBe(5);

    const one = await build(1, 'One Page');
    const onePath = `/api/v1/book/${one.book_id}/chapter/document.pdf`;
    expect(bookDetailSchema.parse((await new TestClient(t.lectern.app).get(`/api/v1/book/${one.book_id}/`)).json()).chapters[0]?.as_sample).toBe(false);
    expect((await new TestClient(t.lectern.app).get(`${onePath}?download=1`)).statusCode).toBe(401);
    expect((await new TestClient(t.lectern.app).get(onePath)).statusCode).toBe(401);
    expect((await reader.get('gone')!.get(`${onePath}?download=1`)).statusCode).toBe(403);
    expect((await reader.get('sub')!.get(`${onePath}?download=1`)).statusCode).toBe(200);
  });

  it('sorts by title ignoring case and a leading article, by newest and by author; filters by format; names a bad parameter', async () => {
    const anon = new TestClient(t.lectern.app);
    const pdf = async (title: string, author: string | null) => {
      const doc = await PDFDocument.create();
      doc.setTitle(title);
      if (author) doc.setAuthor(author);
      for (let i = 0; i < 2; i++) doc.addPage();
      return t.lectern.services.importer.importBytes(await doc.save(), 'upload.pdf');
    };
    await pdf('an apple a day', 'Zoe Zed');
    await pdf('The Zebra Handbook', 'aaron Able');
    const last = await pdf('Untold', null);
    const list = async (query: string) => pagedSchema(contentMetadataSchema).parse((await anon.get(`/api/v1/book/?page_size=100${query}`)).json()).results;

    const byTitle = (await list('')).map((b) => b.title);
    expect(byTitle).toEqual([...byTitle].sort((a, b) => titleSortKey(a).localeCompare(titleSortKey(b))));
    const at = (title: string) => byTitle.indexOf(title);
    expect(at("Alice's Adventures in Wonderland")).toBeLessThan(at('an apple a day'));
    expect(at('an apple a day')).toBeLessThan(at('Moby-Dick'));
    expect(at('The War of the Worlds')).toBeLessThan(at('The Zebra Handbook'));
    expect(at('Untold')).toBeLessThan(at('The War of the Worlds'));
    expect((await list('&sort=title')).map((b) => b.title)).toEqual(byTitle);

    expect((await list('&sort=recent'))[0]?.book_id).toBe(last.book_id);
    const byAuthor = await list('&sort=author');
    expect(byAuthor[0]?.title).toBe('The Zebra Handbook'); // aaron Able, case ignored
    expect(byAuthor.at(-1)?.authors).toEqual([]); // no author: last
    const named = byAuthor.filter((b) => b.authors.length).map((b) => b.authors[0]!.toLowerCase());
    expect(named).toEqual([...named].sort());

    const documents = await list('&format=document');
    expect(documents.map((b) => b.title)).toEqual(expect.arrayContaining(['an apple a day', 'Untold']));
    expect(documents.every((b) => b.content_format === 'document')).toBe(true);
    const books = await list('&format=book');
    expect(books.map((b) => b.title)).toContain('Moby-Dick');
    expect(books.map((b) => b.title)).not.toContain('Untold');
    // The next page keeps the order and the filter.
    const paged = (await anon.get('/api/v1/book/?page_size=1&sort=recent&format=document')).json();
    // (keyset paging, migration 0009: the link carries a cursor of the last row; the page number rides along)
    expect(paged.next).toMatch(/^\/api\/v1\/book\/\?page=2&cursor=[\w-]+\.[\w-]+&page_size=1&sort=recent&format=document$/);

    for (const [query, field] of [['sort=price', 'sort'], ['format=scroll', 'format'], ['sort=', 'sort']]) {
      const bad = await anon.get(`/api/v1/book/?${query}`);
      expect(bad.statusCode, query).toBe(400);
      expect(Object.keys(bad.json().errors), query).toEqual([field]);
    }
  });

  it('shows an EPUB and a PDF of one work as one card whose title page offers both formats', async () => {
    const anon = new TestClient(t.lectern.app);
    const count = async () => (await anon.get('/api/v1/book/')).json().count as number;
    const before = await count();
    const epub = await t.lectern.services.importer.importBytes(minimalEpub3(), 'small.epub');
    expect(await count()).toBe(before + 1);
    const doc = await PDFDocument.create();
    doc.setTitle('a small book');
    doc.setAuthor('Ada Lovelace');
    doc.addPage();
    const pdf = await t.lectern.services.importer.importBytes(await doc.save(), 'small-book.pdf');
    expect(await count()).toBe(before + 1);

    const cards = (await anon.get('/api/v1/book/?page_size=100')).json().results.filter((b: { title: string }) => /small book/i.test(b.title));
    expect(cards.map((b: { book_id: string }) => b.book_id)).toEqual([epub.book_id]);
    const expected = [
      { book_id: epub.book_id, content_format: 'book', source: 'application/epub+zip', url: `/library/book/${epub.book_id}/` },
      { book_id: pdf.book_id, content_format: 'document', source: 'application/pdf', page_count: 1, url: `/library/book/${pdf.book_id}/` },
    ];
    for (const id of [epub.book_id, pdf.book_id]) {
      const detail = bookDetailSchema.parse((await anon.get(`/api/v1/book/${id}/`)).json());
      expect(detail.formats).toMatchObject(expected);
    }
    // The PDF makes the work a document too.
    const documents = (await anon.get('/api/v1/book/?page_size=100&format=document')).json().results;
    expect(documents.map((b: { book_id: string }) => b.book_id)).toContain(epub.book_id);
    // A different author is a different work.
    const other = await PDFDocument.create();
    other.setTitle('A Small Book');
    other.setAuthor('Someone Else');
    other.addPage();
    await t.lectern.services.importer.importBytes(await other.save(), 'other.pdf');
    expect(await count()).toBe(before + 2);

    // The same ISBN is the same work whatever the title says (a retitled edition).
    const opf = new TextDecoder().decode(unzipSync(minimalEpub3())['OEBPS/content.opf']);
    const withIsbn = (title: string, isbn: string) =>
      minimalEpub3({
        'OEBPS/content.opf': opf
          .replace('urn:uuid:5a1e0c3e-0000-4000-8000-000000000001', `urn:isbn:${isbn}`)
          .replace('A Small Book', title),
      });
    const first = await t.lectern.services.importer.importBytes(withIsbn('Numbered Edition', '978-0-00-000000-2'), 'n1.epub');
    expect(first.book_id).toBe('9780000000002');
    const second = await t.lectern.services.importer.importBytes(withIsbn('Renamed Edition', '9780000000002'), 'n2.epub');
    expect(await count()).toBe(before + 3);
    const detail = bookDetailSchema.parse((await anon.get(`/api/v1/book/${second.book_id}/`)).json());
    expect(detail.formats.map((f) => f.book_id)).toEqual([first.book_id, second.book_id]);
  });

  it('gives every chapter and the title a reading time', () => {
    expect(moby.minutes_required).toBeGreaterThan(600);
    expect(moby.minutes_required).toBeCloseTo(moby.chapters.reduce((sum, c) => sum + c.minutes_required, 0), 0);
    expect(moby.chapters.find((c) => c.label === 'Chapter 1. Loomings.')?.minutes_required).toBeGreaterThan(5);
  });

  it('lets anonymous visitors read the sample chapter only', async () => {
    const anon = new TestClient(t.lectern.app);
    const sample = wotw.chapters.find((c) => c.as_sample)!;
    const locked = wotw.chapters.find((c) => !c.as_sample && !c.is_public)!;
    const ok = await anon.get(sample.url);
    expect(ok.statusCode).toBe(200);
    const chapter = chapterContentSchema.parse(ok.json());
    expect(chapter.content.length).toBeGreaterThan(500);
    expect(chapter.content).not.toMatch(/<script/i);
    const denied = await anon.get(locked.url);
    expect(denied.statusCode).toBe(401);
    expect(denied.json()).toEqual({ detail: MESSAGES.signInToRead });
  });

  it('lets a subscriber read every chapter in order, and tells an expired account why not', async () => {
    const sub = reader.get('sub')!;
    let uri: string | null = wotw.chapters[0]!.full_path;
    const seen: string[] = [];
    while (uri) {
      const res = await sub.get(`/api/v1/book/${wotw.book_id}/chapter/${uri}`);
      expect(res.statusCode).toBe(200);
      const c = chapterContentSchema.parse(res.json());
      seen.push(c.full_path);
      uri = c.next_chapter_uri;
    }
    expect(seen).toEqual(wotw.chapters.map((c) => c.full_path));
    const locked = wotw.chapters.find((c) => !c.as_sample)!;
    const gone = await reader.get('gone')!.get(locked.url);
    expect(gone.statusCode).toBe(403);
    expect(gone.json().detail).toBe(READING_MESSAGES.subscriptionEnded);
  });

  it('sends a chapter compressed to a browser that accepts it, the same JSON once decoded, and whole to one that does not', async () => {
    const sub = reader.get('sub')!;
    // a chapter of the book's body, not a page of front matter
    const url = wotw.chapters[10]!.url;
    const plain = await sub.get(url);
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.byteLength).toBeGreaterThan(5000);
    const browser = await sub.get(url, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(browser.headers['content-encoding']).toBe('br');
    expect(browser.headers.vary).toMatch(/Accept-Encoding/i);
    expect(browser.rawPayload.byteLength).toBeLessThan(plain.rawPayload.byteLength / 2);
    expect(brotliDecompressSync(browser.rawPayload).toString()).toBe(plain.body);
    const gzip = await sub.get(url, { 'accept-encoding': 'br;q=0, gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.rawPayload).toString()).toBe(plain.body);
    const refused = await sub.get(url, { 'accept-encoding': '*;q=0, identity' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.body).toBe(plain.body);
  });

  it('serves chapter resources under the chapter path with their media type', async () => {
    const sub = reader.get('sub')!;
    const chapters = await Promise.all(alice.chapters.map(async (c) => chapterContentSchema.parse((await sub.get(c.url)).json())));
    const src = chapters.map((c) => /src="([^"]+)"/.exec(c.content)?.[1]).find(Boolean);
    expect(src, 'Alice has illustrations').toBeDefined();
    expect(src).toMatch(new RegExp(`^/api/v1/book/${alice.book_id}/chapter/`));
    const img = await new TestClient(t.lectern.app).get(src!);
    expect(img.statusCode).toBe(200);
    expect(img.headers['content-type']).toMatch(/^image\//);
    // Book images and stylesheets never change under their path: a day in the browser cache, not revalidated
    // on every chapter open.
    expect(img.headers['cache-control']).toBe('public, max-age=86400');
  });

  it('answers 404 with a detail for unknown books, chapters and API addresses', async () => {
    const anon = new TestClient(t.lectern.app);
    expect((await anon.get('/api/v1/book/nope/')).json()).toEqual({ detail: APP_MESSAGES.bookNotFound });
    const missing = await anon.get(`/api/v1/book/${alice.book_id}/chapter/nope.xhtml`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ detail: APP_MESSAGES.chapterNotFound });
    const api = await anon.get('/api/v1/nothing-here/');
    expect(api.statusCode).toBe(404);
    expect(api.json()).toEqual({ detail: APP_MESSAGES.notFound });
  });

  it('lets only admins flag chapters; a public chapter opens to everyone', async () => {
    const locked = wotw.chapters.find((c) => !c.as_sample && !c.is_public)!;
    const url = `/api/v1/admin/book/${wotw.book_id}/chapter/${locked.full_path}`;
    const bySub = await reader.get('sub')!.request('PATCH', url, { json: { is_public: true } });
    expect(bySub.statusCode).toBe(403);
    const bad = await reader.get('admin')!.request('PATCH', url, { json: { is_public: 'yes' } });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json().errors)).toEqual(['is_public']);
    const byAdmin = await reader.get('admin')!.request('PATCH', url, { json: { is_public: true } });
    expect(byAdmin.statusCode).toBe(200);
    expect(byAdmin.json()).toEqual({ as_sample: false, is_public: true });
    expect((await new TestClient(t.lectern.app).get(locked.url)).statusCode).toBe(200);
  });

  it('serves a PDF document as one chapter whose file_url is the PDF itself, under the same reading policy', async () => {
    const { PDFDocument } = await import('pdf-lib');
    const doc = await PDFDocument.create();
    doc.setTitle('Field Guide to Test Documents');
    doc.setAuthor('Ada Lovelace');
    for (let i = 0; i < 3; i++) doc.addPage();
    const imported = await t.lectern.services.importer.importBytes(await doc.save(), 'guide.pdf');
    const detail = bookDetailSchema.parse((await new TestClient(t.lectern.app).get(`/api/v1/book/${imported.book_id}/`)).json());
    expect(detail).toMatchObject({ content_format: 'document', source: 'application/pdf', page_count: 3 });
    const chapter = chapterContentSchema.parse((await reader.get('sub')!.get(detail.chapters[0]!.url)).json());
    expect(chapter.content_type).toBe('application/pdf');
    const file = await reader.get('sub')!.get(chapter.file_url!);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toMatch(/^application\/pdf/);
    expect(file.rawPayload.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    // Take the sample flag away: the file is then for subscribers only.
    await t.lectern.services.flags.set(imported.book_id, chapter.full_path, { as_sample: false });
    const anonymous = await new TestClient(t.lectern.app).get(chapter.file_url!);
    expect(anonymous.statusCode).toBe(401);
    expect((await reader.get('sub')!.get(chapter.file_url!)).statusCode).toBe(200);
  });

  it('imports an uploaded file for admins only, and a corrupt upload changes nothing', async () => {
    const before = (await new TestClient(t.lectern.app).get('/api/v1/book/')).json().count;
    const contentDir = path.join(t.dataDir, 'content');
    // the titles' folders (the upload area beside them is the import queue's)
    const folders = () => fs.readdirSync(contentDir).filter((f) => f !== '.uploads').sort();
    const foldersBefore = folders();
    const corrupt = multipart([{ name: 'broken.epub', data: Buffer.from('PK\u0003\u0004 this is not really a zip file at all') }]);
    const bySub = await reader.get('sub')!.request('POST', '/api/v1/admin/import/', corrupt);
    expect(bySub.statusCode).toBe(403);
    const byAdmin = await reader.get('admin')!.request('POST', '/api/v1/admin/import/', corrupt);
    expect(byAdmin.statusCode).toBe(400);
    expect(byAdmin.json().failed[0].file).toBe('broken.epub');
    expect(byAdmin.json().detail).toMatch(/broken\.epub: /);
    expect((await new TestClient(t.lectern.app).get('/api/v1/book/')).json().count).toBe(before);
    expect(folders()).toEqual(foldersBefore);
  });
});
