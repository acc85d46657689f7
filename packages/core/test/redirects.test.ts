import { describe, expect, it } from 'vitest';
import { hasControlCharacter, safeNextPath } from '../src/index.ts';

const FALLBACK = '/library/';

describe('safeNextPath: where a sign-in may send a person next', () => {
  it('keeps paths on this site, query and fragment included', () => {
    expect(safeNextPath('/library/book/b1/')).toBe('/library/book/b1/');
    expect(safeNextPath('/library/view/a/b1/ch1.xhtml?x=1#p2')).toBe('/library/view/a/b1/ch1.xhtml?x=1#p2');
    expect(safeNextPath('/')).toBe('/');
  });

  it('keeps encoded slashes as a path on this site (a browser resolves it here, not to a host)', () => {
    expect(safeNextPath('/%2F%2Fevil.example/')).toBe('/%2F%2Fevil.example/');
  });

  it('percent-encodes characters outside printable ASCII so a Location header can carry them', () => {
    expect(safeNextPath('/library/book/é 1/')).toBe('/library/book/%C3%A9%201/');
    expect(safeNextPath('/a\ud800')).toBe(FALLBACK); // a lone surrogate cannot be encoded
  });

  it('falls back for anything that could leave the site or split a header', () => {
    const bad: unknown[] = [
      undefined, null, 42, '', 'library/', '//evil.example/', '/\\evil.example', '\\/evil.example', '\\\\evil.example',
      'https://evil.example/', 'https://lectern.test/library/', 'http:/evil.example', 'javascript:alert(1)',
      ' /library/', '/\t/evil.example', '/\n/evil.example', '/a\r\nSet-Cookie: x=1', '/a\u0000b', '/a\u007fb',
      `/${'a'.repeat(2000)}`,
    ];
    for (const next of bad) expect(safeNextPath(next), JSON.stringify(next)).toBe(FALLBACK);
    expect(safeNextPath('//evil.example/', '/elsewhere/')).toBe('/elsewhere/');
  });

  it('names control characters for the server’s 400', () => {
    expect(hasControlCharacter('/a\tb')).toBe(true);
    expect(hasControlCharacter('/a b/é')).toBe(false);
  });
});
