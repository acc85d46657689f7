/**
 * The typed prefix (issue 21): the last word of a search box's query is the beginning of a word, from three
 * letters on, on both engines' syntax, and never lets engine syntax through.
 */
import { describe, expect, it } from 'vitest';
import { parseQuery, toFts5, toTsquery } from '../../src/services/search-text.ts';

describe('parseQuery with the last word typed', () => {
  it.each([
    ['mart', '"mart"*', 'mart:*'],
    ['war of the mart', '"war" "of" "the" "mart"*', 'war & of & the & mart:*'],
    ['ma', '"ma"', 'ma'],
    ['mart.', '"mart"', 'mart'],
    ['"white rabbit"', '"white rabbit"', '(white <-> rabbit)'],
    ['whale "white rabbit"', '"whale" "white rabbit"', 'whale & (white <-> rabbit)'],
    ['Café', '"cafe"*', 'cafe:*'],
    ['猫である', '"猫 で あ る"', '(猫 <-> で <-> あ <-> る)'],
    ['mart:* & !x', '"mart" "x"', 'mart & x'],
  ])('%j is %s on SQLite and %s on PostgreSQL', (raw, fts5, tsquery) => {
    const q = parseQuery(raw, true);
    expect(toFts5(q)).toBe(fts5);
    expect(toTsquery(q)).toBe(tsquery);
  });

  it('keeps whole words when the query is not being typed (search inside a book)', () => {
    expect(toFts5(parseQuery('mart'))).toBe('"mart"');
    expect(toTsquery(parseQuery('mart'))).toBe('mart');
  });
});
