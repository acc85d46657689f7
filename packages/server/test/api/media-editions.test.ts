/**
 * The media players' last parts on the server (docs/decisions.md "Media players: support, `?t=` in the app, leaving a
 * part, new editions"), on both engines: where the video-failure page points (SUPPORT_EMAIL, GET
 * /api/v1/player/support/); the admin upload's 20 files per request (a folder of parts) with a clear 400 beyond and
 * nothing imported; and a new edition of a media title (`?replace=` and `import --replace`), which keeps its book id,
 * the rows of parts still in it, readers' positions and playlists, as a book's new edition does.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ADMIN_MESSAGES, bookDetailSchema, catalogSearchResponseSchema, importReportSchema, mediaSessionSchema, mediaSupportSchema, paths, searchPaths } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { minimalEpub3 } from '../ingest/helpers.ts';
import { multipart } from '../helpers/multipart.ts';

/** What is left of uploads: DATA_DIR/tmp and the import queue's upload area (services/import-jobs.ts; its name stays). */
const uploadsLeft = (dataDir: string) =>
  // this server's received files, and the uploads waiting in the content store (services/import-jobs.ts)
  ['tmp', 'content/.uploads'].flatMap((d) => (fs.existsSync(path.join(dataDir, d)) ? fs.readdirSync(path.join(dataDir, d)).filter((f) => f !== 'area') : []));
const PASSWORD = 'a long enough password';
const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/media');
const fixture = (...p: string[]) => fs.readFileSync(path.join(FIXTURES, ...p));
const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../../../..');

describe('SUPPORT_EMAIL', () => {
  it('is an email address or unset', () => {
    expect(loadConfig({ SUPPORT_EMAIL: 'help@library.example' }).supportEmail).toBe('help@library.example');
    expect(loadConfig({}).supportEmail).toBeNull();
    expect(loadConfig({ SUPPORT_EMAIL: '' }).supportEmail).toBeNull();
    expect(() => loadConfig({ SUPPORT_EMAIL: 'not an address' })).toThrow(ConfigError);
    expect(() => loadConfig({ SUPPORT_EMAIL: 'not an address' })).toThrow(/SUPPORT_EMAIL must be an email address/);
  });
});

describe.each(ENGINES)('media leftovers on %s', (engine) => {
  let t: TestApp;
  let bare: TestApp;
  let admin: TestClient;

  beforeAll(async () => {
    [t, bare] = await Promise.all([startTestApp(engine, { supportEmail: 'help@library.example' }), startTestApp(engine)]);
    await t.lectern.services.accounts.createUser({ email: 'admin@example.com', password: PASSWORD, status: 'subscriber', role: 'admin' });
    admin = new TestClient(t.lectern.app);
    await admin.login('admin@example.com', PASSWORD);
  });
  afterAll(async () => {
    await Promise.all([t?.close(), bare?.close()]);
  });

  it('tells anyone where the video-failure page points: the support address, or null when none is set', async () => {
    const visitor = new TestClient(t.lectern.app);
    const res = await visitor.get(paths.mediaSupport());
    expect(res.statusCode).toBe(200);
    expect(mediaSupportSchema.parse(res.json())).toEqual({ support_email: 'help@library.example' });
    const none = await new TestClient(bare.lectern.app).get(paths.mediaSupport());
    expect(none.json()).toEqual({ support_email: null });
  });

  it('takes at most 20 files in one upload: the 21st is a 400 naming file, and nothing is imported', async () => {
    const titles = async () => (await t.lectern.db.kysely.selectFrom('titles').select('id').execute()).length;
    const before = await titles();
    // 21 different small books (each its own bytes): 20 of them would import
    const files = Array.from({ length: 21 }, (_, i) => ({ name: `book-${i}.epub`, data: minimalEpub3({ [`OEBPS/extra-${i}.txt`]: `book ${i}` }) }));
    const res = await admin.request('POST', '/api/v1/admin/import/', multipart(files));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ detail: ADMIN_MESSAGES.tooManyFiles(20), errors: { file: [ADMIN_MESSAGES.tooManyFiles(20)] } });
    expect(await titles()).toBe(before);
    expect(uploadsLeft(t.dataDir)).toEqual([]);
    // 20 is the limit, not past it: all 20 are read (one book, the 19 copies refused as already in, no worker each)
    const same = { name: 'one.epub', data: minimalEpub3({ 'OEBPS/one.txt': 'the one book' }) };
    const twenty = await admin.request('POST', '/api/v1/admin/import/', multipart(Array.from({ length: 20 }, (_, i) => ({ ...same, name: `copy-${i}.epub` }))));
    expect(twenty.statusCode, twenty.body).toBe(201);
    const report = importReportSchema.parse(twenty.json());
    expect([report.imported.length, report.failed.length]).toEqual([1, 19]);
  });

  it('gives a video course a new edition (?replace= with its parts): same book id, kept parts keep their rows, positions, queue and progress', async () => {
    const k = t.lectern.db.kysely;
    const first = await admin.request(
      'POST',
      '/api/v1/admin/import/',
      multipart([
        { name: 'Lighthouse Course/1-welcome.mp4', data: fixture('course', '1-welcome.mp4') },
        { name: 'Lighthouse Course/1-welcome.vtt', data: fixture('course', '1-welcome.vtt') },
        { name: 'Lighthouse Course/2-the-slides.mp4', data: fixture('course', '2-the-slides.mp4') },
      ]),
    );
    expect(first.statusCode, first.body).toBe(201);
    const bookId = importReportSchema.parse(first.json()).imported[0]!.book_id;
    const [reader] = await signedInSubscribers(t.lectern, [`course-reader-${engine}@example.com`]);
    const detail = async () => bookDetailSchema.parse((await reader.get(paths.bookApi(bookId))).json());
    const [welcome, slides] = (await detail()).chapters.map((c) => c.full_path) as [string, string];
    const rows = async () => {
      const title = await k.selectFrom('titles').select(['id', 'preview_path', 'cover_path', 'duration_ms']).where('book_id', '=', bookId).executeTakeFirstOrThrow();
      const chapters = await k.selectFrom('chapters').select(['id', 'full_path']).where('title_id', '=', title.id).orderBy('item_order').execute();
      const media = await k.selectFrom('media_files').select(['chapter_id', 'storage_path', 'captions_vtt']).where('title_id', '=', title.id).execute();
      return { title, chapters, media };
    };
    const before = await rows();

    // what the reader leaves in the first edition: a position in the second part, the title and a part queued,
    // half of the first part played
    expect((await reader.request('PUT', `/api/v1/book/${bookId}/position/`, { json: { locator: { href: slides, progression: 0.4 } } })).statusCode).toBe(200);
    expect((await reader.request('POST', '/api/v1/queue-simple/', { json: [paths.bookApi(bookId), paths.chapterApi(bookId, welcome)] })).statusCode).toBe(200);
    const played = await reader.post('/api/v1/usage-event/', [
      { chapter: paths.chapterApi(bookId, welcome), start_percentage: 0, end_percentage: 50, client_timestamp: Date.now(), usage_uuid: `edition-${engine}`, product: 'video' },
    ]);
    expect(played.json().rejected).toEqual([]);
    const progress = async () => (await reader.get(`${paths.chapterProgress(bookId)}?page_size=50`)).json().results.map((r: { full_path: string; top_percentage: number }) => [r.full_path, r.top_percentage]);
    const progressBefore = await progress();
    // read (and so cached) before the new edition: the caches must not serve the old part after it
    const session = mediaSessionSchema.parse((await reader.get(paths.mediaSession(bookId))).json()).ks;
    expect((await reader.get(`${paths.mediaStream(bookId, welcome)}?ks=${encodeURIComponent(session)}`)).statusCode).toBe(200);

    // the new edition: the first part's transcript corrected, a third part added
    const second = await admin.request(
      'POST',
      `/api/v1/admin/import/?replace=${encodeURIComponent(bookId)}`,
      multipart([
        { name: 'Lighthouse Course/1-welcome.mp4', data: fixture('course', '1-welcome.mp4') },
        { name: 'Lighthouse Course/1-welcome.vtt', data: Buffer.from(fixture('course', '1-welcome.vtt').toString().replace('Welcome to the course.', 'Welcome to the corrected quincunx course.')) },
        { name: 'Lighthouse Course/2-the-slides.mp4', data: fixture('course', '2-the-slides.mp4') },
        { name: 'Lighthouse Course/3-clip.mp4', data: fixture('clip.mp4') },
      ]),
    );
    expect(second.statusCode, second.body).toBe(200);
    const report = importReportSchema.parse(second.json());
    expect(report.imported).toHaveLength(1);
    expect(report.imported[0]).toMatchObject({ book_id: bookId, chapters: 3, replaced: { kept: 2, added: 1, removed: [] } });

    const after = await rows();
    expect(after.title.id).toBe(before.title.id);
    expect(after.chapters.slice(0, 2)).toEqual(before.chapters);
    expect(after.chapters).toHaveLength(3);
    // every part has its file, in the new edition's folder; the old edition's files are gone
    expect(after.media.map((m) => m.chapter_id).sort()).toEqual(after.chapters.map((c) => c.id).sort());
    const folders = new Set(after.media.map((m) => m.storage_path.split('/')[0]));
    expect(folders.size).toBe(1);
    expect([...folders][0]).toMatch(new RegExp(`^${bookId}\\.`));
    for (const m of after.media) expect(fs.existsSync(path.join(t.dataDir, 'content', m.storage_path))).toBe(true);
    for (const m of before.media) expect(fs.existsSync(path.join(t.dataDir, 'content', m.storage_path))).toBe(false);
    expect(fs.existsSync(path.join(t.dataDir, 'content', before.title.preview_path!))).toBe(false);
    expect(after.title.preview_path!.startsWith([...folders][0]!)).toBe(true);
    expect(Number(after.title.duration_ms)).toBeGreaterThan(Number(before.title.duration_ms));
    expect(after.media.find((m) => m.chapter_id === before.chapters[0]!.id)!.captions_vtt).toContain('corrected quincunx course');

    // what the reader left is still theirs
    expect((await reader.get(`/api/v1/book/${bookId}/position/`)).json().position.locator).toEqual({ href: slides, progression: 0.4 });
    const queue = (await reader.get('/api/v1/queue-simple/')).json().results.map((r: { url: string }) => r.url);
    expect(queue).toEqual([paths.bookApi(bookId), paths.chapterApi(bookId, welcome)]);
    expect(await progress()).toEqual(expect.arrayContaining(progressBefore));
    // the new part plays (the stream of the new file, not the cached old one), the new words are found
    expect((await detail()).chapters.map((c) => c.full_path).slice(0, 2)).toEqual([welcome, slides]);
    const stream = await reader.get(`${paths.mediaStream(bookId, welcome)}?ks=${encodeURIComponent(session)}`);
    expect(stream.statusCode).toBe(200);
    const newFile = after.media.find((m) => m.chapter_id === before.chapters[0]!.id)!.storage_path;
    expect(Number(stream.headers['content-length'])).toBe(fs.statSync(path.join(t.dataDir, 'content', newFile)).size);
    const found = catalogSearchResponseSchema.parse((await reader.get(`${searchPaths.catalog()}?q=quincunx`)).json()).results.map((r) => r.metadata.book_id);
    expect(found).toContain(bookId);

    // what cannot replace it changes nothing: an audiobook, a book, the same files again
    const unchanged = await rows();
    const audio = await admin.request('POST', `/api/v1/admin/import/?replace=${encodeURIComponent(bookId)}`, multipart([{ name: 'speech.mp3', data: fixture('speech.mp3') }]));
    expect(audio.statusCode).toBe(400);
    expect(audio.json().detail).toMatch(/is a video course; an audiobook cannot replace it$/);
    const epub = await admin.request('POST', `/api/v1/admin/import/?replace=${encodeURIComponent(bookId)}`, multipart([{ name: 'x.epub', data: minimalEpub3() }]));
    expect(epub.statusCode).toBe(400);
    expect(epub.json().detail).toMatch(/is a video course: x\.epub is not one of its media files/);
    expect(await rows()).toEqual(unchanged);
    expect(fs.readdirSync(path.join(t.dataDir, 'content')).filter((f) => f.startsWith(bookId))).toEqual([[...folders][0]]);
    expect(uploadsLeft(t.dataDir)).toEqual([]);
  });
});

describe('import --replace of a media title on the command line', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-cli-media-replace-'));
  const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' };
  const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'packages/server/src/cli/main.ts', ...args], { cwd: root, env });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('replaces an audiobook from its new folder, keeping its book id and the parts still in it', async () => {
    const folder = path.join(dataDir, 'A Tiny Audiobook');
    fs.cpSync(path.join(FIXTURES, 'audiobook'), folder, { recursive: true });
    const out = await cli('import', folder);
    const bookId = /imported\s+(\S+)/.exec(out.stdout)![1]!;
    // the new edition: the second part re-encoded (other bytes), a third part added
    fs.copyFileSync(path.join(FIXTURES, 'speech.mp3'), path.join(folder, '11 A Mad Tea-Party.mp3'));
    const replaced = await cli('import', folder, '--replace', bookId);
    expect(replaced.stdout).toContain(`replaced  ${bookId}  "A Tiny Audiobook"  3 chapters (2 kept, 1 new, 0 removed)`);
    // a book cannot be the new edition of an audiobook
    fs.writeFileSync(path.join(dataDir, 'x.epub'), minimalEpub3());
    const book = await cli('import', path.join(dataDir, 'x.epub'), '--replace', bookId).catch((e) => e);
    expect(book.code).toBe(1);
    expect(book.stdout).toMatch(/is an audiobook; a book cannot replace it/);
    expect(book.stdout).toContain('nothing changed');
  });
});
