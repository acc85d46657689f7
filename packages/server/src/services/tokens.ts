/**
 * Random tokens and HMACs. The CSRF token is `nonce.mac` where mac = HMAC(secret, "csrf|" + session public id +
 * "|" + nonce): it is bound to the session it was issued for (a token from before sign-in stops working after it),
 * and the server keeps no state for it.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { randomToken } from '../util/random.ts';

export const sha256 = (value: string | Uint8Array) => createHash('sha256').update(value).digest('hex');

export class CsrfTokens {
  /**
   * Tokens already verified, each with the binding it was verified for: an HMAC per unsafe request is measurable on
   * the hot POST routes (keyed by the token alone: a key joining binding and token was a string made per request).
   */
  private readonly verified = new Map<string, string>();

  constructor(private readonly secret: string) {}

  private mac(binding: string, nonce: string): string {
    return createHmac('sha256', this.secret).update(`csrf|${binding}|${nonce}`).digest('base64url');
  }

  issue(sessionPublicId: string | null): string {
    const nonce = randomToken(16);
    return `${nonce}.${this.mac(sessionPublicId ?? 'anonymous', nonce)}`;
  }

  verify(token: string | undefined, sessionPublicId: string | null): boolean {
    if (!token) return false;
    const binding = sessionPublicId ?? 'anonymous';
    if (this.verified.get(token) === binding) return true;
    const ok = this.check(token, sessionPublicId);
    if (ok) {
      if (this.verified.size >= 10_000) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, binding);
    }
    return ok;
  }

  private check(token: string, sessionPublicId: string | null): boolean {
    const [nonce, mac, extra] = token.split('.');
    if (!nonce || !mac || extra !== undefined) return false;
    const expected = Buffer.from(this.mac(sessionPublicId ?? 'anonymous', nonce));
    const given = Buffer.from(mac);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
