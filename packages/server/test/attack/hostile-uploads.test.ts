/**
 * The attack suite's hostile books and media (docs/decisions.md "The attack suite: hostile uploads…"), on both
 * engines, through the real upload routes: the operators' import (POST /api/v1/admin/import/) and a title's cover (PUT /api/v1/admin/titles/{id}/cover/). Readers
 * upload nothing (their only bodies are JSON; route-table.ts marks every multipart route). Each file of the hostile
 * corpus (test/fixtures/hostile.ts) gets either
 * - a 4xx whose detail names the file and the reason, with nothing changed: no table but the two a refusal writes on
 *   purpose (the audit entry, the import job's reason: route-table.ts), nothing new in the content store, nothing
 *   left in DATA_DIR's upload and staging folders; or
 * - an import whose SERVED result is harmless: every chapter's markup, read as the reader's browser reads it
 *   (fixtures/xss/inspect.ts), runs nothing and leaves nothing; every file of the book goes with the sandboxing CSP
 *   and nosniff and never as a type the app's origin would run; captions as WebVTT with nosniff; no answer holds
 *   /etc/passwd or an entity's expansion; no symbolic link and no climbing name reaches the disk.
 * Never a 5xx, and the import ends within the shipped bounds (its worker's peak memory under the memory bound).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { paths } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOOK_FILE_CSP, isInertSvg } from '../../src/plugins/book-files.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { multipart } from '../helpers/multipart.ts';
import { ESCAPE_MARK, HOSTILE_UPLOADS, type HostileUpload } from '../fixtures/hostile.ts';
import { inspect } from '../fixtures/xss/inspect.ts';
import { epubBook, minimalEpub3 } from '../ingest/helpers.ts';
import { changed, snapshot } from './world.ts';
import { ROUTE_TABLE } from './route-table.ts';

/** The machine's own first line of /etc/passwd: in no answer, whatever entity or link named the file. */
const PASSWD_LINE = fs.readFileSync('/etc/passwd', 'utf8').split('\n')[0]!;
/** What an expanded billion-laughs entity leaves. */
const LAUGHTER = 'lol'.repeat(100);
/** Types the app's origin would run or render as a document (an SVG only when it is inert: book-files.ts). */
const RUNNABLE = /^(text\/html|application\/xhtml|text\/xml|application\/xml|application\/xslt|[a-z-]+\/(x-)?(java|ecma)script|image\/svg\+xml)/i;

/**
 * A DOCTYPE entity that would hide markup, a reference or a script link from a check that leaves entities alone (a
 * browser's XML parser expands them): an SVG holding one is never served as an image, whatever book-files.ts says.
 */
const HIDDEN_IN_ENTITIES = /<!ENTITY[^>]*(&#|<|SYSTEM|PUBLIC|%|javascript:)/i;

/** Every file below a folder, with whether it is a symbolic link (lstat: links are not followed). */
function walk(dir: string): { file: string; link: boolean }[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const file = path.join(dir, e.name);
    if (e.isSymbolicLink()) return [{ file, link: true }];
    return e.isDirectory() ? walk(file) : [{ file, link: false }];
  });
}

describe.each(ENGINES)('hostile uploads on %s', (engine) => {
  let t: TestApp;
  let admin: TestClient;
  let reader: TestClient;
  let coverTarget: string;
  const content = () => path.join(t.dataDir, 'content');
  /** What DATA_DIR holds besides the tables: the content store's folders, staging, the import queue's upload area. */
  const disk = () => ({
    // the upload area (`.uploads`, its `area` name) is made at the first upload and stays; an upload must not
    content: fs.readdirSync(content()).filter((f) => f !== '.uploads').sort(),
    uploads: fs.existsSync(path.join(content(), '.uploads')) ? fs.readdirSync(path.join(content(), '.uploads')).filter((f) => f !== 'area').sort() : [],
    tmp: fs.existsSync(path.join(t.dataDir, 'tmp')) ? fs.readdirSync(path.join(t.dataDir, 'tmp')) : [],
    jobs: fs.existsSync(path.join(t.dataDir, 'import-jobs')) ? fs.readdirSync(path.join(t.dataDir, 'import-jobs')).filter((f) => f !== 'area') : [],
  });
  const refusalWrites = [...ROUTE_TABLE['POST /api/v1/admin/import/']!.refusalWrites!.tables];

  const send = (upload: HostileUpload, files: { name: string; data: Uint8Array }[]) =>
    upload.route === 'import'
      ? admin.request('POST', '/api/v1/admin/import/', multipart(files))
      : admin.request('PUT', `/api/v1/admin/titles/${encodeURIComponent(coverTarget)}/cover/`, multipart(files));

  /** What is wrong with what the server serves of an imported title, to a subscriber. */
  async function servedProblems(bookId: string): Promise<string[]> {
    const problems: string[] = [];
    const look = (what: string, res: { statusCode: number; body: string }) => {
      if (res.statusCode >= 500) problems.push(`${what}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      if (res.body.includes(PASSWD_LINE)) problems.push(`${what}: holds /etc/passwd`);
      if (res.body.includes(LAUGHTER)) problems.push(`${what}: holds an expanded entity`);
    };
    const detail = await reader.get(paths.bookApi(bookId));
    look('the title', detail);
    expect(detail.statusCode, detail.body).toBe(200);
    look('the contents', await reader.get(`/nest/epub/toc/?book_id=${encodeURIComponent(bookId)}`));
    for (const chapter of detail.json().chapters as { full_path: string; url: string }[]) {
      const res = await reader.get(chapter.url);
      look(chapter.full_path, res);
      const html = res.statusCode === 200 && String(res.headers['content-type']).startsWith('application/json') ? res.json().content : null;
      if (typeof html === 'string') for (const p of inspect(html, false, bookId)) problems.push(`${chapter.full_path}: ${p}`);
    }
    const k = t.lectern.db.kysely;
    const title = await k.selectFrom('titles').select('id').where('book_id', '=', bookId).executeTakeFirstOrThrow();
    const files = await k.selectFrom('resources').select(['full_path']).where('title_id', '=', title.id).execute();
    // ?download=1: the file itself (a PDF document's file is also its chapter, whose plain address answers JSON)
    const served = [...files.map((f) => ({ what: f.full_path, url: `${paths.chapterApi(bookId, f.full_path)}?download=1` })), { what: 'the cover', url: paths.cover(bookId) }];
    for (const file of served) {
      const res = await reader.get(file.url);
      look(file.what, res);
      if (res.statusCode !== 200) continue;
      const type = String(res.headers['content-type']);
      if (res.headers['content-security-policy'] !== BOOK_FILE_CSP) problems.push(`${file.what}: no sandboxing CSP (${res.headers['content-security-policy']})`);
      if (res.headers['x-content-type-options'] !== 'nosniff') problems.push(`${file.what}: no nosniff`);
      if (RUNNABLE.test(type) && !(type.startsWith('image/svg+xml') && isInertSvg(res.body) && !HIDDEN_IN_ENTITIES.test(res.body))) problems.push(`${file.what}: served as ${type}`);
    }
    // a media part's captions, with the session a reader gets to play it
    const parts = await k.selectFrom('media_files').innerJoin('chapters', 'chapters.id', 'media_files.chapter_id').select(['chapters.full_path', 'media_files.captions_vtt']).where('media_files.title_id', '=', title.id).execute();
    if (parts.some((p) => p.captions_vtt !== null)) {
      const session = await reader.get(paths.mediaSession(bookId));
      expect(session.statusCode, session.body).toBe(200);
      for (const part of parts.filter((p) => p.captions_vtt !== null)) {
        const res = await reader.get(`${paths.mediaCaptions(bookId, part.full_path)}?ks=${encodeURIComponent(session.json().ks)}`);
        look(`${part.full_path} captions`, res);
        if (res.headers['content-type'] !== 'text/vtt; charset=utf-8') problems.push(`${part.full_path} captions: served as ${res.headers['content-type']}`);
        if (res.headers['x-content-type-options'] !== 'nosniff') problems.push(`${part.full_path} captions: no nosniff`);
      }
    }
    return problems;
  }

  beforeAll(async () => {
    // the shipped import bounds: they are what must hold
    t = await startTestApp(engine);
    await t.lectern.services.accounts.createUser({ email: 'admin@example.com', password: 'a long enough password', status: 'subscriber', role: 'admin' });
    admin = new TestClient(t.lectern.app);
    await admin.login('admin@example.com', 'a long enough password');
    [reader] = await signedInSubscribers(t.lectern, ['reader@example.com']);
    // a title to put covers on, so that "nothing changed" is checked against a library that has something in it
    coverTarget = (await t.lectern.services.importer.importBytes(minimalEpub3(), 'small.epub')).book_id;
  });
  afterAll(() => t.close());

  it.each(HOSTILE_UPLOADS.map((u) => [u.name, u] as const))('%s', async (_name, upload) => {
    const files = await upload.files();
    const before = { tables: await snapshot({ t }), disk: disk() };
    const res = await send(upload, files);
    const shown = `${res.statusCode} ${res.body.slice(0, 400)}`;
    expect(res.statusCode, shown).toBeLessThan(500);
    const refused = res.statusCode >= 400;
    if (upload.outcome === 'refused') expect(refused, shown).toBe(true);
    if (upload.outcome === 'imported') expect(res.statusCode, shown).toBeLessThan(300);
    const run = t.lectern.services.importer.lastRun;
    if (upload.route === 'import' && run) expect(run.peakRssBytes, 'the import worker’s peak memory').toBeLessThan(t.lectern.config.imports.maxMemoryBytes);
    if (refused) {
      const detail = String(res.json().detail ?? '');
      expect(detail.length, shown).toBeGreaterThan(10);
      // it names the file (or one of the upload's), and nothing of the server's own folders
      if (upload.route === 'import') expect(files.some((f) => detail.includes(path.posix.basename(f.name))), `${detail} names the file`).toBe(true);
      expect(detail).not.toContain(t.dataDir);
      if (upload.reason) expect(detail).toMatch(upload.reason);
      const tables = changed(before.tables, await snapshot({ t })).filter((n) => !(upload.route === 'import' && refusalWrites.includes(n)));
      expect(tables, 'tables a refusal changed').toEqual([]);
      expect(disk()).toEqual(before.disk);
    } else {
      expect(disk().tmp).toEqual([]);
      expect(disk().jobs).toEqual([]);
      // what the upload refused beside what it imported says why in words of its own, not the server's folders
      for (const f of (res.json().failed ?? []) as { reason: string }[]) expect(f.reason).not.toContain(t.dataDir);
      const imported = upload.route === 'import' ? (res.json().imported as { book_id: string }[]).map((b) => b.book_id) : [coverTarget];
      expect(imported.length).toBeGreaterThan(0);
      for (const bookId of imported) expect(await servedProblems(bookId), bookId).toEqual([]);
    }
    // nothing of a book is a symbolic link on disk, and no climbing name left the content store
    expect(walk(content()).filter((f) => f.link)).toEqual([]);
    expect(walk(t.dataDir).filter((f) => f.file.includes(ESCAPE_MARK) && !f.file.startsWith(content() + path.sep))).toEqual([]);
    expect(fs.readdirSync(os.tmpdir()).filter((n) => n.includes(ESCAPE_MARK))).toEqual([]);
    expect(fs.readdirSync(path.dirname(t.dataDir)).filter((n) => n.includes(ESCAPE_MARK))).toEqual([]);
  }, 180_000);

  it('still imports a good book after all of them', async () => {
    const res = await admin.request('POST', '/api/v1/admin/import/', multipart([{ name: 'good.epub', data: epubBook({ identifier: 'urn:uuid:0b5e55ed-0000-4000-8000-0000000af7e2', title: 'After the Corpus', chapters: [{ path: 'one.xhtml', label: 'One', body: '<p>Still here.</p>' }] }) }]));
    expect(res.statusCode, res.body).toBe(201);
  });
});
