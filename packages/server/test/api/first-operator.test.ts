/**
 * The first operator's set-up (docs/decisions.md "The first operator, from the browser") on both engines: the printed
 * one-time token makes the first admin from the browser, signed in and audited; a wrong token, a spent one, or one
 * whose library already has an admin is a 404; bad input is a 400 naming the field in registration's words and leaves
 * the link usable; CSRF and the sign-in rate limit apply.
 */
import { ACCOUNT_ENTRY_MESSAGES, adminPaths, auditPageSchema, FIRST_OPERATOR_MESSAGES, firstOperatorPaths, PASSWORD_MESSAGES } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';

const PASSWORD = 'a reading lamp by the window';
const LIMIT = 10;
const api = firstOperatorPaths.api();

describe.each(ENGINES)('the first operator on %s', (engine) => {
  let t: TestApp;
  let address = 0;
  /** a browser of its own, from an address of its own (the sign-in limit counts per address) */
  const browser = () => {
    const client = new TestClient(t.lectern.app);
    const from = { 'x-forwarded-for': `10.23.0.${(address += 1)}` };
    return {
      client,
      live: async (token: string) => (await client.get(`${api}?token=${encodeURIComponent(token)}`, from)).json().live as boolean,
      submit: (body: object, opts: { csrf?: boolean } = {}) => client.post(api, body, { headers: from, ...opts }),
    };
  };
  const admins = async () =>
    (await t.lectern.db.kysely.selectFrom('users').select('email').where('is_admin', '=', 1).execute()).map((r) => r.email);

  beforeAll(async () => {
    t = await startTestApp(engine, { loginRateLimit: LIMIT, trustProxy: loadConfig({ TRUST_PROXY: 'true' }).trustProxy });
  });
  afterAll(() => t.close());

  it('is refused without the live token, and dies when an admin is made elsewhere', async () => {
    const token = (await t.lectern.services.firstOperator.open())!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const b = browser();
    expect(await b.live(token)).toBe(true);
    expect(await b.live(`${token}x`)).toBe(false);
    expect(await b.live('')).toBe(false);
    const wrong = await b.submit({ token: token.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')), email: 'op@example.com', password: PASSWORD });
    expect(wrong.statusCode).toBe(404);
    expect(wrong.json().detail).toBe(FIRST_OPERATOR_MESSAGES.linkDead);
    expect((await b.submit({ email: 'op@example.com', password: PASSWORD })).statusCode).toBe(404);
    expect(await admins()).toEqual([]);

    // an admin made by the command line (here: the same service) ends the link, even once that admin is gone
    const other = await t.lectern.services.accounts.createUser({ email: 'cli-admin@example.com', password: PASSWORD, role: 'admin' });
    expect(await b.live(token)).toBe(false);
    expect((await b.submit({ token, email: 'op@example.com', password: PASSWORD })).statusCode).toBe(404);
    expect(await t.lectern.services.firstOperator.open()).toBeNull();
    await t.lectern.db.kysely.deleteFrom('users').where('id', '=', other.id).execute();
    expect(await b.live(token)).toBe(false);
  });

  it('refuses a submission without the CSRF token, and changes nothing', async () => {
    const token = (await t.lectern.services.firstOperator.open())!;
    const b = browser();
    const res = await b.submit({ token, email: 'op@example.com', password: PASSWORD }, { csrf: false });
    expect(res.statusCode).toBe(403);
    expect(await admins()).toEqual([]);
    expect(await b.live(token)).toBe(true);
  });

  it("names the field in registration's words, and the link stays usable", async () => {
    const token = (await t.lectern.services.firstOperator.open())!;
    const b = browser();
    const empty = await b.submit({ token, email: '', password: '' });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().errors).toEqual({ email: [ACCOUNT_ENTRY_MESSAGES.required], password: [ACCOUNT_ENTRY_MESSAGES.required] });
    const short = await b.submit({ token, email: 'op@example.com', password: 'short' });
    expect(short.json().errors).toEqual({ password: [PASSWORD_MESSAGES.tooShort] });
    const common = await b.submit({ token, email: 'op@example.com', password: 'password123' });
    expect(common.json().errors).toEqual({ password: [PASSWORD_MESSAGES.common] });
    // the demo reader's address is taken, said as registration says it
    await t.lectern.services.accounts.createUser({ email: 'reader@lectern.local', password: PASSWORD, status: 'subscriber' });
    const taken = await b.submit({ token, email: 'Reader@Lectern.local', password: PASSWORD });
    expect(taken.statusCode).toBe(400);
    expect(taken.json().errors).toEqual({ email: [ACCOUNT_ENTRY_MESSAGES.emailTaken] });
    expect(await admins()).toEqual([]);
    expect(await b.live(token)).toBe(true);
  });

  it('makes the first admin, signed in and audited, and the link dies', async () => {
    const token = (await t.lectern.services.firstOperator.open())!;
    const b = browser();
    const res = await b.submit({ token, email: ' Op@Example.com ', password: PASSWORD });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ account: { email: 'op@example.com', roles: ['admin'] }, subscription_status: 'subscriber' });
    expect(await admins()).toEqual(['op@example.com']);

    // signed in: the console answers this browser
    const log = await b.client.get(`${adminPaths.audit()}?action=user.create`);
    expect(log.statusCode, log.body).toBe(200);
    const [entry] = auditPageSchema.parse(log.json()).results;
    expect(entry).toMatchObject({ actor_label: 'op@example.com', action: 'user.create', target_kind: 'user', ip: '10.23.0.' + address });
    expect(entry!.detail).toMatchObject({ email: 'op@example.com', roles: ['admin'] });
    expect(JSON.stringify(entry)).not.toContain(PASSWORD);

    // spent: a second use, by anyone, is a 404, and the start offers no new link
    const again = browser();
    expect(await again.live(token)).toBe(false);
    expect((await again.submit({ token, email: 'second@example.com', password: PASSWORD })).statusCode).toBe(404);
    expect(await t.lectern.services.firstOperator.open()).toBeNull();
    expect(await admins()).toEqual(['op@example.com']);
  });

  it('counts every try against the sign-in limit', async () => {
    const b = browser();
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i++) statuses.push((await b.client.get(`${api}?token=guess${i}`, { 'x-forwarded-for': '10.23.1.1' })).statusCode);
    expect(statuses.slice(0, LIMIT).every((s) => s === 200)).toBe(true);
    const last = await b.submit({ token: 'guess', email: 'x@example.com', password: PASSWORD });
    expect(statuses[LIMIT]).toBe(429);
    expect(last.statusCode).toBe(404); // another address: its own counter
    const over = await b.client.post(api, { token: 'guess', email: 'x@example.com', password: PASSWORD }, { headers: { 'x-forwarded-for': '10.23.1.1' } });
    expect(over.statusCode).toBe(429);
    expect(over.headers['retry-after']).toBeDefined();
  });
});
