import { describe, expect, it } from 'vitest';
import { appPaths, safeNextPath } from '../src/app/links.ts';

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
