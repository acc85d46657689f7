/**
 * Email (docs/decisions.md "Joining"): through SMTP with nodemailer when SMTP_URL is set, otherwise written to the log
 * (a fresh install has no mail server; the operator reads the link there). Services ask for a message; they never see
 * the transport.
 */
import type { Transporter } from 'nodemailer';

export interface Email {
  to: string;
  subject: string;
  text: string;
  /** extra headers, e.g. the newsletter's List-Unsubscribe */
  headers?: Record<string, string>;
}

export interface Mailer {
  send(email: Email): Promise<void>;
}

/**
 * Mail is sent one message at a time (MailOutbox): nodemailer's own idle limit of 10 minutes would let one mail server
 * that stops answering hold every later message that long. The address's query (`?socketTimeout=...`) still wins.
 */
const SMTP_TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 } as const;

export class SmtpMailer implements Mailer {
  // nodemailer is loaded with the first message, not at start: most processes (the command line's) send none
  private transport: Promise<Transporter> | null = null;

  constructor(
    private readonly smtpUrl: string,
    private readonly from: string,
  ) {}

  async send(email: Email): Promise<void> {
    this.transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport({ url: this.smtpUrl, ...SMTP_TIMEOUTS }));
    await (await this.transport).sendMail({ from: this.from, to: email.to, subject: email.subject, text: email.text, ...(email.headers ? { headers: email.headers } : {}) });
  }
}

/** No mail server configured: the message goes to the server's log, whole, so the operator can pass it on. */
export class LogMailer implements Mailer {
  constructor(private readonly log: (line: string) => void) {}

  async send(email: Email): Promise<void> {
    this.log(`[lectern] email to ${email.to}: ${email.subject}\n${email.text}`);
  }
}

/** How long closing the server waits for the mail still queued (below the 10 s after which a stop signal exits). */
export const MAIL_DRAIN_MS = 5_000;

/**
 * How many messages may wait at once. A mail server that stops answering holds each message up to its timeouts
 * (a minute or two), and requests keep posting: without a bound, the waiting messages grow with every reset asked
 * for. Past it a message is refused at once and reported (the log), and the request's answer is the same.
 */
export const MAIL_QUEUE_MAX = 1_000;

/**
 * Mail sent without holding the request that asked for it (docs/decisions.md "Mail after the answer"): an answer
 * that waited for the mail server would take longer when there is someone to mail, and so tell who has an account.
 * Messages go one after another, in the order posted; a failure is handed to `onFailure` (the log), never thrown.
 */
export class MailOutbox {
  private last: Promise<unknown> = Promise.resolve();
  /**
   * Each message waiting, in the order posted: its address once it is known to be one to mail (a message posted
   * whole, or one written), null while a written one waits for its turn (a reset asked for by an address not yet
   * looked up: it may belong to no account)
   */
  private readonly waiting = new Set<{ to: string | null }>();

  constructor(
    private readonly mailer: Mailer,
    private readonly onFailure: (email: Email, err: unknown) => void,
    private readonly max = MAIL_QUEUE_MAX,
  ) {}

  /** Queues `email`; resolves true once it is delivered, false once it failed (and was reported). Never rejects. */
  post(email: Email): Promise<boolean> {
    return this.queue(async () => email, email, email.to);
  }

  /**
   * Queues a message that `write` makes when its turn comes, and never before the current request has answered (a
   * macrotask later): what depends on whether there is anyone to mail (looking the address up, storing a link) then
   * costs the answer nothing either way. Resolves true once delivered, false when there was nothing to send or it
   * failed (reported, as `about` when the message was never written). Never rejects.
   */
  postWritten(write: () => Promise<Email | null>, about: Email): Promise<boolean> {
    return this.queue(write, about, null);
  }

  private queue(write: () => Promise<Email | null>, about: Email, to: string | null): Promise<boolean> {
    if (this.waiting.size >= this.max) {
      this.onFailure(about, new Error(`the mail queue is full (${this.max} messages waiting for the mail server)`));
      return Promise.resolve(false);
    }
    // an entry of its own: two messages to the same address are two entries
    const entry = { to };
    this.waiting.add(entry);
    let email: Email = about;
    const sent = this.last
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(write)
      .then(async (written) => {
        if (!written) return false;
        email = written;
        entry.to = written.to;
        await this.mailer.send(written);
        return true;
      })
      .catch((err: unknown) => {
        this.onFailure(email, err);
        return false;
      })
      .finally(() => this.waiting.delete(entry));
    this.last = sent;
    return sent;
  }

  /** Resolves once every message queued (also while waiting) is delivered or failed, or after `withinMs`: true when none is left. */
  async drain(withinMs = MAIL_DRAIN_MS): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), withinMs)));
    const emptied = (async () => {
      while (this.waiting.size > 0) await this.last;
      return true as const;
    })();
    try {
      return await Promise.race([emptied, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Messages posted and not yet delivered or failed. */
  get pending(): number {
    return this.waiting.size;
  }

  /**
   * What closing the server could not send: the addresses of the messages still waiting, in the order posted, and
   * how many more were never written (their address not yet looked up, so perhaps no account's).
   */
  unsent(): { addresses: string[]; notWritten: number } {
    const entries = [...this.waiting];
    return { addresses: entries.flatMap((e) => (e.to === null ? [] : [e.to])), notWritten: entries.filter((e) => e.to === null).length };
  }

  /** {@link unsent} as a line for the log. */
  unsentLine(): string {
    const { addresses, notWritten } = this.unsent();
    const to = addresses.length ? `to ${addresses.join(', ')}` : '';
    const unwritten = notWritten ? `${notWritten} not yet written (an address not yet looked up)` : '';
    return [to, unwritten].filter(Boolean).join('; ');
  }
}
