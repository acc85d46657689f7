/**
 * Request log lines (plugins/request-log.ts): a team invitation's or a password reset's one-time token never reaches
 * the log, from the page's address or the API's; the rest of the line is Fastify's. Checked through the app's own
 * logger, writing to a stream the test reads.
 */
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { loggerOptions, redactUrl } from '../../src/plugins/request-log.ts';

describe('request log', () => {
  it('redacts one-time tokens in the query and keeps the rest of the URL', () => {
    expect(redactUrl('/teams/join/?token=abcDEF_123-x')).toBe('/teams/join/?token=[redacted]');
    expect(redactUrl('/api/v1/team-invitations/?a=1&token=s3cret&b=2')).toBe('/api/v1/team-invitations/?a=1&token=[redacted]&b=2');
    expect(redactUrl('/reset-password/?TOKEN=s3cret#x')).toBe('/reset-password/?TOKEN=[redacted]#x');
    expect(redactUrl('/api/v1/book/?page_size=50&tokenish=1')).toBe('/api/v1/book/?page_size=50&tokenish=1');
    // the sign-in page sends a visitor back to the link: the token rides, encoded, in `next`
    expect(redactUrl('/login/?next=%2Fteams%2Fjoin%2F%3Ftoken%3DabcDEF_123-x&x=1')).toBe('/login/?next=%2Fteams%2Fjoin%2F%3Ftoken%3D[redacted]&x=1');
    expect(redactUrl('/login/?next=%2Fx%2F%3Fa%3D1%26token%3Ds3cret%26b%3D2')).toBe('/login/?next=%2Fx%2F%3Fa%3D1%26token%3D[redacted]%26b%3D2');
  });

  it("the app's logger writes the incoming request without the token", async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = Fastify({ logger: { ...loggerOptions('info'), stream } });
    app.get('/teams/join/', async () => 'ok');
    await app.inject({ method: 'GET', url: '/teams/join/?token=the-one-time-secret' });
    await app.close();
    const log = lines.join('');
    expect(log).toContain('/teams/join/?token=[redacted]');
    expect(log).not.toContain('the-one-time-secret');
  });
});
