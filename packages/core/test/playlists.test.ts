import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  dropdownLayout,
  filterByTopic,
  isMetadataExpired,
  itemCountLine,
  nextPageSize,
  normalizeContentUri,
  pageOf,
  PLAYLIST_MESSAGES,
  type PlaylistLike,
  reducePlaylists,
  sortPlaylists,
  topicBar,
  urlsToRequest,
  validatePlaylist,
  withTryAgain,
  PLAYLIST_ACTION_ERRORS,
} from '../src/index.ts';

const pl = (id: string, name: string, extra: Partial<PlaylistLike> = {}): PlaylistLike => ({ id, name, description: '', is_default: false, content: [], ...extra });
const item = (api_url: string, ...topics: string[]) => ({ api_url, metadata: { topics: topics.map((slug) => ({ slug, name: slug.toUpperCase() })) } });

describe('playlist validation (spec §5)', () => {
  const others = [pl('1', 'Reading'), pl('2', 'Later')];
  it('names the empty, long and duplicate cases with the spec wording', () => {
    expect(validatePlaylist({ name: '  ' }, others)).toEqual({ name: PLAYLIST_MESSAGES.nameEmpty });
    expect(validatePlaylist({ name: 'x'.repeat(66) }, others)).toEqual({ name: 'Playlists are limited to 65 characters' });
    // the edit form's wording, when a playlist is being edited
    expect(validatePlaylist({ name: 'x'.repeat(66) }, others, 'p1')).toEqual({ name: 'Playlist names are limited to 65 characters' });
    expect(validatePlaylist({ name: 'x'.repeat(65) }, others)).toEqual({});
    expect(validatePlaylist({ name: 'reading' }, others)).toEqual({ name: "Oops! You've already used this name." });
    expect(validatePlaylist({ name: 'READING' }, others, '1')).toEqual({});
    expect(validatePlaylist({ name: 'ok', description: 'd'.repeat(161) }, others)).toEqual({ description: 'Playlist descriptions are limited to 160 characters' });
    expect(validatePlaylist({ name: 'ok', description: 'd'.repeat(160) }, others)).toEqual({});
  });
  it('writes the error catalogue sentences', () => {
    expect(withTryAgain(PLAYLIST_ACTION_ERRORS.create)).toBe('There was a problem creating your playlist. Please try again soon.');
    expect(withTryAgain(PLAYLIST_ACTION_ERRORS.removeFromQueue)).toBe('There was a problem removing content from your queue. Please try again soon.');
    expect(itemCountLine(3, 'Queue')).toBe('3 items in Queue');
    expect(itemCountLine(1, 'Go')).toBe('1 item in Go');
    expect(itemCountLine(0, 'Go')).toBe('0 items in Go');
  });
});

describe('playlist list order and transitions (spec §4)', () => {
  it('shows the default first, then by name ignoring case, dropping playlists not owned', () => {
    const sorted = sortPlaylists([pl('a', 'beta'), pl('b', 'Alpha'), pl('q', 'zzz', { is_default: true }), pl('x', 'aardvark', { is_owned: false })]);
    expect(sorted.map((p) => p.name)).toEqual(['zzz', 'Alpha', 'beta']);
  });

  it('is a total order whatever the input order', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ name: fc.string(), is_default: fc.boolean() }), { maxLength: 20 }), (rows) => {
        const list = rows.map((r, i) => pl(String(i), r.name, { is_default: r.is_default }));
        const a = sortPlaylists(list).map((p) => p.id);
        const b = sortPlaylists([...list].reverse()).map((p) => p.id);
        expect(a.map((id) => list[Number(id)]!.name.toLowerCase())).toEqual(b.map((id) => list[Number(id)]!.name.toLowerCase()));
        const firstNonDefault = sortPlaylists(list).findIndex((p) => !p.is_default);
        if (firstNonDefault > 0) expect(sortPlaylists(list).slice(0, firstNonDefault).every((p) => p.is_default)).toBe(true);
      }),
    );
  });

  it('moves the touched playlist to the front; added items go to the front; removal is by address', () => {
    let state = [pl('a', 'A'), pl('b', 'B', { content: [item('/x/')] })];
    state = reducePlaylists(state, { type: 'created', playlist: pl('c', 'C') });
    expect(state.map((p) => p.id)).toEqual(['c', 'a', 'b']);
    state = reducePlaylists(state, { type: 'contentAdded', id: 'b', items: [item('/y/'), item('/x/')] });
    expect(state.map((p) => p.id)).toEqual(['b', 'c', 'a']);
    expect(state[0]!.content.map((i) => i.api_url)).toEqual(['/y/', '/x/']);
    state = reducePlaylists(state, { type: 'reordered', id: 'b', apiUrls: ['/x/', '/y/'] });
    expect(state[0]!.content.map((i) => i.api_url)).toEqual(['/x/', '/y/']);
    // adding what is there keeps the reader's order; a new item goes in front
    state = reducePlaylists(state, { type: 'contentAdded', id: 'b', items: [item('/y/'), item('/z/')] });
    expect(state[0]!.content.map((i) => i.api_url)).toEqual(['/z/', '/x/', '/y/']);
    state = reducePlaylists(state, { type: 'contentRemoved', id: 'b', apiUrls: ['/z/'] });
    state = reducePlaylists(state, { type: 'updated', playlist: pl('a', 'A2') });
    expect(state.map((p) => `${p.id}:${p.name}`)).toEqual(['a:A2', 'b:B', 'c:C']);
    state = reducePlaylists(state, { type: 'contentRemoved', id: 'b', apiUrls: ['/x/'] });
    expect(state[0]!.content.map((i) => i.api_url)).toEqual(['/y/']);
    state = reducePlaylists(state, { type: 'deleted', id: 'c' });
    expect(state.map((p) => p.id)).toEqual(['b', 'a']);
  });
});

describe('topics and paging', () => {
  const items = [item('/1/', 'go', 'web'), item('/2/', 'go'), item('/3/', 'rust'), item('/4/', 'c'), item('/5/', 'zig'), item('/6/', 'ada'), item('/7/', 'go', 'web')];
  it('ranks by item count then name, shows 5 after All, and offers more when there are more', () => {
    const bar = topicBar(items, 'web');
    expect(bar.shown.map((t) => t.slug)).toEqual(['all', 'go', 'web', 'ADA'.toLowerCase(), 'c', 'rust']);
    expect(bar.shown[0]).toEqual({ name: 'All', slug: 'all', count: 7 });
    expect(bar.hasMore).toBe(true);
    expect(bar.selected).toBe('web');
    expect(topicBar(items, 'zig').selected).toBe('all');
    expect(topicBar(items, 'zig', true).selected).toBe('zig');
    expect(topicBar(items.slice(0, 2), null).hasMore).toBe(false);
  });

  it('filters by topic and pages 10 at a time', () => {
    expect(filterByTopic(items, 'go').map((i) => i.api_url)).toEqual(['/1/', '/2/', '/7/']);
    expect(filterByTopic(items, 'all')).toHaveLength(7);
    const many = Array.from({ length: 23 }, (_, i) => i);
    expect(pageOf(many, 10)).toEqual({ items: many.slice(0, 10), hasMore: true });
    expect(nextPageSize(10)).toBe(20);
    expect(pageOf(many, 30)).toEqual({ items: many, hasMore: false });
  });

  it('requests metadata only for items neither fetched nor requested, and expires it after 30 days', () => {
    expect(urlsToRequest(['/a/', '/b/', '/c/', '/a/'], new Set(['/b/']), new Set(['/c/']))).toEqual(['/a/']);
    expect(urlsToRequest(['/a/'], { '/a/': {} }, new Set())).toEqual([]);
    expect(isMetadataExpired(0, 2_592_000_000)).toBe(false);
    expect(isMetadataExpired(0, 2_592_000_001)).toBe(true);
  });
});

describe('the title card dropdown (spec §9)', () => {
  it('lists holders first, at most 3, with the add-to-another and add-to-new indices', () => {
    const lists = [pl('a', 'A'), pl('b', 'B', { content: [item('/t/')] }), pl('c', 'C'), pl('d', 'D', { content: [item('/t/')] })];
    const layout = dropdownLayout(lists, '/t/');
    expect(layout.shown.map((s) => [s.playlist.id, s.contains])).toEqual([['b', true], ['d', true], ['a', false]]);
    expect(layout.addToAnotherIndex).toBe(4);
    expect(layout.addToNewIndex).toBe(5);
    expect(dropdownLayout(lists.slice(0, 3), '/t/')).toMatchObject({ addToAnotherIndex: null, addToNewIndex: 5 });
    expect(dropdownLayout(lists.slice(0, 2), '/t/')).toMatchObject({ addToAnotherIndex: null, addToNewIndex: 3 });
    expect(dropdownLayout([], '/t/').addToNewIndex).toBe(1);
  });
});

describe('content addresses', () => {
  it('normalises the accepted spellings and refuses the rest', () => {
    expect(normalizeContentUri('/api/v1/book/978123/')?.apiUrl).toBe('/api/v1/book/978123/');
    expect(normalizeContentUri('https://lectern.example/api/v1/book/978123')?.apiUrl).toBe('/api/v1/book/978123/');
    expect(normalizeContentUri('/nest/api/api/v1/book/abc/?x=1')?.apiUrl).toBe('/api/v1/book/abc/');
    expect(normalizeContentUri('api/v1/book/abc/chapter/ch1.html')?.apiUrl).toBe('/api/v1/book/abc/chapter/ch1.html');
    expect(normalizeContentUri('/api/v1/book/abc/chapter/OEBPS/ch%201.xhtml')).toEqual({
      apiUrl: '/api/v1/book/abc/chapter/OEBPS/ch%201.xhtml',
      bookId: 'abc',
      chapterPath: 'OEBPS/ch 1.xhtml',
    });
    for (const bad of ['', '/api/v1/books/x/', 'javascript:alert(1)', '/api/v1/book/../x/', '/api/v1/book/../', '/api/v1/book/a b/']) expect(normalizeContentUri(bad)).toBeNull();
  });
});
