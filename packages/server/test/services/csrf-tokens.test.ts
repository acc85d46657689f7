import { describe, expect, it } from 'vitest';
import { CsrfTokens } from '../../src/services/tokens.ts';

describe('CSRF tokens', () => {
  it('holds a token to the session it was issued for, before and after its check is remembered', () => {
    const tokens = new CsrfTokens('a secret of the server');
    const forA = tokens.issue('session-a');
    const anonymous = tokens.issue(null);
    for (let i = 0; i < 2; i++) {
      expect(tokens.verify(forA, 'session-a')).toBe(true);
      expect(tokens.verify(forA, 'session-b')).toBe(false);
      expect(tokens.verify(forA, null)).toBe(false);
      expect(tokens.verify(anonymous, null)).toBe(true);
      expect(tokens.verify(anonymous, 'session-a')).toBe(false);
    }
    expect(tokens.verify(`${forA}x`, 'session-a')).toBe(false);
    expect(new CsrfTokens('another secret').verify(forA, 'session-a')).toBe(false);
  });
});
