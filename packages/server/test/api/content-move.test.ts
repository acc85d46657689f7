/**
 * `content:move` (services/content-move.ts, docs/operations.md "The content store"), on both engines: a library whose
 * files are in DATA_DIR/content is copied into an S3 bucket (s3rver, test/helpers/s3.ts), every file a row names
 * verified there; a server started on the same database with CONTENT_STORE pointing at the bucket then reads the
 * same bytes; and back again to a local folder. A file a row names that is not in the store is reported, not copied.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { ContentFilesRepository } from '../../src/repositories/content-files.ts';
import { ContentMoveService } from '../../src/services/content-move.ts';
import { LocalContentStore } from '../../src/storage/content-store.ts';
import { S3ContentStore } from '../../src/storage/s3-content-store.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { startS3, type TestS3 } from '../helpers/s3.ts';
import { hostileFilesEpub } from '../fixtures/hostile-files.ts';

let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(() => s3.close());

describe.each(ENGINES)('moving a library’s content on %s', (engine) => {
  let t: TestApp;
  let book: string;
  const scratch: string[] = [];
  const dir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-move-'));
    scratch.push(d);
    return d;
  };

  beforeAll(async () => {
    t = await startTestApp(engine);
    book = (await t.lectern.services.importer.importBytes(hostileFilesEpub(), 'hostile-files.epub')).book_id;
  });
  afterAll(async () => {
    await t.close();
    for (const d of scratch) fs.rmSync(d, { recursive: true, force: true });
  });

  it('copies every file a row names into the bucket, each verified', async () => {
    const named = await new ContentFilesRepository(t.lectern.db.kysely).storedPaths();
    expect(named.length).toBeGreaterThan(5);
    const settings = s3.settings(`move-${engine}`);
    const bucket = new S3ContentStore(settings, dir());
    const report = await t.lectern.services.contentMove.move(bucket);
    expect(report).toMatchObject({ from: path.join(t.dataDir, 'content'), to: `s3://${s3.bucket}/move-${engine}`, copied: named.length, missing: [], mismatched: [] });
    const local = new LocalContentStore(t.dataDir);
    expect(report.bytes).toBe(named.reduce((sum, p) => sum + fs.statSync(local.resolve(p)).size, 0));
    const inBucket: string[] = [];
    for await (const f of bucket.list()) inBucket.push(f.path);
    expect(inBucket.sort()).toEqual(named);
  });

  it('copies back to a local folder, and reports a named file the store does not have', async () => {
    const bucket = new S3ContentStore(s3.settings(`move-${engine}`), dir());
    const named = await new ContentFilesRepository(t.lectern.db.kysely).storedPaths();
    const missing = named[0]!;
    await bucket.client.send(new DeleteObjectCommand({ Bucket: bucket.bucket, Key: bucket.key(missing) }));
    const back = new LocalContentStore(dir());
    fs.mkdirSync(back.root, { recursive: true });
    const report = await new ContentMoveService(new ContentFilesRepository(t.lectern.db.kysely), bucket, path.join(dir(), 'tmp')).move(back);
    expect(report.missing).toContain(missing);
    expect(report.mismatched).toEqual([]);
    expect(report.copied).toBe(named.length - 1);
    const local = new LocalContentStore(t.dataDir);
    for (const p of named.slice(1)) expect(fs.readFileSync(back.resolve(p)).equals(fs.readFileSync(local.resolve(p))), p).toBe(true);
    // nothing is "moved" into the store it comes from
    await expect(t.lectern.services.contentMove.move(new LocalContentStore(t.dataDir))).rejects.toMatchObject({ status: 400 });
  });

  it('a server on the same database with CONTENT_STORE at the bucket serves the same bytes (after a move run again)', async () => {
    const settings = s3.settings(`move-${engine}`);
    const again = await t.lectern.services.contentMove.move(new S3ContentStore(settings, dir()));
    expect(again.missing).toEqual([]);
    // The database is untouched: only CONTENT_STORE changes. (PostgreSQL: a second server beside the first; SQLite
    // allows one server per DATA_DIR, so the first stops before the second starts.)
    const url = `/api/v1/book/${book}/chapter/styles/book.css`;
    const before = await new TestClient(t.lectern.app).get(url);
    expect(before.statusCode).toBe(200);
    if (engine === 'sqlite') await t.lectern.app.close();
    const { url: _url, ...s3Settings } = settings;
    const second = await buildApp(loadConfig({}, { ...t.lectern.config, dataDir: engine === 'sqlite' ? t.dataDir : dir(), contentStore: settings.url, s3: s3Settings }));
    try {
      const after = await new TestClient(second.app).get(url, { range: 'bytes=0-' });
      expect(after.statusCode).toBe(206);
      expect(after.rawPayload.equals(before.rawPayload)).toBe(true);
    } finally {
      await second.app.close();
    }
  });
});
