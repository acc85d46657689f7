import { bookDetailSchema, contentMetadataSchema, pagedSchema, paths, positionResponseSchema } from '@lectern/core';

const bookPageSchema = pagedSchema(contentMetadataSchema);
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PositionsRepository } from '../../src/repositories/positions.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { importSamples } from '../helpers/sample.ts';

type Book = ReturnType<typeof bookDetailSchema.parse>;

describe.each(ENGINES)('reading positions on %s', (engine) => {
  let t: TestApp;
  let ada: TestClient;
  let bob: TestClient;
  let anon: TestClient;
  let expired: TestClient;
  let book: Book;
  let sample: Book['chapters'][number];
  let deep: Book['chapters'][number];
  const positionUrl = (bookId: string) => `/api/v1/book/${encodeURIComponent(bookId)}/position/`;
  const put = (c: TestClient, bookId: string, body: unknown) => c.request('PUT', positionUrl(bookId), { json: body });

  beforeAll(async () => {
    t = await startTestApp(engine);
    await importSamples(t.lectern);
    [ada, bob] = await signedInSubscribers(t.lectern, ['ada@example.com', 'bob@example.com']);
    await t.lectern.services.accounts.createUser({ email: 'eve@example.com', password: 'a long enough password', status: 'expired' });
    expired = new TestClient(t.lectern.app);
    await expired.login('eve@example.com', 'a long enough password');
    anon = new TestClient(t.lectern.app);
    const list = bookPageSchema.parse((await anon.get('/api/v1/book/?page_size=100')).json()).results;
    book = bookDetailSchema.parse((await anon.get(list.find((b) => /War of the Worlds/.test(b.title))!.api_url)).json());
    sample = book.chapters.find((c) => c.as_sample)!;
    deep = book.chapters.filter((c) => !c.as_sample && !c.is_public).at(-2)!;
  });
  afterAll(() => t.close());

  it('stores the position on the account: another session of the same user gets it, another user does not', async () => {
    expect(positionResponseSchema.parse((await ada.get(positionUrl(book.book_id))).json())).toEqual({ position: null });
    const locator = { href: deep.full_path, progression: 0.42, text: { before: 'said the', highlight: 'Hatter', after: ' to Alice' } };
    const res = await put(ada, book.book_id, { locator });
    expect(res.statusCode).toBe(200);
    const stored = positionResponseSchema.parse(res.json()).position!;
    expect(stored.locator).toEqual(locator);
    expect(Date.parse(stored.updated_at)).not.toBeNaN();

    const elsewhere = new TestClient(t.lectern.app);
    await elsewhere.login('ada@example.com', 'a long enough password');
    expect(positionResponseSchema.parse((await elsewhere.get(positionUrl(book.book_id))).json()).position).toEqual(stored);
    expect(positionResponseSchema.parse((await bob.get(positionUrl(book.book_id))).json()).position).toBeNull();
  });

  it('asks anonymous visitors to sign in, does not know other books, and checks the CSRF token', async () => {
    expect((await anon.get(positionUrl(book.book_id))).statusCode).toBe(401);
    expect((await put(anon, book.book_id, { locator: { href: sample.full_path, progression: 0 } })).statusCode).toBe(401);
    expect((await ada.get(positionUrl('no-such-book'))).statusCode).toBe(404);
    expect((await put(ada, 'no-such-book', { locator: { href: sample.full_path, progression: 0 } })).statusCode).toBe(404);
    const noToken = await ada.request('PUT', positionUrl(book.book_id), { json: { locator: { href: sample.full_path, progression: 0 } }, csrf: false });
    expect(noToken.statusCode).toBe(403);
  });

  it('refuses bad locators with a 400 naming the field, and changes nothing', async () => {
    const before = (await bob.get(positionUrl(book.book_id))).json();
    const cases: [unknown, string][] = [
      [{ locator: { href: 'not-in-this-book.xhtml', progression: 0.5 } }, 'locator.href'],
      [{ locator: { href: `${deep.full_path}#frag`, progression: 0.5 } }, 'locator.href'],
      [{ locator: { href: deep.full_path, progression: 1.5 } }, 'locator.progression'],
      [{ locator: { href: deep.full_path, progression: 0.5, text: { highlight: 'x'.repeat(201) } } }, 'locator.text.highlight'],
      [{ locator: { href: deep.full_path, progression: 0.5, text: { before: 'x'.repeat(101) } } }, 'locator.text.before'],
      [{}, 'locator'],
    ];
    for (const [body, field] of cases) {
      const res = await put(bob, book.book_id, body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(Object.keys(res.json().errors)).toContain(field);
    }
    expect((await bob.get(positionUrl(book.book_id))).json()).toEqual(before);
  });

  it('follows the reading policy: an expired account may keep a position in the sample only', async () => {
    const locked = await put(expired, book.book_id, { locator: { href: deep.full_path, progression: 0.1 } });
    expect(locked.statusCode).toBe(403);
    const open = await put(expired, book.book_id, { locator: { href: sample.full_path, progression: 0.3 } });
    expect(open.statusCode).toBe(200);
  });

  it('takes many writes at once without an error; the last one to arrive is kept', async () => {
    const writes = Array.from({ length: 12 }, (_, i) => put(bob, book.book_id, { locator: { href: book.chapters[i % 4]!.full_path, progression: i / 12 } }));
    const results = await Promise.all(writes);
    expect(results.map((r) => r.statusCode)).toEqual(results.map(() => 200));
    const stored = positionResponseSchema.parse((await bob.get(positionUrl(book.book_id))).json()).position!;
    const latest = results.map((r) => positionResponseSchema.parse(r.json()).position!).sort((a, b) => a.updated_at.localeCompare(b.updated_at)).at(-1)!;
    expect(stored.updated_at).toBe(latest.updated_at);
  });

  it('never lets a write stamped earlier replace a later one', async () => {
    const repo = new PositionsRepository(t.lectern.db.kysely);
    const userId = (await t.lectern.db.kysely.selectFrom('users').select('id').where('email', '=', 'bob@example.com').executeTakeFirstOrThrow()).id;
    const title = await t.lectern.services.catalog.requireTitle(book.book_id);
    const chapterId = (await t.lectern.db.kysely.selectFrom('chapters').select('id').where('title_id', '=', title.id).where('full_path', '=', deep.full_path).executeTakeFirstOrThrow()).id;
    const newer = await repo.upsert({ user_id: userId, title_id: title.id, chapter_id: chapterId, locator: JSON.stringify({ href: deep.full_path, progression: 0.9 }), updated_at: '2999-01-01T00:00:00.000Z' });
    const after = await repo.upsert({ user_id: userId, title_id: title.id, chapter_id: chapterId, locator: JSON.stringify({ href: deep.full_path, progression: 0.1 }), updated_at: '2998-01-01T00:00:00.000Z' });
    expect(after).toEqual(newer);
    await t.lectern.db.kysely.deleteFrom('reading_positions').where('user_id', '=', userId).execute();
  });

  describe('continue_url and progress of the book list and a book', () => {
    const listEntry = async (c: TestClient) =>
      bookPageSchema.parse((await c.get('/api/v1/book/?page_size=100')).json()).results.find((b) => b.book_id === book.book_id)!;
    const detail = async (c: TestClient) => bookDetailSchema.parse((await c.get(paths.bookApi(book.book_id))).json());
    const readerUrl = (href: string) => paths.reader(book.title_safe, book.book_id, href);

    it('sends anonymous visitors to the sample chapter, with no progress', async () => {
      for (const entry of [await listEntry(anon), await detail(anon)]) {
        expect(entry.continue_url).toBe(readerUrl(sample.full_path));
        expect(entry.progress).toBeUndefined();
      }
      // Every title of the list leads anonymous visitors to something they may read (or its page when nothing is open).
      const all = bookPageSchema.parse((await anon.get('/api/v1/book/?page_size=100')).json()).results;
      for (const b of all) {
        const d = bookDetailSchema.parse((await anon.get(b.api_url)).json());
        const open = d.chapters.find((c) => c.as_sample) ?? d.chapters.find((c) => c.is_public);
        expect(b.continue_url).toBe(open ? open.web_url : d.url);
      }
    });

    it('sends a subscriber with no position to the first chapter, and one with a position to its chapter, with progress', async () => {
      const [cy] = await signedInSubscribers(t.lectern, ['cy@example.com']);
      expect(await listEntry(cy)).toMatchObject({ continue_url: readerUrl(book.chapters[0]!.full_path), progress: 0, resumes: false });
      await put(cy, book.book_id, { locator: { href: deep.full_path, progression: 0.5 } });
      await cy.post('/api/v1/usage-event/', [
        { chapter: paths.chapterApi(book.book_id, deep.full_path), start_percentage: 0, end_percentage: 100, client_timestamp: Date.now(), usage_uuid: 'cy-1' },
      ]);
      for (const entry of [await listEntry(cy), await detail(cy)]) {
        expect(entry).toMatchObject({ continue_url: readerUrl(deep.full_path), resumes: true });
        expect(entry.progress).toBeGreaterThan(0);
      }
      // Other readers are not affected, and no shared cache may keep these answers.
      expect((await listEntry(anon)).continue_url).toBe(readerUrl(sample.full_path));
      for (const url of ['/api/v1/book/', paths.bookApi(book.book_id)]) {
        const res = await cy.get(url);
        expect(res.headers['cache-control']).toBe('private, no-cache');
        expect(res.headers.vary).toMatch(/cookie/i);
      }
    });

    it('sends an expired account to the sample, unless its position is in a chapter it may read', async () => {
      // eve's position is in the sample (the policy test above): she continues there.
      expect(await listEntry(expired)).toMatchObject({ continue_url: readerUrl(sample.full_path), resumes: true });
      const [dan] = await signedInSubscribers(t.lectern, ['dan@example.com']);
      await put(dan, book.book_id, { locator: { href: deep.full_path, progression: 0.5 } });
      await t.lectern.db.kysely.updateTable('users').set({ status: 'expired' }).where('email', '=', 'dan@example.com').execute();
      await t.lectern.db.kysely.deleteFrom('sessions').execute().catch(() => undefined);
      const danAgain = new TestClient(t.lectern.app);
      await danAgain.login('dan@example.com', 'a long enough password');
      expect(await detail(danAgain)).toMatchObject({ continue_url: readerUrl(sample.full_path), resumes: false });
    });

    it('follows a change of the sample at once (the entry chapters are cached)', async () => {
      expect((await listEntry(anon)).continue_url).toBe(readerUrl(sample.full_path));
      const other = book.chapters.find((c) => !c.as_sample && !c.is_public && c !== deep)!;
      await t.lectern.services.flags.set(book.book_id, sample.full_path, { as_sample: false });
      await t.lectern.services.flags.set(book.book_id, other.full_path, { as_sample: true });
      try {
        expect((await listEntry(anon)).continue_url).toBe(readerUrl(other.full_path));
      } finally {
        await t.lectern.services.flags.set(book.book_id, other.full_path, { as_sample: false });
        await t.lectern.services.flags.set(book.book_id, sample.full_path, { as_sample: true });
      }
      expect((await listEntry(anon)).continue_url).toBe(readerUrl(sample.full_path));
    });
  });
});
