/**
 * Importing video courses and audiobooks (the media contract) through the import service, on both engines, from
 * real files made by ffmpeg (test/fixtures/media): one title each, parts in natural order, a media_files row per
 * part with its playable file in the content store, lengths measured by ffprobe, a JPEG poster or cover, a preview
 * clip of MEDIA_PREVIEW_SECONDS; and hostile media, each refused whole with its reason.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSearchResponseSchema, MEDIA_PREVIEW_SECONDS, searchPaths } from '@lectern/core';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { minimalEpub3 } from '../ingest/helpers.ts';
import { forgetMediaTools, NO_MEDIA_TOOLS } from '../../src/ingest/media-tools.ts';
import { stopSpare } from '../../src/ingest/worker-host.ts';
import { multipart } from '../helpers/multipart.ts';

/** What is left of uploads: DATA_DIR/tmp and the import queue's upload area (services/import-jobs.ts; its name stays). */
const uploadsLeft = (dataDir: string) =>
  // this server's received files, and the uploads waiting in the content store (services/import-jobs.ts)
  ['tmp', 'content/.uploads'].flatMap((d) => (fs.existsSync(path.join(dataDir, d)) ? fs.readdirSync(path.join(dataDir, d)).filter((f) => f !== 'area') : []));
const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/media');

const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-nostdin', '-y', ...args]);

/** An M4B of three embedded chapters with cover art, made here by ffmpeg (about 6 s of tone). */
function makeM4b(dir: string): string {
  const meta = path.join(dir, 'chapters.txt');
  fs.writeFileSync(
    meta,
    [';FFMETADATA1', 'title=Three Tones', 'artist=Ada Tone', 'album=Three Tones', 'genre=Acoustics',
      ...[['0', '2000', 'Low'], ['2000', '4000', 'Middle'], ['4000', '6000', 'High']].flatMap(([start, end, title]) => ['[CHAPTER]', 'TIMEBASE=1/1000', `START=${start}`, `END=${end}`, `title=${title}`]),
    ].join('\n'),
  );
  const cover = path.join(dir, 'cover.jpg');
  ffmpeg('-f', 'lavfi', '-i', 'color=c=red:s=64x64', '-frames:v', '1', cover);
  const out = path.join(dir, 'three-tones.m4b');
  ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=300:duration=6', '-i', meta, '-i', cover, '-map', '0:a', '-map', '2:v', '-map_metadata', '1', '-map_chapters', '1',
    '-c:a', 'aac', '-b:a', '32k', '-c:v', 'mjpeg', '-disposition:v', 'attached_pic', '-f', 'mp4', out);
  return out;
}

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
    expect(title.title).toBe('Clip');
    expect(Number(title.duration_ms)).toBeGreaterThan(1900);
    expect(Number(title.duration_ms)).toBeLessThan(2200);
    expect(title.cover_media_type).toBe('image/jpeg');
    expect(fs.readFileSync(stored(title.cover_path!)).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    expect(title.preview_mime).toBe('video/mp4');
    // the clip is shorter than the preview's length: the preview is all of it
    expect(probeSeconds(stored(title.preview_path!))).toBeLessThanOrEqual(MEDIA_PREVIEW_SECONDS);
    expect(probeSeconds(stored(title.preview_path!))).toBeGreaterThan(1.5);

    const chapters = await k().selectFrom('chapters').selectAll().where('title_id', '=', title.id).orderBy('item_order').execute();
    expect(chapters.map((c) => [c.full_path, c.label, c.media_type, c.content, c.stylesheets])).toEqual([['01-clip.mp4', 'Clip', 'video/mp4', '', '[]']]);
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
    expect(m.storage_path.startsWith(`${book_id}.`)).toBe(true);
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

  it('a folder of numbered videos becomes one course; a transcript beside a part (WebVTT, or SRT converted) is its captions and its content, and search finds its words', async () => {
    const report = await t.lectern.services.importer.importPaths([path.join(FIXTURES, 'course')]);
    expect(report.failed).toEqual([]);
    expect(report.imported.map((i) => [i.title, i.chapters])).toEqual([['Course', 2]]);
    const title = await k().selectFrom('titles').selectAll().where('book_id', '=', report.imported[0]!.book_id).executeTakeFirstOrThrow();
    expect(title.content_format).toBe('video');
    const chapters = await k()
      .selectFrom('chapters')
      .innerJoin('media_files', 'media_files.chapter_id', 'chapters.id')
      .select(['full_path', 'label', 'content', 'text_length', 'captions_vtt'])
      .where('chapters.title_id', '=', title.id)
      .orderBy('item_order')
      .execute();
    expect(chapters.map((c) => [c.full_path, c.label])).toEqual([
      // the first file's own title tag, the second's name
      ['01-welcome.mp4', 'Welcome'],
      ['02-the-slides.mp4', 'The slides'],
    ]);
    // the cue's markup is gone, its text escaped; one paragraph per cue with its start in seconds
    expect(chapters[0]!.content).toBe('<p data-start="0.000">Welcome to the course.</p>\n<p data-start="1.800">Today we learn about lighthouses.</p>');
    expect(chapters[0]!.captions_vtt).toBe('WEBVTT\n\n1\n00:00:00.000 --> 00:00:01.800\nWelcome to the course.\n\n2\n00:00:01.800 --> 00:00:03.900\nToday we learn about lighthouses.\n');
    expect(chapters[0]!.text_length).toBe('Welcome to the course.Today we learn about lighthouses.'.length);
    // SRT becomes WebVTT
    expect(chapters[1]!.captions_vtt).toBe('WEBVTT\n\n1\n00:00:00.000 --> 00:00:02.000\nThe first slide shows a lamp.\n\n2\n00:00:02.000 --> 00:00:04.000\nThe second shows the sea &amp; the rocks.\n');
    expect(chapters[1]!.content).toContain('<p data-start="2.000">The second shows the sea &amp; the rocks.</p>');

    const [reader] = await signedInSubscribers(t.lectern, [`course-${engine}@example.com`]);
    const res = await reader.get(`${searchPaths.catalog()}?q=lighthouses`);
    expect(res.statusCode, res.body).toBe(200);
    const found = catalogSearchResponseSchema.parse(res.json());
    expect(found.results.map((r) => r.metadata.title)).toContain('Course');
  });

  it('an M4B with embedded chapters becomes one audiobook of one part per chapter, with its art as cover', async () => {
    const m4b = makeM4b(dir);
    const report = await t.lectern.services.importer.importPaths([m4b]);
    expect(report.failed).toEqual([]);
    expect(report.imported.map((i) => [i.title, i.chapters])).toEqual([['Three Tones', 3]]);
    const title = await k().selectFrom('titles').selectAll().where('book_id', '=', report.imported[0]!.book_id).executeTakeFirstOrThrow();
    expect([title.content_format, title.source, title.cover_media_type, title.preview_mime]).toEqual(['audiobook', 'audio/mp4', 'image/jpeg', 'audio/mp4']);
    const parts = await k()
      .selectFrom('chapters')
      .innerJoin('media_files', 'media_files.chapter_id', 'chapters.id')
      .select(['full_path', 'label', 'mime', 'duration_ms', 'storage_path'])
      .where('chapters.title_id', '=', title.id)
      .orderBy('item_order')
      .execute();
    expect(parts.map((p) => [p.full_path, p.label, p.mime])).toEqual([
      ['01-low.m4a', 'Low', 'audio/mp4'],
      ['02-middle.m4a', 'Middle', 'audio/mp4'],
      ['03-high.m4a', 'High', 'audio/mp4'],
    ]);
    for (const p of parts) {
      expect(Math.abs(Number(p.duration_ms) - 2000)).toBeLessThan(150);
      expect(Math.abs(probeSeconds(stored(p.storage_path)) * 1000 - Number(p.duration_ms))).toBeLessThan(50);
    }
    const authors = await k().selectFrom('title_authors').select('name').where('title_id', '=', title.id).execute();
    expect(authors.map((a) => a.name)).toEqual(['Ada Tone']);
  });

  it('a manifest names the parts, their titles, descriptions and transcripts, and the title\'s names', async () => {
    const folder = path.join(dir, 'lighthouse-course');
    fs.mkdirSync(path.join(folder, 'captions'), { recursive: true });
    fs.copyFileSync(path.join(FIXTURES, 'course', '2-the-slides.mp4'), path.join(folder, 'lamp.mp4'));
    fs.copyFileSync(path.join(FIXTURES, 'course', '1-welcome.mp4'), path.join(folder, 'intro.mp4'));
    fs.copyFileSync(path.join(FIXTURES, 'course', '2-the-slides.srt'), path.join(folder, 'captions', 'lamp.srt'));
    fs.writeFileSync(
      path.join(folder, 'lectern-media.json'),
      JSON.stringify({
        title: 'Keeping a Lighthouse',
        authors: ['Grace Darling'],
        description: 'Two short lessons on the lamp.',
        publisher: 'Harbour Press',
        topics: ['Maritime History'],
        language: 'en',
        parts: [
          { file: 'intro.mp4', title: 'Before the Lamp', description: 'Why a light <b>matters</b>.\n\nAnd who keeps it.' },
          { file: 'lamp.mp4', title: 'The Lamp Itself', transcript: 'captions/lamp.srt' },
        ],
      }),
    );
    const report = await t.lectern.services.importer.importPaths([folder]);
    expect(report.failed).toEqual([]);
    expect(report.imported.map((i) => [i.title, i.chapters])).toEqual([['Keeping a Lighthouse', 2]]);
    const title = await k().selectFrom('titles').selectAll().where('book_id', '=', report.imported[0]!.book_id).executeTakeFirstOrThrow();
    expect([title.description, title.language]).toEqual(['Two short lessons on the lamp.', 'en']);
    const parts = await k()
      .selectFrom('chapters')
      .innerJoin('media_files', 'media_files.chapter_id', 'chapters.id')
      .select(['full_path', 'label', 'description', 'captions_vtt'])
      .where('chapters.title_id', '=', title.id)
      .orderBy('item_order')
      .execute();
    expect(parts.map((p) => [p.full_path, p.label, p.description, p.captions_vtt?.slice(0, 6) ?? null])).toEqual([
      ['01-before-the-lamp.mp4', 'Before the Lamp', '<p>Why a light &lt;b&gt;matters&lt;/b&gt;.</p>\n<p>And who keeps it.</p>', null],
      ['02-the-lamp-itself.mp4', 'The Lamp Itself', null, 'WEBVTT'],
    ]);
    const names = async (table: 'publishers' | 'topics') =>
      (await k().selectFrom(`title_${table}` as 'title_topics').innerJoin(table as 'topics', `${table}.id` as 'topics.id', `title_${table}.${table.slice(0, -1)}_id` as 'title_topics.topic_id').select(`${table}.name` as 'topics.name').where('title_id', '=', title.id).execute()).map((r) => r.name);
    expect(await names('publishers')).toEqual(['Harbour Press']);
    expect(await names('topics')).toEqual(['Maritime History']);
    const authors = await k().selectFrom('title_authors').select('name').where('title_id', '=', title.id).execute();
    expect(authors.map((a) => a.name)).toEqual(['Grace Darling']);
  });

  it('the admin upload takes media: a folder sent as "folder/name" is one title with its transcripts, a loose file another, a book beside them a book', async () => {
    await t.lectern.services.accounts.createUser({ email: `media-admin-${engine}@example.com`, password: 'a long enough password', status: 'subscriber', role: 'admin' });
    const admin = new TestClient(t.lectern.app);
    await admin.login(`media-admin-${engine}@example.com`, 'a long enough password');
    const course = (name: string) => fs.readFileSync(path.join(FIXTURES, 'course', name));
    // the same course as the folder test above would be refused as already in the library: the WebVTT is changed
    const res = await admin.request(
      'POST',
      '/api/v1/admin/import/',
      multipart([
        { name: 'Uploaded Course/1-welcome.mp4', data: course('1-welcome.mp4') },
        { name: 'Uploaded Course/1-welcome.vtt', data: Buffer.from(course('1-welcome.vtt').toString().replace('Welcome', 'Hello')) },
        { name: 'Uploaded Course/2-the-slides.mp4', data: course('2-the-slides.mp4') },
        { name: 'speech.m4a', data: fs.readFileSync(path.join(FIXTURES, 'speech.m4a')) },
        // a loose file's transcript goes by its name too
        { name: 'speech.srt', data: Buffer.from('1\n00:00:00,000 --> 00:00:02,000\nA few spoken words.\n') },
        { name: 'small.epub', data: minimalEpub3() },
      ]),
    );
    expect(res.statusCode, res.body).toBe(201);
    const report = res.json<{ imported: { book_id: string; title: string; chapters: number }[]; failed: unknown[] }>();
    expect(report.failed).toEqual([]);
    expect(report.imported.map((i) => [i.title, i.chapters]).sort()).toEqual([
      ['A Small Book', 3],
      ['Speech', 1],
      ['Uploaded Course', 2],
    ]);
    const rows = await k().selectFrom('titles').select(['title', 'content_format', 'origin']).where('book_id', 'in', report.imported.map((i) => i.book_id)).orderBy('title').execute();
    expect(rows.filter((r) => r.content_format !== 'book')).toEqual([
      { title: 'Speech', content_format: 'audiobook', origin: 'upload speech.m4a' },
      { title: 'Uploaded Course', content_format: 'video', origin: 'upload Uploaded Course' },
    ]);
    const captions = await k()
      .selectFrom('media_files')
      .innerJoin('titles', 'titles.id', 'media_files.title_id')
      .select('captions_vtt')
      .where('titles.title', '=', 'Uploaded Course')
      .execute();
    expect(captions.map((c) => c.captions_vtt?.includes('Hello to the course.') ?? null).sort()).toEqual([null, true]);
    const speech = await k().selectFrom('chapters').innerJoin('titles', 'titles.id', 'chapters.title_id').select('content').where('titles.title', '=', 'Speech').executeTakeFirstOrThrow();
    expect(speech.content).toBe('<p data-start="0.000">A few spoken words.</p>');
    // nothing of the upload is left in DATA_DIR/tmp
    expect(uploadsLeft(t.dataDir)).toEqual([]);

    // an upload whose manifest names a file outside it is refused whole, with the reason
    const escaping = await admin.request(
      'POST',
      '/api/v1/admin/import/',
      multipart([
        { name: 'lectern-media.json', data: Buffer.from(JSON.stringify({ title: 'Out', parts: [{ file: 'a.mp4' }, { file: '../../etc/passwd' }] })) },
        { name: 'a.mp4', data: fs.readFileSync(path.join(FIXTURES, 'clip.mp4')) },
      ]),
    );
    expect(escaping.statusCode).toBe(400);
    expect(escaping.json()).toMatchObject({
      failed: [{ file: 'the upload', reason: 'lectern-media.json: parts[1].file "../../etc/passwd" is outside the folder: a manifest may name only files inside its own folder' }],
    });
  });

  it('without ffmpeg, media import says so and books import as before', async () => {
    const book = path.join(dir, 'plain.epub');
    // not the upload test's book: a zip made in the same second has the same bytes and is refused as already in the library
    fs.writeFileSync(book, minimalEpub3({ 'OEBPS/without-ffmpeg.txt': 'a book of its own' }));
    const clip = path.join(FIXTURES, 'clip.webm');
    const savedPath = process.env.PATH;
    process.env.PATH = path.join(dir, 'no-tools-here');
    forgetMediaTools();
    try {
      const report = await t.lectern.services.importer.importPaths([clip, book]);
      expect(report.failed).toEqual([{ file: clip, reason: NO_MEDIA_TOOLS }]);
      expect(report.imported).toHaveLength(1);
    } finally {
      process.env.PATH = savedPath;
      forgetMediaTools();
      // the spare worker started meanwhile has the PATH without the tools
      stopSpare();
    }
    expect(NO_MEDIA_TOOLS).toBe("media import needs ffmpeg and ffprobe (Debian's ffmpeg package), which are not installed on this server");
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

describe.each(ENGINES)('media conversion and hostile media on %s', (engine) => {
  let t: TestApp;
  let dir: string;

  beforeAll(async () => {
    t = await startTestApp(engine);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-media-hostile-'));
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const k = () => t.lectern.db.kysely;
  const titleCount = async () => (await k().selectFrom('titles').select('id').execute()).length;
  /** Nothing of a refused import is left: no rows, no staged or stored files, no ffmpeg still at work on it. */
  const nothingLeft = async (titlesBefore: number) => {
    expect(await titleCount()).toBe(titlesBefore);
    expect(await k().selectFrom('media_files').select('chapter_id').where('title_id', 'not in', k().selectFrom('titles').select('id')).execute()).toEqual([]);
    const content = path.join(t.dataDir, 'content');
    // a title's folder is its book id and a token (services/import.ts newTitleFolder); the upload area is no title's
    const stored = (await k().selectFrom('titles').select('book_id').execute()).map((r) => r.book_id);
    expect(fs.existsSync(content) ? fs.readdirSync(content).filter((f) => f !== '.uploads' && !stored.some((id) => f.startsWith(`${id}.`))) : []).toEqual([]);
    await expect.poll(() => processesWorkingIn(t.dataDir)).toEqual([]);
  };

  it('converts what browsers cannot play: MKV, AVI and WebM to H.264/AAC MP4, FLAC and WMA to AAC M4A', async () => {
    const src = (name: string) => path.join(dir, name);
    ffmpeg('-f', 'lavfi', '-i', 'testsrc=s=160x90:r=10:d=2', '-f', 'lavfi', '-i', 'sine=d=2', '-c:v', 'mpeg4', '-c:a', 'libmp3lame', src('talk.mkv'));
    ffmpeg('-f', 'lavfi', '-i', 'testsrc=s=160x90:r=10:d=2', '-f', 'lavfi', '-i', 'sine=d=2', '-c:v', 'mjpeg', '-c:a', 'pcm_s16le', src('lab.avi'));
    fs.copyFileSync(path.join(FIXTURES, 'clip.webm'), src('demo.webm'));
    ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=500:d=2', '-c:a', 'flac', src('tone.flac'));
    ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=700:d=2', '-c:a', 'wmav2', '-f', 'asf', src('voice.wma'));
    const files = ['talk.mkv', 'lab.avi', 'demo.webm', 'tone.flac', 'voice.wma'].map(src);
    const report = await t.lectern.services.importer.importPaths(files);
    expect(report.failed).toEqual([]);
    expect(report.imported.map((i) => i.warnings)).toEqual([
      ['talk.mkv was converted to MP4 (H.264/AAC), which browsers play'],
      ['lab.avi was converted to MP4 (H.264/AAC), which browsers play'],
      ['demo.webm was converted to MP4 (H.264/AAC), which browsers play'],
      ['tone.flac was converted to M4A (AAC), which browsers play'],
      ['voice.wma was converted to M4A (AAC), which browsers play'],
    ]);
    const rows = await k()
      .selectFrom('titles')
      .innerJoin('media_files', 'media_files.title_id', 'titles.id')
      .select(['titles.title', 'content_format', 'mime', 'video_codec', 'audio_codec', 'media_files.duration_ms', 'storage_path'])
      .where('book_id', 'in', report.imported.map((i) => i.book_id))
      .orderBy('titles.id')
      .execute();
    expect(rows.map((r) => [r.title, r.content_format, r.mime, r.video_codec, r.audio_codec])).toEqual([
      ['Talk', 'video', 'video/mp4', 'h264', 'aac'],
      ['Lab', 'video', 'video/mp4', 'h264', 'aac'],
      ['Demo', 'video', 'video/mp4', 'h264', 'aac'],
      ['Tone', 'audiobook', 'audio/mp4', null, 'aac'],
      ['Voice', 'audiobook', 'audio/mp4', null, 'aac'],
    ]);
    for (const r of rows) {
      expect(Math.abs(Number(r.duration_ms) - 2000)).toBeLessThan(200);
      expect(r.storage_path).toMatch(/\.(mp4|m4a)$/);
    }
  });

  it('refuses a file cut short (its moov box at the end, or its packets shorter than it says), whole and with the reason', async () => {
    const before = await titleCount();
    // moov at the end (no faststart), cut in half: nothing says what the file holds
    const tail = path.join(dir, 'moov-at-end.mp4');
    ffmpeg('-f', 'lavfi', '-i', 'testsrc=s=160x90:r=10:d=4', '-c:v', 'libx264', '-preset', 'ultrafast', '-f', 'mp4', tail);
    fs.writeFileSync(path.join(dir, 'cut-end.mp4'), fs.readFileSync(tail).subarray(0, Math.floor(fs.statSync(tail).size / 2)));
    // a part of a course that says it is 2.5 s long but holds half of that: the whole course is refused
    const course = path.join(dir, 'cut-course');
    fs.mkdirSync(course);
    fs.copyFileSync(path.join(FIXTURES, 'audiobook', '9 Down the Rabbit Hole.mp3'), path.join(course, '1 good.mp3'));
    const mp3 = fs.readFileSync(path.join(FIXTURES, 'audiobook', '10 The Pool of Tears.mp3'));
    fs.writeFileSync(path.join(course, '2 cut.mp3'), mp3.subarray(0, Math.floor(mp3.length / 2)));
    const report = await t.lectern.services.importer.importPaths([path.join(dir, 'cut-end.mp4'), course]);
    expect(report.imported).toEqual([]);
    expect(report.failed).toEqual([
      { file: path.join(dir, 'cut-end.mp4'), reason: expect.stringMatching(/^cut-end\.mp4 is not a media file that can be read, or is damaged or cut short \(.*moov atom not found/) },
      { file: course, reason: expect.stringMatching(/^2 cut\.mp3 says it lasts 0:02 but holds only 0:01 of sound and pictures: it is damaged, cut short or lies about its length$/) },
    ]);
    await nothingLeft(before);
  });

  it('refuses a file that declares a huge length its packets do not have', async () => {
    const before = await titleCount();
    const data = Buffer.from(fs.readFileSync(path.join(FIXTURES, 'clip.mp4')));
    const mvhd = data.indexOf('mvhd');
    expect(data[mvhd + 4]).toBe(0); // version 0: timescale at +16, duration at +20
    data.writeUInt32BE(0x7fffffff, mvhd + 20); // about 596 hours at 1/1000 s
    const huge = path.join(dir, 'forever.mp4');
    fs.writeFileSync(huge, data);
    const report = await t.lectern.services.importer.importPaths([huge]);
    expect(report.imported).toEqual([]);
    expect(report.failed).toEqual([{ file: huge, reason: 'forever.mp4 says it lasts 596:31:24 but holds only 0:02 of sound and pictures: it is damaged, cut short or lies about its length' }]);
    await nothingLeft(before);
  });

  it('refuses a manifest naming a path outside its folder, whole, with the reason (its good parts are not imported)', async () => {
    const before = await titleCount();
    const folder = path.join(dir, 'escaping');
    fs.mkdirSync(folder);
    fs.copyFileSync(path.join(FIXTURES, 'clip.mp4'), path.join(folder, 'one.mp4'));
    fs.copyFileSync(path.join(FIXTURES, 'clip.mp4'), path.join(dir, 'outside.mp4'));
    fs.writeFileSync(path.join(folder, 'lectern-media.json'), JSON.stringify({ title: 'Escape', parts: [{ file: 'one.mp4' }, { file: '../outside.mp4' }] }));
    const linked = path.join(dir, 'linking');
    fs.mkdirSync(linked);
    fs.symlinkSync(path.join(dir, 'outside.mp4'), path.join(linked, 'link.mp4'));
    fs.writeFileSync(path.join(linked, 'lectern-media.json'), JSON.stringify({ parts: [{ file: 'link.mp4', transcript: '/etc/passwd.vtt' }] }));
    const report = await t.lectern.services.importer.importPaths([folder, linked]);
    expect(report.imported).toEqual([]);
    expect(report.failed).toEqual([
      { file: folder, reason: 'lectern-media.json: parts[1].file "../outside.mp4" is outside the folder: a manifest may name only files inside its own folder' },
      { file: linked, reason: 'lectern-media.json: parts[0].file "link.mp4" is outside the folder: a manifest may name only files inside its own folder' },
    ]);
    await nothingLeft(before);
  });

  it("refuses a title whose files together pass what one import may write, whole and before copying any of them", async () => {
    const clip = path.join(FIXTURES, 'clip.mp4');
    const size = fs.statSync(clip).size;
    // each part is far under the limit for one file; six of them pass the written-bytes budget (two, with what the
    // worker writes of them: their copies, a preview clip, a poster, fit in it)
    const small = await startTestApp(engine, { imports: { ...t.lectern.services.importer.limits, maxWrittenBytes: 5 * size } });
    try {
      const folder = path.join(dir, 'too-much');
      fs.mkdirSync(folder);
      const names = ['a.mp4', 'b.mp4', 'c.mp4', 'd.mp4', 'e.mp4', 'f.mp4'];
      for (const name of names) fs.copyFileSync(clip, path.join(folder, name));
      fs.writeFileSync(path.join(folder, 'lectern-media.json'), JSON.stringify({ title: 'Too Much', parts: names.map((file) => ({ file })) }));
      // the copies would be made in DATA_DIR/tmp: its folder is not touched at all (no copy made and removed)
      const tmp = path.join(small.dataDir, 'tmp');
      fs.mkdirSync(tmp, { recursive: true });
      const tmpBefore = fs.statSync(tmp).mtimeMs;
      const report = await small.lectern.services.importer.importPaths([folder]);
      expect(report.imported).toEqual([]);
      expect(report.failed).toEqual([
        { file: folder, reason: expect.stringMatching(/^the title's files come to \d+ MB, more than the \d+ MB one import may write \(IMPORT_MAX_WRITTEN_MB\)$/) },
      ]);
      expect(fs.statSync(tmp).mtimeMs).toBe(tmpBefore);
      expect(fs.readdirSync(tmp)).toEqual([]);
      expect((await small.lectern.db.kysely.selectFrom('titles').select('id').execute()).length).toBe(0);
      expect(fs.existsSync(path.join(small.dataDir, 'content')) ? fs.readdirSync(path.join(small.dataDir, 'content')) : []).toEqual([]);
      // two of them fit: the same parts import
      fs.writeFileSync(path.join(folder, 'lectern-media.json'), JSON.stringify({ title: 'Enough', parts: [{ file: 'a.mp4' }, { file: 'b.mp4' }] }));
      const fits = await small.lectern.services.importer.importPaths([folder]);
      expect(fits.failed).toEqual([]);
      expect(fits.imported.map((i) => [i.title, i.chapters])).toEqual([['Enough', 2]]);
    } finally {
      await small.close();
    }
  });

  it('refuses a conversion that would take longer than the import time limit, and stops ffmpeg', async () => {
    const slow = await startTestApp(engine, { imports: { ...t.lectern.services.importer.limits, timeoutMs: 2_000 } });
    try {
      const long = path.join(dir, 'long.avi');
      ffmpeg('-f', 'lavfi', '-i', 'testsrc2=s=640x360:r=30:d=120', '-c:v', 'mpeg4', '-q:v', '20', long);
      const report = await slow.lectern.services.importer.importPaths([long]);
      expect(report.imported).toEqual([]);
      expect(report.failed).toEqual([{ file: long, reason: expect.stringMatching(/limit for one import \(IMPORT_TIMEOUT_SECONDS\)$/) }]);
      expect((await slow.lectern.db.kysely.selectFrom('titles').select('id').execute()).length).toBe(0);
      await expect.poll(() => processesWorkingIn(slow.dataDir)).toEqual([]);
      expect(fs.readdirSync(path.join(slow.dataDir, 'content'))).toEqual([]);
    } finally {
      await slow.close();
    }
  });
});

describe.each(ENGINES)('media import memory bound on %s', (engine) => {
  it("counts ffmpeg's memory against the import's bound: a conversion past it is stopped and refused whole", async () => {
    const MB = 1024 * 1024;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-media-memory-'));
    // x264 holds a few hundred MB for full-HD frames: far above a 200 MB bound, which the worker alone stays under
    const t = await startTestApp(engine, { imports: { maxFileBytes: 200 * MB, maxUploadBytes: 200 * MB, maxWrittenBytes: 400 * MB, maxMemoryBytes: 200 * MB, timeoutMs: 120_000 } });
    try {
      const big = path.join(dir, 'full-hd.avi');
      ffmpeg('-f', 'lavfi', '-i', 'testsrc2=s=1920x1080:r=25:d=4', '-c:v', 'mpeg4', '-q:v', '10', big);
      const report = await t.lectern.services.importer.importPaths([big]);
      expect(report.imported).toEqual([]);
      expect(report.failed).toEqual([{ file: big, reason: 'the import needed more than 200 MB of memory, the limit for one import (IMPORT_MAX_MEMORY_MB)' }]);
      expect(t.lectern.services.importer.lastRun?.stopped).toBe('memory');
      await expect.poll(() => processesWorkingIn(t.dataDir)).toEqual([]);
      expect(fs.readdirSync(path.join(t.dataDir, 'content'))).toEqual([]);
    } finally {
      await t.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('media import from the command line', () => {
  it('stops ffmpeg when the command is killed in the middle of a conversion', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-media-cli-'));
    const src = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-media-cli-src-'));
    try {
      const long = path.join(src, 'long.avi');
      ffmpeg('-f', 'lavfi', '-i', 'testsrc2=s=1280x720:r=25:d=40', '-c:v', 'mpeg4', '-q:v', '20', long);
      const root = path.resolve(import.meta.dirname, '../../../..');
      const cli = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/cli/main.ts', 'import', long], {
        cwd: root,
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent' },
        stdio: 'ignore',
      });
      const exited = new Promise((resolve) => cli.once('exit', resolve));
      // the conversion has begun: ffmpeg writes into the data folder
      await expect.poll(() => processesWorkingIn(dataDir).some((p) => p.includes('libx264')), { timeout: 60_000, interval: 100 }).toBe(true);
      cli.kill('SIGKILL');
      await exited;
      await expect.poll(() => processesWorkingIn(dataDir), { timeout: 5_000 }).toEqual([]);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
      fs.rmSync(src, { recursive: true, force: true });
    }
  });
});

/** Processes (ffmpeg, ffprobe) whose command line names a file below `dir`. */
function processesWorkingIn(dir: string): string[] {
  const found: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmd.includes(dir) && /ff(mpeg|probe)/.test(cmd)) found.push(cmd.slice(0, 400));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
