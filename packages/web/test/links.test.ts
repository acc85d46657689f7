import { describe, expect, it } from 'vitest';
import { appPaths, safeNextPath } from '../src/app/links.ts';
import { buildChapterDocument, CHAPTER_CSP } from '../src/features/reader/chapterDocument.ts';

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

describe('buildChapterDocument', () => {
  it('wraps the chapter with base target, CSP, its stylesheets and the reading stylesheet', () => {
    const html = buildChapterDocument({
      label: 'Chapter <1>',
      stylesheets: ['/api/v1/book/b1/files/style.css?a=1&b="2"'],
      content: '<h2>Down the Rabbit-Hole</h2><p>Alice was beginning…</p>',
    });
    const doc = new DOMParser().parseFromString(html, 'text/html');
    expect(doc.querySelector('base')?.getAttribute('target')).toBe('_top');
    expect(doc.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content')).toBe(CHAPTER_CSP);
    expect(CHAPTER_CSP).toContain("default-src 'none'");
    expect(doc.querySelector('link[rel=stylesheet]')?.getAttribute('href')).toBe('/api/v1/book/b1/files/style.css?a=1&b="2"');
    expect(doc.title).toBe('Chapter <1>');
    expect(doc.querySelector('style')?.textContent).toContain('Georgia');
    expect(doc.body.querySelector('h2')?.textContent).toBe('Down the Rabbit-Hole');
    // the book's stylesheets come before ours, so ours wins ties
    const order = Array.from(doc.head.children).map((el) => el.tagName);
    expect(order.indexOf('LINK')).toBeLessThan(order.indexOf('STYLE'));
  });
});
