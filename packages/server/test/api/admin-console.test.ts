/**
 * The operators' console API (docs/decisions.md "Operators' console: the server side"; core/admin.ts) on both engines:
 * every route allowed to whom it is for and refused to the others (anonymous 401, reader 403, content creator 403 but
 * for the content parts), its bad input named with nothing changed, and the audit entry each change writes, older admin
 * routes included. Books are made here (epubBook) and uploaded through the import route; reading is real usage events.
 */
import {
  ADMIN_CONSOLE_MESSAGES as M,
  adminDashboardSchema,
  adminHealthSchema,
  adminPaths,
  adminTitleDetailSchema,
  adminTitlePageSchema,
  adminTitleReadersPageSchema,
  adminUserDetailSchema,
  adminUserPageSchema,
  auditPageSchema,
  bookDetailSchema,
  contentMetadataSchema,
  pagedSchema,
  searchPaths,
} from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { epubBook } from '../ingest/helpers.ts';
import { multipart } from '../helpers/multipart.ts';

const PASSWORD = 'a long enough password';
const bookPage = pagedSchema(contentMetadataSchema);

const book = (id: string, title: string, creator: string) =>
  epubBook({
    identifier: `urn:uuid:${id}`,
    title,
    creator,
    chapters: [
      { path: 'one.xhtml', label: 'One', body: `<h1>One</h1><p>${'Words of the first chapter. '.repeat(200)}</p>` },
      { path: 'two.xhtml', label: 'Two', body: `<h1>Two</h1><p>${'Words of the second chapter. '.repeat(200)}</p>` },
    ],
  });

describe.each(ENGINES)('the operators’ console API on %s', (engine) => {
  let t: TestApp;
  let admin: TestClient;
  let creator: TestClient;
  let reader: TestClient;
  let anon: TestClient;
  let harbour: string;
  let lantern: string;

  const audit = async (query: string) => {
    const res = await admin.get(`${adminPaths.audit()}?${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return auditPageSchema.parse(res.json()).results;
  };
  const patch = (c: TestClient, url: string, json: unknown, headers?: Record<string, string>) => c.request('PATCH', url, { json, headers });

  beforeAll(async () => {
    t = await startTestApp(engine);
    const accounts = t.lectern.services.accounts;
    await accounts.createUser({ email: 'root@example.com', password: PASSWORD, role: 'admin' });
    await accounts.createUser({ email: 'maker@example.com', password: PASSWORD, role: 'content-creator' });
    admin = new TestClient(t.lectern.app);
    await admin.login('root@example.com', PASSWORD);
    creator = new TestClient(t.lectern.app);
    await creator.login('maker@example.com', PASSWORD);
    [reader] = await signedInSubscribers(t.lectern, ['ada@example.com']);
    anon = new TestClient(t.lectern.app);
    // two books and one refused file, through the console's import route
    const upload = multipart([
      { name: 'harbour.epub', data: book('0a1b2c3d-0000-4000-8000-000000000001', 'The Harbour Lights', 'Mary Keel') },
      { name: 'lantern.epub', data: book('0a1b2c3d-0000-4000-8000-000000000002', 'Lantern Hours', 'Owen Reed') },
      { name: 'broken.epub', data: new TextEncoder().encode('not a zip at all') },
    ]);
    const res = await creator.request('POST', adminPaths.import(), upload);
    expect(res.statusCode, res.body).toBe(201);
    const imported = res.json().imported as { book_id: string; title: string }[];
    harbour = imported.find((b) => b.title === 'The Harbour Lights')!.book_id;
    lantern = imported.find((b) => b.title === 'Lantern Hours')!.book_id;
  });
  afterAll(() => t.close());

  it('writes the import to the audit log, the refused file with its reason', async () => {
    const [entry] = await audit('action=import');
    expect(entry).toMatchObject({ actor_label: 'maker@example.com', target_kind: 'import' });
    expect(entry!.detail.imported).toHaveLength(2);
    expect(entry!.detail.failed).toEqual([expect.objectContaining({ file: 'broken.epub', reason: expect.any(String) })]);
    expect(entry!.ip).toBeTruthy();
  });

  it('refuses each route to whom it is not for', async () => {
    const adminOnly: [string, string, unknown?][] = [
      ['GET', adminPaths.audit()],
      ['GET', adminPaths.users()],
      ['POST', adminPaths.users(), { email: 'x@example.com', password: PASSWORD }],
      ['GET', adminPaths.dashboard()],
      ['GET', adminPaths.health()],
      // readers' emails and account ids: admins only (content creators see the detail's totals)
      ['GET', adminPaths.titleReaders(harbour)],
    ];
    const content: [string, string, unknown?][] = [
      ['GET', adminPaths.titles()],
      ['GET', adminPaths.title(harbour)],
      ['PATCH', adminPaths.title(harbour), { version: 1, title: 'Nope' }],
      ['POST', adminPaths.titleRetire(harbour), {}],
      ['POST', adminPaths.titleRestore(harbour), {}],
    ];
    const someone = (await t.lectern.services.admin.users.find('ada@example.com')).uuid;
    adminOnly.push(['GET', adminPaths.user(someone)], ['PATCH', adminPaths.user(someone), { status: 'expired' }]);
    adminOnly.push(['POST', adminPaths.userPasswordReset(someone), {}], ['POST', adminPaths.userEndSessions(someone), {}]);
    for (const [method, url, json] of [...adminOnly, ...content]) {
      expect((await anon.request(method as 'GET', url, { json })).statusCode, `${method} ${url} anonymous`).toBe(401);
      expect((await reader.request(method as 'GET', url, { json })).statusCode, `${method} ${url} reader`).toBe(403);
    }
    for (const [method, url, json] of adminOnly) expect((await creator.request(method as 'GET', url, { json })).statusCode, `${method} ${url} creator`).toBe(403);
    expect((await creator.get(adminPaths.titles())).statusCode).toBe(200);
    // nothing of the above changed anything
    expect((await t.lectern.services.admin.users.find('ada@example.com')).status).toBe('subscriber');
    expect(await audit('target_kind=user')).toEqual([]);
  });

  it('searches and pages the titles, and names a bad query field', async () => {
    const first = adminTitlePageSchema.parse((await admin.get(`${adminPaths.titles()}?limit=1`)).json());
    expect(first.results.map((r) => r.title)).toEqual(['The Harbour Lights']); // sorted without its "The"
    const second = adminTitlePageSchema.parse((await admin.get(`${adminPaths.titles()}?limit=1&cursor=${first.next_cursor}`)).json());
    expect(second.results.map((r) => r.title)).toEqual(['Lantern Hours']);
    expect(second.next_cursor).toBeNull();
    const byAuthor = adminTitlePageSchema.parse((await creator.get(`${adminPaths.titles()}?q=owen`)).json());
    expect(byAuthor.results.map((r) => r.book_id)).toEqual([lantern]);
    const byTitle = adminTitlePageSchema.parse((await creator.get(`${adminPaths.titles()}?q=${encodeURIComponent('the harb')}`)).json());
    expect(byTitle.results.map((r) => r.book_id)).toEqual([harbour]);
    // the prefixes are index ranges (0032) joined with the book id: each finds its title, a cursor pages after it
    const byId = adminTitlePageSchema.parse((await creator.get(`${adminPaths.titles()}?q=${encodeURIComponent(harbour)}`)).json());
    expect(byId.results.map((r) => r.book_id)).toEqual([harbour]);
    const pagedSearch = adminTitlePageSchema.parse((await admin.get(`${adminPaths.titles()}?q=${encodeURIComponent('the harb')}&limit=1&cursor=${first.next_cursor}`)).json());
    expect(pagedSearch.results).toEqual([]);
    const bad = await admin.get(`${adminPaths.titles()}?limit=5000`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.limit).toEqual([M.limitShape]);
    const badCursor = await admin.get(`${adminPaths.titles()}?cursor=nonsense`);
    expect(badCursor.statusCode).toBe(400);
    expect(badCursor.json().errors.cursor).toEqual([M.cursorShape]);
    expect((await admin.get(adminPaths.title('no-such-book'))).statusCode).toBe(404);
  });

  it('edits a title under its version: the catalog shows it, a stale save is refused with who saved, all audited', async () => {
    const before = adminTitleDetailSchema.parse((await creator.get(adminPaths.title(lantern))).json());
    // no version: refused, nothing changed
    const none = await patch(creator, adminPaths.title(lantern), { title: 'Lantern Nights' });
    expect(none.statusCode).toBe(400);
    expect(Object.keys(none.json().errors)).toEqual(['version']);
    const badLanguage = await patch(creator, adminPaths.title(lantern), { version: before.version, language: 'not a language' });
    expect(badLanguage.statusCode).toBe(400);
    expect(badLanguage.json().errors.language).toEqual([M.languageShape]);
    expect(adminTitleDetailSchema.parse((await admin.get(adminPaths.title(lantern))).json()).version).toBe(before.version);

    const res = await patch(creator, adminPaths.title(lantern), {
      version: before.version,
      title: 'Lantern Nights',
      authors: ['Owen Reed', 'Iris Vale'],
      topics: ['Night Stories'],
      publisher: 'Quay Press',
      editors_pick: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    const after = adminTitleDetailSchema.parse(res.json());
    expect(after).toMatchObject({ title: 'Lantern Nights', authors: ['Owen Reed', 'Iris Vale'], publisher: 'Quay Press', editors_pick: true, version: before.version + 1 });
    expect(after.topics.map((x) => x.name)).toEqual(['Night Stories']);
    expect(res.headers.etag).toBe(`"${after.version}"`);
    // the catalog (title order, topic listing, detail) shows the edit at once
    const catalog = bookPage.parse((await anon.get('/api/v1/book/?page_size=100')).json()).results;
    expect(catalog.map((b) => b.title)).toEqual(['The Harbour Lights', 'Lantern Nights']);
    const topic = bookPage.parse((await anon.get(`/api/v1/book/?topic=${after.topics[0]!.slug}`)).json()).results;
    expect(topic.map((b) => b.title)).toEqual(['Lantern Nights']);

    // another operator still at the old version: 409 naming who saved, with the title as it is now; nothing lost
    const stale = await patch(admin, adminPaths.title(lantern), { title: 'Lantern Mornings' }, { 'if-match': `"${before.version}"` });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().detail).toBe(M.versionConflict('maker@example.com'));
    expect(stale.json().current.title).toBe('Lantern Nights');
    // with the current version (If-Match) it passes
    const fresh = await patch(admin, adminPaths.title(lantern), { description: 'Stories for the dark.' }, { 'if-match': `"${after.version}"` });
    expect(fresh.statusCode, fresh.body).toBe(200);
    expect(fresh.json().title).toBe('Lantern Nights');

    const [last, first] = await audit(`action=title.edit&target_id=${encodeURIComponent(lantern)}`);
    expect(first).toMatchObject({ actor_label: 'maker@example.com', target_kind: 'title', target_id: lantern });
    expect(first!.detail.changed).toMatchObject({ title: ['Lantern Hours', 'Lantern Nights'], editors_pick: [false, true] });
    expect(last).toMatchObject({ actor_label: 'root@example.com', detail: { changed: { description: [null, 'Stories for the dark.'] } } });
  });

  it("retires a title out of the catalog, keeping its reader's position, and restores it", async () => {
    const detail = bookDetailSchema.parse((await reader.get(`/api/v1/book/${harbour}/`)).json());
    const chapter = detail.chapters[0]!;
    const usage = await reader.post('/api/v1/usage-event/', {
      events: [{ chapter: chapter.url, start_percentage: 0, end_percentage: 50, client_timestamp: Date.now(), usage_uuid: 'admin-read-1' }],
    });
    expect(usage.json().accepted, usage.body).toEqual(['admin-read-1']);

    const retired = await creator.post(adminPaths.titleRetire(harbour), {});
    expect(retired.statusCode, retired.body).toBe(200);
    expect(retired.json().retired_at).toBeTruthy();
    expect((await creator.post(adminPaths.titleRetire(harbour), {})).statusCode).toBe(409);
    const catalog = bookPage.parse((await anon.get('/api/v1/book/?page_size=100')).json()).results;
    expect(catalog.map((b) => b.book_id)).not.toContain(harbour);
    const listed = adminTitlePageSchema.parse((await admin.get(`${adminPaths.titles()}?state=retired`)).json());
    expect(listed.results.map((r) => r.book_id)).toEqual([harbour]);
    // the reader's figures are kept
    const kept = adminTitleDetailSchema.parse((await admin.get(adminPaths.title(harbour))).json());
    expect(kept.stats.readers).toBe(1);
    expect(kept.stats.minutes_read).toBeGreaterThan(0);
    const readers = adminTitleReadersPageSchema.parse((await admin.get(adminPaths.titleReaders(harbour))).json());
    expect(readers.results).toEqual([expect.objectContaining({ email: 'ada@example.com', minutes_read: kept.stats.minutes_read })]);

    expect((await creator.post(adminPaths.titleRestore(harbour), {})).statusCode).toBe(200);
    const back = bookPage.parse((await anon.get('/api/v1/book/?page_size=100')).json()).results;
    expect(back.map((b) => b.book_id)).toContain(harbour);
    expect((await audit(`target_id=${encodeURIComponent(harbour)}`)).map((e) => e.action)).toEqual(['title.restore', 'title.retire']);
  });

  it('finds, creates and changes accounts, ends sessions and sends a reset; bad input named', async () => {
    const found = adminUserPageSchema.parse((await admin.get(`${adminPaths.users()}?q=ADA`)).json());
    expect(found.results.map((u) => u.email)).toEqual(['ada@example.com']);
    expect(adminUserPageSchema.parse((await admin.get(`${adminPaths.users()}?role=content-creator`)).json()).results.map((u) => u.email)).toEqual(['maker@example.com']);
    const ada = found.results[0]!;

    const badEmail = await admin.post(adminPaths.users(), { email: 'not-an-email', password: PASSWORD });
    expect(badEmail.statusCode).toBe(400);
    expect(Object.keys(badEmail.json().errors)).toEqual(['email']);
    const created = await admin.post(adminPaths.users(), { email: 'new@example.com', password: PASSWORD, roles: ['content-creator', 'preview-creator'], status: 'subscriber' });
    expect(created.statusCode, created.body).toBe(201);
    expect(adminUserDetailSchema.parse(created.json())).toMatchObject({ email: 'new@example.com', roles: ['content-creator', 'preview-creator'], status: 'subscriber' });

    const badStatus = await patch(admin, adminPaths.user(ada.user_id), { status: 'banned' });
    expect(badStatus.statusCode).toBe(400);
    expect(badStatus.json().errors.status).toEqual([M.unknownStatus]);
    const changed = await patch(admin, adminPaths.user(ada.user_id), { status: 'expired', roles: ['preview-creator'] });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ status: 'expired', roles: ['preview-creator'] });
    const me = adminUserPageSchema.parse((await admin.get(`${adminPaths.users()}?q=root`)).json()).results[0]!;
    const own = await patch(admin, adminPaths.user(me.user_id), { roles: [] });
    expect(own.statusCode).toBe(400);
    expect(own.json().errors.roles).toEqual([M.ownAdminRole]);

    const detail = adminUserDetailSchema.parse((await admin.get(adminPaths.user(ada.user_id))).json());
    expect(detail.sessions.length).toBeGreaterThan(0);
    const ended = await admin.post(adminPaths.userEndSessions(ada.user_id), {});
    expect(ended.json()).toEqual({ ended: detail.sessions.length });
    // the reader's session is gone at once
    expect((await reader.get('/u/information_for_javascript')).statusCode).toBe(401);
    expect((await admin.post(adminPaths.userPasswordReset(ada.user_id), {})).statusCode).toBe(202);
    expect((await admin.post(adminPaths.userPasswordReset('no-such-user'), {})).statusCode).toBe(404);

    const entries = await audit('target_kind=user');
    expect(entries.map((e) => e.action)).toEqual(['user.password-reset', 'user.end-sessions', 'user.edit', 'user.create']);
    expect(entries[2]!.detail.changed).toMatchObject({ status: ['subscriber', 'expired'], roles: [[], ['preview-creator']] });
    expect(JSON.stringify(entries)).not.toContain(PASSWORD);
  });

  it('audits the older admin routes and refuses an unsafe call without CSRF, writing nothing', async () => {
    const noCsrf = await admin.request('POST', '/api/v2/admin/announcements/', { json: { message: 'Hello' }, csrf: false });
    expect(noCsrf.statusCode).toBe(403);
    const made = await admin.post('/api/v2/admin/announcements/', { message: 'Welcome to the library' });
    expect(made.statusCode, made.body).toBe(201);
    const entries = await audit('target_kind=announcement');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ action: 'announcement.create', actor_label: 'root@example.com', detail: { message: 'Welcome to the library' } });
    const page = await admin.get(`${adminPaths.audit()}?limit=2`);
    const p = auditPageSchema.parse(page.json());
    expect(p.results).toHaveLength(2);
    const next = auditPageSchema.parse((await admin.get(`${adminPaths.audit()}?limit=2&cursor=${p.next_cursor}`)).json());
    expect(Number(next.results[0]!.id)).toBeLessThan(Number(p.results[1]!.id));
    const bad = await admin.get(`${adminPaths.audit()}?target_kind=planet`);
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json().errors)).toEqual(['target_kind']);
  });

  it("draws the dashboard from the day's reading, accounts, imports and empty searches", async () => {
    const miss = await anon.get(`${searchPaths.catalog()}?q=${encodeURIComponent('Quantum Gardening')}`);
    expect(miss.statusCode, miss.body).toBe(200);
    expect(miss.json().count).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    const res = await admin.get(`${adminPaths.dashboard()}?from=${today}&to=${today}`);
    expect(res.statusCode, res.body).toBe(200);
    const d = adminDashboardSchema.parse(res.json());
    expect(d.days).toHaveLength(1);
    expect(d.days[0]).toMatchObject({ day: today, active_readers: 1, imports: 2, import_failures: 1, new_accounts: 4 });
    expect(d.days[0]!.minutes_read).toBeGreaterThan(0);
    expect(d.top_titles).toEqual([expect.objectContaining({ book_id: harbour, readers: 1, minutes_read: d.days[0]!.minutes_read })]);
    expect(d.empty_searches).toEqual([{ query: 'quantum gardening', count: 1 }]);
    expect(d.import_failures).toEqual([expect.objectContaining({ file: 'broken.epub' })]);
    const backwards = await admin.get(`${adminPaths.dashboard()}?from=2026-05-02&to=2026-05-01`);
    expect(backwards.statusCode).toBe(400);
    expect(backwards.json().errors.from).toEqual([M.rangeBackwards]);
    const badDay = await admin.get(`${adminPaths.dashboard()}?to=yesterday`);
    expect(Object.keys(badDay.json().errors)).toEqual(['to']);
  });

  it('reports health: engine, sizes, queue and the scheduled jobs with their last run', async () => {
    const h = adminHealthSchema.parse((await admin.get(adminPaths.health())).json());
    expect(h.engine).toBe(engine);
    expect(h.titles).toBe(2);
    expect(h.content_store_bytes).toBeGreaterThan(0);
    expect(h.db_bytes).toBeGreaterThan(0);
    expect(h.import_queue).toEqual({ running: 0, waiting: 0 });
    expect(h.jobs.map((j) => j.name)).toEqual(expect.arrayContaining(['trial and subscription expiry', 'retention purge (sessions, sign-in counters, analytics)']));
    expect(h.jobs.every((j) => j.last_run_at !== null && j.last_ok === true)).toBe(true);
  });
  it("shows an operator's new title in the library search at once, the searches before it kept or not", async () => {
    // the same search a moment before the edit: its match set and snippets are kept (services/search.ts PART_CACHE_MS)
    const search = async (q: string) => {
      const res = await anon.get(`${searchPaths.catalog()}?q=${encodeURIComponent(q)}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ results: { metadata: { title: string }; snippet: string | null }[] }>();
    };
    const { version, title } = (await admin.get(adminPaths.title(lantern))).json<{ version: number; title: string }>();
    expect((await search('lantern')).results.map((r) => r.metadata.title)).toContain(title);
    expect((await search('evenings')).results).toEqual([]);
    const res = await patch(admin, adminPaths.title(lantern), { title: 'Lantern Evenings' }, { 'if-match': `"${version}"` });
    expect(res.statusCode, res.body).toBe(200);
    const after = await search('lantern');
    expect(after.results.map((r) => r.metadata.title)).toContain('Lantern Evenings');
    expect(after.results.find((r) => r.metadata.title === 'Lantern Evenings')!.snippet).toContain('Evenings');
    expect((await search('evenings')).results.map((r) => r.metadata.title)).toEqual(['Lantern Evenings']);
  });
});
