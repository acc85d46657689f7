/**
 * The text side of search, the same for both engines: chapter HTML to plain passages, accents folded, a person's
 * query to safe terms (no engine syntax ever passes through), and snippets made here rather than by the engine, so
 * that SQLite and PostgreSQL show the same words marked. Snippets are HTML-escaped text where only <mark> and
 * </mark> are markup (core's search.ts).
 */
import { CJK_CHARACTERS, foldText, hasCjk, SNIPPET_MARK_CLOSE, SNIPPET_MARK_OPEN } from '@lectern/core';
import { attr, findAll, parseHtml, visibleText } from '../ingest/markup.ts';
import { escapeAttribute } from './html-escape.ts';

/** Words a passage holds: enough context for a hit to have a place, small enough to rank well. */
export const PASSAGE_WORDS = 120;
/** At most this many terms of a query are used (a pasted paragraph still finds its book). */
const MAX_TERMS = 12;
/**
 * The shortest last word taken as the beginning of a word (a search box's "mart" finds "Martians"): one or two
 * letters would make every word starting with them a term (`t*`, `t:*`), which costs both engines the whole index.
 */
export const TYPED_PREFIX_MIN = 3;
/** Words either side of the first hit in a snippet. */
const SNIPPET_CONTEXT = 14;

const ASCII = /^[\x00-\x7f]*$/;


const WORD = /[\p{L}\p{N}]+/gu;
/** core's CJK_CHARACTERS as a split pattern: the characters kept as pieces of their own. */
const CJK_CHARACTER = new RegExp(`(${CJK_CHARACTERS.source})`, 'u');
/** Chinese and Japanese characters that count as one word when text is cut into passages and snippets. */
const CJK_CHARACTERS_PER_WORD = 3;

/**
 * Text as both engines' tokenizers must see it: each Chinese or Japanese character a word of its own (spaces
 * around it), as core's CJK_CHARACTERS says. What is stored and shown keeps its own spacing; only the index and
 * the query are spaced.
 */
export function spaceCjk(text: string): string {
  return ASCII.test(text) ? text : text.replace(CJK_CHARACTERS, ' $& ');
}

/**
 * Text as the units a snippet or passage is made of: the words between spaces, and each Chinese or Japanese
 * character alone (`glued`: no space before it when put back together, so the text reads as it was written).
 */
interface TextUnit {
  text: string;
  glued: boolean;
  weight: number;
}
function unitsOf(text: string): TextUnit[] {
  const units: TextUnit[] = [];
  const cjk = hasCjk(text);
  for (const word of text.split(/\s+/)) {
    if (!word) continue;
    if (!cjk || !hasCjk(word)) {
      units.push({ text: word, glued: false, weight: 1 });
      continue;
    }
    let first = true;
    for (const piece of word.split(CJK_CHARACTER)) {
      if (!piece) continue;
      units.push({ text: piece, glued: !first, weight: hasCjk(piece) ? 1 / CJK_CHARACTERS_PER_WORD : 1 });
      first = false;
    }
  }
  return units;
}
const joinUnits = (units: readonly { text: string; glued: boolean }[]) => units.map((u, i) => (i > 0 && !u.glued ? ` ${u.text}` : u.text)).join('');

/** Ruby's readings (furigana): a word is searched and shown by its base text, as the reader's marks find it. */
const RUBY_READINGS: ReadonlySet<string> = new Set(['rt', 'rp']);

/**
 * A chapter's readable text in passages of about PASSAGE_WORDS words (markup, scripts and styles left out, and
 * ruby's readings).
 */
export function passagesOf(html: string): string[] {
  const text = visibleText(parseHtml(html).children, RUBY_READINGS);
  if (!text) return [];
  if (!hasCjk(text)) {
    const words = text.split(' ');
    const out: string[] = [];
    for (let i = 0; i < words.length; i += PASSAGE_WORDS) out.push(words.slice(i, i + PASSAGE_WORDS).join(' '));
    return out;
  }
  // Chinese and Japanese have no spaces to cut at: their characters are counted (three to a word).
  const out: string[] = [];
  let passage: TextUnit[] = [];
  let weight = 0;
  for (const unit of unitsOf(text)) {
    if (weight + unit.weight > PASSAGE_WORDS && passage.length) {
      out.push(joinUnits(passage));
      passage = [];
      weight = 0;
    }
    passage.push(passage.length ? unit : { ...unit, glued: false });
    weight += unit.weight;
  }
  if (passage.length) out.push(joinUnits(passage));
  return out;
}

/** Where passage `passageNo` of a text's units begins, cut as passagesOf cuts them. */
function passageStart(units: readonly TextUnit[], cjk: boolean, passageNo: number): number {
  if (!cjk || passageNo === 0) return passageNo * PASSAGE_WORDS;
  let passage = 0;
  let count = 0;
  let weight = 0;
  for (let i = 0; i < units.length; i++) {
    if (weight + units[i]!.weight > PASSAGE_WORDS && count) {
      if (++passage === passageNo) return i;
      count = 0;
      weight = 0;
    }
    count++;
    weight += units[i]!.weight;
  }
  return units.length;
}

/**
 * The second a media part's passage has the words of `q` said: the start of the transcript cue holding the
 * passage's first marked word (a part's content is one `<p data-start="s.sss">` per cue, the media contract), or of
 * its first word when these crude stems see no hit where the engine matched one. Derived from the chapter's content
 * at query time, so passages need no column of their own (decisions.md "Search hits in a transcript open at their
 * second"). Null when the content has no cues.
 */
export function cueSecondOf(content: string, passageNo: number, body: string, q: ParsedQuery): number | null {
  const cues = findAll(parseHtml(content), 'p').flatMap((p) => {
    const start = Number(attr(p, 'data-start') ?? Number.NaN);
    return Number.isFinite(start) && start >= 0 ? [{ start, units: unitsOf(visibleText(p.children, RUBY_READINGS)) }] : [];
  });
  if (cues.length === 0) return null;
  const bodyUnits = unitsOf(body);
  const isMarked = markerOf(bodyUnits, q);
  let hit = 0;
  if (isMarked) for (let i = 0; i < bodyUnits.length; i++) if (isMarked(i)) { hit = i; break; }
  // cues are blocks, so the chapter's units are the cues' units one after another
  const all = cues.flatMap((c) => c.units);
  const at = passageStart(all, hasCjk(joinUnits(all)), passageNo) + hit;
  let seen = 0;
  for (const cue of cues) {
    seen += cue.units.length;
    if (at < seen) return cue.start;
  }
  return cues[cues.length - 1]!.start;
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
  const text = foldText(raw);
  // Quoted parts first; an unclosed quote is just a quote.
  const quoted = /"([^"]*)"/g;
  let rest = '';
  let last = 0;
  for (let m = quoted.exec(text); m; m = quoted.exec(text)) {
    rest += `${text.slice(last, m.index)} `;
    last = m.index + m[0].length;
    const inside = m[1]!.match(WORD) ?? [];
    if (inside.length > 1) phrases.push(inside.slice(0, MAX_TERMS));
    else if (inside.length === 1) words.push({ text: inside[0], prefix: false });
  }
  rest += text.slice(last);
  const tokens = [...rest.matchAll(/([\p{L}\p{N}]+)(\*)?/gu)];
  const typing = (t: RegExpMatchArray, i: number) =>
    lastWordIsPrefix && i === tokens.length - 1 && t.index! + t[0].length === rest.length && [...t[1]!].length >= TYPED_PREFIX_MIN && !hasCjk(t[1]!);
  tokens.forEach((t, i) => words.push({ text: t[1]!, prefix: !!t[2] || typing(t, i) }));
  return splitCjk({ words: words.slice(0, MAX_TERMS), phrases: phrases.slice(0, 3) });
}

/** A word with Chinese or Japanese characters in it is the phrase of its characters, as the index holds them. */
function splitCjk(q: ParsedQuery): ParsedQuery {
  const tokens = (text: string) => spaceCjk(text).split(/\s+/).filter(Boolean);
  const words: ParsedQuery['words'] = [];
  const phrases = q.phrases.map((p) => p.flatMap(tokens).slice(0, MAX_TERMS));
  for (const w of q.words) {
    if (!hasCjk(w.text)) words.push(w);
    else {
      const parts = tokens(w.text);
      if (parts.length === 1) words.push({ text: parts[0]!, prefix: false });
      else phrases.push(parts.slice(0, MAX_TERMS));
    }
  }
  return { words, phrases };
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

/** A crude stem for marking: "whales" and "whaling" mark for "whale"; what the engines match is what counts. */
const stem = (w: string) => (w.length > 4 ? w.replace(/(ing|ed|es|s|e|ly)$/, '') : w);

/** Which of `units` a snippet marks for `q` (by index), or null when `q` has no word to mark. */
function markerOf(units: readonly TextUnit[], q: ParsedQuery): ((i: number) => boolean) | null {
  const wanted = [...q.words.map((w) => w.text), ...q.phrases.flat()].filter((w) => !hasCjk(w)).map(stem).filter((w) => w.length > 0);
  const runs = [...q.words.map((w) => [w.text]), ...q.phrases].filter((run) => run.some(hasCjk));
  if (wanted.length === 0 && runs.length === 0) return null;
  // folded on demand: most passages hit early, and only the words around the first hit are looked at again
  const folded: (string | undefined)[] = new Array<string | undefined>(units.length);
  const foldedAt = (i: number) => (folded[i] ??= foldText(units[i]!.text.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')));
  const inRun = new Set<number>();
  for (const run of runs) {
    for (let i = 0; i + run.length <= units.length; i++) {
      if (run.every((token, k) => (hasCjk(token) ? foldedAt(i + k) === token : foldedAt(i + k).startsWith(stem(token))))) {
        for (let k = 0; k < run.length; k++) inRun.add(i + k);
      }
    }
  }
  return (i: number) => inRun.has(i) || (wanted.length > 0 && foldedAt(i).length > 0 && wanted.some((w) => foldedAt(i).startsWith(w)));
}

/**
 * The words of `q` marked in `body` around the first hit, escaped. Null when no word of the query is in it. A
 * Chinese or Japanese word is marked where its characters stand together, as the engines matched them.
 */
export function snippetOf(body: string, q: ParsedQuery, context = SNIPPET_CONTEXT): string | null {
  const units = unitsOf(body);
  const isMarked = markerOf(units, q);
  if (!isMarked) return null;
  let first = -1;
  for (let i = 0; i < units.length && first < 0; i++) if (isMarked(i)) first = i;
  if (first < 0) return null;
  // `context` words either side of the first hit (a Chinese or Japanese character is a part of a word)
  let start = first;
  for (let weight = 0; start > 0 && weight + units[start - 1]!.weight <= context; start--) weight += units[start - 1]!.weight;
  let end = first;
  for (let weight = 0; end < units.length && weight + units[end]!.weight <= context * 2; end++) weight += units[end]!.weight;
  let out = '';
  for (let i = start; i < end; i++) {
    const unit = units[i]!;
    const text = escapeAttribute(unit.text);
    const gap = i > start && !unit.glued ? ' ' : '';
    // a mark goes on across characters that stand together, so "猫である" is one marked word
    const marked = isMarked(i);
    const open = marked && !(i > start && unit.glued && isMarked(i - 1));
    const close = marked && !(i + 1 < end && units[i + 1]!.glued && isMarked(i + 1));
    out += `${gap}${open ? SNIPPET_MARK_OPEN : ''}${text}${close ? SNIPPET_MARK_CLOSE : ''}`;
  }
  return `${start > 0 ? '… ' : ''}${out}${end < units.length ? ' …' : ''}`;
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
    const text = foldText(row[field]);
    // most fields hold none of the query: a substring test says so without splitting them into words
    if (!wanted.some((w) => text.includes(w))) continue;
    const words = spaceCjk(text).match(WORD) ?? [];
    const hits = words.filter((w) => wanted.some((s) => w.startsWith(s))).length;
    if (hits > 0) return tier + hits / (hits + 1 + words.length / typicalWords);
  }
  return 1;
}
