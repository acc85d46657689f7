/**
 * Joining (docs/decisions.md "Joining") on both engines: the email check, the password check (the 10,000 most common
 * passwords), registration into a trial with its history entry, the topics form, and the per-address limits.
 */
import { ACCOUNT_ENTRY_MESSAGES, accountEntryPaths, accountProfileSchema, ONBOARDING_LOCATION, PASSWORD_MESSAGES } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountEntryRepository } from '../../src/repositories/account-entry.ts';
import { RegistrationService } from '../../src/services/registration.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { minimalEpub3 } from '../ingest/helpers.ts';

const GOOD_PASSWORD = 'violet harbour forty-two';

describe.each(ENGINES)('joining on %s', (engine) => {
  let t: TestApp;
  let visitor: TestClient;
  let ip = 0;
  /** Each test asks from its own address, so the per-address limits of one do not touch another. */
  const fromNewAddress = () => {
    ip += 1;
    return `10.1.${Math.floor(ip / 250)}.${ip % 250}`;
  };
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload: unknown, remoteAddress: string, client = visitor) =>
    t.lectern.app.inject({
      method,
      url,
      remoteAddress,
      headers: {
        cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        'x-csrftoken': client.cookies.get('csrftoken') ?? '',
      },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  beforeAll(async () => {
    t = await startTestApp(engine);
    await t.lectern.services.importer.importBytes(minimalEpub3(), 'small.epub', { topics: ['Databases', 'Distributed Systems'] });
    visitor = new TestClient(t.lectern.app);
    await visitor.get('/healthz');
  });
  afterAll(() => t.close());

  it('checks an email: required, its shape, free, and taken once someone has it', async () => {
    const at = fromNewAddress();
    const check = async (email: string) => (await call('GET', `${accountEntryPaths.emailCheck()}?email=${encodeURIComponent(email)}`, undefined, at)).json();
    expect(await check('')).toEqual({ success: false, message: ACCOUNT_ENTRY_MESSAGES.required });
    expect(await check('not-an-address')).toEqual({ success: false, message: ACCOUNT_ENTRY_MESSAGES.emailShape });
    expect(await check('New.Reader@Example.com')).toEqual({ success: true, message: ACCOUNT_ENTRY_MESSAGES.emailFree });
    await t.lectern.services.accounts.createUser({ email: 'new.reader@example.com', password: GOOD_PASSWORD });
    expect(await check(' NEW.reader@example.com ')).toEqual({ success: false, message: ACCOUNT_ENTRY_MESSAGES.emailTaken });
  });

  it('checks a password with the server rule: length, the email, the 10,000 most common', async () => {
    const at = fromNewAddress();
    const check = async (password: string, email?: string) =>
      (await call('POST', accountEntryPaths.passwordValidation(), { password, email, field_name: 'password' }, at)).json();
    expect(await check('')).toEqual({ valid: false, msg: ACCOUNT_ENTRY_MESSAGES.required });
    expect(await check('short')).toEqual({ valid: false, msg: PASSWORD_MESSAGES.tooShort });
    expect(await check('reader@example.com', 'reader@example.com')).toEqual({ valid: false, msg: PASSWORD_MESSAGES.isEmail });
    // In the 10,000 most used (not in the short list the core keeps for itself).
    for (const common of ['michelle', 'Q1W2E3R4T5', '4815162342']) expect(await check(common)).toEqual({ valid: false, msg: PASSWORD_MESSAGES.common });
    expect(await check(GOOD_PASSWORD)).toEqual({ valid: true, msg: ACCOUNT_ENTRY_MESSAGES.looksGood });
    // Without the CSRF header it is refused like every unsafe call.
    const bare = await t.lectern.app.inject({ method: 'POST', url: accountEntryPaths.passwordValidation(), payload: { password: 'x' }, remoteAddress: at });
    expect(bare.statusCode).toBe(403);
  });

  it('registers a trial reader, signed in at once, with the trial end and a history entry', async () => {
    const reader = new TestClient(t.lectern.app);
    await reader.get('/healthz');
    const res = await call('POST', accountEntryPaths.register(), { email: 'Trial.Reader@example.com', password: GOOD_PASSWORD, plan: 'pro' }, fromNewAddress(), reader);
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.onboardingLocation).toBe(ONBOARDING_LOCATION);
    for (const c of res.cookies as { name: string; value: string }[]) reader.cookies.set(c.name, c.value);
    const profile = accountProfileSchema.parse((await reader.get('/u/information_for_javascript')).json());
    expect(profile.account.email).toBe('trial.reader@example.com');
    expect(profile.subscription_status).toBe('trial');
    expect(profile.account.trial_ends_at).toBe(body.trial_ends_at);
    expect(body.userId).toBe(profile.user_uuid);
    const days = (Date.parse(body.trial_ends_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(9.9);
    expect(days).toBeLessThanOrEqual(10);
    const user = await t.lectern.db.kysely.selectFrom('users').selectAll().where('email', '=', 'trial.reader@example.com').executeTakeFirstOrThrow();
    expect(user.plan).toBe('pro');
    // The subscribe page reads the plan chosen here from the subscription (it preselects it).
    expect((await reader.get(accountEntryPaths.subscription())).json()).toMatchObject({ status: 'trial', plan: 'pro' });
    expect(await t.lectern.services.registration.history(user)).toEqual([
      expect.objectContaining({ event: 'registered', from_status: null, to_status: 'trial', detail: 'plan pro' }),
    ]);
  });

  it('names every wrong field at once and creates nothing', async () => {
    const at = fromNewAddress();
    const before = await t.lectern.db.kysely.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const empty = await call('POST', accountEntryPaths.register(), {}, at);
    expect(empty.statusCode).toBe(400);
    expect(empty.json().errors).toEqual({ email: [ACCOUNT_ENTRY_MESSAGES.required], password: [ACCOUNT_ENTRY_MESSAGES.required] });
    const bad = await call('POST', accountEntryPaths.register(), { email: 'nobody', password: 'michelle', plan: 'gold' }, at);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.plan).toEqual([ACCOUNT_ENTRY_MESSAGES.planChoice]);
    const weak = await call('POST', accountEntryPaths.register(), { email: 'weak@example.com', password: 'michelle' }, at);
    expect(weak.json().errors).toEqual({ password: [PASSWORD_MESSAGES.common] });
    const after = await t.lectern.db.kysely.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('refuses a second registration of one email, even two at once', async () => {
    const payload = { email: 'twice@example.com', password: GOOD_PASSWORD };
    const [a, b] = await Promise.all([
      call('POST', accountEntryPaths.register(), payload, fromNewAddress()),
      call('POST', accountEntryPaths.register(), payload, fromNewAddress()),
    ]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([201, 400]);
    const refused = a.statusCode === 400 ? a : b;
    expect(refused.json().errors).toEqual({ email: [ACCOUNT_ENTRY_MESSAGES.emailTaken] });
    const later = await call('POST', accountEntryPaths.register(), { ...payload, email: 'TWICE@example.com' }, fromNewAddress());
    expect(later.statusCode).toBe(400);
  });

  it('answers in the check\'s words when the other registration lands between the check and the account (was the operator\'s)', async () => {
    const payload = { email: 'between@example.com', password: GOOD_PASSWORD };
    expect((await call('POST', accountEntryPaths.register(), payload, fromNewAddress())).statusCode).toBe(201);
    // the check ran before that registration landed: it saw the address free
    class CheckedBefore extends AccountEntryRepository {
      override async emailExists(): Promise<boolean> {
        return false;
      }
    }
    const late = new RegistrationService(t.lectern.services.accounts, new CheckedBefore(t.lectern.db.kysely), 14);
    await expect(late.register(payload)).rejects.toMatchObject({ status: 400, errors: { email: [ACCOUNT_ENTRY_MESSAGES.emailTaken] } });
  });

  it('keeps the topics a new reader picks; an unknown one changes nothing', async () => {
    const reader = new TestClient(t.lectern.app);
    await reader.get('/healthz');
    const res = await call('POST', accountEntryPaths.register(), { email: 'topics@example.com', password: GOOD_PASSWORD }, fromNewAddress(), reader);
    for (const c of res.cookies as { name: string; value: string }[]) reader.cookies.set(c.name, c.value);
    const chosen = await reader.request('PUT', accountEntryPaths.topics(), { json: { topics: ['databases', 'distributed-systems', 'databases'] } });
    expect(chosen.statusCode).toBe(200);
    expect(chosen.json().topics.map((x: { slug: string }) => x.slug)).toEqual(['databases', 'distributed-systems']);
    const unknown = await reader.request('PUT', accountEntryPaths.topics(), { json: { topics: ['databases', 'astrology'] } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors.topics).toEqual([ACCOUNT_ENTRY_MESSAGES.unknownTopic('astrology')]);
    expect((await reader.get(accountEntryPaths.topics())).json().topics).toHaveLength(2);
    expect((await new TestClient(t.lectern.app).get(accountEntryPaths.topics())).statusCode).toBe(401);
  });

  it('changes the password (other sessions signed out, this one kept), the email, and signs out other sessions', async () => {
    await t.lectern.services.accounts.createUser({ email: 'mover@example.com', password: GOOD_PASSWORD, status: 'subscriber' });
    const here = new TestClient(t.lectern.app);
    const there = new TestClient(t.lectern.app);
    await here.login('mover@example.com', GOOD_PASSWORD);
    await there.login('mover@example.com', GOOD_PASSWORD);
    const wrong = await here.post(accountEntryPaths.password(), { current_password: 'not it at all', new_password: 'a brand new sentence' });
    expect(wrong.json().errors).toEqual({ current_password: [ACCOUNT_ENTRY_MESSAGES.currentPasswordWrong] });
    const weak = await here.post(accountEntryPaths.password(), { current_password: GOOD_PASSWORD, new_password: 'michelle' });
    expect(weak.json().errors).toEqual({ new_password: [PASSWORD_MESSAGES.common] });
    const changed = await here.post(accountEntryPaths.password(), { current_password: GOOD_PASSWORD, new_password: 'a brand new sentence' });
    expect(changed.json()).toEqual({ signed_out: 1 });
    expect((await here.get('/u/information_for_javascript')).statusCode).toBe(200);
    expect((await there.get('/u/information_for_javascript')).statusCode).toBe(401);
    await there.login('mover@example.com', 'a brand new sentence');

    const taken = await here.post(accountEntryPaths.email(), { current_password: 'a brand new sentence', email: 'new.reader@example.com' });
    expect(taken.json().errors).toEqual({ email: [ACCOUNT_ENTRY_MESSAGES.emailTaken] });
    const moved = await here.post(accountEntryPaths.email(), { current_password: 'a brand new sentence', email: 'Moved@Example.com' });
    expect(accountProfileSchema.parse(moved.json()).account.email).toBe('moved@example.com');

    const out = await here.request('DELETE', accountEntryPaths.otherSessions());
    expect(out.json()).toEqual({ signed_out: 1 });
    expect((await there.get('/u/information_for_javascript')).statusCode).toBe(401);
    expect((await new TestClient(t.lectern.app).request('DELETE', accountEntryPaths.otherSessions())).statusCode).toBe(401);
  });

  it('limits each entry call per address; other addresses are not held back', async () => {
    const at = fromNewAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await call('GET', `${accountEntryPaths.emailCheck()}?email=probe${i}@example.com`, undefined, at)).statusCode);
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    const limited = await call('GET', `${accountEntryPaths.emailCheck()}?email=probe@example.com`, undefined, at);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().detail).toBe(ACCOUNT_ENTRY_MESSAGES.tooManyRequests);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await call('GET', `${accountEntryPaths.emailCheck()}?email=probe@example.com`, undefined, fromNewAddress())).statusCode).toBe(200);
    const reg = fromNewAddress();
    const regs: number[] = [];
    for (let i = 0; i < 11; i++) regs.push((await call('POST', accountEntryPaths.register(), { email: `r${i}@example.com`, password: 'short' }, reg)).statusCode);
    expect(regs).toEqual([...Array(10).fill(400), 429]);
  });
});
