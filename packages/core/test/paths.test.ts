import { describe, expect, it } from 'vitest';
import { firstScreenImages, firstScreenRequests, firstScreenTitles, normalizeContentUri, paths } from '../src/index.ts';

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

describe('firstScreenRequests', () => {
  /** A page's query as firstScreenRequests reads it (URLSearchParams in the server and the browser). */
  const query = (pairs: [string, string][] = []) => ({
    get: (name: string) => pairs.find(([k]) => k === name)?.[1] ?? null,
    getAll: (name: string) => pairs.filter(([k]) => k === name).map(([, v]) => v),
    keys: () => pairs.map(([k]) => k),
  });

  it("names each measured screen's first answers, as the client asks for them", () => {
    expect(firstScreenRequests('/home/', query())).toEqual(['/api/v2/home/', '/api/v1/home/modules/']);
    expect(firstScreenRequests('/library/', query())).toEqual(['/api/v1/book/?page=1&page_size=24']);
    expect(firstScreenRequests('/c/collection/a%20b/', query())).toEqual(['/nest/api/api/v2/collections/?content=none', '/nest/api/api/v2/collections/a%20b/', '/api/v1/queue-simple/']);
    expect(firstScreenRequests('/search/', query([['q', "moby dick's (1851)!"]]))).toEqual(['/api/v2/search/?q=moby+dick%27s+%281851%29%21&page=1&sort=relevance']);
  });

  it('names nothing for a screen opened otherwise, or an address the app would not make', () => {
    expect(firstScreenRequests('/library/', query([['sort', 'recent']]))).toEqual([]);
    expect(firstScreenRequests('/search/', query([['q', 'whale'], ['page', '2']]))).toEqual([]);
    expect(firstScreenRequests('/search/', query([['q', 'a'], ['q', 'b']]))).toEqual([]);
    expect(firstScreenRequests('/search/', query())).toEqual([]);
    expect(firstScreenRequests('/c/collection/%E0%A4%A/', query())).toEqual([]);
    for (const p of ['/', '/u', '/c/', '/library/view/x/y/z.xhtml', '/topics/python/']) expect(firstScreenRequests(p, query()), p).toEqual([]);
  });

  it("names the catalog's first card's cover, as the card asks for it, and nothing else", () => {
    const list = '/api/v1/book/?page=1&page_size=24';
    expect(firstScreenImages({ [list]: { results: [{ cover_image_url: '/api/v1/book/b1/cover' }, { cover_image_url: '/api/v1/book/b2/cover' }] } })).toEqual([
      '/api/v1/book/b1/cover?h=360',
    ]);
    expect(firstScreenImages({ [list]: { results: [{ cover_image_url: null }] } })).toEqual([]);
    expect(firstScreenImages({ [list]: { results: [] } })).toEqual([]);
    expect(firstScreenImages({ [list]: { results: [{ cover_image_url: 'https://elsewhere.example/c.png' }] } })).toEqual([]);
    expect(firstScreenImages({ '/api/v2/home/': { results: [{ cover_image_url: '/api/v1/book/b1/cover' }] } })).toEqual([]);
  });

  it("names a playlist's first item for its cover to be looked up, and that cover once it is known", () => {
    const light = '/nest/api/api/v2/collections/?content=none';
    const mine = '/nest/api/api/v2/collections/p%201/';
    const answers = { [light]: { results: [] }, [mine]: { content: [{ api_url: '/api/v1/book/b2/' }, { api_url: '/api/v1/book/b1/' }] } };
    expect(firstScreenTitles(answers)).toEqual(['/api/v1/book/b2/']);
    const metadata = [
      { api_url: '/api/v1/book/b1/', cover_image_url: '/api/v1/book/b1/cover' },
      { api_url: '/api/v1/book/b2/', cover_image_url: '/api/v1/book/b2/cover' },
    ];
    expect(firstScreenImages(answers, metadata)).toEqual(['/api/v1/book/b2/cover?h=360']);
    expect(firstScreenImages(answers)).toEqual([]);
    expect(firstScreenTitles({ [mine]: { content: [] } })).toEqual([]);
    expect(firstScreenTitles({ [light]: { content: [{ api_url: '/api/v1/book/b2/' }] } })).toEqual([]);
  });
});
