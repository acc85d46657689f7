/**
 * Catalog rules shared by the server and the web app: how titles sort, how a work is recognised across formats,
 * the catalog list's sort options, and how a reading time reads on the title page.
 */

import { foldText } from './text-fold.ts';

/** The catalog list's orders: by title (ignoring case and a leading The, A or An), newest first, by first author. */
export const CATALOG_SORTS = ['title', 'recent', 'author'] as const;
export type CatalogSort = (typeof CATALOG_SORTS)[number];

/**
 * A name's key: foldText (core/text-fold.ts: compatibility forms to plain letters, accents off, kana keep their
 * voicing, lower case) with everything but letters, digits and the marks the fold keeps turned into single spaces:
 * "Moby-Dick" and "moby dick" compare equal, and だんご stays だんご. The key names are sorted and looked up by (titles'
 * sort_title and sort_author, the listings' sort keys, work_key, the name_key of authors, topics and publishers).
 * Keys are stored: a change to this rule needs a migration that makes them again with a frozen copy (0050), and the
 * copy is held to this rule by server/test/api/migrate-name-keys.test.ts (docs/decisions.md "Text folding: one rule
 * in core").
 */
export function nameKey(text: string): string {
  return foldText(text)
    .replace(/[^\p{L}\p{N}\p{M}]+/gu, ' ')
    .trim();
}

/** Sort key of a title: case and accents folded, a leading English article (The, A, An) dropped. */
export function titleSortKey(title: string): string {
  const folded = nameKey(title);
  const stripped = folded.replace(/^(?:the|a|an) (?=\S)/, '');
  return stripped || folded;
}

/** Sort key of an author list: the first author, folded; '' when there is none (sorted last). */
export function authorSortKey(authors: readonly string[]): string {
  return nameKey(authors[0] ?? '');
}

/**
 * The key an EPUB and a PDF of one book share: the same title, ignoring case, accents, punctuation and a leading
 * article, by the same first author. A shared key alone never makes two files one work (two EPUBs with one title
 * are two publications): it joins a file to the one work of that key that lacks the file's format, or to a file
 * with the same package identifier (repositories/catalog.ts workTitleId; files with one ISBN are matched before).
 */
export function workKey(title: string, authors: readonly string[]): string {
  return `${titleSortKey(title)}|${authorSortKey(authors)}`;
}

/** A reading time as the title page shows it: "22 min", "13 h 14 min", "2 h"; under a minute "1 min". */
export function formatReadingTime(minutes: number): string {
  const total = Math.max(1, Math.round(Number.isFinite(minutes) ? minutes : 0));
  const hours = Math.floor(total / 60);
  const rest = total % 60;
  if (hours === 0) return `${rest} min`;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}
