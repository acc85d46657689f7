/**
 * The server's one HTML escaper (util/html-escape.ts) in its three forms, to the byte: search snippets, the
 * scripted origin's pages, stored chapters' notes and transcripts depend on their exact output.
 */
import { describe, expect, it } from 'vitest';
import { escapeAttribute, escapeNumeric, escapeText } from '../../src/util/html-escape.ts';

const ALL = `a & b < c > d " e ' f &amp; g`;

describe('html-escape', () => {
  it('escapeText: & < > as named entities, quotes as they are', () => {
    expect(escapeText(ALL)).toBe(`a &amp; b &lt; c &gt; d " e ' f &amp;amp; g`);
  });

  it('escapeAttribute: escapeText and " as &quot;; an apostrophe stays (every attribute written is double-quoted)', () => {
    expect(escapeAttribute(ALL)).toBe(`a &amp; b &lt; c &gt; d &quot; e ' f &amp;amp; g`);
  });

  it('escapeNumeric: & < > " \' as numeric references', () => {
    expect(escapeNumeric(ALL)).toBe('a &#38; b &#60; c &#62; d &#34; e &#39; f &#38;amp; g');
  });

  it('leaves text without those characters as it is (the same string)', () => {
    for (const escape of [escapeText, escapeAttribute, escapeNumeric]) expect(escape('plain text, é 猫 \u00a0')).toBe('plain text, é 猫 \u00a0');
  });
});
