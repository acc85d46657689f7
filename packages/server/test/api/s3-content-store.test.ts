/**
 * The library with its content in an S3 bucket (CONTENT_STORE=s3://…, docs/decisions.md "The content store"), on
 * both engines, against s3rver on this machine (test/helpers/s3.ts): an EPUB and a video imported through the real
 * importer land in the bucket and nowhere on this server's disk; a chapter's resource and the video's part are read
 * with Range headers as ranged GETs (206, 416, HEAD) with every header a book file carries; a cover upload and its
 * card variant are stored there; a new edition deletes the old edition's folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mediaSessionSchema, paths } from '@lectern/core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOOK_FILE_CSP } from '../../src/plugins/book-files.ts';
import { S3ContentStore } from '../../src/storage/s3-content-store.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, type TestClient } from '../helpers/client.ts';
import { startS3, type TestS3 } from '../helpers/s3.ts';
import { hostileFilesEpub } from '../fixtures/hostile-files.ts';
import { twoChapterBook } from '../ingest/helpers.ts';

const CLIP = path.join(import.meta.dirname, '..', 'fixtures', 'media', 'clip.mp4');

let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(() => s3.close());

describe.each(ENGINES)('content in an S3 bucket on %s', (engine) => {
  let t: TestApp;
  let bucket: S3ContentStore;
  let readerDir: string;
  let ada: TestClient;
  let book: string;
  let clip: string;

  const objects = async () => {
    const all: Record<string, number> = {};
    for await (const f of bucket.list()) all[f.path] = f.size;
    return all;
  };
  const bytesOf = async (p: string) => {
    const chunks: Buffer[] = [];
    for await (const c of await bucket.read(p)) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  };

  beforeAll(async () => {
    const { url: _url, ...settings } = s3.settings(`api-${engine}`);
    t = await startTestApp(engine, { contentStore: `s3://${s3.bucket}/api-${engine}`, s3: settings });
    readerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-s3-reader-'));
    bucket = new S3ContentStore(s3.settings(`api-${engine}`), readerDir);
    [ada] = await signedInSubscribers(t.lectern, ['ada@example.com']);
    book = (await t.lectern.services.importer.importBytes(hostileFilesEpub(), 'hostile-files.epub')).book_id;
    const report = await t.lectern.services.importer.importPaths([CLIP]);
    expect(report.failed).toEqual([]);
    clip = report.imported[0]!.book_id;
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(readerDir, { recursive: true, force: true });
  });

  it('keeps imported files in the bucket under the title’s folder, none on this server’s disk, no staging left', async () => {
    const files = Object.keys(await objects());
    // a title's folder: its book id and a token (services/import.ts newTitleFolder)
    expect(files.filter((f) => f.startsWith(`${book}.`)).length).toBeGreaterThan(5);
    expect(files.some((f) => f.startsWith(`${clip}.`) && f.endsWith('.mp4'))).toBe(true);
    const content = path.join(t.dataDir, 'content');
    expect(fs.existsSync(content) ? fs.readdirSync(content) : []).toEqual([]);
    const tmp = path.join(t.dataDir, 'tmp');
    expect(fs.existsSync(tmp) ? fs.readdirSync(tmp) : []).toEqual([]);
  });

  it('serves a chapter resource from the bucket whole and by range, with the headers of a book file', async () => {
    const row = await t.lectern.db.kysely
      .selectFrom('resources as r')
      .innerJoin('titles as ti', 'ti.id', 'r.title_id')
      .select(['r.storage_path', 'r.size'])
      .where('ti.book_id', '=', book)
      .where('r.full_path', '=', 'styles/book.css')
      .executeTakeFirstOrThrow();
    const bytes = await bytesOf(row.storage_path);
    const size = bytes.byteLength;
    expect(size).toBeGreaterThan(20);
    const url = `/api/v1/book/${book}/chapter/styles/book.css`;
    const whole = await ada.get(url);
    expect(whole.statusCode).toBe(200);
    expect(whole.headers).toMatchObject({ 'content-type': 'text/css', 'content-length': String(size), 'accept-ranges': 'bytes', 'x-content-type-options': 'nosniff', 'content-security-policy': BOOK_FILE_CSP, 'cross-origin-resource-policy': 'same-origin', 'cache-control': 'public, max-age=86400' });
    expect(whole.rawPayload.equals(bytes)).toBe(true);

    const part = await ada.get(url, { range: 'bytes=3-12' });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 3-12/${size}`);
    expect(part.headers['content-length']).toBe('10');
    expect(part.rawPayload.equals(bytes.subarray(3, 13))).toBe(true);
    const suffix = await ada.get(url, { range: 'bytes=-4' });
    expect(suffix.rawPayload.equals(bytes.subarray(size - 4))).toBe(true);

    const past = await ada.get(url, { range: `bytes=${size + 5}-` });
    expect(past.statusCode).toBe(416);
    expect(past.headers['content-range']).toBe(`bytes */${size}`);
    expect(past.headers['content-security-policy']).toBe(BOOK_FILE_CSP);

    const again = await ada.get(url, { 'if-none-match': String(whole.headers.etag) });
    expect(again.statusCode).toBe(304);
    // the hostile types are decided as on disk: a scripted SVG goes as text, HTML as text
    for (const [file, type] of [['images/evil.svg', 'text/plain; charset=utf-8'], ['images/plain.svg', 'image/svg+xml'], ['extra/page.html', 'text/plain; charset=utf-8']]) {
      const res = await ada.get(`/api/v1/book/${book}/chapter/${file}`);
      expect(res.statusCode, file).toBe(200);
      expect(res.headers['content-type'], file).toBe(type);
      expect(res.headers['content-security-policy'], file).toBe(BOOK_FILE_CSP);
    }
    expect((await ada.get(`/api/v1/book/${book}/chapter/styles/missing.css`)).statusCode).toBe(404);
  });

  it('streams a video part from the bucket in ranges (206, 416, HEAD)', async () => {
    const session = await ada.get(paths.mediaSession(clip));
    expect(session.statusCode, session.body).toBe(200);
    const ks = mediaSessionSchema.parse(session.json()).ks;
    const { storage_path } = await t.lectern.db.kysely
      .selectFrom('media_files as m')
      .innerJoin('chapters as c', 'c.id', 'm.chapter_id')
      .innerJoin('titles as ti', 'ti.id', 'c.title_id')
      .select('m.storage_path')
      .where('ti.book_id', '=', clip)
      .executeTakeFirstOrThrow();
    const bytes = await bytesOf(storage_path);
    const size = bytes.byteLength;
    const url = `${paths.mediaStream(clip, '01-clip.mp4')}?ks=${encodeURIComponent(ks)}`;
    const ranged = await ada.get(url, { range: 'bytes=100-1099' });
    expect(ranged.statusCode).toBe(206);
    expect(ranged.headers).toMatchObject({ 'content-range': `bytes 100-1099/${size}`, 'content-length': '1000', 'content-type': 'video/mp4', 'x-content-type-options': 'nosniff' });
    expect(String(ranged.headers.etag)).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(ranged.rawPayload.equals(bytes.subarray(100, 1100))).toBe(true);
    const withTag = await ada.get(url, { range: 'bytes=0-9', 'if-range': String(ranged.headers.etag) });
    expect(withTag.statusCode).toBe(206);
    expect((await ada.get(url, { range: `bytes=${size}-` })).statusCode).toBe(416);
    const head = await ada.request('HEAD', url);
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(size));
    expect(head.rawPayload.byteLength).toBe(0);
  });

  it('stores an uploaded cover and its card variant in the bucket; a new cover deletes the old one’s folder', async () => {
    const png = await sharp({ create: { width: 600, height: 900, channels: 3, background: { r: 20, g: 80, b: 140 } } }).png().toBuffer();
    const first = await t.lectern.services.admin.titles.setCover(book, png);
    expect(first.media_type).toBe('image/png');
    const card = await ada.get(`/api/v1/book/${book}/cover?h=360`);
    expect(card.statusCode).toBe(200);
    expect(card.headers['content-type']).toBe('image/webp');
    expect((await sharp(card.rawPayload).metadata()).height).toBe(360);
    const covers = async () => Object.keys(await objects()).filter((f) => f.includes('.cover-'));
    const before = await covers();
    expect(before.some((f) => f.endsWith('/cover.png'))).toBe(true);
    expect(before.some((f) => f.endsWith('/cover.png.360h.webp'))).toBe(true);
    await t.lectern.services.admin.titles.setCover(book, await sharp(png).jpeg().toBuffer());
    const after = await covers();
    expect(after.some((f) => f.endsWith('/cover.jpg'))).toBe(true);
    expect(after.filter((f) => before.includes(f))).toEqual([]);
  });

  it('replaces a book’s edition: the new folder in, the old folder deleted from the bucket', async () => {
    const old = book;
    // the first edition's folder, as its rows name it (`<book_id>.<token>`)
    const { storage_path } = await t.lectern.db.kysely
      .selectFrom('resources as r')
      .innerJoin('titles as ti', 'ti.id', 'r.title_id')
      .select('r.storage_path')
      .where('ti.book_id', '=', old)
      .executeTakeFirstOrThrow();
    const oldFolder = storage_path.split('/')[0]!;
    const oldFiles = Object.keys(await objects()).filter((f) => f.startsWith(`${oldFolder}/`));
    expect(oldFiles.length).toBeGreaterThan(0);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-s3-edition-'));
    const file = path.join(dir, 'two-v2.epub');
    fs.writeFileSync(file, twoChapterBook());
    try {
      await t.lectern.services.importer.replacePath(file, old);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const now = Object.keys(await objects());
    expect(now.filter((f) => oldFiles.includes(f))).toEqual([]);
    expect(now.filter((f) => f.startsWith(`${oldFolder}/`))).toEqual([]);
    expect((await ada.get(`/api/v1/book/${old}/chapter/styles/book.css`)).statusCode).toBe(404);
  });
});
