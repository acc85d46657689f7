/** Playlist rules the web app adds to core (library-playlists-account.md §2, §4, §8). */
import { describe, expect, it } from 'vitest';
import {
  contentFormatName,
  createdWithContent,
  duplicateName,
  errorBarVisible,
  itemCountLine,
  itemCountSubject,
  PLAYLIST_TIMINGS,
  searchPlaylists,
  topicBar,
  topicNeedsExpansion,
  validatePlaylist,
} from '../src/index.ts';

const named = (...names: string[]) => names.map((name, i) => ({ id: String(i + 1), name }));

describe('duplicateName', () => {
  it("prefixes 'Copy of '", () => {
    expect(duplicateName('Rust', named('Queue', 'Rust'))).toBe('Copy of Rust');
  });

  it('numbers the copy when that name is taken, ignoring case', () => {
    expect(duplicateName('Rust', named('Rust', 'copy of rust'))).toBe('Copy of Rust (2)');
    expect(duplicateName('Rust', named('Rust', 'Copy of Rust', 'Copy of Rust (2)'))).toBe('Copy of Rust (3)');
  });

  it('stays within the 65-character limit, also with a number', () => {
    const long = 'x'.repeat(65);
    const copy = duplicateName(long, named(long));
    expect(copy).toHaveLength(65);
    expect(copy.startsWith('Copy of xxx')).toBe(true);
    const second = duplicateName(long, named(long, copy));
    expect(second).toHaveLength(65);
    expect(second.endsWith(' (2)')).toBe(true);
    // whatever it returns passes the same validation the server applies
    expect(validatePlaylist({ name: second }, named(long, copy))).toEqual({});
  });
});

describe('searchPlaylists', () => {
  const lists = named('Queue', 'Rust in Action', 'Distributed systems', 'trust');
  it('filters by case-insensitive substring of the name', () => {
    expect(searchPlaylists(lists, 'RUST').map((p) => p.name)).toEqual(['Rust in Action', 'trust']);
    expect(searchPlaylists(lists, '  sys ').map((p) => p.name)).toEqual(['Distributed systems']);
  });
  it('keeps all for an empty query and none for no match', () => {
    expect(searchPlaylists(lists, '')).toHaveLength(4);
    expect(searchPlaylists(lists, 'zzz')).toEqual([]);
  });
});

describe('errorBarVisible', () => {
  it('is true only within 5 s of the timestamp', () => {
    const t = 1_000_000;
    expect(PLAYLIST_TIMINGS.errorBarMs).toBe(5000);
    expect(errorBarVisible(t, t)).toBe(true);
    expect(errorBarVisible(t, t + 4999)).toBe(true);
    expect(errorBarVisible(t, t + 5000)).toBe(false);
    expect(errorBarVisible(t, t - 1)).toBe(false);
  });
});

describe('create success line', () => {
  it('names the content format in lower case', () => {
    expect(createdWithContent(contentFormatName('book'))).toBe('New playlist created with your book. ');
    expect(createdWithContent(contentFormatName('chapter'))).toBe('New playlist created with your book section. ');
    expect(createdWithContent(contentFormatName('learning-path'))).toBe('New playlist created with your video. ');
    expect(createdWithContent(contentFormatName(undefined))).toBe('New playlist created with your book. ');
  });
});

describe('item count line', () => {
  const topic = (slug: string, name: string) => ({ metadata: { topics: [{ slug, name }] } });
  const items = [
    { api_url: '/api/v1/book/a/', ...topic('python', 'Python') },
    { api_url: '/api/v1/book/b/', ...topic('python', 'Python') },
    { api_url: '/api/v1/book/c/', ...topic('go', 'Go') },
  ];
  it('uses the playlist name for All and the topic name otherwise', () => {
    const { shown } = topicBar(items, 'python');
    expect(itemCountLine(3, itemCountSubject('Queue', shown, 'all'))).toBe('3 items in Queue');
    expect(itemCountLine(2, itemCountSubject('Queue', shown, 'python'))).toBe('2 items in Python');
  });
});

describe('topicNeedsExpansion', () => {
  const items = ['a', 'b', 'c', 'd', 'e', 'f'].map((s, i) => ({
    api_url: `/api/v1/book/${s}/`,
    // topic a on 6 items, b on 5, ... f on 1: f ranks sixth
    metadata: { topics: ['a', 'b', 'c', 'd', 'e', 'f'].slice(0, 6 - i).map((t) => ({ slug: t, name: t.toUpperCase() })) },
  }));
  it('is true only for a topic ranked past the first five', () => {
    expect(topicNeedsExpansion(items, 'f')).toBe(true);
    expect(topicNeedsExpansion(items, 'a')).toBe(false);
    expect(topicNeedsExpansion(items, 'all')).toBe(false);
    expect(topicNeedsExpansion(items, 'nope')).toBe(false);
    expect(topicNeedsExpansion(items, null)).toBe(false);
  });
});
