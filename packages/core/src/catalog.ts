/**
 * Catalog rules shared by the server and the web app: how titles sort, how a work is recognised across formats,
 * the catalog list's sort options, and how a reading time reads on the title page.
 */

/** The catalog list's orders: by title (ignoring case and a leading The, A or An), newest first, by first author. */
export const CATALOG_SORTS = ['title', 'recent', 'author'] as const;
export type CatalogSort = (typeof CATALOG_SORTS)[number];

/**
 * Folds case and accents, and drops punctuation: "Moby-Dick" and "moby dick" compare equal. The key names are
 * sorted and looked up by (titles' sort_title, the suggestions' name_key).
 */
export function nameKey(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
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
