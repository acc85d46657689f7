import fs from 'node:fs';
import path from 'node:path';
import {
  APP_MESSAGES,
  bookDetailSchema,
  chapterContentSchema,
  contentMetadataSchema,
  MESSAGES,
  pagedSchema,
} from '@lectern/core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READING_MESSAGES } from '../../src/policies/reading.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { importSamples } from '../helpers/sample.ts';

const PASSWORD = 'a long enough password';

function multipart(files: { name: string; data: Buffer }[], fields: Record<string, string> = {}) {
  const boundary = `----lectern${Date.now()}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  for (const f of files) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${f.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
    parts.push(f.data, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

describe.each(ENGINES)('catalog API on %s', (engine) => {
  let t: TestApp;
  // Alice is one spine item (Gutenberg put the whole book in one file); The War of the Worlds has 35 chapters.
  let alice: ReturnType<typeof bookDetailSchema.parse>;
  let wotw: ReturnType<typeof bookDetailSchema.parse>;
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
    expect(titles).toEqual([...titles].sort((a, b) => (a < b ? -1 : 1)));
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
    const foldersBefore = fs.readdirSync(contentDir).sort();
    const corrupt = multipart([{ name: 'broken.epub', data: Buffer.from('PK\u0003\u0004 this is not really a zip file at all') }]);
    const bySub = await reader.get('sub')!.request('POST', '/api/v1/admin/import/', { payload: corrupt.payload, headers: { 'content-type': corrupt.contentType } });
    expect(bySub.statusCode).toBe(403);
    const byAdmin = await reader.get('admin')!.request('POST', '/api/v1/admin/import/', { payload: corrupt.payload, headers: { 'content-type': corrupt.contentType } });
    expect(byAdmin.statusCode).toBe(400);
    expect(byAdmin.json().failed[0].file).toBe('broken.epub');
    expect(byAdmin.json().detail).toMatch(/broken\.epub: /);
    expect((await new TestClient(t.lectern.app).get('/api/v1/book/')).json().count).toBe(before);
    expect(fs.readdirSync(contentDir).sort()).toEqual(foldersBefore);
  });
});
