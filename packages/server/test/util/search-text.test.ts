/**
 * The typed prefix (docs/decisions.md "Search pages to its end; the typed prefix; a visitor's passages"): the last word
 * of a search box's query is the beginning of a word, from three letters on, on both engines' syntax, and never lets
 * engine syntax through.
 */
import { describe, expect, it } from 'vitest';
import { cueSecondOf, parseQuery, passagesOf, snippetOf, toFts5, toTsquery } from '../../src/util/search-text.ts';

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

describe('cueSecondOf: the second a transcript passage has its words said', () => {
  // 100 cues of 7 words, each starting at 3 × its index seconds: the chapter's passages are 120-word windows across them
  const cues = Array.from({ length: 100 }, (_, i) => `<p data-start="${(i * 3).toFixed(3)}">cue ${i} says ${i === 57 ? 'lighthouse' : 'nothing'} much here now</p>`);
  const content = cues.join('\n');
  const passages = passagesOf(content);

  it('finds the cue of the matched word in a passage after the first', () => {
    const no = passages.findIndex((p) => p.includes('lighthouse'));
    expect(no).toBeGreaterThan(0);
    expect(cueSecondOf(content, no, passages[no]!, parseQuery('lighthouse'))).toBe(171);
  });

  it("falls back to the passage's first cue when no word is marked, and is null without cues", () => {
    // passage 2 starts at word 240: cue 34 (7 words a cue)
    expect(cueSecondOf(content, 2, passages[2]!, parseQuery('zzqxj'))).toBe(102);
    expect(cueSecondOf('<p>no cues</p>', 0, 'no cues', parseQuery('cues'))).toBeNull();
  });
});

describe('snippetOf: escaped text with only <mark> as markup', () => {
  it('escapes & < > and " as named entities and leaves an apostrophe, as the API has always answered', () => {
    expect(snippetOf(`Ahab's "whale" & <b>sea</b> > land`, parseQuery('whale'))).toBe(`Ahab's <mark>&quot;whale&quot;</mark> &amp; &lt;b&gt;sea&lt;/b&gt; &gt; land`);
  });
});
