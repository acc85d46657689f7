import { describe, expect, it } from 'vitest';
import { normalizeContentUri, paths } from '../src/index.ts';

describe('content addresses (one home: core/paths.ts)', () => {
  it('builds the title, chapter, prefix and chapter-progress addresses, encoding each segment', () => {
    expect(paths.bookList()).toBe('/api/v1/book/');
    expect(paths.bookApi('9781')).toBe('/api/v1/book/9781/');
    expect(paths.chapterApi('9781', 'OEBPS/ch 1.xhtml')).toBe('/api/v1/book/9781/chapter/OEBPS/ch%201.xhtml');
    expect(paths.chapterApiPrefix('9781')).toBe('/api/v1/book/9781/chapter/');
    expect(paths.chapterProgress('a b')).toBe('/api/v1/book/a%20b/chapter-progress/');
  });

  it("writes reader.md §3's slash-less chapter form with the href as stored", () => {
    expect(paths.chapterArchive('9781', 'OEBPS/ch%201.xhtml')).toBe('api/v1/book/9781/chapter/OEBPS/ch%201.xhtml');
  });

  it('normalises every accepted form to the builders’ output', () => {
    expect(normalizeContentUri('api/v1/book/9781/chapter/OEBPS/ch%201.xhtml')?.apiUrl).toBe(
      paths.chapterApi('9781', 'OEBPS/ch 1.xhtml'),
    );
    expect(normalizeContentUri('https://x.test/nest/api/api/v1/book/9781')?.apiUrl).toBe(paths.bookApi('9781'));
  });
});
