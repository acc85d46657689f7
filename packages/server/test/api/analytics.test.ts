/**
 * First-party analytics (library-playlists-account.md §7; docs/decisions.md "Analytics") on both engines:
 * a visitor's and a reader's batches stored (the account's id when signed in, never the address), the CSRF check
 * as on every POST, 400s naming the field (unknown fields included), the per-address limit, the operators' report
 * (API and the `analytics:report` command) with its 401 / 403, and the retention purge.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ANALYTICS_LIMITS, ANALYTICS_MESSAGES, analyticsPaths, analyticsReportSchema, APP_MESSAGES } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_LIMITS } from '../../src/services/request-limits.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';

const root = path.resolve(import.meta.dirname, '../../../..');
const run = promisify(execFile);
const DAY = 86_400_000;

describe.each(ENGINES)('analytics on %s', (engine) => {
  let t: TestApp;
  let visitor: TestClient;
  let reader: TestClient;
  let admin: TestClient;
  let readerId: number;
  let ip = 0;
  /** Each test posts from its own address, so the per-address limit of one does not touch another. */
  const fromNewAddress = () => `10.7.0.${(ip += 1)}`;
  const post = (client: TestClient, body: unknown, remoteAddress: string, headers: Record<string, string> = {}) =>
    t.lectern.app.inject({
      method: 'POST',
      url: analyticsPaths.events(),
      remoteAddress,
      headers: {
        cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        'x-csrftoken': client.cookies.get('csrftoken') ?? '',
        ...headers,
      },
      payload: body as object,
    });
  const rows = () => t.lectern.db.kysely.selectFrom('analytics_events').selectAll().orderBy('id').execute();
  const report = async (query = '') => {
    const res = await admin.get(`${analyticsPaths.adminReport()}${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return analyticsReportSchema.parse(res.json());
  };

  beforeAll(async () => {
    t = await startTestApp(engine);
    visitor = new TestClient(t.lectern.app);
    await visitor.get('/healthz');
    [reader] = await signedInSubscribers(t.lectern, ['reader@example.com']);
    readerId = (await t.lectern.db.kysely.selectFrom('users').select('id').where('email', '=', 'reader@example.com').executeTakeFirstOrThrow()).id;
    await t.lectern.services.accounts.createUser({ email: 'root@example.com', password: 'a long enough password', role: 'admin' });
    admin = new TestClient(t.lectern.app);
    await admin.login('root@example.com', 'a long enough password');
  });
  afterAll(() => t.close());

  it("stores a visitor's batch without an account and a reader's with theirs, and never the address", async () => {
    const at = fromNewAddress();
    const res = await post(
      visitor,
      {
        events: [
          { category: 'registration', action: 'submit', label: 'basic', path: '/register/' },
          { category: 'sign-up-cta', action: 'click', label: 'home-top', value: 1 },
        ],
      },
      at,
    );
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toEqual({ stored: 2 });
    expect((await post(reader, { events: [{ category: 'topic', action: 'click', label: 'databases' }] }, at)).statusCode).toBe(202);

    const stored = await rows();
    expect(stored.map((r) => ({ category: r.category, action: r.action, label: r.label, value: r.value, path: r.path, user_id: r.user_id }))).toEqual([
      { category: 'registration', action: 'submit', label: 'basic', value: null, path: '/register/', user_id: null },
      { category: 'sign-up-cta', action: 'click', label: 'home-top', value: 1, path: null, user_id: null },
      { category: 'topic', action: 'click', label: 'databases', value: null, path: null, user_id: readerId },
    ]);
    expect(Object.keys(stored[0]!).sort()).toEqual(['action', 'category', 'created_at', 'id', 'label', 'path', 'user_id', 'value']);
    // Neither the events nor the limit's counters hold the address.
    expect(JSON.stringify(stored)).not.toContain(at);
    const counters = await t.lectern.db.kysely.selectFrom('sign_in_attempts').select('key').where('key', 'like', 'analytics:%').execute();
    expect(counters.length).toBeGreaterThan(0);
    expect(counters.some((c) => c.key.includes(at))).toBe(false);
  });

  it('checks CSRF as on every POST: a visitor without the token, or from another site, is refused', async () => {
    const before = (await rows()).length;
    const body = { events: [{ category: 'topic', action: 'click', label: 'x' }] };
    const noToken = await t.lectern.app.inject({ method: 'POST', url: analyticsPaths.events(), remoteAddress: fromNewAddress(), payload: body });
    expect(noToken.statusCode).toBe(403);
    expect(noToken.json().detail).toBe(APP_MESSAGES.csrfFailed);
    const elsewhere = await post(visitor, body, fromNewAddress(), { origin: 'https://evil.example' });
    expect(elsewhere.statusCode).toBe(403);
    expect((await rows()).length).toBe(before);
  });

  it('refuses a bad batch with a 400 naming the field, unknown fields included, and stores none of it', async () => {
    const before = (await rows()).length;
    const good = { category: 'topic', action: 'click', label: 'databases' };
    const refused = async (body: unknown, field: string) => {
      const res = await post(visitor, body, fromNewAddress());
      expect(res.statusCode, res.body).toBe(400);
      const errors = res.json().errors as Record<string, string[]>;
      expect(Object.keys(errors), res.body).toContain(field);
      return errors[field]!;
    };
    expect(await refused({ events: [good, { ...good, colour: 'red' }] }, 'events.1.colour')).toEqual(['Unrecognized key: "colour"']);
    await refused({ events: [good], user_id: 3 }, 'user_id');
    expect(await refused({ events: [{ ...good, category: 'cookies' }] }, 'events.0.category')).toEqual([ANALYTICS_MESSAGES.unknownCategory]);
    expect(await refused({ events: [{ ...good, action: 'Click Me' }] }, 'events.0.action')).toEqual([ANALYTICS_MESSAGES.actionShape]);
    await refused({ events: [{ ...good, action: 'a'.repeat(ANALYTICS_LIMITS.action + 1) }] }, 'events.0.action');
    await refused({ events: [{ ...good, label: 'x'.repeat(ANALYTICS_LIMITS.label + 1) }] }, 'events.0.label');
    expect(await refused({ events: [{ ...good, label: 'a\nb' }] }, 'events.0.label')).toEqual([ANALYTICS_MESSAGES.controlCharacters]);
    // C1 controls (U+009B is a terminal's CSI: `analytics:report` prints labels to the operator's terminal) and bidi overrides
    expect(await refused({ events: [{ ...good, label: 'x\u009b2J\u009b31mred' }] }, 'events.0.label')).toEqual([ANALYTICS_MESSAGES.controlCharacters]);
    expect(await refused({ events: [{ ...good, label: 'abc\u202edcba' }] }, 'events.0.label')).toEqual([ANALYTICS_MESSAGES.controlCharacters]);
    expect(await refused({ events: [{ ...good, path: '/u\u0085/' }] }, 'events.0.path')).toContain(ANALYTICS_MESSAGES.controlCharacters);
    await refused({ events: [{ category: 'topic', action: 'click' }] }, 'events.0.label');
    expect(await refused({ events: [{ ...good, path: '/search/?q=secret' }] }, 'events.0.path')).toEqual([ANALYTICS_MESSAGES.pathShape]);
    await refused({ events: [{ ...good, path: 'https://evil.example/' }] }, 'events.0.path');
    await refused({ events: [{ ...good, value: 1.5 }] }, 'events.0.value');
    await refused({ events: [] }, 'events');
    await refused({ events: Array.from({ length: ANALYTICS_LIMITS.batch + 1 }, () => good) }, 'events');
    await refused({}, 'events');
    expect((await rows()).length).toBe(before);
  });

  it('limits each address to its batches a minute (429 with Retry-After); another address is not held up', async () => {
    const at = fromNewAddress();
    const body = { events: [{ category: 'subscribe-nag', action: 'open', label: 'visitor' }] };
    for (let i = 0; i < REQUEST_LIMITS.analytics; i++) expect((await post(visitor, body, at)).statusCode).toBe(202);
    const over = await post(visitor, body, at);
    expect(over.statusCode).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    // Refused before anything is read: a bad batch past the limit is a 429 too, not a 400.
    expect((await post(visitor, { nonsense: true }, at)).statusCode).toBe(429);
    expect((await post(visitor, body, fromNewAddress())).statusCode).toBe(202);
  });

  it('gives operators the counts by category, action and label, over a span and for one category', async () => {
    await t.lectern.db.kysely.deleteFrom('analytics_events').execute();
    const at = fromNewAddress();
    const send = (client: TestClient, ...events: object[]) => post(client, { events }, at).then((r) => expect(r.statusCode, r.body).toBe(202));
    await send(visitor, { category: 'sign-up-cta', action: 'click', label: 'home-top' }, { category: 'sign-up-cta', action: 'click', label: 'home-top' });
    await send(reader, { category: 'sign-up-cta', action: 'click', label: 'home-top' }, { category: 'sign-up-cta', action: 'click', label: 'home-bottom' });
    await send(reader, { category: 'promotion', action: 'applied', label: 'spring10' });
    // An event from last year: outside the default 30 days, inside an explicit span.
    await t.lectern.db.kysely
      .insertInto('analytics_events')
      .values({ category: 'promotion', action: 'applied', label: 'old', value: null, path: null, user_id: null, created_at: '2025-03-15T12:00:00.000Z' })
      .execute();

    const all = await report();
    expect(all.total).toBe(5);
    expect(all.truncated).toBe(false);
    expect(all.results).toEqual([
      { category: 'sign-up-cta', action: 'click', label: 'home-top', count: 3, signed_in: 1 },
      { category: 'promotion', action: 'applied', label: 'spring10', count: 1, signed_in: 1 },
      { category: 'sign-up-cta', action: 'click', label: 'home-bottom', count: 1, signed_in: 1 },
    ]);
    expect(Date.parse(all.to) - Date.parse(all.from)).toBe(ANALYTICS_LIMITS.reportDefaultDays * DAY);

    const promotions = await report('?category=promotion&from=2025-01-01');
    expect(promotions.category).toBe('promotion');
    expect(promotions.results.map((r) => [r.label, r.count])).toEqual([
      ['old', 1],
      ['spring10', 1],
    ]);
    // A day is the whole day (UTC): from and to the same day is that day.
    const thatDay = await report('?from=2025-03-15&to=2025-03-15');
    expect([thatDay.from, thatDay.to]).toEqual(['2025-03-15T00:00:00.000Z', '2025-03-16T00:00:00.000Z']);
    expect(thatDay.results.map((r) => r.label)).toEqual(['old']);
    expect((await report('?from=2025-03-15T12:00:01Z&to=2025-03-16')).total).toBe(0);

    const bad = async (query: string, field: string) => {
      const res = await admin.get(`${analyticsPaths.adminReport()}${query}`);
      expect(res.statusCode, res.body).toBe(400);
      expect(Object.keys(res.json().errors)).toEqual([field]);
    };
    await bad('?from=2026-05-02&to=2026-05-01', 'from');
    await bad('?from=yesterday', 'from');
    await bad('?to=2026-13-45', 'to');
    await bad('?category=cookies', 'category');
    await bad('?cat=promotion', 'cat');

    // The operators' command line reads the same counts from the same database.
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'packages/server/src/cli/main.ts', 'analytics:report', '--category', 'sign-up-cta'], {
      cwd: root,
      env: { ...process.env, DATA_DIR: t.dataDir, DATABASE_URL: t.lectern.config.databaseUrl ?? '', LOG_LEVEL: 'silent' },
    });
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^4 events from \S+ to \S+ in sign-up-cta$/);
    expect(lines.slice(1)).toEqual(['count\tsigned in\tcategory\taction\tlabel', '3\t1\tsign-up-cta\tclick\thome-top', '1\t1\tsign-up-cta\tclick\thome-bottom']);
  });

  it('keeps the report to admins: 401 signed out, 403 for a reader', async () => {
    expect((await visitor.get(analyticsPaths.adminReport())).statusCode).toBe(401);
    const res = await reader.get(analyticsPaths.adminReport());
    expect(res.statusCode).toBe(403);
    expect(res.json().detail).toBe(APP_MESSAGES.adminOnly);
  });

  it('deletes events past the retention with the purge, and keeps the rest', async () => {
    const days = t.lectern.services.analytics.retentionDays;
    expect(days).toBe(180);
    const old = new Date(Date.now() - (days + 1) * DAY).toISOString();
    const recent = new Date(Date.now() - (days - 1) * DAY).toISOString();
    await t.lectern.db.kysely.deleteFrom('analytics_events').execute();
    await t.lectern.db.kysely
      .insertInto('analytics_events')
      .values([
        { category: 'topic', action: 'click', label: 'old', value: null, path: null, user_id: null, created_at: old },
        { category: 'topic', action: 'click', label: 'recent', value: null, path: null, user_id: readerId, created_at: recent },
      ])
      .execute();
    expect(await t.lectern.services.analytics.purge()).toBe(1);
    expect((await rows()).map((r) => r.label)).toEqual(['recent']);
  });
});
