import { describe, expect, it } from 'vitest';
import { jumpPhrases, queryWords, snippetMarkedWords, snippetParts, snippetText, unescapeSnippet, addRecentlyViewed, parseRecentlyViewed, RECENTLY_VIEWED_MAX } from '../src/search.ts';

describe('snippets: escaped text where only <mark> is markup', () => {
  it('splits on the mark tokens and decodes entities, so a book tag stays text', () => {
    const s = '&lt;script&gt;alert(1)&lt;/script&gt; the <mark>whale</mark> &amp; the <mark>sea</mark>&#39;s edge &#x263A;';
    expect(snippetParts(s)).toEqual([
      { text: '<script>alert(1)</script> the ', mark: false },
      { text: 'whale', mark: true },
      { text: ' & the ', mark: false },
      { text: 'sea', mark: true },
      { text: "'s edge \u263a", mark: false },
    ]);
    expect(snippetText('a <mark>b</mark> c')).toBe('a b c');
  });

  it('keeps any other tag as text, runs an unclosed mark to the end and drops a stray close', () => {
    expect(snippetParts('<b>x</b> </mark><mark>y')).toEqual([
      { text: '<b>x</b> ', mark: false },
      { text: 'y', mark: true },
    ]);
    expect(unescapeSnippet('&bogus; &#0; &#xZZ;')).toBe('&bogus; &#0; &#xZZ;');
  });

  it('lists the marked words once', () => {
    expect(snippetMarkedWords('<mark>Whales</mark> and <mark>whales</mark> and <mark>big sea</mark>')).toEqual(['Whales', 'whales', 'big', 'sea']);
  });
});

describe('the jump to a passage (reader.md §4: the first 8 words, then 4)', () => {
  it('takes the first 8 and the first 4 words, without elision marks', () => {
    expect(jumpPhrases('… one two  three four five six seven eight nine ten …')).toEqual([
      'one two three four five six seven eight',
      'one two three four',
    ]);
    expect(jumpPhrases('only three words')).toEqual(['only three words']);
    expect(jumpPhrases('  ')).toEqual([]);
  });
});

describe('the words of a query to mark', () => {
  it('drops query syntax and single letters unless nothing else is left', () => {
    expect(queryWords('"Sea  monster" NEAR( whale* -x : & !')).toEqual(['sea', 'monster', 'near', 'whale']);
    expect(queryWords('x')).toEqual(['x']);
    expect(queryWords('Café crème')).toEqual(['café', 'crème']);
    // one Chinese or Japanese character is a word
    expect(queryWords('猫 a 名前')).toEqual(['猫', '名前']);
  });
});

describe('the recently viewed cookie (library-playlists-account.md §3, §9)', () => {
  it('puts the title viewed now first, once, and keeps at most 10', () => {
    let value = '';
    for (let i = 0; i < 12; i++) value = addRecentlyViewed(value, `book-${i}`, 'title');
    value = addRecentlyViewed(value, 'book-5', 'reader');
    const entries = parseRecentlyViewed(value);
    expect(entries).toHaveLength(RECENTLY_VIEWED_MAX);
    expect(entries[0]).toEqual({ id: 'book-5', extra: 'reader' });
    expect(entries.filter((e) => e.id === 'book-5')).toHaveLength(1);
    expect(entries.map((e) => e.id)).not.toContain('book-0');
  });

  it('keeps ids with colons and bars whole, and drops what it cannot read', () => {
    const value = addRecentlyViewed('', 'urn:isbn:978|x', 'title');
    expect(parseRecentlyViewed(value)).toEqual([{ id: 'urn:isbn:978|x', extra: 'title' }]);
    expect(parseRecentlyViewed('%E0%A4%A:x|:|a:1|a:2|' + 'x'.repeat(300))).toEqual([{ id: 'a', extra: '1' }]);
    expect(parseRecentlyViewed(undefined)).toEqual([]);
  });
});
