/**
 * Identical creations at once (an attack run: 200 creations of one promotion code answered 500, 58 on
 * SQLite, 1 on PostgreSQL): each route answers what its one-at-a-time path answers — one is created, the others are
 * told it exists — and never a 5xx. Replacements of a whole set at once (editors' picks, a reader's topics) end as
 * one of the sets asked for, never a 500 nor a mix of two. On both engines.
 */
import { liveTrainingPaths, LIVE_TRAINING_MESSAGES } from '@lectern/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { AccountEntryRepository } from '../../src/repositories/account-entry.ts';
import { CollectionsRepository } from '../../src/repositories/collections.ts';
import { UsersRepository } from '../../src/repositories/users.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient, signedInSubscribers, tally } from '../helpers/client.ts';
import { epubBook } from '../ingest/helpers.ts';

const PASSWORD = 'a long enough password';

/**
 * The same request sent over real sockets (the attack run's way: on SQLite app.inject alone interleaves the
 * requests too little to show the race), with the client's cookies and CSRF token.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- json() stands for inject()'s, whose answers the tests read freely
async function overHttp(base: string, client: TestClient, method: string, path: string, body: unknown): Promise<{ statusCode: number; json(): any }> {
  const res = await fetch(base + path, {
    method,
    headers: {
      'content-type': 'application/json',
      cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      'x-csrftoken': client.cookies.get('csrftoken') ?? '',
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { statusCode: res.status, json: () => JSON.parse(text) };
}

describe.each(ENGINES)('identical creations at once on %s', (engine) => {
  let t: TestApp;
  let admin: TestClient;
  let reader: TestClient;
  let base: string;
  const bookIds: string[] = [];

  beforeAll(async () => {
    t = await startTestApp(engine);
    base = await t.lectern.app.listen({ host: '127.0.0.1', port: 0 });
    await t.lectern.services.accounts.createUser({ email: 'root@example.com', password: PASSWORD, status: 'subscriber', role: 'admin' });
    admin = new TestClient(t.lectern.app);
    await admin.login('root@example.com', PASSWORD);
    [reader] = await signedInSubscribers(t.lectern, ['reader@example.com']);
    for (const n of [1, 2, 3, 4]) {
      const book = epubBook({
        identifier: `urn:uuid:00000000-0000-4000-8000-00000000021${n}`,
        title: `Race Book ${n}`,
        chapters: [{ path: 'one.xhtml', label: 'One', body: `<h1>One</h1><p>${'Words of a page. '.repeat(20)}</p>` }],
      });
      const imported = await t.lectern.services.importer.importBytes(book, `race-${n}.epub`, { topics: [`Topic ${n}`] });
      bookIds.push(imported.book_id);
    }
  });
  afterAll(() => t.close());

  it('200 identical promotion codes at once: one is created, the others are told it exists (was a 500)', async () => {
    // four codes, over sockets and through inject: how the requests interleave differs, the answer must not
    for (const [i, send] of (['http', 'inject', 'http', 'inject'] as const).entries()) {
      const body = { code: `Race200-${i}`, kind: 'percent', amount: 10, plan: 'pro' };
      const results = await Promise.all(
        Array.from({ length: 200 }, () => (send === 'http' ? overHttp(base, admin, 'POST', '/api/v2/admin/promotion-codes/', body) : admin.post('/api/v2/admin/promotion-codes/', body))),
      );
      expect(tally(results.map((r) => r.statusCode))).toEqual({ 201: 1, 400: 199 });
      expect(results.find((r) => r.statusCode === 400)!.json().errors.code).toEqual([`The code race200-${i} exists already.`]);
    }
    const codes = (await admin.get('/api/v2/admin/promotion-codes/')).json();
    for (const i of [0, 1, 2, 3]) expect(JSON.stringify(codes).match(new RegExp(`"race200-${i}"`, 'g'))).toHaveLength(1);
  });

  it('100 identical live courses at once: one is created, the others are told the slug is taken (was a 500)', async () => {
    const results = await Promise.all(Array.from({ length: 100 }, () => overHttp(base, admin, 'POST', liveTrainingPaths.adminCourses(), { title: 'Racing Course', topics: ['Speed'] })));
    expect(tally(results.map((r) => r.statusCode))).toEqual({ 201: 1, 400: 99 });
    expect(results.find((r) => r.statusCode === 400)!.json().errors.slug).toEqual([LIVE_TRAINING_MESSAGES.slugTaken('racing-course')]);
    const all = (await admin.get(liveTrainingPaths.adminCourses())).json();
    expect(JSON.stringify(all).match(/"racing-course"/g)).toHaveLength(1);
  });

  it('50 identical playlists at once: one is created, the others are told the name is taken', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => overHttp(base, reader, 'POST', '/api/v2/collections/', { name: 'Same Name', description: '' })));
    expect(tally(results.map((r) => r.statusCode))).toEqual({ 201: 1, 400: 49 });
    const list = (await reader.get('/api/v2/collections/')).json();
    expect(JSON.stringify(list).match(/"Same Name"/g)).toHaveLength(1);
  });

  // The window between a service's check and its write is too narrow to hit on demand: the repositories are asked
  // the losing write directly. Each says "taken" (no engine error reaches a service) and writes nothing.
  it('a write the unique index refuses is answered "taken" by its repository, and changes nothing', async () => {
    const k = t.lectern.db.kysely;
    const userId = async (email: string) => (await k.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id;
    await signedInSubscribers(t.lectern, ['other-reader@example.com']);
    const readerId = await userId('reader@example.com');

    const users = new UsersRepository(k);
    expect(await users.setEmail(readerId, 'other-reader@example.com')).toBe(false);
    expect(await userId('reader@example.com')).toBe(readerId);

    const entry = new AccountEntryRepository(k);
    const histories = async () => Number((await k.selectFrom('account_history').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const before = await histories();
    const row = await t.lectern.services.accounts.prepareUser({ email: 'newcomer@example.com', password: PASSWORD, status: 'trial' });
    expect(await entry.insertUser({ ...row, email: 'reader@example.com' }, { event: 'registered', from_status: null, to_status: 'trial' })).toBeUndefined();
    expect(await histories()).toBe(before);

    const collections = new CollectionsRepository(k);
    const now = new Date().toISOString();
    const playlist = (id: string, name: string) => ({ id, user_id: readerId, name, description: '', is_default: 0 as const, created_at: now, updated_at: now });
    expect(await collections.insert(playlist('00000000-0000-4000-8000-0000000021a1', 'Taken Name'))).toBe(true);
    expect(await collections.insert(playlist('00000000-0000-4000-8000-0000000021a2', 'taken name'))).toBe(false);
    expect(await collections.insert(playlist('00000000-0000-4000-8000-0000000021a3', 'Free Name'))).toBe(true);
    expect(await collections.update('00000000-0000-4000-8000-0000000021a3', { name: 'TAKEN NAME', updated_at: now })).toBe(false);
    expect((await collections.listForUser(readerId)).map((c) => c.name).sort()).toEqual(expect.arrayContaining(['Free Name', 'Taken Name']));
    expect((await collections.listForUser(readerId)).filter((c) => /taken name/i.test(c.name))).toHaveLength(1);
  });

  it('20 identical accounts at once from the operator (users:create): one is made, the others refused on the email', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => t.lectern.services.accounts.createUser({ email: 'twin@example.com', password: PASSWORD, status: 'subscriber' })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')) {
      expect(r.reason).toBeInstanceOf(AppError);
      expect((r.reason as AppError).status).toBe(400);
      expect(Object.keys((r.reason as AppError).errors ?? {})).toEqual(['email']);
    }
  });

  it('50 different sets of editors’ picks at once: every request succeeds and one set stands whole (was a 500 on PostgreSQL)', async () => {
    const sets = Array.from({ length: 50 }, (_, i) => [bookIds[i % 4]!, bookIds[(i + 1) % 4]!, bookIds[(i + 2) % 4]!]);
    const results = await Promise.all(sets.map((book_ids) => overHttp(base, admin, 'PUT', '/api/v2/admin/editors-picks/', { book_ids })));
    expect(tally(results.map((r) => r.statusCode))).toEqual({ 200: 50 });
    const now = (await admin.get('/api/v2/admin/editors-picks/')).json().book_ids;
    expect(sets.map((s) => JSON.stringify(s))).toContain(JSON.stringify(now));
  });

  it('50 different choices of topics at once: every request succeeds and one choice stands whole (was a 500 on PostgreSQL)', async () => {
    const slugs = ['topic-1', 'topic-2', 'topic-3', 'topic-4'];
    const sets = Array.from({ length: 50 }, (_, i) => [slugs[i % 4]!, slugs[(i + 1) % 4]!]);
    const results = await Promise.all(sets.map((topics) => overHttp(base, reader, 'PUT', '/api/v2/account/topics/', { topics })));
    expect(tally(results.map((r) => r.statusCode))).toEqual({ 200: 50 });
    const now = (await reader.get('/api/v2/account/topics/')).json().topics.map((t: { slug: string }) => t.slug).sort();
    expect(sets.map((s) => JSON.stringify([...s].sort()))).toContain(JSON.stringify(now));
  });

  // Another process (a second server, the command line) adding the same publisher while this one imports: on
  // PostgreSQL the import's insert waits for the other transaction and then met its row (a unique violation: the
  // import failed). SQLite writes one transaction at a time, so there the two never overlap like this.
  it.runIf(engine === 'postgres')('imports a book whose new publisher another process adds at the same moment: the one row is shared', async () => {
    const other = new pg.Client({ connectionString: t.lectern.config.databaseUrl! });
    await other.connect();
    try {
      await other.query('begin');
      await other.query(`insert into publishers (slug, name, name_key) values ('race-press', 'Race Press', 'race press')`);
      const book = epubBook({
        identifier: 'urn:uuid:00000000-0000-4000-8000-000000000299',
        title: 'Race Press Book',
        metadata: ['<dc:publisher>Race Press</dc:publisher>'],
        chapters: [{ path: 'one.xhtml', label: 'One', body: `<h1>One</h1><p>${'Words of a page. '.repeat(20)}</p>` }],
      });
      const importing = t.lectern.services.importer.importBytes(book, 'race-press.epub');
      // the import's insert of the publisher waits on the other transaction's row
      await vi.waitFor(
        async () => {
          const waiting = await other.query(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
          expect(waiting.rows[0].n).toBeGreaterThan(0);
        },
        { timeout: 30_000, interval: 50 },
      );
      await other.query('commit');
      const imported = await importing;
      const detail = (await reader.get(`/api/v1/book/${imported.book_id}/`)).json();
      expect(JSON.stringify(detail.publishers ?? detail)).toContain('Race Press');
      const rows = await other.query(`select count(*)::int as n from publishers where slug = 'race-press'`);
      expect(rows.rows[0].n).toBe(1);
    } finally {
      await other.end();
    }
  });
});
