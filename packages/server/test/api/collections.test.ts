import { collectionHoldingSchema, collectionListSchema, collectionSchema, collectionSummaryListSchema, MESSAGES, PLAYLIST_MESSAGES, queueListSchema } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { importSamples } from '../helpers/sample.ts';


describe.each(ENGINES)('playlists, queue, metadata and progress on %s', (engine) => {
  let t: TestApp;
  let ada: TestClient;
  let bob: TestClient;
  let books: { api_url: string; title: string; book_id: string }[];
  let wotwChapter: string;

  beforeAll(async () => {
    t = await startTestApp(engine);
    await importSamples(t.lectern);
    [ada, bob] = await signedInSubscribers(t.lectern, ['ada@example.com', 'bob@example.com']);
    books = (await ada.get('/api/v1/book/')).json().results;
    const wotw = books.find((b) => /War of the Worlds/.test(b.title))!;
    wotwChapter = (await ada.get(wotw.api_url)).json().chapters[5].url;
  });
  afterAll(() => t.close());

  const api = (c: TestClient, path = '') => `/nest/api/api/v2/collections/${path}`;

  it('starts every user with exactly one default playlist, the queue, and serves both base paths', async () => {
    const res = await ada.get('/api/v2/collections/');
    expect(res.statusCode).toBe(200);
    const list = collectionListSchema.parse(res.json());
    expect(list.filter((c) => c.is_default)).toHaveLength(1);
    expect(list[0]).toMatchObject({ is_default: true, is_owned: true, content: [] });
    const nested = await ada.get(api(ada));
    expect(nested.json()).toEqual(res.json());
    expect((await new TestClient(t.lectern.app).get('/api/v2/collections/')).json()).toEqual({ detail: MESSAGES.userNotLoggedIn });
  });

  it('creates playlists with the spec messages for every invalid name and description', async () => {
    const bad = async (body: object) => (await ada.post(api(ada), body)).json();
    expect(await bad({ name: '   ' })).toEqual({ detail: PLAYLIST_MESSAGES.nameEmpty, errors: { name: [PLAYLIST_MESSAGES.nameEmpty] } });
    expect((await bad({ name: 'x'.repeat(66) })).errors.name).toEqual([PLAYLIST_MESSAGES.createNameTooLong]);
    expect((await bad({ name: 'ok', description: 'y'.repeat(161) })).errors.description).toEqual([PLAYLIST_MESSAGES.descriptionTooLong]);
    const created = await ada.post(api(ada), { name: 'x'.repeat(65), description: 'y'.repeat(160) });
    expect(created.statusCode).toBe(201);
    const dup = await ada.post(api(ada), { name: 'X'.repeat(65) });
    expect(dup.json().errors.name).toEqual([PLAYLIST_MESSAGES.nameTaken]);
    // Another user may use the same name.
    expect((await bob.post(api(bob), { name: 'x'.repeat(65) })).statusCode).toBe(201);
  });

  it('orders the list default first, then by name ignoring case, and shows only your own', async () => {
    for (const name of ['banana', 'Apple', 'cherry']) expect((await ada.post(api(ada), { name, description: '' })).statusCode).toBe(201);
    const list = collectionListSchema.parse((await ada.get(api(ada))).json());
    const names = list.map((c) => c.name);
    expect(names.slice(0, 4)).toEqual(['Queue', 'Apple', 'banana', 'cherry']);
    const bobs = collectionListSchema.parse((await bob.get(api(bob))).json());
    expect(bobs.map((c) => c.name)).toEqual(['Queue', 'x'.repeat(65)]);
  });

  it('answers the light list (?content=none: names and counts, no items) with its own ETag and 304', async () => {
    const [cy] = await signedInSubscribers(t.lectern, ['cy@example.com']);
    const made = collectionSchema.parse((await cy.post(api(cy), { name: 'Light', description: 'd' })).json());
    const [a, b] = [books[0]!, books[1]!];
    expect((await cy.post(api(cy, `${made.id}/add-content/`), { content: [a.api_url, b.api_url, wotwChapter] })).statusCode).toBe(200);
    const full = await cy.get(api(cy));
    const light = await cy.get(api(cy, '?content=none'));
    expect(light.statusCode, light.body).toBe(200);
    const summaries = collectionSummaryListSchema.parse(light.json());
    expect(light.body).not.toContain('api_url');
    // the same playlists, in the same order, with the same fields but the items, and their count
    const fullList = collectionListSchema.parse(full.json());
    expect(summaries).toEqual(fullList.map(({ content, ...rest }) => ({ ...rest, content_count: content.length })));
    expect(summaries.find((p) => p.id === made.id)!.content_count).toBe(3);
    expect(light.body.length).toBeLessThan(full.body.length);
    // its own ETag: one form's tag never gets a 304 for the other
    const tag = String(light.headers.etag);
    expect(tag).not.toBe(String(full.headers.etag));
    expect((await cy.get(api(cy, '?content=none'), { 'if-none-match': tag })).statusCode).toBe(304);
    expect((await cy.get(api(cy), { 'if-none-match': tag })).statusCode).toBe(200);
    // a change makes it stale
    expect((await cy.post(api(cy, `${made.id}/remove-content/`), { content: [b.api_url] })).statusCode).toBe(200);
    const after = await cy.get(api(cy, '?content=none'), { 'if-none-match': tag });
    expect(after.statusCode).toBe(200);
    expect(collectionSummaryListSchema.parse(after.json()).find((p) => p.id === made.id)!.content_count).toBe(2);
    // any other value names the field
    const bad = await cy.get(api(cy, '?content=all'));
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('content');
    expect((await new TestClient(t.lectern.app).get('/api/v2/collections/?content=none')).statusCode).toBe(401);
  });

  it('says which of your playlists hold each address asked about, and nothing of others\'', async () => {
    const [dee, eli] = await signedInSubscribers(t.lectern, ['dee@example.com', 'eli@example.com']);
    const one = collectionSchema.parse((await dee.post(api(dee), { name: 'One', description: '' })).json());
    const two = collectionSchema.parse((await dee.post(api(dee), { name: 'Two', description: '' })).json());
    const [a, b, c] = [books[0]!, books[1]!, books[2]!];
    await dee.post(api(dee, `${one.id}/add-content/`), { content: [a.api_url, wotwChapter] });
    await dee.post(api(dee, `${two.id}/add-content/`), { content: [a.api_url] });
    // Eli holds b in a playlist of his own: Dee is not told
    const his = collectionSchema.parse((await eli.post(api(eli), { name: 'His', description: '' })).json());
    await eli.post(api(eli, `${his.id}/add-content/`), { content: [b.api_url] });
    const asked = [a.api_url, `http://lectern.test/nest/api${b.api_url}`, c.api_url.replace(/\/$/, ''), wotwChapter, 'not a content address'];
    const res = await dee.post(api(dee, 'holding/'), { content: asked });
    expect(res.statusCode, res.body).toBe(200);
    const { results } = collectionHoldingSchema.parse(res.json());
    expect(Object.keys(results).sort()).toEqual([...asked].sort());
    expect(results[a.api_url]!.sort()).toEqual([one.id, two.id].sort());
    expect(results[asked[1]!]).toEqual([]);
    expect(results[asked[2]!]).toEqual([]);
    expect(results[wotwChapter]).toEqual([one.id]);
    expect(results['not a content address']).toEqual([]);
    const empty = await dee.post(api(dee, 'holding/'), { content: [] });
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain('content');
    expect((await dee.post(api(dee, 'holding/'), { content: [a.api_url] }, { csrf: false })).statusCode).toBe(403);
    expect((await new TestClient(t.lectern.app).post(api(dee, 'holding/'), { content: [a.api_url] })).statusCode).toBe(401);
  });

  it('hides another user\'s playlist behind a 404 for every call', async () => {
    const adas = collectionListSchema.parse((await ada.get(api(ada))).json());
    const target = adas.find((c) => c.name === 'Apple')!;
    expect((await bob.get(api(bob, `${target.id}/`))).statusCode).toBe(404);
    const patch = await bob.request('PATCH', api(bob, `${target.id}/`), { json: { name: 'mine now' } });
    expect(patch.statusCode).toBe(404);
    expect(patch.json().detail).toBe(PLAYLIST_MESSAGES.notFound);
    expect((await bob.request('DELETE', api(bob, `${target.id}/`))).statusCode).toBe(404);
    expect((await bob.post(api(bob, `${target.id}/add-content/`), { content: [books[0]!.api_url] })).statusCode).toBe(404);
    expect((await bob.post(api(bob, `${target.id}/remove-content/`), { content: [books[0]!.api_url] })).statusCode).toBe(404);
    expect(collectionSchema.parse((await ada.get(api(ada, `${target.id}/`))).json()).name).toBe('Apple');
  });

  it('adds content newest first, normalising addresses, and refuses unknown ones whole', async () => {
    const apple = collectionListSchema.parse((await ada.get(api(ada)))?.json()).find((c) => c.name === 'Apple')!;
    const [first, second] = books;
    const added = await ada.post(api(ada, `${apple.id}/add-content/`), {
      content: [`http://elsewhere.example${second!.api_url}`, first!.api_url.replace(/\/$/, '')],
    });
    expect(added.statusCode).toBe(200);
    const after = collectionSchema.parse(added.json());
    expect(after.content.map((i) => i.api_url)).toEqual([second!.api_url, first!.api_url]);
    expect(after.content[0]!.metadata.topics.length).toBeGreaterThan(0);
    const chapter = await ada.post(api(ada, `${apple.id}/add-content/`), { content: [wotwChapter] });
    expect(collectionSchema.parse(chapter.json()).content[0]!.api_url).toBe(wotwChapter);

    const unknown = await ada.post(api(ada, `${apple.id}/add-content/`), { content: [first!.api_url, '/api/v1/book/nope/', 'https://example.com/x'] });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors.content).toHaveLength(2);
    expect(unknown.json().errors.content.join(' ')).toMatch(/\/api\/v1\/book\/nope\/ is not in this library\./);
    expect(unknown.json().errors.content.join(' ')).toMatch(/"https:\/\/example.com\/x" is not a content address/);
    const unchanged = collectionSchema.parse((await ada.get(api(ada, `${apple.id}/`))).json());
    expect(unchanged.content.map((i) => i.api_url)).toEqual([wotwChapter, second!.api_url, first!.api_url]);

    const removed = await ada.post(api(ada, `${apple.id}/remove-content/`), { content: [second!.api_url] });
    expect(collectionSchema.parse(removed.json()).content.map((i) => i.api_url)).toEqual([wotwChapter, first!.api_url]);
  });

  it('renames and describes, refuses to edit or delete the default playlist, deletes others', async () => {
    const list = collectionListSchema.parse((await ada.get(api(ada))).json());
    const banana = list.find((c) => c.name === 'banana')!;
    const renamed = await ada.request('PATCH', api(ada, `${banana.id}/`), { json: { id: banana.id, name: 'Bananas', description: 'Yellow' } });
    expect(renamed.json()).toMatchObject({ name: 'Bananas', description: 'Yellow' });
    // an edit names what is too long with the edit form's wording (a new playlist's is 'Playlists are limited…')
    const long = await ada.request('PATCH', api(ada, `${banana.id}/`), { json: { name: 'x'.repeat(66) } });
    expect(long.statusCode).toBe(400);
    expect(long.json().errors.name).toEqual([PLAYLIST_MESSAGES.nameTooLong]);
    const clash = await ada.request('PATCH', api(ada, `${banana.id}/`), { json: { name: 'apple' } });
    expect(clash.json().errors.name).toEqual([PLAYLIST_MESSAGES.nameTaken]);
    // Renaming to its own name in another case is not a clash with itself.
    expect((await ada.request('PATCH', api(ada, `${banana.id}/`), { json: { name: 'BANANAS' } })).statusCode).toBe(200);
    const queue = list.find((c) => c.is_default)!;
    expect((await ada.request('PATCH', api(ada, `${queue.id}/`), { json: { name: 'Mine' } })).json().detail).toBe(PLAYLIST_MESSAGES.defaultNotEditable);
    expect((await ada.request('DELETE', api(ada, `${queue.id}/`))).statusCode).toBe(400);
    expect((await ada.request('DELETE', api(ada, `${banana.id}/`))).statusCode).toBe(204);
    expect((await ada.get(api(ada, `${banana.id}/`))).statusCode).toBe(404);
  });

  it('answers 304 to If-None-Match until something changes', async () => {
    const first = await ada.get(api(ada));
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^W\/"/);
    const again = await ada.get(api(ada), { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    await ada.post(api(ada), { name: 'Fresh', description: '' });
    const changed = await ada.get(api(ada), { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    // Another user's changes do not touch this user's ETag.
    const mine = changed.headers.etag as string;
    await bob.post(api(bob), { name: 'Unrelated', description: '' });
    expect((await ada.get(api(ada), { 'if-none-match': mine })).statusCode).toBe(304);
  });

  it('keeps the queue in the default playlist through /api/v1/queue-simple/', async () => {
    const [book] = books;
    const added = await ada.request('POST', '/api/v1/queue-simple/', { json: [book!.api_url, wotwChapter] });
    expect(added.statusCode).toBe(200);
    const queue = queueListSchema.parse((await ada.get('/api/v1/queue-simple/')).json());
    expect(queue.results[0]).toEqual({ url: book!.api_url, is_whole_book: true, natural_key: [book!.book_id] });
    expect(queue.results[1]!.is_whole_book).toBe(false);
    const asPlaylist = collectionListSchema.parse((await ada.get(api(ada))).json()).find((c) => c.is_default)!;
    expect(asPlaylist.content.map((i) => i.api_url)).toEqual([book!.api_url, wotwChapter]);
    const removed = await ada.request('DELETE', '/api/v1/queue-simple/', { json: [book!.api_url] });
    expect(queueListSchema.parse(removed.json()).results.map((r) => r.url)).toEqual([wotwChapter]);
    const bad = await ada.request('POST', '/api/v1/queue-simple/', { json: { urls: 'no' } });
    expect(bad.statusCode).toBe(400);
    expect((await bob.get('/api/v1/queue-simple/')).json().results).toEqual([]);
  });

  it('keeps the order a reader sets: PUT .../order/ with every item once, new items in front, re-adds in place', async () => {
    const created = collectionSchema.parse((await ada.post(api(ada), { name: 'Ordered', description: '' })).json());
    const [a, b, c] = books.map((x) => x.api_url);
    await ada.post(api(ada, `${created.id}/add-content/`), { content: [a, b, c] });
    const order = (id: string) => ada.get(api(ada, `${id}/`)).then((r) => collectionSchema.parse(r.json()).content.map((i) => i.api_url));
    expect(await order(created.id)).toEqual([a, b, c]);

    const put = (id: string, content: unknown, client = ada) => client.request('PUT', api(client, `${id}/order/`), { json: { content } });
    const moved = await put(created.id, [c, a, b]);
    expect(moved.statusCode).toBe(200);
    expect(collectionSchema.parse(moved.json()).content.map((i) => i.api_url)).toEqual([c, a, b]);
    expect(await order(created.id)).toEqual([c, a, b]);

    // Not exactly the items: 400 naming the field, nothing changed.
    for (const bad of [[c, a], [c, a, b, b], [c, a, b, wotwChapter], [c, a, a]]) {
      const res = await put(created.id, bad);
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toBe(PLAYLIST_MESSAGES.orderMismatch);
      expect(res.json().errors.content[0]).toBe(PLAYLIST_MESSAGES.orderMismatch);
    }
    const notList = await put(created.id, 'no');
    expect(notList.statusCode).toBe(400);
    expect(Object.keys(notList.json().errors)).toEqual(['content']);
    expect(await order(created.id)).toEqual([c, a, b]);

    // Another user's playlist does not exist for you.
    expect((await put(created.id, [c, a, b], bob)).statusCode).toBe(404);

    // Adding again keeps the reader's place; a new item goes in front (spec §4), the rest stays as set.
    await ada.post(api(ada, `${created.id}/add-content/`), { content: [a] });
    expect(await order(created.id)).toEqual([c, a, b]);
    await ada.post(api(ada, `${created.id}/add-content/`), { content: [wotwChapter] });
    expect(await order(created.id)).toEqual([wotwChapter, c, a, b]);
    await ada.post(api(ada, `${created.id}/remove-content/`), { content: [a] });
    expect(await order(created.id)).toEqual([wotwChapter, c, b]);
    // The ETag moves with a reorder, so a cached list is not served stale.
    const etag = (await ada.get(api(ada))).headers.etag as string;
    await put(created.id, [b, c, wotwChapter]);
    expect((await ada.get(api(ada), { 'if-none-match': etag })).statusCode).toBe(200);
  });

  it('reorders the queue, which /api/v1/queue-simple/ then lists in that order', async () => {
    const [a, b] = books.map((x) => x.api_url);
    await ada.request('DELETE', '/api/v1/queue-simple/', { json: (await ada.get('/api/v1/queue-simple/')).json().results.map((r: { url: string }) => r.url).concat([a!]) });
    await ada.request('POST', '/api/v1/queue-simple/', { json: [a, b] });
    const queue = collectionListSchema.parse((await ada.get(api(ada))).json()).find((x) => x.is_default)!;
    expect(queue.content.map((i) => i.api_url)).toEqual([a, b]);
    expect((await ada.request('PUT', `/api/v2/collections/${queue.id}/order/`, { json: { content: [b, a] } })).statusCode).toBe(200);
    expect(queueListSchema.parse((await ada.get('/api/v1/queue-simple/')).json()).results.map((r) => r.url)).toEqual([b, a]);
    // Queuing a queued title again does not move it.
    await ada.request('POST', '/api/v1/queue-simple/', { json: [a] });
    expect(queueListSchema.parse((await ada.get('/api/v1/queue-simple/')).json()).results.map((r) => r.url)).toEqual([b, a]);
  });

  it('serves metadata for a batch of addresses, honouring fields=', async () => {
    const urls = books.map((b) => b.api_url);
    const all = await ada.post('/api/v1/metadata/', { urls });
    expect(all.json().map((m: { title: string }) => m.title)).toEqual(books.map((b) => b.title));
    const some = await ada.post('/api/v1/metadata/?fields=api_url,title,authors', { urls: [urls[0], wotwChapter] });
    expect(Object.keys(some.json()[0]).sort()).toEqual(['api_url', 'authors', 'title']);
    expect(some.json()[1]).toMatchObject({ api_url: wotwChapter });
    const badField = await ada.post('/api/v1/metadata/?fields=title,password', { urls });
    expect(badField.statusCode).toBe(400);
    expect(Object.keys(badField.json().errors)).toEqual(['fields']);
    const empty = await ada.post('/api/v1/metadata/', { urls: [] });
    expect(Object.keys(empty.json().errors)).toEqual(['urls']);
  });

  it('reports reading progress weighted by text, per title and per chapter', async () => {
    const wotw = books.find((b) => /War of the Worlds/.test(b.title))!;
    const start = await ada.post('/api/v1/user_progress/?fields=api_url,progress', { urls: [wotw.api_url, wotwChapter] });
    expect(start.json()).toEqual([
      { api_url: wotw.api_url, progress: 0 },
      { api_url: wotwChapter, progress: 0 },
    ]);
    // Read every chapter of the book to the end through the repository the reader's usage events use.
    const k = t.lectern.db.kysely;
    const user = await k.selectFrom('users').select('id').where('email', '=', 'ada@example.com').executeTakeFirstOrThrow();
    const title = await k.selectFrom('titles').select('id').where('book_id', '=', wotw.book_id).executeTakeFirstOrThrow();
    const chapters = await k.selectFrom('chapters').select(['id', 'text_length']).where('title_id', '=', title.id).orderBy('item_order').execute();
    const repo = new (await import('../../src/repositories/progress.ts')).ProgressRepository(k);
    const half = Math.floor(chapters.length / 2);
    for (const c of chapters.slice(0, half)) await repo.recordProgress({ user_id: user.id, chapter_id: c.id, title_id: title.id, top_percentage: 100, updated_at: new Date().toISOString() });
    // Progress never moves back.
    await repo.recordProgress({ user_id: user.id, chapter_id: chapters[0]!.id, title_id: title.id, top_percentage: 10, updated_at: new Date().toISOString() });
    const total = chapters.reduce((s, c) => s + c.text_length, 0);
    const expected = Math.round((chapters.slice(0, half).reduce((s, c) => s + c.text_length, 0) / total) * 100);
    const now = (await ada.post('/api/v1/user_progress/', { urls: [wotw.api_url, wotwChapter] })).json();
    expect(now[0]).toEqual({ api_url: wotw.api_url, progress: expected });
    expect(now[1]).toEqual({ api_url: wotwChapter, progress: 100 });
    expect((await bob.post('/api/v1/user_progress/', { urls: [wotw.api_url] })).json()).toEqual([{ api_url: wotw.api_url, progress: 0 }]);
    expect((await new TestClient(t.lectern.app).post('/api/v1/user_progress/', { urls: [wotw.api_url] })).statusCode).toBe(401);
  });

  it("limits user_progress to §7's fields query, and refuses another field with a 400 naming fields", async () => {
    const wotw = books.find((b) => /War of the Worlds/.test(b.title))!;
    expect((await ada.post('/api/v1/user_progress/?fields=api_url', { urls: [wotw.api_url] })).json()).toEqual([{ api_url: wotw.api_url }]);
    const bad = await ada.post('/api/v1/user_progress/?fields=api_url,progress,title', { urls: [wotw.api_url] });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json().errors)).toEqual(['fields']);
  });
});
