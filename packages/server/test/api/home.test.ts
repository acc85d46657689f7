/**
 * The home dashboard (docs/decisions.md "The home dashboard") on the real sample library, on both engines: what a
 * visitor and a reader see, fed by real reading (positions, queue, usage events of several readers), the recently
 * viewed cookie, recommendations that leave out what a reader read, listed or rejected (POST /r/api/), and the
 * operators' editors' picks and announcements with their 400s, 403s and 404s.
 */
import {
  bookDetailSchema,
  contentMetadataSchema,
  HOME_MESSAGES,
  HOME_ROW_SIZE,
  homeResponseSchema,
  pagedSchema,
  RECENTLY_VIEWED_COOKIE,
  searchPaths,
} from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HomeRepository } from '../../src/repositories/home.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { importSamples } from '../helpers/sample.ts';

const bookPageSchema = pagedSchema(contentMetadataSchema);
type Card = ReturnType<typeof contentMetadataSchema.parse>;

describe.each(ENGINES)('the home dashboard on %s', (engine) => {
  let t: TestApp;
  let ada: TestClient;
  let bob: TestClient;
  let cyd: TestClient;
  let admin: TestClient;
  let anon: TestClient;
  let books: Card[];
  const byTitle = (re: RegExp) => books.find((b) => re.test(b.title))!;

  /** `cookie`: the recently viewed value as core's addRecentlyViewed makes it; the browser sends it URI-encoded once more */
  const home = async (c: TestClient, cookie?: string) => {
    const res = await c.get(searchPaths.home(), cookie === undefined ? undefined : { cookie: `${RECENTLY_VIEWED_COOKIE}=${encodeURIComponent(cookie)}` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-cache');
    return homeResponseSchema.parse(res.json());
  };
  const section = (h: Awaited<ReturnType<typeof home>>, key: string) => h.sections.find((s) => s.key === key);
  const titlesOf = (h: Awaited<ReturnType<typeof home>>, key: string) => section(h, key)?.titles.map((b) => b.title) ?? [];

  /** A reader reads the first chapters of a book (usage events: the chapter progress popular counts). */
  const read = async (c: TestClient, card: Card, uuid: string) => {
    const detail = bookDetailSchema.parse((await c.get(card.api_url)).json());
    const chapter = detail.chapters.find((ch) => ch.as_sample) ?? detail.chapters[0]!;
    const res = await c.post('/api/v1/usage-event/', {
      events: [{ chapter: chapter.url, start_percentage: 0, end_percentage: 40, client_timestamp: Date.now(), usage_uuid: uuid }],
    });
    expect(res.json().accepted, res.body).toEqual([uuid]);
    return detail;
  };
  const act = (c: TestClient, body: Record<string, unknown>, opts?: { csrf?: boolean }) =>
    c.post(searchPaths.recommendationAction(), { client_type: 'web', context: 'homepage', recommender_system: 'topics', recommendation_position: 0, ...body }, opts);

  beforeAll(async () => {
    t = await startTestApp(engine);
    await importSamples(t.lectern);
    [ada, bob, cyd] = await signedInSubscribers(t.lectern, ['ada@example.com', 'bob@example.com', 'cyd@example.com']);
    await t.lectern.services.accounts.createUser({ email: 'root@example.com', password: 'a long enough password', role: 'admin' });
    admin = new TestClient(t.lectern.app);
    await admin.login('root@example.com', 'a long enough password');
    anon = new TestClient(t.lectern.app);
    books = bookPageSchema.parse((await anon.get('/api/v1/book/?page_size=100')).json()).results;
    // Reading before the first look at the home: popular is computed once per few minutes.
    const moby = byTitle(/Moby-Dick/);
    const wotw = byTitle(/War of the Worlds/);
    await read(bob, moby, 'bob-moby');
    await read(cyd, moby, 'cyd-moby');
    await read(cyd, wotw, 'cyd-wotw');
  });
  afterAll(() => t.close());

  it('shows a visitor what is new and popular and the topics to browse, never a reader’s own rows', async () => {
    const h = await home(anon);
    // popular: by readers over the last 30 days (two read Moby-Dick, one The War of the Worlds)
    expect(titlesOf(h, 'popular').slice(0, 2)).toEqual([byTitle(/Moby-Dick/).title, byTitle(/War of the Worlds/).title]);
    // new: the newest titles no other row shows (one title, one row)
    expect(titlesOf(h, 'new').length).toBeGreaterThan(0);
    expect(titlesOf(h, 'new')).not.toContain(byTitle(/Moby-Dick/).title);
    for (const own of ['continue_reading', 'queue', 'recommended', 'trending_in_your_topics']) expect(section(h, own)).toBeUndefined();
    expect(h.topics.length).toBeGreaterThan(0);
    // empty sections are left out: the sample library has no videos
    expect(section(h, 'popular_videos')).toBeUndefined();
    for (const s of h.sections) {
      expect(s.heading).toBe(HOME_MESSAGES.headings[s.key]);
      expect(s.titles.length).toBeGreaterThan(0);
      expect(s.titles.length).toBeLessThanOrEqual(HOME_ROW_SIZE);
    }
  });

  it('shows the recently viewed titles from the cookie, newest first, unknown and malformed entries left out', async () => {
    const [a, b] = [byTitle(/Alice/), byTitle(/War of the Worlds/)];
    const cookie = [`${encodeURIComponent(b.book_id)}:title`, 'no-such-book:title', `${encodeURIComponent(a.book_id)}:reader`, '%E0%A4%A:x', `${encodeURIComponent(b.book_id)}:again`].join('|');
    expect(titlesOf(await home(anon, cookie), 'last_viewed')).toEqual([b.title, a.title]);
    expect(section(await home(anon, '%%%|:|'), 'last_viewed')).toBeUndefined();
  });

  it('gives a reader Continue reading (from the account, any browser) and the queue, in their order', async () => {
    const wotw = byTitle(/War of the Worlds/);
    const alice = byTitle(/Alice/);
    const detail = bookDetailSchema.parse((await ada.get(wotw.api_url)).json());
    const chapter = detail.chapters.find((c) => c.as_sample)!;
    const put = await ada.request('PUT', `/api/v1/book/${encodeURIComponent(wotw.book_id)}/position/`, { json: { locator: { href: chapter.full_path, progression: 0.3 } } });
    expect(put.statusCode, put.body).toBe(200);
    expect((await ada.request('POST', '/api/v1/queue-simple/', { json: [alice.api_url] })).statusCode).toBe(200);

    const elsewhere = new TestClient(t.lectern.app);
    await elsewhere.login('ada@example.com', 'a long enough password');
    const h = await home(elsewhere);
    const cont = section(h, 'continue_reading')!;
    expect(cont.titles.map((b) => b.title)).toEqual([wotw.title]);
    expect(cont.titles[0]!.resumes).toBe(true);
    expect(cont.titles[0]!.continue_url).toContain(encodeURIComponent(chapter.full_path).replaceAll('%2F', '/'));
    expect(titlesOf(h, 'queue')).toEqual([alice.title]);
    // Bob has neither
    const hb = await home(bob);
    expect(section(hb, 'continue_reading')).toBeUndefined();
    expect(section(hb, 'queue')).toBeUndefined();
  });

  it('shows the queue in the order the reader set on the playlists page', async () => {
    const [dan] = await signedInSubscribers(t.lectern, ['dan@example.com']);
    const [moby, alice, wotw] = [byTitle(/Moby-Dick/), byTitle(/Alice/), byTitle(/War of the Worlds/)];
    // added one at a time: each goes to the front
    for (const b of [moby, alice, wotw]) expect((await dan.request('POST', '/api/v1/queue-simple/', { json: [b.api_url] })).statusCode).toBe(200);
    const queue = (await dan.get('/api/v2/collections/')).json().find((c: { is_default: boolean }) => c.is_default) as { id: string; content: { api_url: string }[] };
    expect(queue.content.map((i) => i.api_url)).toEqual([wotw.api_url, alice.api_url, moby.api_url]);
    expect(titlesOf(await home(dan), 'queue')).toEqual([wotw.title, alice.title, moby.title]);
    // the reader reorders it on the playlists page
    const order = [alice, moby, wotw];
    const put = await dan.request('PUT', `/api/v2/collections/${queue.id}/order/`, { json: { content: order.map((b) => b.api_url) } });
    expect(put.statusCode, put.body).toBe(200);
    expect(titlesOf(await home(dan), 'queue')).toEqual(order.map((b) => b.title));
  });

  it('shows a title in one row only: continue reading, then the queue, then what was viewed, before the general rows', async () => {
    const [eve] = await signedInSubscribers(t.lectern, ['eve@example.com']);
    const [moby, alice, wotw] = [byTitle(/Moby-Dick/), byTitle(/Alice/), byTitle(/War of the Worlds/)];
    const detail = bookDetailSchema.parse((await eve.get(moby.api_url)).json());
    const chapter = detail.chapters.find((c) => c.as_sample) ?? detail.chapters[0]!;
    const put = await eve.request('PUT', `/api/v1/book/${encodeURIComponent(moby.book_id)}/position/`, { json: { locator: { href: chapter.full_path, progression: 0.3 } } });
    expect(put.statusCode, put.body).toBe(200);
    // Moby-Dick is read on, queued, viewed lately, new and popular; Alice queued and viewed; The War of the Worlds viewed
    expect((await eve.request('POST', '/api/v1/queue-simple/', { json: [moby.api_url, alice.api_url] })).statusCode).toBe(200);
    const cookie = [moby, alice, wotw].map((b) => `${encodeURIComponent(b.book_id)}:title`).join('|');
    // a signed-in client sends its own cookies: the recently viewed one goes among them
    eve.cookies.set(RECENTLY_VIEWED_COOKIE, encodeURIComponent(cookie));
    const h = await home(eve);
    expect(titlesOf(h, 'continue_reading')).toEqual([moby.title]);
    expect(titlesOf(h, 'queue')).toEqual([alice.title]);
    expect(titlesOf(h, 'last_viewed'), JSON.stringify(h.sections.map((s) => [s.key, s.titles.map((b) => b.title)]))).toEqual([wotw.title]);
    for (const page of [h, await home(anon, cookie), await home(ada)]) {
      const shown = page.sections.flatMap((s) => s.titles.map((b) => b.book_id));
      expect(new Set(shown).size, JSON.stringify(page.sections.map((s) => [s.key, s.titles.map((b) => b.title)]))).toBe(shown.length);
    }
  });

  it('recommends titles in the reader’s topics that they have not read, listed or rejected; a rejection lasts', async () => {
    const topics = (await anon.get('/api/v1/topics/')).json().results as { slug: string }[];
    const chosen = await ada.request('PUT', '/api/v2/account/topics/', { json: { topics: topics.map((x) => x.slug) } });
    expect(chosen.statusCode, chosen.body).toBe(200);
    const h = await home(ada);
    const rec = section(h, 'recommended')!;
    expect(rec.recommender_system).toBe('topics');
    const shown = rec.titles.map((b) => b.title);
    // Ada holds a position in The War of the Worlds and queued Alice
    expect(shown).not.toContain(byTitle(/War of the Worlds/).title);
    expect(shown).not.toContain(byTitle(/Alice/).title);
    expect(shown.length).toBeGreaterThan(0);

    const first = rec.titles[0]!;
    expect((await act(ada, { title_id: first.book_id, action: 'view' })).statusCode).toBe(204);
    expect(titlesOf(await home(ada), 'recommended')).toContain(first.title);
    expect((await act(ada, { title_id: first.book_id, action: 'reject', recommendation_position: 0 })).statusCode).toBe(204);
    expect(titlesOf(await home(ada), 'recommended')).not.toContain(first.title);
    // only for Ada
    expect(titlesOf(await home(bob), 'recommended').length + titlesOf(await home(bob), 'popular').length).toBeGreaterThan(0);
  });

  it('reads a reader’s own facts in one statement that agrees with the per-candidate query, and falls back past the cap', async () => {
    const repo = new HomeRepository(t.lectern.db.kysely);
    const adaId = (await t.lectern.db.kysely.selectFrom('users').select('id').where('email', '=', 'ada@example.com').executeTakeFirstOrThrow()).id;
    const facts = await repo.readerFacts(adaId, HOME_ROW_SIZE, 5);
    const allIds = (await t.lectern.db.kysely.selectFrom('titles').select('id').execute()).map((r) => r.id);
    const asked = await repo.seenOrRejected(adaId, allIds);
    expect(facts.seen).not.toBeNull();
    expect([...facts.seen!].sort((a, b) => a - b)).toEqual([...asked].sort((a, b) => a - b));
    // Ada holds a position (continue reading) and a queue, both among what she has no use for as a recommendation
    expect(facts.positions.length).toBeGreaterThan(0);
    expect(facts.queue.length).toBeGreaterThan(0);
    for (const id of [...facts.positions, ...facts.queue]) expect(facts.seen!.has(id)).toBe(true);
    // a reader with more seen titles than the cap gets null, and the home asks about its candidates instead
    const capped = await new HomeRepository(t.lectern.db.kysely, 0).readerFacts(adaId, HOME_ROW_SIZE, 5);
    expect(capped.seen).toBeNull();
    expect(capped.positions).toEqual(facts.positions);
  });

  it('refuses a recommendation action from a visitor, without the CSRF token, for an unknown title or with a bad field', async () => {
    const book = byTitle(/Moby-Dick/);
    expect((await act(anon, { title_id: book.book_id, action: 'view' })).statusCode).toBe(401);
    expect((await act(bob, { title_id: book.book_id, action: 'view' }, { csrf: false })).statusCode).toBe(403);
    expect((await act(bob, { title_id: 'no-such-book', action: 'reject' })).statusCode).toBe(404);
    const bad = await act(bob, { title_id: book.book_id, action: 'burn' });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json().errors ?? {})).toContain('action');
    const noTitle = await act(bob, { action: 'view' });
    expect(noTitle.statusCode).toBe(400);
    expect(noTitle.body).toContain('title_id');
  });

  it('shows the editors’ picks an operator chose, in their order; an unknown id changes nothing', async () => {
    const picks = [byTitle(/Moby-Dick/), byTitle(/Alice/)];
    const set = await admin.request('PUT', '/api/v2/admin/editors-picks/', { json: { book_ids: picks.map((b) => b.book_id) } });
    expect(set.statusCode, set.body).toBe(200);
    expect(titlesOf(await home(anon), 'editors_picks')).toEqual(picks.map((b) => b.title));

    const bad = await admin.request('PUT', '/api/v2/admin/editors-picks/', { json: { book_ids: [picks[1]!.book_id, 'no-such-book'] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.book_ids[0]).toBe(HOME_MESSAGES.unknownBook('no-such-book'));
    expect(titlesOf(await home(anon), 'editors_picks')).toEqual(picks.map((b) => b.title));
    expect((await bob.request('PUT', '/api/v2/admin/editors-picks/', { json: { book_ids: [] } })).statusCode).toBe(403);
    expect((await admin.get('/api/v2/admin/editors-picks/')).json()).toEqual({ book_ids: picks.map((b) => b.book_id) });
  });

  it('shows the announcements that are on, never a script link; an operator removes them', async () => {
    const url = '/api/v2/admin/announcements/';
    const script = await admin.post(url, { message: 'Click', url: 'javascript:alert(1)' });
    expect(script.statusCode).toBe(400);
    expect(script.body).toContain('url');
    expect((await admin.post(url, { message: 'Other host', url: '//evil.example/' })).statusCode).toBe(400);
    expect((await admin.post(url, { message: '' })).statusCode).toBe(400);
    expect((await bob.post(url, { message: 'Mine' })).statusCode).toBe(403);

    const on = await admin.post(url, { message: 'Live training on Friday', url: '/live-training/' });
    expect(on.statusCode, on.body).toBe(201);
    const past = await admin.post(url, { message: 'Over', starts_at: '2020-01-01T00:00:00Z', ends_at: '2020-02-01T00:00:00Z' });
    expect(past.statusCode).toBe(201);
    const h = await home(anon);
    expect(h.announcements).toEqual([{ id: on.json().id, message: 'Live training on Friday', url: '/live-training/' }]);

    expect((await admin.request('DELETE', `${url}${on.json().id}/`)).statusCode).toBe(204);
    expect((await admin.request('DELETE', `${url}${on.json().id}/`)).statusCode).toBe(404);
    expect((await home(anon)).announcements).toEqual([]);
  });
});
