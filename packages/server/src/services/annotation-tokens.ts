/**
 * The Annotator auth token (reader.md §3, §4, §7): a JSON Web Token signed with HMAC-SHA256 under a key derived
 * from the server secret (never the secret itself, so a token can never be used to attack the session or CSRF
 * MACs). Claims: consumerKey, userId (the account's uuid), issuedAt (ISO-8601) and ttl (seconds), as Annotator
 * clients read them, plus `iat`/`exp` for generic JWT tools and `sid`, the public id of the session it was issued
 * in (signing out ends the session's tokens).
 *
 * Verification is written out rather than taken from a library so that every rule is visible (and held to jose, a
 * well-kept JWT library, by the properties of test/services/annotation-tokens.test.ts): an exact header
 * (alg HS256 and nothing but typ beside it: no `none`, no HS512, no RS256 with the HMAC key as a "public key", no
 * kid/jku/jwk to pick another key), a constant-time comparison of the MAC, every claim present and well-typed, the
 * consumer ours, and time left by both issuedAt + ttl and exp.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AUTH_TOKEN_TTL_SECONDS, authTokenClaimsSchema, CONSUMER_KEY } from '@lectern/core';

export interface TokenIdentity {
  userId: string;
  sessionPublicId: string;
}

/** A clock running this far ahead on another server process still has its tokens accepted. */
const CLOCK_SKEW_MS = 60_000;
const MAX_TOKEN_LENGTH = 4_096;
const B64URL = /^[A-Za-z0-9_-]+$/;
const HEADER = { alg: 'HS256', typ: 'JWT' } as const;

const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64url');

function parseJson(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The token's signing key: derived from the server secret, so a token can never be used against the secret's other
 * MACs.
 */
export function annotationTokenKey(secret: string): Buffer {
  return createHmac('sha256', secret).update('annotator-auth-token-key').digest();
}

export class AnnotationTokens {
  private readonly key: Buffer;

  constructor(
    secret: string,
    private readonly ttlSeconds: number = AUTH_TOKEN_TTL_SECONDS,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.key = annotationTokenKey(secret);
  }

  private mac(signingInput: string): Buffer {
    return createHmac('sha256', this.key).update(signingInput).digest();
  }

  issue(userId: string, sessionPublicId: string): string {
    const now = this.now();
    const iat = Math.floor(now.getTime() / 1000);
    const claims = {
      consumerKey: CONSUMER_KEY,
      userId,
      issuedAt: now.toISOString(),
      ttl: this.ttlSeconds,
      iat,
      exp: iat + this.ttlSeconds,
      sid: sessionPublicId,
    };
    const signingInput = `${b64(JSON.stringify(HEADER))}.${b64(JSON.stringify(claims))}`;
    return `${signingInput}.${b64(this.mac(signingInput))}`;
  }

  /** The identity a token proves, or null when it is malformed, forged, of another algorithm or expired. */
  verify(token: string): TokenIdentity | null {
    if (token.length > MAX_TOKEN_LENGTH) return null;
    const parts = token.split('.');
    if (parts.length !== 3 || !parts.every((p) => B64URL.test(p))) return null;
    const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];

    const header = parseJson(headerPart);
    if (!header || typeof header !== 'object' || Array.isArray(header)) return null;
    const keys = Object.keys(header);
    if ((header as { alg?: unknown }).alg !== HEADER.alg) return null;
    if (!keys.every((k) => k === 'alg' || (k === 'typ' && (header as { typ?: unknown }).typ === HEADER.typ))) return null;

    const expected = this.mac(`${headerPart}.${payloadPart}`);
    const given = Buffer.from(signaturePart, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;

    const payload = parseJson(payloadPart);
    const claims = authTokenClaimsSchema.safeParse(payload);
    if (!claims.success || claims.data.consumerKey !== CONSUMER_KEY) return null;
    const extra = payload as { exp?: unknown; sid?: unknown };
    if (typeof extra.sid !== 'string' || extra.sid.length === 0 || extra.sid.length > 200) return null;
    const nowMs = this.now().getTime();
    const issuedMs = Date.parse(claims.data.issuedAt);
    if (issuedMs > nowMs + CLOCK_SKEW_MS) return null;
    if (claims.data.ttl > this.ttlSeconds || issuedMs + claims.data.ttl * 1000 <= nowMs) return null;
    if (typeof extra.exp !== 'number' || extra.exp * 1000 <= nowMs) return null;
    return { userId: claims.data.userId, sessionPublicId: extra.sid };
  }
}
