/**
 * Capability tokens signed with the server secret (secrets.ts): `payload.mac`, the payload a base64url JSON array,
 * the mac an HMAC-SHA256 of `purpose|payload`, so a token made for one purpose (a scripted frame, a media session)
 * never passes for another. The server keeps no state for them; what a token grants and until when is in its payload.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export class SignedTokens {
  constructor(
    private readonly secret: string,
    private readonly purpose: string,
  ) {}

  /** The HMAC of `payload` under this purpose, base64url. */
  mac(payload: string): string {
    return createHmac('sha256', this.secret).update(`${this.purpose}|${payload}`).digest('base64url');
  }

  seal(values: readonly (string | number)[]): string {
    const payload = Buffer.from(JSON.stringify(values)).toString('base64url');
    return `${payload}.${this.mac(payload)}`;
  }

  /** The values a token carries, or null when it is malformed, too long or not signed by us for this purpose. */
  open(token: string, maxLength = 600): unknown[] | null {
    const [payload, mac, extra] = token.split('.');
    if (!payload || !mac || extra !== undefined || token.length > maxLength) return null;
    const expected = Buffer.from(this.mac(payload));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    try {
      const values: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      return Array.isArray(values) ? values : null;
    } catch {
      return null;
    }
  }
}
