/**
 * A real SMTP server (smtp-server) on a free port for API tests, keeping every message Lectern sends through
 * nodemailer: the tests read links out of real mail, no mailer is mocked.
 */
import net from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface SmtpMessage {
  to: string;
  raw: string;
}

export interface SmtpSink {
  url: string;
  messages: SmtpMessage[];
  /** Resolves as soon as at least `count` messages have arrived (on their arrival, not by polling); after 5 s with what there is. */
  waitFor(count: number): Promise<SmtpMessage[]>;
  /** The newest message `match` accepts, as soon as it arrives; undefined after 5 s. */
  waitForMessage(match: (message: SmtpMessage) => boolean): Promise<SmtpMessage | undefined>;
  /**
   * From now on each message is received but not accepted (no answer to its data, so the sender still waits) until
   * the function returned is called; then they are accepted, in order, and join `messages`.
   */
  hold(): () => void;
  /** Resolves when `count` messages have been received, accepted or held (on their arrival); after 5 s with false. */
  waitForArrival(count: number): Promise<boolean>;
  close(): Promise<void>;
}

export interface SmtpSinkOptions {
  /** refuses the data of a message to these recipients (a 550 after it is sent), as a mail server that will not take it */
  refuse?: (to: string) => boolean;
}

/** How long a test waits for mail before it goes on to fail on what it has. */
const MAIL_WAIT_MS = 5_000;

export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const messages: SmtpMessage[] = [];
  let arrived = 0;
  /** what acceptance waits for while the sink holds messages */
  let held: Promise<void> | null = null;
  /** checked on every message that arrives: each resolves its wait when it is satisfied */
  const waiters = new Set<() => boolean>();
  /** Resolves with `found()` once it is defined, checked now and on each arrival; with undefined after MAIL_WAIT_MS. */
  const until = <T>(found: () => T | undefined): Promise<T | undefined> =>
    new Promise((resolve) => {
      const now = found();
      if (now !== undefined) return resolve(now);
      const done = (value: T | undefined) => {
        clearTimeout(timer);
        waiters.delete(check);
        resolve(value);
      };
      const check = () => {
        const value = found();
        if (value !== undefined) done(value);
        return value !== undefined;
      };
      const timer = setTimeout(() => done(undefined), MAIL_WAIT_MS);
      waiters.add(check);
    });
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((r) => r.address).join(',');
        arrived += 1;
        for (const check of [...waiters]) check();
        void (held ?? Promise.resolve()).then(() => {
          if (options.refuse?.(to)) return callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
          messages.push({ to, raw });
          for (const check of [...waiters]) check();
          callback();
        });
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = ((server as unknown as { server: net.Server }).server.address() as net.AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitFor(count) {
      await until(() => (messages.length >= count ? true : undefined));
      return messages;
    },
    waitForMessage: (match) => until(() => [...messages].reverse().find(match)),
    hold() {
      let release!: () => void;
      held = new Promise((resolve) => (release = resolve));
      return () => {
        held = null;
        release();
      };
    },
    waitForArrival: async (count) => (await until(() => (arrived >= count ? true : undefined))) ?? false,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A message's body with quoted-printable soft breaks and `=3D` undone, so links read whole. */
export const bodyOf = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
