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

export class SmtpMailer implements Mailer {
  // nodemailer is loaded with the first message, not at start: most processes (the command line's) send none
  private transport: Promise<Transporter> | null = null;

  constructor(
    private readonly smtpUrl: string,
    private readonly from: string,
  ) {}

  async send(email: Email): Promise<void> {
    this.transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(this.smtpUrl));
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
