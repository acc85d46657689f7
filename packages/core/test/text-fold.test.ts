/**
 * One fold for finding (core/text-fold.ts): the server's search index and queries (foldText) and the reader's marks
 * in a chapter (foldWithOffsets) fold every character the same way, so the reader marks what the server counted.
 * The table holds the cases the three folds of before disagreed on (だ, ﬁ, ｶﾞ) and their neighbours.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldText, foldWithOffsets } from '../src/text-fold.ts';

const TABLE: [string, string][] = [
  ['Call me Ishmael', 'call me ishmael'],
  ['Café', 'cafe'],
  ['cafe\u0301', 'cafe'],
  ['ÀÉÎÕÜ', 'aeiou'],
  ['Straße', 'straße'],
  ['ＡＢＣ１２３', 'abc123'],
  ['ﬁsh', 'fish'],
  ['Ǆ', 'dz'],
  ['x²', 'x2'],
  ['①', '1'],
  ['İstanbul', 'istanbul'],
  ['ΟΔΟΣ', 'οδος'],
  ['だ', 'だ'],
  ['た\u3099', 'だ'],
  ['ｶﾞ', 'ガ'],
  ['ﾊﾟﾝ', 'パン'],
  ['ガラス', 'ガラス'],
  ['吾輩は猫である', '吾輩は猫である'],
  ['', ''],
];

describe('foldText and foldWithOffsets', () => {
  it.each(TABLE)('fold %j to %j, both of them', (input, folded) => {
    expect(foldText(input)).toBe(folded);
    expect(foldWithOffsets(input).text).toBe(folded);
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
