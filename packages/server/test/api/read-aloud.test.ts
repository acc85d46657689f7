/**
 * Read aloud (docs/decisions.md "Read aloud") through the real importer (the worker process) on both engines: the
 * media-overlay fixture of test/fixtures/read-aloud.ts is imported; the reader gets each chapter's overlay as
 * `media_overlay` (ours) on the archive item and the chapter, with the book's audio at its served address, served as
 * audio and seekable (ranges); a chapter without an overlay has none; a re-import without overlays takes them away.
 */
import { blockResponseSchema, chapterContentSchema } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { hostileOverlayEpub, PHRASES, READ_ALOUD_TITLE, readAloudEpub } from '../fixtures/read-aloud.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { unzipSync, zipSync } from 'fflate';

describe.each(ENGINES)('read aloud on %s', (engine) => {
  let t: TestApp;
  let ada: TestClient;
  let bookId: string;

  beforeAll(async () => {
    t = await startTestApp(engine);
    [ada] = await signedInSubscribers(t.lectern, ['ada@example.com']);
    const imported = await t.lectern.services.importer.importBytes(readAloudEpub(), 'read-aloud.epub');
    expect(imported.title).toBe(READ_ALOUD_TITLE);
    bookId = imported.book_id;
  });
  afterAll(() => t.close());

  it('gives the reader each chapter’s phrases with the book’s own audio', async () => {
    const res = await ada!.post('/nest/epub/block/', { book_id: bookId, hrefs: ['text/one.xhtml', 'text/two.xhtml', 'text/three.xhtml'] });
    expect(res.statusCode).toBe(200);
    const [one, two, three] = blockResponseSchema.parse(res.json());
    const audioOne = `/api/v1/book/${bookId}/chapter/audio/one.wav`;
    expect(one!.media_overlay).toEqual({
      active_class: '-epub-media-overlay-active',
      playback_active_class: '-epub-media-overlay-playing',
      audio: [audioOne],
      clips: PHRASES['text/one.xhtml'].map((fragment, i) => ({ fragment, audio: 0, begin: i, end: i + 1 })),
    });
    expect(two!.media_overlay!.clips.map((c) => c.fragment)).toEqual([...PHRASES['text/two.xhtml']]);
    expect(two!.media_overlay!.clips[0]!.skippable).toBe('pagebreak');
    // a table cell: skippable, and escaping past the table, which the reader names
    expect(two!.media_overlay!.clips[2]).toMatchObject({ fragment: 'cell-1', skippable: 'table', escape_to: 6, escape_from: 'table' });
    expect(three!.media_overlay).toBeNull();

    const chapter = chapterContentSchema.parse((await ada!.get(`/api/v1/book/${bookId}/chapter/text/one.xhtml`)).json());
    expect(chapter.media_overlay?.audio).toEqual([audioOne]);
    // the phrases' ids are on the chapter as stored
    for (const id of PHRASES['text/one.xhtml']) expect(chapter.content).toContain(`id="${id}"`);
  });

  it('serves the audio as audio, under the book files’ sandbox, and in ranges (the player seeks to each clip)', async () => {
    const url = `/api/v1/book/${bookId}/chapter/audio/two.wav`;
    const whole = await ada!.get(url);
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-type']).toMatch(/^audio\/wav/);
    expect(String(whole.headers['content-security-policy'])).toMatch(/^sandbox; .*media-src 'self'/);
    const part = await t.lectern.app.inject({ method: 'GET', url, headers: { range: 'bytes=44-99', cookie: [...ada!.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    expect(part.statusCode).toBe(206);
    expect(part.rawPayload.byteLength).toBe(56);
  });

  it('keeps nothing of a hostile overlay but the phrases of the book itself', async () => {
    const imported = await t.lectern.services.importer.importBytes(hostileOverlayEpub(50), 'hostile-overlay.epub');
    const [one] = blockResponseSchema.parse((await ada!.post('/nest/epub/block/', { book_id: imported.book_id, hrefs: 'text/one.xhtml' })).json());
    expect(one!.media_overlay!.clips.map((c) => c.fragment)).toEqual(['one-3', 'one-4']);
    expect(one!.media_overlay!.audio).toEqual([`/api/v1/book/${imported.book_id}/chapter/audio/one.wav`]);
    expect(imported.warnings.join('\n')).toMatch(/play what is not an audio file of the book's manifest/);
  });

  it('a new edition without overlays takes the old ones away (the chapter rows are kept)', async () => {
    const files = unzipSync(readAloudEpub());
    files['OEBPS/content.opf'] = new TextEncoder().encode(new TextDecoder().decode(files['OEBPS/content.opf']).replace(/ media-overlay="[^"]*"/g, ''));
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-read-aloud-'));
    const file = path.join(folder, 'plain.epub');
    fs.writeFileSync(file, zipSync(files));
    try {
      const report = await t.lectern.services.importer.replaceFile(file, 'plain.epub', bookId);
      expect(report.replaced.kept).toBe(3);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
    const [one] = blockResponseSchema.parse((await ada!.post('/nest/epub/block/', { book_id: bookId, hrefs: 'text/one.xhtml' })).json());
    expect(one!.media_overlay).toBeNull();
  });
});
