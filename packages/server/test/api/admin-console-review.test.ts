/**
 * The operators' console API after its review (docs/decisions.md "Operators' console: the review's findings") on both
 * engines: readers' emails for admins only, their list paged in SQL with totals in one query, a new edition moving the
 * title's version, an edit re-indexed for search, retired titles out of search, suggestions and the home, empty
 * searches capped and purged, the audit entry of a change that committed before a 5xx, retire/restore settled by the
 * update, the 409 naming the last actor on the title, the last admin kept, and account creation in one insert with the
 * configured trial.
 */
import {
  ADMIN_CONSOLE_MESSAGES as M,
  ADMIN_MESSAGES,
  adminPaths,
  adminTitleDetailSchema,
  adminTitleReadersPageSchema,
  auditPageSchema,
  bookDetailSchema,
  catalogSearchResponseSchema,
  homeResponseSchema,
  searchPaths,
  suggestResponseSchema,
} from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_MISSES_PER_DAY } from '../../src/services/admin-dashboard.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { epubBook } from '../ingest/helpers.ts';
import { multipart } from '../helpers/multipart.ts';

const PASSWORD = 'a long enough password';
const TRIAL_DAYS = 3;

const book = (id: string, title: string, creator: string, word = 'Words') =>
  epubBook({
    identifier: `urn:uuid:${id}`,
    title,
    creator,
    chapters: [
      { path: 'one.xhtml', label: 'One', body: `<h1>One</h1><p>${`${word} of the first chapter. `.repeat(200)}</p>` },
      { path: 'two.xhtml', label: 'Two', body: `<h1>Two</h1><p>${`${word} of the second chapter. `.repeat(200)}</p>` },
    ],
  });

describe.each(ENGINES)('the operators’ console after review on %s', (engine) => {
  let t: TestApp;
  let admin: TestClient;
  let second: TestClient;
  let creator: TestClient;
  let readers: readonly TestClient[];
  let anon: TestClient;
  const ids: Record<'quill' | 'meadow' | 'orchard', string> = { quill: '', meadow: '', orchard: '' };

  const patch = (c: TestClient, url: string, json: unknown) => c.request('PATCH', url, { json });
  const detail = async (bookId: string) => adminTitleDetailSchema.parse((await admin.get(adminPaths.title(bookId))).json());
  const audit = async (query: string) => auditPageSchema.parse((await admin.get(`${adminPaths.audit()}?${query}`)).json()).results;
  const search = async (q: string) => catalogSearchResponseSchema.parse((await anon.get(`${searchPaths.catalog()}?q=${encodeURIComponent(q)}`)).json());
  const read = async (c: TestClient, bookId: string, chapter: number, end: number, uuid: string) => {
    const d = bookDetailSchema.parse((await c.get(`/api/v1/book/${bookId}/`)).json());
    const res = await c.post('/api/v1/usage-event/', {
      events: [{ chapter: d.chapters[chapter]!.url, start_percentage: 0, end_percentage: end, client_timestamp: Date.now(), usage_uuid: uuid }],
    });
    expect(res.json().accepted, res.body).toEqual([uuid]);
  };

  beforeAll(async () => {
    t = await startTestApp(engine, { trialDays: TRIAL_DAYS });
    const accounts = t.lectern.services.accounts;
    await accounts.createUser({ email: 'root@example.com', password: PASSWORD, role: 'admin' });
    await accounts.createUser({ email: 'ops@example.com', password: PASSWORD, role: 'admin' });
    await accounts.createUser({ email: 'maker@example.com', password: PASSWORD, role: 'content-creator' });
    admin = new TestClient(t.lectern.app);
    await admin.login('root@example.com', PASSWORD);
    second = new TestClient(t.lectern.app);
    await second.login('ops@example.com', PASSWORD);
    creator = new TestClient(t.lectern.app);
    await creator.login('maker@example.com', PASSWORD);
    readers = await signedInSubscribers(t.lectern, ['ann@example.com', 'bob@example.com', 'cyd@example.com']);
    anon = new TestClient(t.lectern.app);
    const res = await creator.request(
      'POST',
      adminPaths.import(),
      multipart([
        { name: 'quill.epub', data: book('5e1f0000-0000-4000-8000-000000000001', 'The Quill Road', 'Nora Quill') },
        { name: 'meadow.epub', data: book('5e1f0000-0000-4000-8000-000000000002', 'Meadow Tales', 'Pia Lind') },
        { name: 'orchard.epub', data: book('5e1f0000-0000-4000-8000-000000000003', 'Orchard Song', 'Tom Ash') },
      ]),
    );
    expect(res.statusCode, res.body).toBe(201);
    for (const b of res.json().imported as { book_id: string; title: string }[]) {
      if (b.title === 'The Quill Road') ids.quill = b.book_id;
      if (b.title === 'Meadow Tales') ids.meadow = b.book_id;
      if (b.title === 'Orchard Song') ids.orchard = b.book_id;
    }
  });
  afterAll(() => t.close());

  it("lists a title's readers to admins only, most minutes first, paged, with totals that agree", async () => {
    // ann reads a whole chapter (half the book), bob a quarter of one, cyd both chapters whole (all of it)
    await read(readers[0]!, ids.quill, 0, 100, 'r-ann-1');
    await read(readers[1]!, ids.quill, 0, 25, 'r-bob-1');
    await read(readers[2]!, ids.quill, 0, 100, 'r-cyd-1');
    await read(readers[2]!, ids.quill, 1, 100, 'r-cyd-2');

    expect((await creator.get(adminPaths.titleReaders(ids.quill))).statusCode).toBe(403);
    // the content creator keeps the aggregate figures
    const forCreator = adminTitleDetailSchema.parse((await creator.get(adminPaths.title(ids.quill))).json());
    expect(forCreator.stats.readers).toBe(3);

    const first = adminTitleReadersPageSchema.parse((await admin.get(`${adminPaths.titleReaders(ids.quill)}?limit=2`)).json());
    expect(first.results.map((r) => r.email)).toEqual(['cyd@example.com', 'ann@example.com']);
    // the chapters' lengths differ a little ("first", "second"): ann's half is about 0.5
    expect(first.results[0]!.completion).toBe(1);
    expect(first.results[1]!.completion).toBeCloseTo(0.5, 1);
    expect(first.next_cursor).toBe('2');
    const rest = adminTitleReadersPageSchema.parse((await admin.get(`${adminPaths.titleReaders(ids.quill)}?limit=2&cursor=${first.next_cursor}`)).json());
    expect(rest.results.map((r) => r.email)).toEqual(['bob@example.com']);
    expect(rest.next_cursor).toBeNull();
    expect(rest.results[0]!.completion).toBeCloseTo(0.125, 1);
    const all = [...first.results, ...rest.results];
    expect(all.every((r) => Number.isInteger(Math.round(r.completion * 100)))).toBe(true);

    const d = await detail(ids.quill);
    expect(d.stats.readers).toBe(3);
    expect(d.stats.completed_readers).toBe(1);
    expect(d.stats.minutes_read).toBeCloseTo(all.reduce((s, r) => s + r.minutes_read, 0), 1);
    // the totals' query rounds each reader as the list does
    expect(d.stats.completion).toBe(Math.round((all.reduce((s, r) => s + r.completion, 0) / 3) * 100) / 100);
    expect((await admin.get(`${adminPaths.titleReaders(ids.quill)}?cursor=0`)).json().errors.cursor).toEqual([M.cursorShape]);
  });

  it('moves the version with a new edition, so a save against the old edition is refused', async () => {
    const before = await detail(ids.meadow);
    const replaced = await admin.request(
      'POST',
      `${adminPaths.import()}?replace=${encodeURIComponent(ids.meadow)}`,
      multipart([{ name: 'meadow2.epub', data: book('5e1f0000-0000-4000-8000-000000000002', 'Meadow Tales Revised', 'Pia Lind', 'Verses') }]),
    );
    expect(replaced.statusCode, replaced.body).toBe(200);
    const after = await detail(ids.meadow);
    expect(after.title).toBe('Meadow Tales Revised');
    expect(after.version).toBeGreaterThan(before.version);
    const stale = await patch(creator, adminPaths.title(ids.meadow), { version: before.version, title: 'Meadow Tales' });
    expect(stale.statusCode).toBe(409);
    expect((await detail(ids.meadow)).title).toBe('Meadow Tales Revised');
  });

  it('re-indexes an edited title and its authors for search at once', async () => {
    expect((await search('Orchard')).results.map((r) => r.metadata.book_id)).toEqual([ids.orchard]);
    const v = (await detail(ids.orchard)).version;
    const res = await patch(creator, adminPaths.title(ids.orchard), { version: v, title: 'Lantern Grove', authors: ['Vera Bright'], topics: ['Gardens'] });
    expect(res.statusCode, res.body).toBe(200);
    expect((await search('Lantern Grove')).results.map((r) => r.metadata.book_id)).toEqual([ids.orchard]);
    expect((await search('Bright')).results.map((r) => r.metadata.book_id)).toEqual([ids.orchard]);
    expect((await search('Gardens')).results.map((r) => r.metadata.book_id)).toEqual([ids.orchard]);
    expect((await search('Orchard')).results).toEqual([]);
    expect((await search('Ash')).results).toEqual([]);
  });

  it('leaves a retired title out of search, suggestions and the home; restored, it is back', async () => {
    const pick = await patch(admin, adminPaths.title(ids.orchard), { version: (await detail(ids.orchard)).version, editors_pick: true });
    expect(pick.statusCode, pick.body).toBe(200);
    const picks = async () => homeResponseSchema.parse((await anon.get(searchPaths.home())).json()).sections.find((s) => s.key === 'editors_picks')?.titles.map((b) => b.title) ?? [];
    const suggested = async (q: string) => suggestResponseSchema.parse((await anon.get(`${searchPaths.suggest()}?q=${encodeURIComponent(q)}`)).json()).suggestions.map((s) => s.label);
    expect(await picks()).toEqual(['Lantern Grove']);
    expect(await suggested('lantern')).toContain('Lantern Grove');
    expect(await suggested('vera')).toContain('Vera Bright');

    expect((await creator.post(adminPaths.titleRetire(ids.orchard), {})).statusCode).toBe(200);
    expect((await search('Lantern Grove')).results).toEqual([]);
    expect(await suggested('lantern')).not.toContain('Lantern Grove');
    expect(await suggested('vera')).not.toContain('Vera Bright');
    expect(await picks()).toEqual([]);

    expect((await creator.post(adminPaths.titleRestore(ids.orchard), {})).statusCode).toBe(200);
    expect((await search('Lantern Grove')).results.map((r) => r.metadata.book_id)).toEqual([ids.orchard]);
    expect(await picks()).toEqual(['Lantern Grove']);
  });

  it('settles two retires at once by the update: one passes, the other is a 409', async () => {
    const both = await Promise.all([creator.post(adminPaths.titleRetire(ids.meadow), {}), admin.post(adminPaths.titleRetire(ids.meadow), {})]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(await audit(`action=title.retire&target_id=${encodeURIComponent(ids.meadow)}`)).toHaveLength(1);
    const back = await Promise.all([creator.post(adminPaths.titleRestore(ids.meadow), {}), admin.post(adminPaths.titleRestore(ids.meadow), {})]);
    expect(back.map((r) => r.statusCode).sort()).toEqual([200, 409]);
  });

  it('names in a 409 whoever changed the title last, by any action', async () => {
    const v = (await detail(ids.quill)).version;
    expect((await patch(creator, adminPaths.title(ids.quill), { version: v, description: 'By the maker.' })).statusCode).toBe(200);
    // then an admin retires and restores it (no edit of theirs)
    expect((await admin.post(adminPaths.titleRetire(ids.quill), {})).statusCode).toBe(200);
    expect((await admin.post(adminPaths.titleRestore(ids.quill), {})).statusCode).toBe(200);
    const stale = await patch(creator, adminPaths.title(ids.quill), { version: v + 1, description: 'Again.' });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().detail).toBe(M.versionConflict('root@example.com'));
  });

  it('writes the audit entry of a change that committed when the answer is then a 5xx', async () => {
    const titles = t.lectern.services.admin.titles as unknown as { forget: (bookId: string, titleId: number) => Promise<void> };
    const forget = titles.forget;
    titles.forget = async () => {
      throw new Error('the cache is gone');
    };
    try {
      const res = await creator.post(adminPaths.titleRetire(ids.quill), {});
      expect(res.statusCode).toBe(500);
    } finally {
      titles.forget = forget;
    }
    expect((await detail(ids.quill)).retired_at).toBeTruthy();
    const [entry] = await audit(`target_id=${encodeURIComponent(ids.quill)}`);
    expect(entry).toMatchObject({ action: 'title.retire', actor_label: 'maker@example.com' });
    expect((await creator.post(adminPaths.titleRestore(ids.quill), {})).statusCode).toBe(200);
  });

  it('keeps an admin: two admins taking each other’s role at once, one is refused; nor may the command line take the last', async () => {
    const users = t.lectern.services.admin.users;
    const [root, ops] = await Promise.all([users.find('root@example.com'), users.find('ops@example.com')]);
    const both = await Promise.all([patch(admin, adminPaths.user(ops.uuid), { roles: [] }), patch(second, adminPaths.user(root.uuid), { roles: [] })]);
    // one passes; the other is refused: its check sees the first's change (400), or, when the first has finished
    // before it starts (SQLite takes them in turn), its actor is no admin any more (403)
    expect(both.filter((r) => r.statusCode === 200)).toHaveLength(1);
    const refused = both.find((r) => r.statusCode !== 200)!;
    if (refused.statusCode === 400) expect(refused.json().errors.roles).toEqual([M.lastAdmin]);
    else expect(refused.statusCode).toBe(403);
    const admins = (await Promise.all([users.find('root@example.com'), users.find('ops@example.com')])).filter((u) => u.is_admin);
    expect(admins).toHaveLength(1);
    // the command line (no actor) cannot take the last one either
    await expect(users.edit(admins[0]!.uuid, { roles: [] }, null)).rejects.toMatchObject({ status: 400, errors: { roles: [M.lastAdmin] } });
    expect((await users.find(admins[0]!.email)).is_admin).toBe(1);
  });

  it('creates an account in one insert with every role and the configured trial; the same email twice at once is a 400 naming email', async () => {
    const me = admin; // root may have lost its role above: whichever is admin creates
    const actor = (await t.lectern.services.admin.users.find('root@example.com')).is_admin ? me : second;
    const started = Date.now();
    const res = await actor.post(adminPaths.users(), { email: 'trial@example.com', password: PASSWORD, roles: ['content-creator', 'preview-creator'], status: 'trial' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().roles).toEqual(['content-creator', 'preview-creator']);
    const ends = Date.parse(res.json().trial_ends_at);
    expect(ends).toBeGreaterThanOrEqual(started + TRIAL_DAYS * 86_400_000);
    expect(ends).toBeLessThan(started + (TRIAL_DAYS + 1) * 86_400_000);

    const twice = await Promise.all([0, 1].map(() => actor.post(adminPaths.users(), { email: 'twice@example.com', password: PASSWORD })));
    expect(twice.map((r) => r.statusCode).sort()).toEqual([201, 400]);
    expect(twice.find((r) => r.statusCode === 400)!.json().errors.email).toEqual([ADMIN_MESSAGES.emailTaken]);
  });

  it('caps the distinct empty searches of a day and purges old days with the retention job', async () => {
    const dashboard = t.lectern.services.admin.dashboard;
    const db = t.lectern.db.kysely;
    await db.insertInto('search_misses').values({ day: '2020-01-01', query: 'long ago', count: 4 }).execute();
    await dashboard.purgeSearchMisses(180);
    expect(await db.selectFrom('search_misses').selectAll().where('day', '=', '2020-01-01').execute()).toEqual([]);

    for (let i = 0; i < SEARCH_MISSES_PER_DAY + 5; i++) await dashboard.recordSearchMiss(`nothing ${i}`);
    await dashboard.recordSearchMiss('nothing 0');
    const today = new Date().toISOString().slice(0, 10);
    const rows = await db.selectFrom('search_misses').select(['query', 'count']).where('day', '=', today).execute();
    expect(rows).toHaveLength(SEARCH_MISSES_PER_DAY);
    // a query already counted still counts
    expect(rows.find((r) => r.query === 'nothing 0')!.count).toBe(2);
  });
});
