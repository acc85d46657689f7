/**
 * One fold (core/text-fold.ts): the server's search index and queries (foldText), the reader's marks in a chapter
 * (foldWithOffsets) and the stored sort and name keys (catalog.ts nameKey) fold every character the same way, so the
 * reader marks what the server counted and a name sorts and is suggested by the letters it is found by.
 * The table (fold-table.ts) holds the cases the folds of before disagreed on (だ, ﬁ, ｶﾞ) and their neighbours.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nameKey } from '../src/catalog.ts';
import { foldText, foldWithOffsets } from '../src/text-fold.ts';
import { FOLD_TABLE } from './fold-table.ts';

describe('foldText, foldWithOffsets and nameKey', () => {
  it.each(FOLD_TABLE)('fold %j to %j, both of them, and key it %j', (input, folded, key) => {
    expect(foldText(input)).toBe(folded);
    expect(foldWithOffsets(input).text).toBe(folded);
    expect(nameKey(input)).toBe(key);
  });

  it('say where each folded part came from', () => {
    const text = 'A ﬁne Café, ｶﾞラス.';
    const folded = foldWithOffsets(text);
    expect(folded.text).toBe('a fine cafe, ガラス.');
    const at = (word: string) => {
      const i = folded.text.indexOf(word);
      const { start, end } = folded.original(i, i + word.length);
      return text.slice(start, end);
    };
    expect(at('fine')).toBe('ﬁne');
    expect(at('cafe')).toBe('Café');
    expect(at('ガラス')).toBe('ｶﾞラス');
    // part of a ligature is the whole ligature; an empty range is a place
    expect(at('i')).toBe('ﬁ');
    expect(folded.original(3, 3)).toEqual({ start: 2, end: 2 });
    expect(foldWithOffsets('plain ascii').original(6, 11)).toEqual({ start: 6, end: 11 });
  });

  it('key a name with the letters foldText leaves, whatever the text', () => {
    const alphabet = fc.constantFrom(...'aZé\u0301ßﬁｶﾞﾟだた\u3099か\u309aガ①²ΣΟİ猫 .,-\u00a0・한\ud83d\ude00');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 24 }), (chars) => {
        const text = chars.join('');
        const key = nameKey(text);
        // the same letters in the same order: only what is neither letter, digit nor kept mark becomes one space
        expect(key.replaceAll(' ', '')).toBe(foldText(text).replace(/[^\p{L}\p{N}\p{M}]+/gu, ''));
        expect(key).toBe(key.trim());
        expect(key).not.toContain('  ');
      }),
      { numRuns: 500 },
    );
  });

  it('fold any text alike, whole or character by character', () => {
    const alphabet = fc.constantFrom(...'aZé\u0301ßﬁｶﾞﾟだた\u3099ガ①²ΣΟİ猫 .,\u00a0한\ud83d\ude00');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 24 }), (chars) => {
        const text = chars.join('');
        const folded = foldWithOffsets(text);
        expect(folded.text).toBe(foldText(text));
        // every folded unit maps into the text, in order
        let last = 0;
        for (let i = 0; i < folded.text.length; i++) {
          const { start, end } = folded.original(i, i + 1);
          expect(start).toBeGreaterThanOrEqual(last);
          expect(end).toBeGreaterThan(start);
          expect(end).toBeLessThanOrEqual(text.length);
          last = start;
        }
      }),
      { numRuns: 500 },
    );
  });
});
