/**
 * The text side of search, the same for both engines: chapter HTML to plain passages, accents folded, a person's
 * query to safe terms (no engine syntax ever passes through), and snippets made here rather than by the engine, so
 * that SQLite and PostgreSQL show the same words marked. Snippets are HTML-escaped text where only <mark> and
 * </mark> are markup (core's search.ts).
 */
import { SNIPPET_MARK_CLOSE, SNIPPET_MARK_OPEN } from '@lectern/core';
import { parseHtml, visibleText } from '../ingest/markup.ts';

/** Words a passage holds: enough context for a hit to have a place, small enough to rank well. */
export const PASSAGE_WORDS = 120;
/** At most this many terms of a query are used (a pasted paragraph still finds its book). */
const MAX_TERMS = 12;
/** Words either side of the first hit in a snippet. */
const SNIPPET_CONTEXT = 14;

const ASCII = /^[\x00-\x7f]*$/;

/** Lower-cased, accents removed (é -> e, ß stays), so "Café" and "cafe" are one word on both engines. */
export function fold(text: string): string {
  // most text is ASCII, which has nothing to decompose (normalising is the costly part)
  if (ASCII.test(text)) return text.toLowerCase();
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
}

const WORD = /[\p{L}\p{N}]+/gu;

/** A chapter's readable text in passages of about PASSAGE_WORDS words (markup, scripts and styles left out). */
export function passagesOf(html: string): string[] {
  const text = visibleText(parseHtml(html).children);
  if (!text) return [];
  const words = text.split(' ');
  const out: string[] = [];
  for (let i = 0; i < words.length; i += PASSAGE_WORDS) out.push(words.slice(i, i + PASSAGE_WORDS).join(' '));
  return out;
}

export interface ParsedQuery {
  /** single words; `prefix` when the person is still typing it (the last word) or wrote `word*` */
  words: { text: string; prefix: boolean }[];
  /** quoted phrases, each two or more words */
  phrases: string[][];
}

/**
 * A person's query as words and phrases of letters and digits only: quotes make a phrase, a trailing `*` (or being
 * the last word) makes a prefix, everything else that is not a letter or digit separates words. `"`, `*`, `NEAR(`,
 * `:`, `&`, `!`, `'` and friends can therefore never reach either engine's query syntax.
 */
export function parseQuery(raw: string, lastWordIsPrefix = false): ParsedQuery {
  const words: ParsedQuery['words'] = [];
  const phrases: string[][] = [];
  const text = fold(raw);
  // Quoted parts first; an unclosed quote is just a quote.
  const quoted = /"([^"]*)"/g;
  let rest = '';
  let last = 0;
  for (let m = quoted.exec(text); m; m = quoted.exec(text)) {
    rest += `${text.slice(last, m.index)} `;
    last = m.index + m[0].length;
    const inside = m[1]!.match(WORD) ?? [];
    if (inside.length > 1) phrases.push(inside.slice(0, MAX_TERMS));
    else if (inside.length === 1) words.push({ text: inside[0]!, prefix: false });
  }
  rest += text.slice(last);
  const tokens = [...rest.matchAll(/([\p{L}\p{N}]+)(\*)?/gu)];
  tokens.forEach((t, i) => words.push({ text: t[1]!, prefix: !!t[2] || (lastWordIsPrefix && i === tokens.length - 1 && !/\s$/.test(raw)) }));
  return { words: words.slice(0, MAX_TERMS), phrases: phrases.slice(0, 3) };
}

export const isEmptyQuery = (q: ParsedQuery) => q.words.length === 0 && q.phrases.length === 0;

/** SQLite FTS5 MATCH text: every term a quoted string (its own quotes doubled), prefixes starred, all required. */
export function toFts5(q: ParsedQuery): string {
  const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
  return [...q.words.map((w) => (w.prefix ? `${quote(w.text)}*` : quote(w.text))), ...q.phrases.map((p) => quote(p.join(' ')))].join(' ');
}

/** PostgreSQL to_tsquery text: terms are letters and digits only, so nothing in it is syntax but what is added here. */
export function toTsquery(q: ParsedQuery): string {
  return [...q.words.map((w) => (w.prefix ? `${w.text}:*` : w.text)), ...q.phrases.map((p) => `(${p.join(' <-> ')})`)].join(' & ');
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A crude stem for marking: "whales" and "whaling" mark for "whale"; what the engines match is what counts. */
const stem = (w: string) => (w.length > 4 ? w.replace(/(ing|ed|es|s|e|ly)$/, '') : w);

/** The words of `q` marked in `body` around the first hit, escaped. Null when no word of the query is in it. */
export function snippetOf(body: string, q: ParsedQuery, context = SNIPPET_CONTEXT): string | null {
  const wanted = [...q.words.map((w) => w.text), ...q.phrases.flat()].map(stem).filter((w) => w.length > 0);
  if (wanted.length === 0) return null;
  const words = body.split(/\s+/).filter(Boolean);
  const hit = (word: string) => {
    const f = fold(word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''));
    return f.length > 0 && wanted.some((w) => f.startsWith(w));
  };
  const first = words.findIndex(hit);
  const start = Math.max(0, (first < 0 ? 0 : first) - context);
  const end = Math.min(words.length, (first < 0 ? 0 : first) + context * 2);
  const out = words.slice(start, end).map((w) => (hit(w) ? `${SNIPPET_MARK_OPEN}${escapeHtml(w)}${SNIPPET_MARK_CLOSE}` : escapeHtml(w)));
  if (first < 0) return null;
  return `${start > 0 ? '… ' : ''}${out.join(' ')}${end < words.length ? ' …' : ''}`;
}

/** A title's own text marked where it matched (title, authors, description), or null. */
export function fieldSnippet(fields: string[], q: ParsedQuery): string | null {
  for (const f of fields) {
    const s = f ? snippetOf(f, q) : null;
    if (s) return s;
  }
  return null;
}

/** A title's own fields in the order they rank: a hit in the title outranks one in its people, and so on. */
const FIELD_TIERS = [
  { field: 'title', tier: 4, typicalWords: 5 },
  { field: 'people', tier: 3, typicalWords: 3 },
  { field: 'subjects', tier: 2, typicalWords: 4 },
  { field: 'description', tier: 1, typicalWords: 40 },
] as const;

/**
 * How well a title's own row answers `q`, the same on both engines: the best field's tier plus a fraction (more
 * hits in fewer words is better, as bm25 has it), so a title hit (4.x) outranks people (3.x), subjects (2.x) and a
 * description (1.x), and each of those outranks a hit in the text alone (below 1). The engine has already decided
 * that the row matches; a row it matched where these crude stems see nothing still counts as a description hit.
 */
export function metadataScore(row: Record<(typeof FIELD_TIERS)[number]['field'], string>, q: ParsedQuery): number {
  const wanted = [...q.words.map((w) => w.text), ...q.phrases.flat()].map(stem).filter((w) => w.length > 0);
  // fields in tier order: the first with a hit decides, as no lower tier can reach it
  for (const { field, tier, typicalWords } of FIELD_TIERS) {
    const text = fold(row[field]);
    // most fields hold none of the query: a substring test says so without splitting them into words
    if (!wanted.some((w) => text.includes(w))) continue;
    const words = text.match(WORD) ?? [];
    const hits = words.filter((w) => wanted.some((s) => w.startsWith(s))).length;
    if (hits > 0) return tier + hits / (hits + 1 + words.length / typicalWords);
  }
  return 1;
}
