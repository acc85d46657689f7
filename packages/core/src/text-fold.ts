/**
 * Text folded for finding: the one rule the server's search index, a reader's query and the reader's marks in a
 * chapter share (docs/decisions.md "Text folding: one rule in core"), so the reader marks the words the server
 * counted and no others. Compatibility forms become their plain letters (ﬁ -> fi, ｶﾞ -> ガ, full-width Ａ -> a,
 * ① -> 1), accents come off (é -> e; ß stays ß), kana keep their voicing marks (だ is not た, as SQLite's tokenizer
 * keeps them too), and everything is lower case.
 */

const ASCII = /^[\x00-\x7f]*$/;
const KANA_VOICING = /[\u3099\u309a]/;
/** marks that do not follow a kana: what comes off when voicing marks are kept */
const MARKS_NOT_ON_KANA = /(?<![\u3040-\u30ff])\p{M}+/gu;
const MARKS = /\p{M}+/gu;

export function foldText(text: string): string {
  // most text is ASCII, which has nothing to decompose (normalising is the costly part)
  if (ASCII.test(text)) return text.toLowerCase();
  const decomposed = text.normalize('NFKD');
  if (!KANA_VOICING.test(decomposed)) return decomposed.replace(MARKS, '').toLowerCase();
  return decomposed.replace(MARKS_NOT_ON_KANA, '').normalize('NFC').toLowerCase();
}

/** Folded text that knows where each of its parts came from in the text it was folded from. */
export interface FoldedText {
  /** foldText of the original */
  text: string;
  /** The original's range [start, end) that the folded range [from, to) came from. */
  original(from: number, to: number): { start: number; end: number };
}

/** A character that belongs to the one before it: a combining mark, or a half-width kana's voicing mark (ﾞ, ﾟ). */
const JOINS = /^[\p{M}\uff9e\uff9f]$/u;
/** Characters whose compatibility form may carry a kana voicing mark: kana, half-width kana, squared words. */
const MAY_CARRY_VOICING = /[\u3099-\u309c\u3040-\u30ff\u32d0-\u33ff\uff65-\uff9f]/;

/**
 * foldText, character by character, keeping where each folded part came from: for the reader, which finds words in
 * the folded text of a chapter and marks them in the chapter itself. A character with its combining marks folds as
 * foldText folds it in the whole text (the same composing, decided for the whole text, and one lower-casing of it all).
 */
export function foldWithOffsets(original: string): FoldedText {
  if (ASCII.test(original)) {
    return { text: original.toLowerCase(), original: (from, to) => ({ start: from, end: Math.max(from, to) }) };
  }
  const compose = MAY_CARRY_VOICING.test(original) && KANA_VOICING.test(original.normalize('NFKD'));
  const parts: string[] = [];
  // per folded code unit, the original character's start and end
  const starts: number[] = [];
  const ends: number[] = [];
  let i = 0;
  while (i < original.length) {
    const code = original.charCodeAt(i);
    let j = i + (code >= 0xd800 && code <= 0xdbff && i + 1 < original.length ? 2 : 1);
    while (j < original.length) {
      const next = original.codePointAt(j)!;
      if (next < 0x300 || !JOINS.test(String.fromCodePoint(next))) break;
      j += next > 0xffff ? 2 : 1;
    }
    let folded: string;
    if (j === i + 1 && code < 128) folded = original[i]!;
    else {
      const decomposed = original.slice(i, j).normalize('NFKD');
      folded = compose ? decomposed.replace(MARKS_NOT_ON_KANA, '').normalize('NFC') : decomposed.replace(MARKS, '');
    }
    parts.push(folded);
    for (let k = 0; k < folded.length; k++) {
      starts.push(i);
      ends.push(j);
    }
    i = j;
  }
  const joined = parts.join('');
  let text = joined.toLowerCase();
  // Lower-casing keeps the length once marks are off (İ, the one letter it lengthens, lost its dot above); should a
  // letter ever lengthen, each part is lower-cased alone, which keeps the offsets true.
  if (text.length !== joined.length) {
    text = parts.map((p) => (p.toLowerCase().length === p.length ? p.toLowerCase() : p)).join('');
  }
  return {
    text,
    original(from, to) {
      const start = from < starts.length ? starts[from]! : original.length;
      if (to <= from) return { start, end: start };
      return { start, end: ends[Math.min(to, ends.length) - 1]! };
    },
  };
}
