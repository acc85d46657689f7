import { describe, expect, it } from 'vitest';
import { authorSortKey, formatReadingTime, titleSortKey, workKey } from '../src/index.ts';
import { bookListQuerySchema } from '../src/schemas.ts';

describe('catalog rules', () => {
  it('sorts titles ignoring case, accents and a leading The, A or An', () => {
    const titles = ['the War of the Worlds', 'Moby-Dick', "Alice's Adventures in Wonderland", 'An Émigré', 'a Zebra', 'debian Policy', 'The'];
    expect([...titles].sort((a, b) => titleSortKey(a).localeCompare(titleSortKey(b)))).toEqual([
      "Alice's Adventures in Wonderland",
      'debian Policy',
      'An Émigré',
      'Moby-Dick',
      'The',
      'the War of the Worlds',
      'a Zebra',
    ]);
    expect(titleSortKey('Another Story')).toBe('another story');
  });

  it('recognises one work across formats by title and first author', () => {
    expect(workKey('Guide for Debian Maintainers', ['Osamu Aoki'])).toBe(workKey('guide for debian maintainers.', ['Osamu  Aoki', 'Helge Kreutzmann']));
    expect(workKey('The Guide', ['A'])).toBe(workKey('Guide', ['a']));
    expect(workKey('Guide', ['A'])).not.toBe(workKey('Guide', ['B']));
    expect(authorSortKey([])).toBe('');
  });

  it('shows reading times as minutes, or hours and minutes', () => {
    expect(formatReadingTime(22.4)).toBe('22 min');
    expect(formatReadingTime(13 * 60 + 14.2)).toBe('13 h 14 min');
    expect(formatReadingTime(120)).toBe('2 h');
    expect(formatReadingTime(59.6)).toBe('1 h');
    expect(formatReadingTime(0.2)).toBe('1 min');
    expect(formatReadingTime(Number.NaN)).toBe('1 min');
  });

  it('parses the catalog list query: sort and format, with the bad parameter named', () => {
    expect(bookListQuerySchema.parse({})).toMatchObject({ sort: 'title', page: 1 });
    expect(bookListQuerySchema.parse({ sort: 'recent', format: 'document' })).toMatchObject({ sort: 'recent', format: 'document' });
    const bad = bookListQuerySchema.safeParse({ sort: 'price' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['sort']);
    expect(bookListQuerySchema.safeParse({ format: 'scroll' }).error?.issues[0]?.path).toEqual(['format']);
  });
});
