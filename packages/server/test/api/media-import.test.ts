/**
 * Importing video courses and audiobooks (the media contract) through the import service, on both engines, from
 * real files made by ffmpeg (test/fixtures/media): one title each, parts in natural order, a media_files row per
 * part with its playable file in the content store, lengths measured by ffprobe, a JPEG poster or cover, a preview
 * clip of MEDIA_PREVIEW_SECONDS; and hostile media, each refused whole with its reason.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEDIA_PREVIEW_SECONDS } from '@lectern/core';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/media');

function probeSeconds(file: string): number {
  return Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file]).toString().trim());
}

describe.each(ENGINES)('media import on %s', (engine) => {
  let t: TestApp;
  let dir: string;

  beforeAll(async () => {
    t = await startTestApp(engine);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-media-'));
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const k = () => t.lectern.db.kysely;
  const stored = (p: string) => path.join(t.dataDir, 'content', p);

  it('a single MP4 becomes one video title: its part stored, its length probed, a JPEG poster and a preview clip', async () => {
    const report = await t.lectern.services.importer.importPaths([path.join(FIXTURES, 'clip.mp4')], { topics: ['film'] });
    expect(report.failed).toEqual([]);
    expect(report.imported).toHaveLength(1);
    const { book_id } = report.imported[0]!;
    const title = await k().selectFrom('titles').selectAll().where('book_id', '=', book_id).executeTakeFirstOrThrow();
    expect(title.content_format).toBe('video');
    expect(title.source).toBe('video/mp4');
    expect(title.title).toBe('clip');
    expect(Number(title.duration_ms)).toBeGreaterThan(1900);
    expect(Number(title.duration_ms)).toBeLessThan(2200);
    expect(title.cover_media_type).toBe('image/jpeg');
    expect(fs.readFileSync(stored(title.cover_path!)).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    expect(title.preview_mime).toBe('video/mp4');
    // the clip is shorter than the preview's length: the preview is all of it
    expect(probeSeconds(stored(title.preview_path!))).toBeLessThanOrEqual(MEDIA_PREVIEW_SECONDS);
    expect(probeSeconds(stored(title.preview_path!))).toBeGreaterThan(1.5);

    const chapters = await k().selectFrom('chapters').selectAll().where('title_id', '=', title.id).orderBy('item_order').execute();
    expect(chapters.map((c) => [c.full_path, c.label, c.media_type, c.content, c.stylesheets])).toEqual([['01-clip.mp4', 'clip', 'video/mp4', '', '[]']]);
    const media = await k().selectFrom('media_files').selectAll().where('title_id', '=', title.id).execute();
    expect(media).toHaveLength(1);
    const m = media[0]!;
    expect(m.chapter_id).toBe(chapters[0]!.id);
    expect([m.mime, m.width, m.height, m.video_codec, m.audio_codec]).toEqual(['video/mp4', 160, 90, 'h264', 'aac']);
    expect(Number(m.duration_ms)).toBe(Number(title.duration_ms));
    const file = stored(m.storage_path);
    expect(Number(m.size)).toBe(fs.statSync(file).size);
    expect(Math.abs(probeSeconds(file) * 1000 - Number(m.duration_ms))).toBeLessThan(50);
    // the title's files live in its own folder of the content store, nothing staged is left
    expect(m.storage_path.startsWith(`${book_id}/`)).toBe(true);
    expect(fs.readdirSync(path.join(t.dataDir, 'content')).filter((f) => f.startsWith('.staging'))).toEqual([]);
    const topics = await k().selectFrom('title_topics').innerJoin('topics', 'topics.id', 'title_topics.topic_id').select('topics.slug').where('title_id', '=', title.id).execute();
    expect(topics.map((x) => x.slug)).toEqual(['film']);
  });

  it('a folder of numbered MP3s becomes one audiobook, its parts in natural order (9 before 10)', async () => {
    const folder = path.join(FIXTURES, 'audiobook');
    const report = await t.lectern.services.importer.importPaths([folder]);
    expect(report.failed).toEqual([]);
    expect(report.imported.map((i) => [i.title, i.chapters])).toEqual([['A Tiny Audiobook', 2]]);
    const title = await k().selectFrom('titles').selectAll().where('book_id', '=', report.imported[0]!.book_id).executeTakeFirstOrThrow();
    expect([title.content_format, title.source, title.preview_mime]).toEqual(['audiobook', 'audio/mpeg', 'audio/mpeg']);
    const chapters = await k().selectFrom('chapters').select(['id', 'full_path', 'label', 'media_type']).where('title_id', '=', title.id).orderBy('item_order').execute();
    expect(chapters.map((c) => [c.full_path, c.label, c.media_type])).toEqual([
      ['01-down-the-rabbit-hole.mp3', 'Down the Rabbit Hole', 'audio/mpeg'],
      ['02-the-pool-of-tears.mp3', 'The Pool of Tears', 'audio/mpeg'],
    ]);
    const media = await k().selectFrom('media_files').selectAll().where('title_id', '=', title.id).execute();
    const byChapter = new Map(media.map((m) => [m.chapter_id, m]));
    const sources = ['9 Down the Rabbit Hole.mp3', '10 The Pool of Tears.mp3'].map((f) => probeSeconds(path.join(folder, f)));
    chapters.forEach((c, i) => {
      const m = byChapter.get(c.id)!;
      expect([m.mime, m.audio_codec, m.video_codec, m.width]).toEqual(['audio/mpeg', 'mp3', null, null]);
      expect(Math.abs(Number(m.duration_ms) - sources[i]! * 1000)).toBeLessThan(100);
      expect(fs.existsSync(stored(m.storage_path))).toBe(true);
    });
    expect(Number(title.duration_ms)).toBe(media.reduce((n, m) => n + Number(m.duration_ms), 0));
    const authors = await k().selectFrom('title_authors').select('name').where('title_id', '=', title.id).execute();
    expect(authors.map((a) => a.name)).toEqual(['Lewis Carroll']);
  });

  it('refuses a text file named .mp4 whole, with the reason', async () => {
    const fake = path.join(dir, 'lecture.mp4');
    fs.writeFileSync(fake, 'This is not a video, only words in a file that says it is one.\n'.repeat(20));
    const before = await k().selectFrom('titles').select('id').execute();
    const report = await t.lectern.services.importer.importPaths([fake]);
    expect(report.imported).toEqual([]);
    expect(report.failed).toEqual([{ file: fake, reason: expect.stringMatching(/^lecture\.mp4 is not a media file that can be read/) }]);
    expect(await k().selectFrom('titles').select('id').execute()).toEqual(before);
  });
});
