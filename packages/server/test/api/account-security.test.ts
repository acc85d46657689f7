/**
 * Accounts as an attacker finds them, on both engines: the sign-in limit under a flood and behind a proxy, expired
 * sessions, trials past their end, expired and cancelled accounts recording progress, and a database error while
 * recording usage (a 5xx the browser retries, never a rejection it drops).
 */
import { APP_MESSAGES } from '@lectern/core';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, parseTrustProxy } from '../../src/config.ts';
import { READING_MESSAGES } from '@lectern/core';
import { ACCOUNT_FACTOR } from '../../src/services/sign-in-throttle.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { twoChapterBook } from '../ingest/helpers.ts';

const PASSWORD = 'a long enough password';
const LIMIT = 3;


describe('TRUST_PROXY', () => {
  it('names the proxies; true means this machine only; anything else is refused with a message', () => {
    expect(parseTrustProxy(undefined)).toBe(false);
    expect(parseTrustProxy('false')).toBe(false);
    expect(parseTrustProxy('true')).toEqual(['loopback']);
    expect(parseTrustProxy('127.0.0.1, 10.0.0.0/8,::1,fd00::/8,uniquelocal')).toEqual(['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8', 'uniquelocal']);
    for (const bad of ['*', 'everyone', '10.0.0.0/33', '300.1.1.1', '10.0.0.1/8/8', '::1/129']) {
      expect(parseTrustProxy(bad), bad).toMatch(/^TRUST_PROXY must be/);
    }
  });
});

describe.each(ENGINES)('account security on %s', (engine) => {
  let t: TestApp;
  let bookId: string;
  /** an anonymous CSRF token (the sign-in form's), sent as cookie and header like the web app does */
  let csrf: string;
  const chapterUrl = (path: string) => `/api/v1/book/${bookId}/chapter/${path}`;

  beforeAll(async () => {
    // TRUST_PROXY=true as an operator writes it: a proxy on this machine (app.inject's default address, 127.0.0.1).
    t = await startTestApp(engine, { loginRateLimit: LIMIT, trustProxy: loadConfig({ TRUST_PROXY: 'true' }).trustProxy });
    bookId = (await t.lectern.services.importer.importBytes(twoChapterBook(), 'two.epub')).book_id;
    await t.lectern.services.flags.set(bookId, 'a.xhtml', { as_sample: true, is_public: false });
    await t.lectern.services.flags.set(bookId, 'b.xhtml', { as_sample: false, is_public: false });
    const anonymous = new TestClient(t.lectern.app);
    await anonymous.get('/healthz');
    csrf = anonymous.cookies.get('csrftoken')!;
  });
  afterAll(() => t.close());

  /** A sign-in as it arrives from `remoteAddress` (the socket), with an X-Forwarded-For header if given. */
  const signIn = (email: string, password: string, remoteAddress: string, forwardedFor?: string) =>
    t.lectern.app.inject({
      method: 'POST',
      url: '/login/',
      remoteAddress,
      headers: { cookie: `csrftoken=${csrf}`, 'x-csrftoken': csrf, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
      payload: { email, password },
    });

  describe('the sign-in limit', () => {
    it('survives a flood: 5,100 cheap requests later, the account is still limited', async () => {
      const email = 'flooded@example.com';
      await t.lectern.services.accounts.createUser({ email, password: PASSWORD, status: 'subscriber' });
      const statuses: number[] = [];
      for (let i = 0; i <= LIMIT; i++) statuses.push((await signIn(email, 'wrong password', '198.51.100.1')).statusCode);
      expect(statuses).toEqual([...Array(LIMIT).fill(401), 429]);
      for (let i = 0; i < 5100; i++) await signIn(`flood-${i}@example.com`, '', '198.51.100.1');
      const after = await signIn(email, PASSWORD, '198.51.100.1');
      expect(after.statusCode).toBe(429);
      expect(after.json()).toEqual({ detail: APP_MESSAGES.tooManySignIns });
      expect(Number(after.headers['retry-after'])).toBeGreaterThan(0);
    }, 120_000);

    it('with TRUST_PROXY=true, a client cannot pick its own address with X-Forwarded-For', async () => {
      const email = 'spoofed@example.com';
      await t.lectern.services.accounts.createUser({ email, password: PASSWORD, status: 'subscriber' });
      const through: number[] = [];
      for (let i = 0; i < 30; i++) {
        // Through the proxy: it appends the address it saw; what the client wrote before that is not believed.
        through.push((await signIn(email, `wrong ${i}`, '127.0.0.1', `203.0.113.${i}, 198.51.100.20`)).statusCode);
      }
      expect(through.filter((s) => s === 401)).toHaveLength(LIMIT);
      // Straight to the server (not through a trusted proxy): the header is ignored altogether. (Another account:
      // this one's own per-account limit is spent by now.)
      await t.lectern.services.accounts.createUser({ email: 'direct@example.com', password: PASSWORD, status: 'subscriber' });
      const direct: number[] = [];
      for (let i = 0; i < 10; i++) direct.push((await signIn('direct@example.com', `wrong ${i}`, '198.51.100.21', `203.0.113.${100 + i}`)).statusCode);
      expect(direct.filter((s) => s === 401)).toHaveLength(LIMIT);
    });

    it('bounds guessing spread over many real addresses with a per-account limit', async () => {
      const email = 'spread@example.com';
      await t.lectern.services.accounts.createUser({ email, password: PASSWORD, status: 'subscriber' });
      const statuses: number[] = [];
      for (let i = 0; i < LIMIT * ACCOUNT_FACTOR + 5; i++) statuses.push((await signIn(email, `wrong ${i}`, '127.0.0.1', `192.0.2.${i}`)).statusCode);
      expect(statuses.filter((s) => s === 401)).toHaveLength(LIMIT * ACCOUNT_FACTOR);
      expect(statuses.slice(LIMIT * ACCOUNT_FACTOR)).toEqual(Array(5).fill(429));
    });
  });

  describe('sessions', () => {
    it('deletes expired sessions at sign-in and on the schedule', async () => {
      const db = t.lectern.db.kysely;
      const user = await t.lectern.services.accounts.createUser({ email: 'sessions@example.com', password: PASSWORD, status: 'subscriber' });
      const old = (id: string) => ({ id, public_id: `p-${id}`, user_id: user.id, created_at: '2020-01-01T00:00:00.000Z', expires_at: '2020-01-31T00:00:00.000Z', user_agent: null });
      await db.insertInto('sessions').values([old('expired-1'), old('expired-2')]).execute();
      const c = new TestClient(t.lectern.app);
      await c.login('sessions@example.com', PASSWORD);
      const left = await db.selectFrom('sessions').select('id').where('user_id', '=', user.id).execute();
      expect(left).toHaveLength(1);
      expect(left[0]!.id).not.toMatch(/^expired/);

      await db.insertInto('sessions').values(old('expired-3')).execute();
      expect(await t.lectern.services.auth.purgeExpiredSessions()).toBe(1);
      expect(await db.selectFrom('sessions').select('id').where('id', '=', 'expired-3').execute()).toEqual([]);
      // The live session is untouched.
      expect((await c.get('/u/information_for_javascript')).statusCode).toBe(200);
    });
  });

  describe('what an account whose subscription ended may record', () => {
    const event = (chapter: string, uuid: string) => ({ chapter, start_percentage: 0, end_percentage: 30, client_timestamp: Date.now(), usage_uuid: uuid });

    it.each(['expired', 'cancelled', 'trial past its end'] as const)('%s: usage on a chapter it cannot read is refused as the reading policy does; the sample is recorded', async (kind) => {
      const email = `${kind.replace(/\W/g, '-')}@example.com`;
      const user = await t.lectern.services.accounts.createUser({ email, password: PASSWORD, status: kind === 'trial past its end' ? 'trial' : kind });
      if (kind === 'trial past its end') await t.lectern.db.kysely.updateTable('users').set({ trial_ends_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', user.id).execute();
      const c = new TestClient(t.lectern.app);
      await c.login(email, PASSWORD);
      const res = await c.post('/api/v1/usage-event/', { events: [event(chapterUrl('b.xhtml'), `${user.id}-locked`), event(chapterUrl('a.xhtml'), `${user.id}-sample`)] });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ accepted: [`${user.id}-sample`], rejected: [{ index: 0, usage_uuid: `${user.id}-locked`, reason: READING_MESSAGES.subscriptionEnded }] });
      const progress = (await c.get(`/api/v1/book/${bookId}/chapter-progress/`)).json().results;
      expect(progress.map((r: { full_path: string; top_percentage: number }) => [r.full_path, r.top_percentage])).toEqual([
        ['a.xhtml', 30],
        ['b.xhtml', 0],
      ]);
      // And reading itself is refused the same way.
      expect((await c.get(chapterUrl('b.xhtml'))).statusCode).toBe(403);
    });

    it('a trial past its end reads as expired in the profile; a trial before its end is a trial', async () => {
      const live = await t.lectern.services.accounts.createUser({ email: 'trial-live@example.com', password: PASSWORD });
      const ended = await t.lectern.services.accounts.createUser({ email: 'trial-ended@example.com', password: PASSWORD });
      await t.lectern.db.kysely.updateTable('users').set({ trial_ends_at: new Date(Date.now() - 60_000).toISOString() }).where('id', '=', ended.id).execute();
      const profile = async (email: string) => (await new TestClient(t.lectern.app).login(email, PASSWORD)).json();
      expect(live.status).toBe('trial');
      expect(await profile('trial-live@example.com')).toMatchObject({ subscription_status: 'trial', account: { type: 'Trial' } });
      expect(await profile('trial-ended@example.com')).toMatchObject({ subscription_status: 'expired', account: { type: 'Expired' } });
      const c = new TestClient(t.lectern.app);
      await c.login('trial-live@example.com', PASSWORD);
      expect((await c.get(chapterUrl('b.xhtml'))).statusCode).toBe(200);
    });
  });

  it('a database error while recording usage is a 500 (the browser keeps the event), not a rejection', async () => {
    await t.lectern.services.accounts.createUser({ email: 'dberror@example.com', password: PASSWORD, status: 'subscriber' });
    const c = new TestClient(t.lectern.app);
    await c.login('dberror@example.com', PASSWORD);
    const db = t.lectern.db.kysely;
    // A book id no cache has seen, so the address is looked up in the (now missing) titles table.
    await sql`alter table titles rename to titles_away`.execute(db);
    try {
      const res = await c.post('/api/v1/usage-event/', {
        events: [{ chapter: '/api/v1/book/never-seen/chapter/x.xhtml', start_percentage: 0, end_percentage: 10, client_timestamp: Date.now(), usage_uuid: 'db-error' }],
      });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ detail: 'Internal server error.' });
    } finally {
      await sql`alter table titles_away rename to titles`.execute(db);
    }
  });
});
