/**
 * The Annotator token's hand-written HS256 (services/annotation-tokens.ts) held to a well-kept JWT library, jose,
 * by properties over many generated cases: what ours issues jose verifies with the same claims; what jose signs
 * with the same key and claims ours verifies; and on any token changed by one character, or signed with another
 * header, ours never accepts what jose refuses (ours is stricter by design: one exact header, every claim).
 */
import { createHmac } from 'node:crypto';
import { CONSUMER_KEY } from '@lectern/core';
import fc from 'fast-check';
import { jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { AnnotationTokens, annotationTokenKey } from '../../src/services/annotation-tokens.ts';

const SECRET = 'a server secret of the test, long enough';
const KEY = annotationTokenKey(SECRET);
const TTL = 600;
const START = Date.parse('2026-11-28T12:00:00Z');

/** jose's verdict on a token at `now`: its payload, or null. */
async function joseVerifies(token: string, now: Date): Promise<Record<string, unknown> | null> {
  try {
    const { payload } = await jwtVerify(token, KEY, { algorithms: ['HS256'], currentDate: now });
    return payload;
  } catch {
    return null;
  }
}

const ids = fc.string({ minLength: 1, maxLength: 60 });
/** seconds after START at which the token is issued, and how long after that it is checked */
const issuedAt = fc.integer({ min: 0, max: 10 * 365 * 24 * 3600 });
const checkedAfter = fc.integer({ min: 0, max: TTL - 1 });

describe('the Annotator token against jose', () => {
  it('issues tokens jose verifies, with the same claims', async () => {
    await fc.assert(
      fc.asyncProperty(ids, ids, issuedAt, checkedAfter, async (userId, sid, at, after) => {
        let now = new Date(START + at * 1000);
        const tokens = new AnnotationTokens(SECRET, TTL, () => now);
        const token = tokens.issue(userId, sid);
        now = new Date(now.getTime() + after * 1000);
        const payload = await joseVerifies(token, now);
        expect(payload).toMatchObject({ consumerKey: CONSUMER_KEY, userId, sid, ttl: TTL });
        expect(tokens.verify(token)).toEqual({ userId, sessionPublicId: sid });
      }),
      { numRuns: 200 },
    );
  });

  it('verifies what jose signs with the same key and claims', async () => {
    await fc.assert(
      fc.asyncProperty(ids, ids, issuedAt, checkedAfter, async (userId, sid, at, after) => {
        const issued = new Date(START + at * 1000);
        const iat = Math.floor(issued.getTime() / 1000);
        const token = await new SignJWT({ consumerKey: CONSUMER_KEY, userId, issuedAt: issued.toISOString(), ttl: TTL, sid })
          .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
          .setIssuedAt(iat)
          .setExpirationTime(iat + TTL)
          .sign(KEY);
        const tokens = new AnnotationTokens(SECRET, TTL, () => new Date(issued.getTime() + after * 1000));
        expect(tokens.verify(token)).toEqual({ userId, sessionPublicId: sid });
      }),
      { numRuns: 200 },
    );
  });

  it('never accepts what jose refuses: a token changed in one character, or signed under another header', async () => {
    const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const header = fc.constantFrom<Record<string, unknown>>(
      { alg: 'HS256', typ: 'JWT' },
      { alg: 'HS256' },
      { alg: 'HS256', typ: 'JWT', kid: 'another key' },
      { alg: 'HS384', typ: 'JWT' },
      { alg: 'HS512', typ: 'JWT' },
    );
    await fc.assert(
      fc.asyncProperty(ids, issuedAt, header, fc.nat(), fc.constantFrom(...B64URL), async (userId, at, head, where, char) => {
        const now = new Date(START + at * 1000);
        const tokens = new AnnotationTokens(SECRET, TTL, () => now);
        const iat = Math.floor(now.getTime() / 1000);
        const signed =
          head.alg === 'HS256' && head.typ === 'JWT' && Object.keys(head).length === 2
            ? tokens.issue(userId, 'session')
            : await new SignJWT({ consumerKey: CONSUMER_KEY, userId, issuedAt: now.toISOString(), ttl: TTL, sid: 'session' })
                .setProtectedHeader(head as { alg: string })
                .setIssuedAt(iat)
                .setExpirationTime(iat + TTL)
                .sign(KEY);
        const i = where % signed.length;
        const changed = signed[i] === '.' ? signed : signed.slice(0, i) + char + signed.slice(i + 1);
        for (const token of [signed, changed]) {
          if (tokens.verify(token) !== null) expect(await joseVerifies(token, now)).not.toBeNull();
        }
        // and the only header ours takes is its own
        if (head.alg !== 'HS256' || Object.keys(head).some((k) => k !== 'alg' && k !== 'typ')) expect(tokens.verify(signed)).toBeNull();
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a header that names another algorithm or key, even under a good HS256 MAC (jose, the algorithms)', async () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const header = fc.constantFrom<Record<string, unknown>>(
      { alg: 'none', typ: 'JWT' },
      { alg: 'HS512', typ: 'JWT' },
      { alg: 'RS256', typ: 'JWT' },
      { alg: 'hs256', typ: 'JWT' },
      { alg: 'HS256', typ: 'JWT', jku: 'https://evil.example/keys' },
      { alg: 'HS256', typ: 'JWT', crit: ['exp'] },
      { typ: 'JWT' },
    );
    await fc.assert(
      fc.asyncProperty(ids, issuedAt, header, async (userId, at, head) => {
        const now = new Date(START + at * 1000);
        const iat = Math.floor(now.getTime() / 1000);
        const claims = { consumerKey: CONSUMER_KEY, userId, issuedAt: now.toISOString(), ttl: TTL, iat, exp: iat + TTL, sid: 'session' };
        const input = `${b64(head)}.${b64(claims)}`;
        const token = `${input}.${createHmac('sha256', KEY).update(input).digest('base64url')}`;
        expect(new AnnotationTokens(SECRET, TTL, () => now).verify(token)).toBeNull();
        // jose reads no key from a header either, but does not refuse one that names it; another algorithm it does
        if (head.alg !== 'HS256') expect(await joseVerifies(token, now)).toBeNull();
      }),
      { numRuns: 100 },
    );
  });

  it('refuses a token once its time is over, as jose does', async () => {
    await fc.assert(
      fc.asyncProperty(ids, issuedAt, fc.integer({ min: TTL, max: 10 * TTL }), async (userId, at, after) => {
        const issued = new Date(START + at * 1000);
        const token = new AnnotationTokens(SECRET, TTL, () => issued).issue(userId, 'session');
        const later = new Date(issued.getTime() + after * 1000);
        expect(new AnnotationTokens(SECRET, TTL, () => later).verify(token)).toBeNull();
        expect(await joseVerifies(token, later)).toBeNull();
      }),
      { numRuns: 100 },
    );
  });
});
