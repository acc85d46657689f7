/**
 * A real SMTP server (smtp-server) on a free port for API tests, keeping every message Lectern sends through
 * nodemailer: the tests read links out of real mail, no mailer is mocked.
 */
import net from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface SmtpSink {
  url: string;
  messages: { to: string; raw: string }[];
  /** waits (up to 5 s) until at least `count` messages arrived */
  waitFor(count: number): Promise<{ to: string; raw: string }[]>;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: { to: string; raw: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      stream.on('end', () => {
        messages.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = ((server as unknown as { server: net.Server }).server.address() as net.AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitFor(count) {
      for (let i = 0; i < 100 && messages.length < count; i++) await new Promise((r) => setTimeout(r, 50));
      return messages;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A message's body with quoted-printable soft breaks and `=3D` undone, so links read whole. */
export const bodyOf = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
