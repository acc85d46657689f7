import { describe, expect, it } from 'vitest';
import { appPaths, cardCoverUrl, safeNextPath } from '../src/shared/links.ts';

describe('safeNextPath', () => {
  it('keeps same-origin paths', () => {
    expect(safeNextPath('/library/book/b1/')).toBe('/library/book/b1/');
    expect(safeNextPath('/library/view/a/b1/ch1.xhtml?x=1#p2')).toBe('/library/view/a/b1/ch1.xhtml?x=1#p2');
  });
  it('falls back to the library for anything else', () => {
    for (const bad of [null, '', 'library/', '//evil.example/', '/\\evil.example', 'https://evil.example/', 'javascript:alert(1)', '/a\nb']) {
      expect(safeNextPath(bad)).toBe(appPaths.library);
    }
  });
  it('builds the sign-in address with next', () => {
    expect(appPaths.login('/library/book/b 1/?a=1')).toBe('/login/?next=%2Flibrary%2Fbook%2Fb+1%2F%3Fa%3D1');
  });
});

describe('cardCoverUrl', () => {
  it('asks for the 360h variant of a server-given cover address', () => {
    expect(cardCoverUrl('/api/v1/book/b1/cover')).toBe('/api/v1/book/b1/cover?h=360');
    expect(cardCoverUrl('/api/v1/book/b1/cover?v=2')).toBe('/api/v1/book/b1/cover?v=2&h=360');
  });
});
