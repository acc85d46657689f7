import {
  APP_MESSAGES,
  blockResponseSchema,
  chapterContentSchema,
  chapterProgressPageSchema,
  decryptChapter,
  MESSAGES,
  READING_MESSAGES,
  tocResponseSchema,
} from '@lectern/core';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { importSamples } from '../helpers/sample.ts';


describe.each(ENGINES)('reader calls on %s', (engine) => {
  let t: TestApp;
  let ada: TestClient;
  let bob: TestClient;
  let anon: TestClient;
  let book: { book_id: string; chapters: { full_path: string; url: string; as_sample: boolean }[]; toc: unknown[] };

  beforeAll(async () => {
    t = await startTestApp(engine);
    await importSamples(t.lectern);
    [ada, bob] = await signedInSubscribers(t.lectern, ['ada@example.com', 'bob@example.com']);
    anon = new TestClient(t.lectern.app);
    const list = (await anon.get('/api/v1/book/')).json().results;
    book = (await anon.get(list.find((b: { title: string }) => /War of the Worlds/.test(b.title)).api_url)).json();
  });
  afterAll(() => t.close());

  it('gives each signed-in reader a stable key of their own, and anonymous visitors the spec message', async () => {
    const denied = await anon.get('/nest/key/');
    expect(denied.statusCode).toBe(401);
    expect(denied.json()).toEqual({ detail: MESSAGES.signInToRead });
    const k1 = (await ada.get('/nest/key/')).json().key;
    expect(k1).toMatch(/^[0-9a-f]{32}$/);
    expect((await ada.get('/nest/key/')).json().key).toBe(k1);
    expect((await bob.get('/nest/key/')).json().key).not.toBe(k1);
  });

  it("reads nothing with a signed-out reader's cookies, though their session was cached by the requests before", async () => {
    const [carol] = await signedInSubscribers(t.lectern, ['carol@example.com']);
    const body = { book_id: book.book_id, hrefs: book.chapters[6]!.full_path, package_resources: 1 };
    // twice: the second finds the session (and the CSRF token's check) in the cache
    for (let i = 0; i < 2; i++) expect((await carol.post('/nest/epub/block/', body)).json()[0].resources[0].encoding).toBe('crypt64');
    const kept = new TestClient(t.lectern.app);
    for (const [name, value] of carol.cookies) kept.cookies.set(name, value);
    expect((await carol.post('/logout/')).statusCode).toBeLessThan(400);
    // the old CSRF token was bound to the ended session: refused, not read as that reader or as a visitor
    const refused = await kept.post('/nest/epub/block/', body);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ detail: APP_MESSAGES.csrfFailed });
    expect((await kept.get('/nest/key/')).statusCode).toBe(401);
  });

  it('sends signed-in readers crypt64 chapters that decrypt, with the checksum, to the chapter', async () => {
    const chapter = book.chapters[6]!;
    const res = await ada.post('/nest/epub/block/', { book_id: book.book_id, hrefs: `${chapter.full_path}?ignored=1`, package_resources: 1 });
    expect(res.statusCode).toBe(200);
    const [item] = blockResponseSchema.parse(res.json());
    expect(item).toMatchObject({ book_id: book.book_id, chapter_href: chapter.full_path, chapter: `api/v1/book/${book.book_id}/chapter/${chapter.full_path}`, error: null });
    const [resource] = item!.resources;
    expect(resource!.encoding).toBe('crypt64');
    const key = (await ada.get('/nest/key/')).json().key;
    const plain = chapterContentSchema.parse((await ada.get(chapter.url)).json()).content;
    const decrypted = decryptChapter(resource!.content, resource!.checksum!, key, book.book_id, chapter.full_path);
    expect(decrypted).toEqual({ ok: true, html: plain });
    // Another reader's key cannot read it.
    const bobKey = (await bob.get('/nest/key/')).json().key;
    expect(decryptChapter(resource!.content, resource!.checksum!, bobKey, book.book_id, chapter.full_path).ok).toBe(false);
  });

  it('compresses the block answer for a browser: crypt64 gzipped to about three quarters, a plain sample with brotli', async () => {
    const chapter = book.chapters[6]!;
    const ask = { book_id: book.book_id, hrefs: chapter.full_path, package_resources: 1, update_progress: true };
    const browser = { 'accept-encoding': 'gzip, deflate, br, zstd' };
    const plain = await ada.post('/nest/epub/block/', ask);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const packed = await ada.post('/nest/epub/block/', ask, { headers: browser });
    expect(packed.statusCode).toBe(200);
    expect(packed.headers['content-encoding']).toBe('gzip');
    expect(packed.headers.vary).toMatch(/Accept-Encoding/i);
    // The same bytes once inflated, in about three quarters of them (base64 carries 6 bits a character).
    expect(gunzipSync(packed.rawPayload).equals(plain.rawPayload)).toBe(true);
    expect(packed.rawPayload.length).toBeLessThan(plain.rawPayload.length * 0.8);
    const [item] = blockResponseSchema.parse(JSON.parse(gunzipSync(packed.rawPayload).toString()));
    const key = (await ada.get('/nest/key/')).json().key;
    expect(decryptChapter(item!.resources[0]!.content, item!.resources[0]!.checksum!, key, book.book_id, chapter.full_path).ok).toBe(true);
    // Two chapters in one call: each content in its own place.
    const two = book.chapters.slice(6, 8);
    const both = await ada.post('/nest/epub/block/', { book_id: book.book_id, hrefs: two.map((c) => c.full_path) }, { headers: browser });
    const items = blockResponseSchema.parse(JSON.parse(gunzipSync(both.rawPayload).toString()));
    expect(items.map((it, i) => decryptChapter(it.resources[0]!.content, it.resources[0]!.checksum!, key, book.book_id, two[i]!.full_path).ok)).toEqual([true, true]);
    // Each decrypts to its own chapter, gzipped or not (the ciphertexts are made in one reused buffer).
    const htmlOf = async (c: (typeof two)[number]) => chapterContentSchema.parse((await ada.get(c.url)).json()).content;
    const htmls = [await htmlOf(two[0]!), await htmlOf(two[1]!)];
    const bothPlain = await ada.post('/nest/epub/block/', { book_id: book.book_id, hrefs: two.map((c) => c.full_path) });
    expect(bothPlain.headers['content-encoding']).toBeUndefined();
    for (const answer of [items, blockResponseSchema.parse(bothPlain.json())]) {
      expect(answer.map((it, i) => decryptChapter(it.resources[0]!.content, it.resources[0]!.checksum!, key, book.book_id, two[i]!.full_path))).toEqual(
        htmls.map((html) => ({ ok: true, html })),
      );
    }
    // A client that takes gzip only, or nothing at all.
    expect((await ada.post('/nest/epub/block/', ask, { headers: { 'accept-encoding': 'gzip' } })).headers['content-encoding']).toBe('gzip');
    expect((await ada.post('/nest/epub/block/', ask, { headers: { 'accept-encoding': 'br;q=1, gzip;q=0' } })).headers['content-encoding']).toBeUndefined();
    // A visitor's sample is HTML in the clear: brotli shrinks it several times.
    const sample = book.chapters.find((c) => c.as_sample)!;
    const visitor = { book_id: book.book_id, hrefs: sample.full_path };
    const open = await anon.post('/nest/epub/block/', visitor);
    const openPacked = await anon.post('/nest/epub/block/', visitor, { headers: browser });
    expect(openPacked.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(openPacked.rawPayload).equals(open.rawPayload)).toBe(true);
    expect(openPacked.rawPayload.length).toBeLessThan(open.rawPayload.length / 2);
    // Made once for the chapter, the same for the next visitor, in each coding.
    expect((await anon.post('/nest/epub/block/', visitor, { headers: browser })).rawPayload.equals(openPacked.rawPayload)).toBe(true);
    expect((await anon.post('/nest/epub/block/', visitor)).rawPayload.equals(open.rawPayload)).toBe(true);
  });

  it('sends anonymous visitors samples in the clear and tells them why not otherwise', async () => {
    const sample = book.chapters.find((c) => c.as_sample)!;
    const locked = book.chapters.find((c) => !c.as_sample)!;
    const res = await anon.post('/nest/epub/block/', { book_id: book.book_id, hrefs: [sample.full_path, locked.full_path] });
    const [open, shut] = blockResponseSchema.parse(res.json());
    expect(open!.resources[0]!.encoding).toBeNull();
    expect(open!.resources[0]!.content.length).toBeGreaterThan(500);
    expect(shut!.resources).toEqual([]);
    expect(shut!.error).toBe(MESSAGES.signInToRead);
    expect(shut!.url).toMatch(/^\/login\/\?next=%2Flibrary%2Fview%2F/);
    expect((await anon.post('/nest/epub/block/', { book_id: 'nope', hrefs: 'x' })).statusCode).toBe(404);
    expect((await anon.post('/nest/epub/block/', { book_id: book.book_id, hrefs: 'nope.html' })).statusCode).toBe(404);
    const bad = await anon.post('/nest/epub/block/', { hrefs: 'x' });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json().errors)).toEqual(['book_id']);
  });

  it('serves the table of contents with depth, selection and reading times', async () => {
    const selected = book.chapters[8]!.full_path;
    const toc = tocResponseSchema.parse((await anon.get(`/nest/epub/toc/?book_id=${book.book_id}&chapter_href=${encodeURIComponent(selected)}`)).json());
    expect(toc.chapters.map((c) => c.uri)).toEqual(book.chapters.map((c) => c.full_path));
    expect(toc.chapters.filter((c) => c.selected).map((c) => c.uri)).toEqual([selected]);
    expect(toc.chapters.some((c) => c.minutes_required > 1)).toBe(true);
    expect(toc.items.length).toBeGreaterThan(0);
    expect(toc.detail_url).toBe(`/library/book/${book.book_id}/`);
    expect((await anon.get('/nest/epub/toc/')).json().errors).toHaveProperty('book_id');
  });

  it('keeps valid usage events, drops invalid ones with the reason, and ignores retries', async () => {
    const chapter = `api/v1/book/${book.book_id}/chapter/${book.chapters[3]!.full_path}`;
    const now = Date.now();
    const events = [
      { chapter, start_percentage: 0, end_percentage: 40, client_timestamp: now, usage_uuid: 'u-1' },
      { chapter, start_percentage: 40, end_percentage: 40, client_timestamp: now, usage_uuid: 'u-2' },
      { chapter, start_percentage: 40, end_percentage: 120, client_timestamp: now, usage_uuid: 'u-3' },
      { chapter, start_percentage: 40, end_percentage: 75, client_timestamp: new Date(now).toISOString(), usage_uuid: 'u-4', is_offline: true },
      { chapter: 'api/v1/book/nope/chapter/x.html', start_percentage: 1, end_percentage: 2, client_timestamp: now, usage_uuid: 'u-5' },
      { chapter, start_percentage: 1, end_percentage: 2, client_timestamp: now, usage_uuid: 'u-6', password: 'x' },
    ];
    const res = await ada.post('/api/v1/usage-event/', events);
    expect(res.statusCode).toBe(200);
    expect(res.json().accepted).toEqual(['u-1', 'u-4']);
    expect(res.json().rejected.map((r: { index: number; reason: string }) => [r.index, r.reason])).toEqual([
      [1, "Position hasn't changed since last usage calculation"],
      [2, 'end_percentage must be a number from 0 to 100.'],
      [4, 'chapter is not a chapter of this library.'],
      [5, 'password is not an allowed field.'],
    ]);
    const again = await ada.post('/api/v1/usage-event/', { events: events.slice(0, 1) });
    expect(again.json().accepted).toEqual(['u-1']);
    const stored = await t.lectern.db.kysely.selectFrom('usage_events').select('usage_uuid').execute();
    expect(stored.map((s) => s.usage_uuid).sort()).toEqual(['u-1', 'u-4']);
    expect((await ada.post('/api/v1/usage-event/', Array.from({ length: 21 }, () => events[0]))).statusCode).toBe(400);
    expect((await anon.post('/api/v1/usage-event/', events)).statusCode).toBe(401);
  });

  it('pages chapter progress derived from usage, following next', async () => {
    const results: { full_path: string; top_percentage: number }[] = [];
    let url: string | null = `/api/v1/book/${book.book_id}/chapter-progress/?page_size=10`;
    while (url) {
      const page = chapterProgressPageSchema.parse((await ada.get(url)).json());
      results.push(...page.results);
      url = page.next;
    }
    expect(results.map((r) => r.full_path)).toEqual(book.chapters.map((c) => c.full_path));
    expect(results[3]!.top_percentage).toBe(75);
    expect(results.filter((r) => r.top_percentage > 0)).toHaveLength(1);
    const bobs = chapterProgressPageSchema.parse((await bob.get(`/api/v1/book/${book.book_id}/chapter-progress/?page_size=50`)).json());
    expect(bobs.results.every((r) => r.top_percentage === 0)).toBe(true);
    expect((await anon.get(`/api/v1/book/${book.book_id}/chapter-progress/`)).statusCode).toBe(401);
  });

  it("answers each reader of one cached chapter with their own parts, and a lapsed reader or a visitor with the refusal, not the cached chapter", async () => {
    const locked = book.chapters.filter((c) => !c.as_sample)[2]!;
    const ask = { book_id: book.book_id, hrefs: locked.full_path, package_resources: 1 };
    const plain = chapterContentSchema.parse((await ada.get(locked.url)).json()).content;
    // ada, bob, ada again: the chapter cached and its answer's JSON made once, each reader's own parts in it
    const answers = [];
    for (const client of [ada, bob, ada]) {
      const res = await client.post('/nest/epub/block/', ask);
      expect(res.statusCode).toBe(200);
      const [item] = blockResponseSchema.parse(res.json());
      const key = (await client.get('/nest/key/')).json().key;
      const [resource] = item!.resources;
      expect(decryptChapter(resource!.content, resource!.checksum!, key, book.book_id, locked.full_path)).toEqual({ ok: true, html: plain });
      answers.push(item!);
    }
    expect(answers[1]!.resources[0]!.content).not.toBe(answers[0]!.resources[0]!.content);
    expect(answers[2]).toEqual(answers[0]);
    const { resources: _r, ...shared } = answers[0]!;
    expect(answers[1]).toMatchObject(shared);
    // the chapter is in the cache now: an account whose subscription ended and a visitor still get the refusal
    const email = 'lapsed-block@example.com';
    await t.lectern.services.accounts.createUser({ email, password: 'a long enough password', status: 'expired' });
    const lapsed = new TestClient(t.lectern.app);
    await lapsed.login(email, 'a long enough password');
    const [refused] = blockResponseSchema.parse((await lapsed.post('/nest/epub/block/', ask)).json());
    expect(refused).toMatchObject({ resources: [], error: READING_MESSAGES.subscriptionEnded });
    const [visitor] = blockResponseSchema.parse((await anon.post('/nest/epub/block/', ask)).json());
    expect(visitor).toMatchObject({ resources: [], error: MESSAGES.signInToRead });
  });

  it("gives each block item the reader's own furthest position in that chapter, and 0 where they have none", async () => {
    const topOf = async (client: TestClient, href: string) =>
      blockResponseSchema.parse((await client.post('/nest/epub/block/', { book_id: book.book_id, hrefs: href, package_resources: 1 })).json())[0]!.top_percentage;
    const read = book.chapters[3]!.full_path;
    // The usage test above took ada to 75 % of this chapter; asked twice, the second from the compiled statement.
    expect(await topOf(ada, read)).toBe(75);
    expect(await topOf(ada, read)).toBe(75);
    expect(await topOf(ada, book.chapters[4]!.full_path)).toBe(0);
    expect(await topOf(bob, read)).toBe(0);
  });

  it('answers a request that mixes a chapter the reader may read with refused ones in its order, the read one at its position', async () => {
    // a lapsed reader may still read the sample: the locked chapters are refused, so the request takes the loading path
    const email = 'lapsed-mixed@example.com';
    await t.lectern.services.accounts.createUser({ email, password: 'a long enough password', status: 'expired' });
    const lapsed = new TestClient(t.lectern.app);
    await lapsed.login(email, 'a long enough password');
    const sample = book.chapters.find((c) => c.as_sample)!.full_path;
    const [locked, other] = book.chapters.filter((c) => !c.as_sample).slice(5).map((c) => c.full_path);
    const chapter = `api/v1/book/${book.book_id}/chapter/${sample}`;
    const usage = await lapsed.post('/api/v1/usage-event/', [{ chapter, start_percentage: 0, end_percentage: 30, client_timestamp: Date.now(), usage_uuid: 'mixed-1' }]);
    expect(usage.json().accepted).toEqual(['mixed-1']);
    for (const hrefs of [
      [sample, locked!, other!],
      [locked!, sample, other!],
      [locked!, other!, sample],
    ]) {
      const items = blockResponseSchema.parse((await lapsed.post('/nest/epub/block/', { book_id: book.book_id, hrefs, package_resources: 1 })).json());
      expect(items.map((i) => [i.chapter_href, i.top_percentage, i.error ?? null, i.resources[0]?.encoding ?? null])).toEqual(
        hrefs.map((href) => (href === sample ? [href, 30, null, 'crypt64'] : [href, 0, READING_MESSAGES.subscriptionEnded, null])),
      );
    }
  });
});
