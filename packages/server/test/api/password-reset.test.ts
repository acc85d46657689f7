/**
 * "Forgot password" (docs/decisions.md "Joining") on both engines, with a real SMTP server started here (smtp-server)
 * catching what Lectern sends through nodemailer: the same answer for known and unknown addresses, a link built from
 * PUBLIC_URL (not the request's Host), one use, an hour, every session signed out, and a weak password not spending the
 * link. The answer does not wait for the mail server (its timing would tell a known address from an unknown one): a
 * sink that holds a message shows the answer came before the mail was accepted, and closing waits for it.
 */
import { ACCOUNT_ENTRY_MESSAGES, accountEntryPaths, PASSWORD_MESSAGES } from '@lectern/core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { UsersRepository } from '../../src/repositories/users.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { startSmtpSink } from '../helpers/smtp.ts';

const PASSWORD = 'a reading lamp by the window';

/** The link in a received message (quoted-printable soft breaks undone). */
const linkIn = (raw: string) => {
  const body = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  return /https:\/\/library\.example\.com\/reset-password\/\?token=[A-Za-z0-9_-]+/.exec(body)?.[0];
};

/** An unsafe call as a visitor's page makes it (CSRF token from a first GET), from `remoteAddress`. */
const askAs = async (t: TestApp, url: string, payload: object, remoteAddress: string) => {
  const client = new TestClient(t.lectern.app);
  await client.get('/healthz');
  const token = client.cookies.get('csrftoken')!;
  return t.lectern.app.inject({
    method: 'POST',
    url,
    payload,
    remoteAddress,
    headers: { host: 'evil.example.net', cookie: `csrftoken=${token}`, 'x-csrftoken': token },
  });
};

describe.each(ENGINES)('forgot password on %s', (engine) => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let ip = 0;
  const waitForMail = (count: number) => smtp.waitFor(count);

  beforeAll(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp(engine, { smtpUrl: smtp.url, publicUrl: 'https://library.example.com' });
    await t.lectern.services.accounts.createUser({ email: 'forgetful@example.com', password: PASSWORD, status: 'subscriber' });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  /** Each call from its own address. */
  const csrfFree = (url: string, payload: object) => askAs(t, url, payload, `10.9.0.${(ip += 1)}`);

  it('answers known and unknown addresses alike, and mails a one-time link built from PUBLIC_URL', async () => {
    const unknown = await csrfFree(accountEntryPaths.passwordReset(), { email: 'nobody@example.com' });
    const known = await csrfFree(accountEntryPaths.passwordReset(), { email: 'Forgetful@Example.com' });
    expect(unknown.statusCode).toBe(202);
    expect(known.statusCode).toBe(202);
    expect(unknown.json()).toEqual(known.json());
    expect(known.json().detail).toBe(ACCOUNT_ENTRY_MESSAGES.resetSent);
    const mail = await waitForMail(1);
    expect(mail).toHaveLength(1);
    expect(mail[0]!.to).toBe('forgetful@example.com');
    expect(mail[0]!.raw).not.toContain('evil.example.net');
    const link = linkIn(mail[0]!.raw);
    expect(link).toBeDefined();
    const token = new URL(link!).searchParams.get('token')!;

    const signedIn = new TestClient(t.lectern.app);
    await signedIn.login('forgetful@example.com', PASSWORD);
    expect((await signedIn.get(`${accountEntryPaths.passwordResetConfirm()}?token=${token}`)).json()).toEqual({ live: true });
    // A weak password is refused without spending the link.
    const weak = await csrfFree(accountEntryPaths.passwordResetConfirm(), { token, new_password: 'michelle' });
    expect(weak.json().errors).toEqual({ new_password: [PASSWORD_MESSAGES.common] });
    const done = await csrfFree(accountEntryPaths.passwordResetConfirm(), { token, new_password: 'a new sentence to remember' });
    expect(done.json().detail).toBe(ACCOUNT_ENTRY_MESSAGES.resetDone);
    expect((await signedIn.get('/u/information_for_javascript')).statusCode).toBe(401);
    await new TestClient(t.lectern.app).login('forgetful@example.com', 'a new sentence to remember');
    const again = await csrfFree(accountEntryPaths.passwordResetConfirm(), { token, new_password: 'yet another sentence here' });
    expect(again.json().errors).toEqual({ token: [ACCOUNT_ENTRY_MESSAGES.resetLinkDead] });
    expect((await new TestClient(t.lectern.app).get(`${accountEntryPaths.passwordResetConfirm()}?token=${token}`)).json()).toEqual({ live: false });
  });

  it('answers a known address before the mail server accepts its mail, which still arrives once it does', async () => {
    const before = smtp.messages.length;
    const release = smtp.hold();
    try {
      let answered = false;
      const asked = csrfFree(accountEntryPaths.passwordReset(), { email: 'forgetful@example.com' }).then((res) => ((answered = true), res));
      // the mail reached the mail server, which has not accepted it: the answer must not have waited for that
      expect(await smtp.waitForArrival(before + 1)).toBe(true);
      expect(answered).toBe(true);
      expect((await asked).statusCode).toBe(202);
      expect(smtp.messages).toHaveLength(before);
    } finally {
      release();
    }
    const mail = await smtp.waitFor(before + 1);
    expect(mail[before]?.to).toBe('forgetful@example.com');
    expect(linkIn(mail[before]!.raw)).toBeDefined();
  });

  it('answers before it looks the address up: no statement the answer waits for depends on the account', async () => {
    // the real lookup, held until the test lets it go (a spy around it, not a stand-in)
    const lookup = UsersRepository.prototype.findByEmail;
    let letGo!: () => void;
    const gate = new Promise<void>((r) => (letGo = r));
    let looked!: () => void;
    const lookedUp = new Promise<'looked up'>((r) => (looked = () => r('looked up')));
    const spy = vi.spyOn(UsersRepository.prototype, 'findByEmail').mockImplementation(async function (this: UsersRepository, email: string) {
      if (email === 'forgetful@example.com') {
        looked();
        await gate;
      }
      return lookup.call(this, email);
    });
    const before = smtp.messages.length;
    try {
      const asked = csrfFree(accountEntryPaths.passwordReset(), { email: 'forgetful@example.com' });
      // before: the lookup (then the link's two writes) came first, and the answer waited for them
      expect(await Promise.race([asked.then((res) => res.statusCode), lookedUp])).toBe(202);
      expect(await lookedUp).toBe('looked up');
    } finally {
      letGo();
      spy.mockRestore();
    }
    const mail = await smtp.waitFor(before + 1);
    expect(mail[before]?.to).toBe('forgetful@example.com');
  });

  it('lets a link work for an hour only, and only the newest one', async () => {
    const before = smtp.messages.length;
    await csrfFree(accountEntryPaths.passwordReset(), { email: 'forgetful@example.com' });
    await csrfFree(accountEntryPaths.passwordReset(), { email: 'forgetful@example.com' });
    const mail = await waitForMail(before + 2);
    const older = new URL(linkIn(mail[before]!.raw)!).searchParams.get('token')!;
    const newer = new URL(linkIn(mail[before + 1]!.raw)!).searchParams.get('token')!;
    expect((await csrfFree(accountEntryPaths.passwordResetConfirm(), { token: older, new_password: 'one more good sentence' })).statusCode).toBe(400);
    await t.lectern.db.kysely.updateTable('password_resets').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).execute();
    const late = await csrfFree(accountEntryPaths.passwordResetConfirm(), { token: newer, new_password: 'one more good sentence' });
    expect(late.json().errors).toEqual({ token: [ACCOUNT_ENTRY_MESSAGES.resetLinkDead] });
  });

  it('limits asking per address', async () => {
    const at = '10.9.9.9';
    const client = new TestClient(t.lectern.app);
    await client.get('/healthz');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await t.lectern.app.inject({
        method: 'POST',
        url: accountEntryPaths.passwordReset(),
        remoteAddress: at,
        payload: { email: `x${i}@example.com` },
        headers: { cookie: `csrftoken=${client.cookies.get('csrftoken')}`, 'x-csrftoken': client.cookies.get('csrftoken')! },
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429]);
  });
});

describe.each(ENGINES)('reset mail after the answer on %s', (engine) => {
  const errors: string[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    errors.length = 0;
  });
  /** What the server writes to its error output, kept to read (the outbox's failures go there). */
  const keepErrors = () => vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void errors.push(args.map(String).join(' ')));

  it('closing the server waits for the mail still queued', async () => {
    const smtp = await startSmtpSink();
    const t = await startTestApp(engine, { smtpUrl: smtp.url, publicUrl: 'https://library.example.com' });
    try {
      await t.lectern.services.accounts.createUser({ email: 'leaving@example.com', password: PASSWORD, status: 'subscriber' });
      const release = smtp.hold();
      let closing: Promise<unknown> | undefined;
      try {
        expect((await askAs(t, accountEntryPaths.passwordReset(), { email: 'leaving@example.com' }, '10.9.1.1')).statusCode).toBe(202);
        let closed = false;
        closing = t.close().then(() => (closed = true));
        expect(await smtp.waitForArrival(1)).toBe(true);
        // held by the mail server: the server is still closing
        expect(closed).toBe(false);
      } finally {
        release();
        await closing;
      }
      expect(smtp.messages.map((m) => m.to)).toEqual(['leaving@example.com']);
    } finally {
      await smtp.close();
    }
  });

  it('logs a mail the server refused, answers the same, and sends the next ones in order', async () => {
    const smtp = await startSmtpSink({ refuse: (to) => to === 'refused@example.com' });
    const t = await startTestApp(engine, { smtpUrl: smtp.url, publicUrl: 'https://library.example.com' });
    keepErrors();
    try {
      for (const email of ['refused@example.com', 'first@example.com', 'second@example.com']) await t.lectern.services.accounts.createUser({ email, password: PASSWORD, status: 'subscriber' });
      const release = smtp.hold();
      const answers = [];
      try {
        for (const [i, email] of ['refused@example.com', 'first@example.com', 'second@example.com', 'nobody@example.com'].entries())
          answers.push(await askAs(t, accountEntryPaths.passwordReset(), { email }, `10.9.2.${i + 1}`));
      } finally {
        release();
      }
      expect(answers.map((a) => a.statusCode)).toEqual([202, 202, 202, 202]);
      expect(new Set(answers.map((a) => a.body)).size).toBe(1);
      const mail = await smtp.waitFor(2);
      expect(mail.map((m) => m.to)).toEqual(['first@example.com', 'second@example.com']);
      expect(await t.lectern.services.mail.drain()).toBe(true);
      expect(errors.filter((e) => e.includes('refused@example.com'))).toHaveLength(1);
      expect(errors.join('\n')).not.toMatch(/token=/);
    } finally {
      await t.close();
      await smtp.close();
    }
  });
});
