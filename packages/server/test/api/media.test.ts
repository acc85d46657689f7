/**
 * Video courses and audiobooks as they are served (docs/decisions.md "Media import"), on both engines, with titles made
 * by the real importer from the committed fixtures (test/fixtures/media/: a one-part video, an audiobook folder of two
 * MP3s, a course folder of two MP4s with a WebVTT and an SRT transcript): the media chapter, the contents with each
 * part's length, the video session's rights (reader.md §6, §7), the stream's HTTP ranges (RFC 9110 §13-§14: first byte,
 * middle, suffix, open-ended, invalid, beyond the end, several, If-Range, HEAD), expired and foreign sessions, the
 * preview without a session, captions, media usage (reader.md §5) with a replay counted once, and media positions.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  blockResponseSchema,
  catalogSearchResponseSchema,
  inBookSearchResponseSchema,
  MEDIA_TIME_PARAM,
  bookDetailSchema,
  chapterContentSchema,
  MEDIA_SESSION_MESSAGES,
  MEDIA_SESSION_TTL_MS,
  mediaSessionSchema,
  MESSAGES,
  paths,
  READING_MESSAGES,
  searchPaths,
  tocResponseSchema,
  USAGE_MESSAGES,
} from '@lectern/core';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaService } from '../../src/services/media.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { twoChapterBook } from '../ingest/helpers.ts';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'media');
const PASSWORD = 'a long enough password';
const SECRET = 'test-secret-'.padEnd(40, 'x');

describe.each(ENGINES)('media serving on %s', (engine) => {
  let t: TestApp;
  let ada: TestClient;
  let bob: TestClient;
  let visitor: TestClient;
  let clip: string;
  let audiobook: string;
  let course: string;
  let book: string;
  let n = 0;

  const importOne = async (name: string) => {
    const report = await t.lectern.services.importer.importPaths([path.join(FIXTURES, name)]);
    expect(report.failed).toEqual([]);
    return report.imported[0]!.book_id;
  };
  const fileOf = async (bookId: string, fullPath: string) => {
    const row = await t.lectern.db.kysely
      .selectFrom('media_files as m')
      .innerJoin('chapters as c', 'c.id', 'm.chapter_id')
      .innerJoin('titles as ti', 'ti.id', 'c.title_id')
      .select('m.storage_path')
      .where('ti.book_id', '=', bookId)
      .where('c.full_path', '=', fullPath)
      .executeTakeFirstOrThrow();
    return fs.readFileSync(path.join(t.dataDir, 'content', row.storage_path));
  };
  const partsOf = async (bookId: string) => bookDetailSchema.parse((await ada.get(paths.bookApi(bookId))).json()).chapters.map((c) => c.full_path);
  /** A new signed-in account; `change` sets what the account's rows say (its trial's end, its team). */
  const account = async (status: 'trial' | 'subscriber' | 'expired' | 'cancelled', team?: string) => {
    n += 1;
    const email = `media-${n}@example.com`;
    const user = await t.lectern.services.accounts.createUser({ email, password: PASSWORD, status, ...(team ? { team } : {}) });
    const client = new TestClient(t.lectern.app);
    await client.login(email, PASSWORD);
    return { client, user };
  };
  const sessionOf = async (client: TestClient, bookId: string) => {
    const res = await client.get(paths.mediaSession(bookId));
    expect(res.statusCode, res.body).toBe(200);
    return mediaSessionSchema.parse(res.json()).ks;
  };
  const stream = (client: TestClient, bookId: string, fullPath: string, ks: string | null, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
    client.request(method, `${paths.mediaStream(bookId, fullPath)}${ks === null ? '' : `?ks=${encodeURIComponent(ks)}`}`, { headers });

  beforeAll(async () => {
    t = await startTestApp(engine);
    [ada, bob] = await signedInSubscribers(t.lectern, ['ada@example.com', 'bob@example.com']);
    visitor = new TestClient(t.lectern.app);
    clip = await importOne('clip.mp4');
    audiobook = await importOne('audiobook');
    course = await importOne('course');
    book = (await t.lectern.services.importer.importBytes(twoChapterBook(), 'two.epub')).book_id;
  });
  afterAll(() => t.close());

  it('a media chapter is the archive item with its media; the contents and the title give each part its length', async () => {
    const [first, second] = await partsOf(course);
    const res = await ada.get(paths.chapterApi(course, first!));
    expect(res.statusCode).toBe(200);
    const chapter = chapterContentSchema.parse(res.json());
    expect(chapter).toMatchObject({ format: 'video', source: 'video/mp4', next_chapter_uri: second });
    expect(chapter.media).toEqual({
      mime: 'video/mp4',
      duration_ms: expect.any(Number),
      width: 160,
      height: 90,
      description: null,
      captions_url: paths.mediaCaptions(course, first!),
      poster_url: paths.cover(course),
      src_path: paths.mediaStream(course, first!),
      preview_url: paths.mediaPreview(course),
    });
    expect(chapter.media!.duration_ms).toBeGreaterThan(3000);

    const [item] = blockResponseSchema.parse((await ada.post('/nest/epub/block/', { book_id: audiobook, hrefs: (await partsOf(audiobook))[0] })).json());
    expect(item!.format).toBe('audiobook');
    expect(item!.media).toMatchObject({ mime: 'audio/mpeg', width: null, captions_url: null, src_path: expect.stringMatching(/^\/api\/v1\/media\//) });

    const toc = tocResponseSchema.parse((await ada.get(`/nest/epub/toc/?book_id=${audiobook}`)).json());
    const detail = bookDetailSchema.parse((await ada.get(paths.bookApi(audiobook))).json());
    for (const entry of [...toc.chapters, ...detail.chapters]) {
      expect(entry.duration_ms).toBeGreaterThan(2000);
      expect(entry.minutes_required).toBeCloseTo(entry.duration_ms! / 60_000, 2);
    }
    // a book's chapter has no media, and its contents no lengths
    expect(chapterContentSchema.parse((await ada.get(paths.chapterApi(book, 'a.xhtml'))).json()).media ?? null).toBeNull();
    expect(tocResponseSchema.parse((await ada.get(`/nest/epub/toc/?book_id=${book}`)).json()).chapters[0]!.duration_ms).toBeUndefined();
  });

  it('gives the video session to readers with rights: 401 for a visitor, 403 for an expired trial or a cancelled account', async () => {
    const anonymous = await visitor.get(paths.mediaSession(clip));
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().detail).toBe(MESSAGES.userNotLoggedIn);

    const ended = await account('trial');
    await t.lectern.db.kysely.updateTable('users').set({ trial_ends_at: new Date(Date.now() - 60_000).toISOString() }).where('id', '=', ended.user.id).execute();
    t.lectern.services.auth.forgetUser(ended.user.id);
    const cancelled = await account('cancelled');
    const expired = await account('expired');
    for (const who of [ended, cancelled, expired]) {
      const res = await who.client.get(paths.mediaSession(clip));
      expect(res.statusCode).toBe(403);
      expect(res.json().detail).toBe(READING_MESSAGES.subscriptionEnded);
    }

    const trial = await account('trial');
    const member = await account('expired', 'The Media Circle');
    await t.lectern.db.kysely.updateTable('teams').set({ status: 'active' }).where('id', '=', member.user.team_id!).execute();
    t.lectern.services.auth.forgetUser(member.user.id);
    for (const who of [ada, trial.client, member.client]) {
      const before = Date.now();
      const res = await who.get(paths.mediaSession(clip));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['cache-control']).toBe('private, no-store');
      const session = mediaSessionSchema.parse(res.json());
      const ttl = Date.parse(session.expires_at) - before;
      expect(ttl).toBeGreaterThan(MEDIA_SESSION_TTL_MS - 60_000);
      expect(ttl).toBeLessThanOrEqual(MEDIA_SESSION_TTL_MS + 1000);
      // the session plays the part
      expect((await stream(who, clip, '01-clip.mp4', session.ks)).statusCode).toBe(200);
    }

    expect((await ada.get('/api/v1/player/kaltura_session/')).statusCode).toBe(400);
    const notMedia = await ada.get(paths.mediaSession(book));
    expect(notMedia.statusCode).toBe(404);
    expect(notMedia.json().detail).toBe(MEDIA_SESSION_MESSAGES.notMedia);
    expect((await ada.get(paths.mediaSession('no-such-title'))).statusCode).toBe(404);
  });

  it('streams a part whole with the headers of a book file, and its ranges: first byte, middle, suffix, open-ended', async () => {
    const ks = await sessionOf(ada, clip);
    const bytes = await fileOf(clip, '01-clip.mp4');
    const size = bytes.byteLength;
    const whole = await stream(ada, clip, '01-clip.mp4', ks);
    expect(whole.statusCode).toBe(200);
    expect(whole.rawPayload.equals(bytes)).toBe(true);
    expect(whole.headers).toMatchObject({
      'content-type': 'video/mp4',
      'content-length': String(size),
      'accept-ranges': 'bytes',
      'x-content-type-options': 'nosniff',
      'cache-control': 'private, max-age=3600',
    });
    expect(String(whole.headers['content-security-policy'])).toMatch(/^sandbox; /);
    expect(String(whole.headers.etag)).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(whole.headers['last-modified']).toBeTruthy();

    const ranged = async (range: string, status: number, from: number, to: number) => {
      const res = await stream(ada, clip, '01-clip.mp4', ks, { range });
      expect(res.statusCode, range).toBe(status);
      expect(res.headers['content-range'], range).toBe(`bytes ${from}-${to}/${size}`);
      expect(res.headers['content-length'], range).toBe(String(to - from + 1));
      expect(res.rawPayload.equals(bytes.subarray(from, to + 1)), range).toBe(true);
    };
    await ranged('bytes=0-0', 206, 0, 0);
    await ranged('bytes=100-1099', 206, 100, 1099);
    await ranged('bytes=-500', 206, size - 500, size - 1);
    await ranged(`bytes=${size - 10}-`, 206, size - 10, size - 1);
    // a last position past the end is the end; a suffix longer than the file is all of it (RFC 9110 §14.1.3)
    await ranged(`bytes=${size - 5}-${size + 1000}`, 206, size - 5, size - 1);
    await ranged(`bytes=-${size + 1000}`, 206, 0, size - 1);
  });

  it('answers a range beyond the end 416 with the size, ignores an invalid or multiple range (200 whole)', async () => {
    const ks = await sessionOf(ada, clip);
    const size = (await fileOf(clip, '01-clip.mp4')).byteLength;
    for (const range of [`bytes=${size}-`, `bytes=${size + 100}-${size + 200}`, 'bytes=-0']) {
      const res = await stream(ada, clip, '01-clip.mp4', ks, { range });
      expect(res.statusCode, range).toBe(416);
      expect(res.headers['content-range'], range).toBe(`bytes */${size}`);
      expect(String(res.headers['content-security-policy'])).toMatch(/^sandbox; /);
    }
    for (const range of ['bytes=abc', 'bytes=20-10', 'bytes=1-2-3', 'items=0-10', 'bytes=0-0,100-199', `bytes=0-1,-${size + 5000}`, `bytes=0-1,${size}-`, `bytes=${size}-,0-1`, 'bytes=0-9,5-19']) {
      const res = await stream(ada, clip, '01-clip.mp4', ks, { range });
      expect(res.statusCode, range).toBe(200);
      expect(res.headers['content-range'], range).toBeUndefined();
      expect(res.rawPayload.byteLength, range).toBe(size);
    }
  });

  it('keeps a range only while If-Range matches strongly (the tag, or the date), answers HEAD and If-None-Match', async () => {
    const ks = await sessionOf(ada, clip);
    const size = (await fileOf(clip, '01-clip.mp4')).byteLength;
    const head = await stream(ada, clip, '01-clip.mp4', ks, {}, 'HEAD');
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(size));
    expect(head.rawPayload.byteLength).toBe(0);
    const etag = String(head.headers.etag);
    const modified = String(head.headers['last-modified']);
    const headRange = await stream(ada, clip, '01-clip.mp4', ks, { range: 'bytes=0-99' }, 'HEAD');
    expect(headRange.statusCode).toBe(206);
    expect(headRange.headers['content-range']).toBe(`bytes 0-99/${size}`);

    const withIfRange = (ifRange: string) => stream(ada, clip, '01-clip.mp4', ks, { range: 'bytes=10-19', 'if-range': ifRange });
    expect((await withIfRange(etag)).statusCode).toBe(206);
    expect((await withIfRange(modified)).statusCode).toBe(206);
    for (const stale of ['"0-0"', `W/${etag}`, new Date(Date.parse(modified) - 3_600_000).toUTCString()]) {
      const res = await withIfRange(stale);
      expect(res.statusCode, stale).toBe(200);
      expect(res.rawPayload.byteLength, stale).toBe(size);
    }
    expect((await stream(ada, clip, '01-clip.mp4', ks, { 'if-none-match': etag })).statusCode).toBe(304);
    expect((await stream(ada, clip, '01-clip.mp4', ks, { 'if-none-match': '"other"' })).statusCode).toBe(200);
    expect((await stream(ada, clip, '01-clip.mp4', ks, { 'if-match': '"other"' })).statusCode).toBe(412);
  });

  it('refuses a missing, forged, expired or foreign session (another account, another title, no cookie, lapsed rights)', async () => {
    const ks = await sessionOf(ada, audiobook);
    const [part] = await partsOf(audiobook);
    const refused = async (res: LightMyRequestResponse, why: string) => {
      expect(res.statusCode, why).toBe(403);
      expect(res.json().detail, why).toBe(MEDIA_SESSION_MESSAGES.sessionInvalid);
    };
    expect((await stream(ada, audiobook, part!, ks)).statusCode).toBe(200);
    await refused(await stream(ada, audiobook, part!, null), 'no session');
    await refused(await stream(ada, audiobook, part!, `${ks.slice(0, -2)}xx`), 'forged');
    await refused(await stream(bob, audiobook, part!, ks), "another account's");
    await refused(await stream(visitor, audiobook, part!, ks), 'without the account’s cookie');
    await refused(await stream(ada, course, (await partsOf(course))[0]!, ks), "another title's");
    await refused(await stream(ada, audiobook, part!, await sessionOf(ada, clip)), "another title's");
    // made an hour and a minute ago: expired
    const past = new MediaService(SECRET, t.lectern.services.catalog, { partOf: async () => undefined, captionsOf: async () => null }, null, () => new Date(Date.now() - MEDIA_SESSION_TTL_MS - 60_000));
    const adaRow = await t.lectern.db.kysely.selectFrom('users').selectAll().where('email', '=', 'ada@example.com').executeTakeFirstOrThrow();
    const old = await past.session(adaRow, audiobook);
    await refused(await stream(ada, audiobook, part!, old.ks), 'expired');
    // the same clock an hour later would still take it: the signature is this server's
    expect(past.verify(old.ks, adaRow, audiobook)).toBe(true);

    // rights that lapse end the session at the next request
    const lapsing = await account('subscriber');
    const lapsingKs = await sessionOf(lapsing.client, audiobook);
    expect((await stream(lapsing.client, audiobook, part!, lapsingKs)).statusCode).toBe(200);
    await t.lectern.db.kysely.updateTable('users').set({ status: 'expired' }).where('id', '=', lapsing.user.id).execute();
    t.lectern.services.auth.forgetUser(lapsing.user.id);
    await refused(await stream(lapsing.client, audiobook, part!, lapsingKs), 'lapsed');
  });

  it('streams the preview clip to anyone, in ranges; sample and public parts without a session, never a one-part title whole', async () => {
    for (const bookId of [clip, audiobook]) {
      const res = await visitor.get(paths.mediaPreview(bookId));
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(bookId === clip ? /^video\/mp4/ : /^audio\/mpeg/);
      expect(res.headers['cache-control']).toBe('public, max-age=86400');
      expect(String(res.headers['content-security-policy'])).toMatch(/^sandbox; /);
      const size = res.rawPayload.byteLength;
      expect(size).toBeGreaterThan(1000);
      const part = await visitor.get(paths.mediaPreview(bookId), { range: 'bytes=-100' });
      expect(part.statusCode).toBe(206);
      expect(part.headers['content-range']).toBe(`bytes ${size - 100}-${size - 1}/${size}`);
      expect(part.rawPayload.equals(res.rawPayload.subarray(size - 100))).toBe(true);
    }
    expect((await visitor.get(paths.mediaPreview(book))).statusCode).toBe(404);

    const [one, two] = await partsOf(audiobook);
    await t.lectern.services.flags.set(audiobook, one!, { as_sample: true });
    await t.lectern.services.flags.set(audiobook, two!, { is_public: true });
    for (const p of [one!, two!]) {
      const res = await stream(visitor, audiobook, p, null, { range: 'bytes=0-9' });
      expect(res.statusCode, p).toBe(206);
      expect(res.rawPayload.equals((await fileOf(audiobook, p)).subarray(0, 10))).toBe(true);
    }
    await t.lectern.services.flags.set(audiobook, one!, { as_sample: false });
    await t.lectern.services.flags.set(audiobook, two!, { is_public: false });
    expect((await stream(visitor, audiobook, one!, null)).statusCode).toBe(403);
    // the only part of a title is its bounded sample: the preview stands for it
    await t.lectern.services.flags.set(clip, '01-clip.mp4', { as_sample: true });
    expect((await stream(visitor, clip, '01-clip.mp4', null)).statusCode).toBe(403);
    await t.lectern.services.flags.set(clip, '01-clip.mp4', { as_sample: false });
    expect((await stream(visitor, clip, 'no-such-part.mp4', null)).statusCode).toBe(404);
  });

  it('serves a part’s captions as WebVTT to whoever may play it (an SRT transcript converted)', async () => {
    const ks = await sessionOf(ada, course);
    for (const part of await partsOf(course)) {
      const url = paths.mediaCaptions(course, part);
      expect((await visitor.get(url)).statusCode).toBe(403);
      const res = await ada.get(`${url}?ks=${encodeURIComponent(ks)}`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/vtt; charset=utf-8');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.body.startsWith('WEBVTT')).toBe(true);
      expect(res.body).toMatch(/\d\d:\d\d\.\d\d\d --> /);
    }
    const [part] = await partsOf(audiobook);
    const none = await ada.get(`${paths.mediaCaptions(audiobook, part!)}?ks=${encodeURIComponent(await sessionOf(ada, audiobook))}`);
    expect(none.statusCode).toBe(404);
    expect(none.json().detail).toBe(MEDIA_SESSION_MESSAGES.noCaptions);
  });

  it('takes media usage by the video rules (start < end, span at most 50) and counts a replayed stretch once', async () => {
    const listener = (await account('subscriber')).client;
    const [part] = await partsOf(audiobook);
    const chapter = paths.chapterApi(audiobook, part!);
    let u = 0;
    const event = (start: number, end: number, product?: string) => ({
      chapter,
      start_percentage: start,
      end_percentage: end,
      client_timestamp: Date.now(),
      usage_uuid: `media-usage-${engine}-${++u}`,
      ...(product ? { product } : {}),
    });
    const sent = await listener.post('/api/v1/usage-event/', [
      event(40, 20, 'video'),
      event(10, 70, 'audio'),
      event(30, 30, 'audio'),
      // a media part follows the video rules whatever product the event names
      event(50, 45),
    ]);
    expect(sent.statusCode).toBe(200);
    expect(sent.json().accepted).toEqual([]);
    expect(sent.json().rejected.map((r: { reason: string }) => r.reason)).toEqual([
      'For video, start_percentage must be less than end_percentage.',
      'For video, the span must be at most 50.',
      'For video, start_percentage must be less than end_percentage.',
      'For video, start_percentage must be less than end_percentage.',
    ]);
    // the book rule's own words still hold for a book chapter
    const bookEvent = { ...event(30, 30), chapter: paths.chapterApi(book, 'a.xhtml') };
    expect((await listener.post('/api/v1/usage-event/', [bookEvent])).json().rejected[0].reason).toBe(USAGE_MESSAGES.positionUnchanged);

    const progress = async () => {
      const res = await listener.get(`${paths.chapterProgress(audiobook)}?page_size=50`);
      return res.json().results.find((r: { full_path: string }) => r.full_path === part).top_percentage as number;
    };
    const play = async (...spans: [number, number][]) => {
      const res = await listener.post('/api/v1/usage-event/', spans.map(([s, e]) => event(s, e, 'audio')));
      expect(res.json().rejected).toEqual([]);
      return progress();
    };
    expect(await play([0, 40])).toBe(40);
    expect(await play([0, 40], [0, 40])).toBe(40);
    expect(await play([30, 50])).toBe(50);
    // a jump ahead counts what was played there, not the furthest point
    expect(await play([80, 90])).toBe(60);
    expect(await play([85, 95], [10, 20])).toBe(65);
  });

  it('weighs each part of a title by its length in the title’s progress (cards, user_progress)', async () => {
    const { client } = await account('subscriber');
    const parts = bookDetailSchema.parse((await client.get(paths.bookApi(course))).json()).chapters;
    const second = parts[1]!;
    const res = await client.post('/api/v1/usage-event/', [0, 50].map((start, i) => ({
      chapter: paths.chapterApi(course, second.full_path),
      start_percentage: start,
      end_percentage: start + 50,
      client_timestamp: Date.now(),
      usage_uuid: `weigh-${engine}-${i}`,
      product: 'video',
    })));
    expect(res.json().rejected).toEqual([]);
    const total = parts.reduce((sum, p) => sum + p.duration_ms!, 0);
    const expected = Math.round((100 * second.duration_ms!) / total);
    expect(bookDetailSchema.parse((await client.get(paths.bookApi(course))).json()).progress).toBe(expected);
    const listed = await client.post('/api/v1/user_progress/', { urls: [paths.bookApi(course)] });
    expect(listed.statusCode, listed.body).toBe(200);
    expect(JSON.stringify(listed.json())).toContain(`"progress":${expected}`);
  });

  it("opens a search hit in a transcript at the second its words are said (the cue's start), in the catalog and in the title", async () => {
    const [first, second] = await partsOf(course);
    const timeOf = (webUrl: string) => new URL(webUrl, 'http://x').searchParams.get(MEDIA_TIME_PARAM);
    // 'lighthouses' is said in the first part's second cue (00:00:01.800), 'rocks' in the second part's (00:00:02,000)
    for (const [word, part, second_] of [['lighthouses', first, '1.8'], ['rocks', second, '2']] as const) {
      const found = catalogSearchResponseSchema.parse((await ada.get(`${searchPaths.catalog()}?q=${word}`)).json());
      const result = found.results.find((r) => r.metadata.identifier === course);
      expect(result, word).toBeDefined();
      const hit = result!.passages.find((p) => p.full_path === part);
      expect(hit, word).toBeDefined();
      expect(timeOf(hit!.web_url)).toBe(second_);
      const inBook = inBookSearchResponseSchema.parse((await ada.get(`${searchPaths.inBook()}?query=${word}&identifier=${course}&page=1`)).json());
      expect(inBook.results.map((r) => [r.full_path, timeOf(r.web_url)])).toEqual([[part, second_]]);
    }
    // a book's passage has no second
    const inBook = inBookSearchResponseSchema.parse((await ada.get(`${searchPaths.inBook()}?query=subscribers&identifier=${book}&page=1`)).json());
    expect(inBook.results.length).toBeGreaterThan(0);
    expect(inBook.results.every((r) => timeOf(r.web_url) === null)).toBe(true);
  });

  it('keeps a media position as a Locator whose progression is the share of the part’s length', async () => {
    const [, second] = await partsOf(course);
    const put = await ada.request('PUT', `/api/v1/book/${course}/position/`, { json: { locator: { href: second, progression: 0.25 } } });
    expect(put.statusCode, put.body).toBe(200);
    const got = (await ada.get(`/api/v1/book/${course}/position/`)).json();
    expect(got.position.locator).toEqual({ href: second, progression: 0.25 });
    // the title card continues at that part
    const detail = bookDetailSchema.parse((await ada.get(paths.bookApi(course))).json());
    expect(detail.continue_url).toBe(paths.reader(detail.title_safe, course, second));
  });
});
