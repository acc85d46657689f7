import { accountProfileSchema, APP_MESSAGES } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';

describe.each(ENGINES)('accounts and sessions on %s', (engine) => {
  let t: TestApp;
  const email = 'ada@example.com';
  const password = 'correct horse battery';

  beforeAll(async () => {
    t = await startTestApp(engine, { loginRateLimit: 10 });
    await t.lectern.services.accounts.createUser({ email, password, status: 'subscriber', team: 'Analytical Engines' });
  });
  afterAll(() => t.close());

  it('answers the health check with the engine in use', async () => {
    const res = await new TestClient(t.lectern.app).get('/healthz');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', database: engine });
  });

  it('rejects an anonymous profile request with the spec message', async () => {
    const res = await new TestClient(t.lectern.app).get('/u/information_for_javascript');
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ detail: 'User is not logged in.' });
  });

  it('stores passwords as argon2id with the OWASP parameters', async () => {
    const user = await t.lectern.db.kysely.selectFrom('users').select('password_hash').where('email', '=', email).executeTakeFirstOrThrow();
    expect(user.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('signs in with JSON, sets the three cookies and returns the profile', async () => {
    const c = new TestClient(t.lectern.app);
    await c.get('/healthz');
    const before = c.cookies.get('csrftoken');
    const res = await c.post('/login/', { email: 'ADA@example.com ', password });
    expect(res.statusCode).toBe(200);
    const profile = accountProfileSchema.parse(res.json());
    expect(profile.username).toBe('ada');
    expect(profile.subscription_status).toBe('subscriber');
    expect(profile.account).toMatchObject({ type: 'Subscriber', email, team: 'Analytical Engines', roles: [] });
    const setCookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
    const session = setCookies.find((s) => s.startsWith('lectern_session='))!;
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Lax/i);
    expect(setCookies.find((s) => s.startsWith('logged_in=1'))).not.toMatch(/HttpOnly/i);
    // The CSRF token is rotated at sign-in.
    expect(c.cookies.get('csrftoken')).toBeDefined();
    expect(c.cookies.get('csrftoken')).not.toBe(before);
    const again = await c.get('/u/information_for_javascript');
    expect(again.statusCode).toBe(200);
    expect(again.json().session_id).toBe(profile.session_id);
  });

  it('refuses a wrong password and an unknown email with the same message', async () => {
    const c = new TestClient(t.lectern.app);
    const wrong = await c.post('/login/', { email, password: 'nope-nope-nope' });
    const unknown = await c.post('/login/', { email: 'nobody@example.com', password });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ detail: APP_MESSAGES.invalidCredentials });
    expect(unknown.json()).toEqual(wrong.json());
  });

  it('names the field of a malformed sign-in', async () => {
    const res = await new TestClient(t.lectern.app).post('/login/', { email: 'not-an-email' });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(Object.keys(body.errors)).toEqual(expect.arrayContaining(['email', 'password']));
  });

  it('refuses unsafe requests without the CSRF header, with a foreign token or from another origin', async () => {
    const c = new TestClient(t.lectern.app);
    await c.login(email, password);
    const missing = await c.request('POST', '/logout/', { csrf: false });
    expect(missing.statusCode).toBe(403);
    expect(missing.json().detail).toBe(APP_MESSAGES.csrfFailed);
    // A token issued to another session (here: the anonymous one) does not pass, even when cookie and header agree.
    const other = new TestClient(t.lectern.app);
    await other.get('/healthz');
    const foreign = other.cookies.get('csrftoken')!;
    const forged = await t.lectern.app.inject({
      method: 'POST',
      url: '/logout/',
      headers: { cookie: `lectern_session=${c.cookies.get('lectern_session')}; csrftoken=${foreign}`, 'x-csrftoken': foreign },
    });
    expect(forged.statusCode).toBe(403);
    const crossOrigin = await c.request('POST', '/logout/', { headers: { origin: 'https://evil.example' } });
    expect(crossOrigin.statusCode).toBe(403);
    expect(crossOrigin.json().detail).toBe(APP_MESSAGES.originRejected);
    // Still signed in after all three.
    expect((await c.get('/u/information_for_javascript')).statusCode).toBe(200);
  });

  it('signs out: the session stops working and the cookies are cleared', async () => {
    const c = new TestClient(t.lectern.app);
    await c.login(email, password);
    const token = c.cookies.get('lectern_session')!;
    const res = await c.post('/logout/');
    expect(res.statusCode).toBe(204);
    expect(c.cookies.has('lectern_session')).toBe(false);
    expect(c.cookies.has('logged_in')).toBe(false);
    const replay = await t.lectern.app.inject({ method: 'GET', url: '/u/information_for_javascript', headers: { cookie: `lectern_session=${token}` } });
    expect(replay.statusCode).toBe(401);
  });

  it('accepts a plain HTML form sign-in and redirects only to paths on this site', async () => {
    const c = new TestClient(t.lectern.app);
    await c.get('/healthz');
    const form = (next: string) =>
      new URLSearchParams({ email, password, next, csrfmiddlewaretoken: c.cookies.get('csrftoken')! }).toString();
    const ok = await c.request('POST', '/login/', { csrf: false, payload: form('/library/book/x/'), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe('/library/book/x/');
    const c2 = new TestClient(t.lectern.app);
    await c2.get('/healthz');
    const evil = await c2.request('POST', '/login/', {
      csrf: false,
      payload: new URLSearchParams({ email, password, next: '//evil.example/', csrfmiddlewaretoken: c2.cookies.get('csrftoken')! }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(evil.headers.location).toBe('/library/');
  });

  it('rate-limits sign-in attempts', async () => {
    const c = new TestClient(t.lectern.app);
    const statuses: number[] = [];
    const target = 'target@example.com';
    await t.lectern.services.accounts.createUser({ email: target, password });
    for (let i = 0; i < 12; i++) statuses.push((await c.post('/login/', { email: target, password: 'wrong-wrong-wrong' })).statusCode);
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
    // Even the right password waits out the window.
    const limited = await c.post('/login/', { email: target, password });
    expect(limited.statusCode).toBe(429);
    expect(limited.json().detail).toBe(APP_MESSAGES.tooManySignIns);
  });
});
