/**
 * What an attacker found on both engines: identical adds at once (500 on PostgreSQL), NUL characters anywhere in
 * the input (500 on PostgreSQL), malformed values that reached the database or a Date and came back as 500s.
 * Every malformed input is a 400 that names the field; nothing is a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NUL_MESSAGE } from '../../src/plugins/input-guard.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, type TestClient } from '../helpers/client.ts';
import { hostileFilesEpub } from '../fixtures/hostile-files.ts';

describe.each(ENGINES)('hardening on %s', (engine) => {
  let t: TestApp;
  let ada: TestClient;
  let bookId: string;
  let bookUrl: string;

  beforeAll(async () => {
    t = await startTestApp(engine);
    bookId = (await t.lectern.services.importer.importBytes(hostileFilesEpub(), 'book.epub')).book_id;
    bookUrl = `/api/v1/book/${bookId}/`;
    [ada] = await signedInSubscribers(t.lectern, ['ada@example.com']);
  });
  afterAll(() => t.close());

  it('adds to the queue idempotently: 20 identical requests at once all succeed, one item results', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => ada.post('/api/v1/queue-simple/', [bookUrl])));
    expect(results.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    expect((await ada.get('/api/v1/queue-simple/')).json().results).toHaveLength(1);
  });

  it('adds to a playlist idempotently: 20 identical requests at once all succeed, one item results', async () => {
    const created = await ada.post('/api/v2/collections/', { name: 'Race', description: '' });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    const results = await Promise.all(Array.from({ length: 20 }, () => ada.post(`/api/v2/collections/${id}/add-content/`, { content: [bookUrl] })));
    expect(results.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    const playlist = (await ada.get(`/api/v2/collections/${id}/`)).json();
    expect(playlist.content).toHaveLength(1);
  });

  it('drops a usage event whose client_timestamp no Date can hold, naming the field (was a 500)', async () => {
    const chapter = `/api/v1/book/${bookId}/chapter/text/chapter.xhtml`;
    const base = { chapter, start_percentage: 0, end_percentage: 40 };
    const res = await ada.post('/api/v1/usage-event/', {
      events: [
        { ...base, client_timestamp: 1e21, usage_uuid: 'far-future' },
        { ...base, client_timestamp: -8.64e15 - 1, usage_uuid: 'far-past' },
        { ...base, client_timestamp: '+275760-09-13T00:00:00.001Z', usage_uuid: 'too-late' },
        { ...base, client_timestamp: Date.now(), usage_uuid: 'fine' },
      ],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().accepted).toEqual(['fine']);
    expect(res.json().rejected.map((r: { usage_uuid: string; reason: string }) => [r.usage_uuid, r.reason])).toEqual([
      ['far-future', 'client_timestamp must be a time.'],
      ['far-past', 'client_timestamp must be a time.'],
      ['too-late', 'client_timestamp must be a time.'],
    ]);
  });

  it('stores percentages too small for PostgreSQL\'s real (found by the fuzz test: was a 500)', async () => {
    const chapter = `/api/v1/book/${bookId}/chapter/text/chapter.xhtml`;
    const res = await ada.post('/api/v1/usage-event/', {
      events: [
        { chapter, start_percentage: 5e-324, end_percentage: 50, client_timestamp: Date.now(), usage_uuid: 'denormal' },
        { chapter, start_percentage: 1e-40, end_percentage: 60.123456789, client_timestamp: Date.now(), usage_uuid: 'tiny' },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().accepted).toEqual(['denormal', 'tiny']);
    const progress = (await ada.get(`/api/v1/book/${bookId}/chapter-progress/`)).json().results;
    expect(progress[0].top_percentage).toBeCloseTo(60.1235, 3);
  });

  it('refuses a control character in the sign-in form\'s next with a 400 naming it (was a 500), and encodes the rest', async () => {
    const form = (next: string) =>
      ada.request('POST', '/login/', {
        payload: new URLSearchParams({ email: 'ada@example.com', password: 'a long enough password', next }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    for (const next of ['/library/\nSet-Cookie: x=1', '/a\rb', '/\t/evil.example']) {
      const res = await form(next);
      expect(res.statusCode, JSON.stringify(next)).toBe(400);
      expect(Object.keys(res.json().errors)).toEqual(['next']);
    }
    const unicode = await form('/library/caf\u00e9 \u{1f600}');
    expect(unicode.statusCode).toBe(303);
    expect(unicode.headers.location).toBe('/library/caf%C3%A9%20%F0%9F%98%80');
    expect((await form('//evil.example/')).headers.location).toBe('/library/');
  });

  describe('a NUL character is a 400 naming the field, wherever it is', () => {
    const NUL = '\u0000';
    const cases: { name: string; method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: () => string; json?: () => unknown; field: string }[] = [
      { name: 'book id in the path', method: 'GET', url: () => `/api/v1/book/a%00b/`, field: 'bookId' },
      { name: 'cover book id', method: 'GET', url: () => `/api/v1/book/a%00b/cover`, field: 'bookId' },
      { name: 'chapter path', method: 'GET', url: () => `/api/v1/book/${bookId}/chapter/text/a%00.xhtml`, field: 'path' },
      { name: 'chapter progress book id', method: 'GET', url: () => `/api/v1/book/a%00/chapter-progress/`, field: 'bookId' },
      { name: 'topic slug', method: 'GET', url: () => `/api/v1/topics/a%00/`, field: 'slug' },
      { name: 'publisher slug', method: 'GET', url: () => `/api/v1/publishers/a%00/`, field: 'slug' },
      { name: 'book list topic', method: 'GET', url: () => `/api/v1/book/?topic=a%00`, field: 'topic' },
      { name: 'toc book id', method: 'GET', url: () => `/nest/epub/toc/?book_id=a%00`, field: 'book_id' },
      { name: 'toc chapter', method: 'GET', url: () => `/nest/epub/toc/?book_id=${bookId}&chapter_href=%00`, field: 'chapter_href' },
      { name: 'playlist id', method: 'GET', url: () => `/api/v2/collections/a%00/`, field: 'id' },
      { name: 'playlist name', method: 'POST', url: () => '/api/v2/collections/', json: () => ({ name: `a${NUL}b`, description: '' }), field: 'name' },
      { name: 'playlist description', method: 'POST', url: () => '/api/v2/collections/', json: () => ({ name: 'ok', description: NUL }), field: 'description' },
      { name: 'playlist content', method: 'POST', url: () => '/api/v2/collections/a/add-content/', json: () => ({ content: [`${bookUrl}${NUL}`] }), field: 'content.0' },
      { name: 'queue item', method: 'POST', url: () => '/api/v1/queue-simple/', json: () => [`${bookUrl}${NUL}`], field: '0' },
      { name: 'queue removal', method: 'DELETE', url: () => '/api/v1/queue-simple/', json: () => [NUL], field: '0' },
      { name: 'metadata urls', method: 'POST', url: () => '/api/v1/metadata/', json: () => ({ urls: [NUL] }), field: 'urls.0' },
      { name: 'metadata fields', method: 'POST', url: () => '/api/v1/metadata/?fields=a%00', json: () => ({ urls: [bookUrl] }), field: 'fields' },
      { name: 'progress urls', method: 'POST', url: () => '/api/v1/user_progress/', json: () => ({ urls: [NUL] }), field: 'urls.0' },
      { name: 'block book id', method: 'POST', url: () => '/nest/epub/block/', json: () => ({ book_id: NUL, hrefs: ['a'] }), field: 'book_id' },
      { name: 'block hrefs', method: 'POST', url: () => '/nest/epub/block/', json: () => ({ book_id: bookId, hrefs: [NUL] }), field: 'hrefs.0' },
      { name: 'usage event uuid', method: 'POST', url: () => '/api/v1/usage-event/', json: () => ({ events: [{ usage_uuid: NUL }] }), field: 'events.0.usage_uuid' },
      { name: 'a key of the body', method: 'POST', url: () => '/api/v1/metadata/', json: () => ({ [`u${NUL}rls`]: [] }), field: 'u\\u0000rls' },
      { name: 'sign-in email', method: 'POST', url: () => '/login/', json: () => ({ email: `a${NUL}@example.com`, password: 'x' }), field: 'email' },
    ];
    it.each(cases)('$name', async (c) => {
      const res = await ada.request(c.method, c.url(), c.json ? { json: c.json() } : {});
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors).toEqual({ [c.field]: [NUL_MESSAGE] });
    });
  });
});
