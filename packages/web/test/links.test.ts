import { describe, expect, it } from 'vitest';
import { appPaths, cardCoverUrl } from '../src/shared/links.ts';

describe('appPaths', () => {
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
