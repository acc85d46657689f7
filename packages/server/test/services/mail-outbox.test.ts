/**
 * The mail queue (services/mailer.ts MailOutbox) on its own: one message at a time in the order posted, a bound on
 * how many wait, and a close that gives up after its time and says to whom. The mailer here is a transport of the
 * test's own that holds each message until the test lets it go (the SMTP path is test/api/password-reset.test.ts's,
 * with a real SMTP server).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAIL_DRAIN_MS, MailOutbox, type Email, type Mailer } from '../../src/services/mailer.ts';

/** A transport that takes each message and holds it: `started` in the order sends began, `finish()` ends the oldest. */
function heldMailer() {
  const started: string[] = [];
  const open: (() => void)[] = [];
  const mailer: Mailer = {
    send: (email: Email) =>
      new Promise<void>((resolve) => {
        started.push(email.to);
        open.push(resolve);
      }),
  };
  return { mailer, started, finish: () => open.shift()?.() };
}

const mail = (to: string): Email => ({ to, subject: 'Reset your password', text: 'a link' });
/** lets the queue's own steps run (each message waits a macrotask before it is written) */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('the mail queue', () => {
  afterEach(() => vi.useRealTimers());

  it('sends one message at a time, in the order posted', async () => {
    const { mailer, started, finish } = heldMailer();
    const outbox = new MailOutbox(mailer, () => {});
    const sent = ['a@example.com', 'b@example.com', 'c@example.com'].map((to) => outbox.post(mail(to)));
    await settle();
    // the second waits for the first to be delivered: sent in parallel, all three would have started
    expect(started).toEqual(['a@example.com']);
    finish();
    await settle();
    expect(started).toEqual(['a@example.com', 'b@example.com']);
    finish();
    await settle();
    finish();
    expect(await Promise.all(sent)).toEqual([true, true, true]);
    expect(started).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
  });

  it('refuses a message past its bound at once, reports it, and still sends those waiting', async () => {
    const { mailer, started, finish } = heldMailer();
    const failures: string[] = [];
    const outbox = new MailOutbox(mailer, (email, err) => failures.push(`${email.to}: ${(err as Error).message}`), 3);
    const waiting = ['1@example.com', '2@example.com', '3@example.com'].map((to) => outbox.post(mail(to)));
    expect(await outbox.post(mail('4@example.com'))).toBe(false);
    expect(failures).toEqual(['4@example.com: the mail queue is full (3 messages waiting for the mail server)']);
    expect(outbox.pending).toBe(3);
    for (let i = 0; i < 3; i++) {
      await settle();
      finish();
    }
    expect(await Promise.all(waiting)).toEqual([true, true, true]);
    expect(started).toEqual(['1@example.com', '2@example.com', '3@example.com']);
    // room again once they are out
    const again = outbox.post(mail('5@example.com'));
    await settle();
    finish();
    expect(await again).toBe(true);
  });

  it('gives up waiting after its time, and names the addresses still waiting, not those never looked up', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { mailer } = heldMailer();
    const outbox = new MailOutbox(mailer, () => {});
    void outbox.post(mail('held@example.com'));
    void outbox.post(mail('after@example.com'));
    // a reset asked for by a typed address: whether it has an account is known only when its turn comes
    void outbox.postWritten(async () => mail('typed@example.com'), mail('typed@example.com'));
    let drained: boolean | undefined;
    const draining = outbox.drain().then((done) => (drained = done));
    await vi.advanceTimersByTimeAsync(MAIL_DRAIN_MS - 1);
    expect(drained).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await draining;
    expect(drained).toBe(false);
    expect(outbox.unsent()).toEqual({ addresses: ['held@example.com', 'after@example.com'], notWritten: 1 });
    expect(outbox.unsentLine()).toBe('to held@example.com, after@example.com; 1 not yet written (an address not yet looked up)');
  });
});
