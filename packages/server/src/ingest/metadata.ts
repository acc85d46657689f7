/**
 * Small normalisations shared by the EPUB and PDF importers, so that both give the catalogue the same shapes:
 * dates as "YYYY[-MM[-DD]]", names and subjects trimmed and de-duplicated, a title that is never empty.
 */

/** "1898", "2006-12", "2010-02-16T12:34:12+00:00" or "August 12, 2006" to "YYYY", "YYYY-MM" or "YYYY-MM-DD"; null if unreadable. */
export function normaliseDate(value: string | null | undefined): string | null {
  const text = value?.trim();
  if (!text) return null;
  const match = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?(?![\d])/.exec(text);
  if (match) {
    const [, year, month, day] = match;
    if (!month || Number(month) < 1 || Number(month) > 12) return year ?? null;
    if (!day || Number(day) < 1 || Number(day) > 31) return `${year}-${month}`;
    return `${year}-${month}-${day}`;
  }
  const parsed = Date.parse(text);
  return Number.isNaN(parsed) ? null : isoDay(new Date(parsed));
}

export function isoDay(date: Date): string | null {
  return Number.isNaN(date.getTime()) ? null : date.toISOString().slice(0, 10);
}

/** Trimmed, non-empty, first occurrence only (ignoring case). */
export function uniqueNonEmpty(values: Iterable<string>): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of values) {
    const value = raw.replace(/\s+/g, ' ').trim();
    const key = value.toLowerCase();
    if (value && !seen.has(key)) {
      seen.add(key);
      out.push(value);
    }
  }
  return out;
}

/** "books/Moby Dick.epub" gives "Moby Dick". */
export function titleFromFileName(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  const dot = base.lastIndexOf('.');
  return (dot > 0 ? base.slice(0, dot) : base).trim() || 'Untitled';
}

/** The file's own name with its extension, case aside: "Book.epub" for book.epub. Such a title says nothing. */
export function isFileNameItself(title: string, fileName: string): boolean {
  const base = (fileName.split(/[\\/]/).pop() ?? fileName).trim();
  return !!base && title.trim().toLowerCase() === base.toLowerCase();
}

/**
 * The title a book gets from its file name when it has none of its own: the name without its extension, with
 * underscores and %20 as spaces, and a capital first letter when it has none ("moby_dick.epub" is "Moby dick";
 * "iPhone Guide.epub" stays "iPhone Guide"; hyphens stay, they may be the title's: "Moby-Dick").
 */
export function prettyFileTitle(fileName: string): string {
  const stem = titleFromFileName(fileName);
  let text = stem;
  try {
    text = decodeURIComponent(text);
  } catch {
    // a lone % is part of the name
  }
  text = text.replace(/_+/g, ' ').replace(/\s+/g, ' ').trim();
  if (!text) return stem;
  return /\p{Lu}/u.test(text) ? text : text.charAt(0).toLocaleUpperCase() + text.slice(1);
}

/**
 * A heading that names a place in a book, not the book: "Page 1", "Chapter 3", "Part IV", "Cover", "Contents",
 * "Title Page", "Copyright", "Introduction". A PDF's file-name title does not give way to one of these printed on
 * its first page.
 */
export function isGenericHeading(text: string): boolean {
  const t = text.trim().replace(/[.:]$/, '');
  if (/^(?:page|chapter|part|section|book|volume|vol|lesson|unit|appendix|plate|figure|fig|table)\s+(?:\d+|[ivxlcdm]+|[a-z]|one|two|three|four|five|six|seven|eight|nine|ten)$/i.test(t)) return true;
  return /^(?:cover|front ?cover|back ?cover|title ?page|half ?title|contents|table of contents|toc|copyright|copyright page|colophon|dedication|epigraph|foreword|preface|prologue|introduction|acknowledg(?:e)?ments|index|glossary|bibliography|about the author|start|begin|page)$/i.test(t);
}

/**
 * A PDF Title entry that is really a file name: "developers-reference", "report_v2", "Quarterly Report.pdf",
 * "Microsoft Word - notes.docx", or the file's own name in lower case. Word processors and PDF printers fill the
 * entry with such names, so for a PDF it gives way to the title printed on the first page when there is one.
 * Not for EPUBs: a package's dc:title is written by its author, and stands (ingest/epub.ts readMetadata).
 */
export function looksLikeFileName(title: string, fileName?: string): boolean {
  const text = title.trim();
  if (!text || /^(?:untitled|unknown|document|title)$/i.test(text)) return true;
  // The file's own name, when it is a slug ("dracula" from dracula.epub; but "Dracula" is a fine title).
  if (fileName && text === titleFromFileName(fileName) && text === text.toLowerCase() && !/\s/.test(text)) return true;
  if (/\.(?:pdf|docx?|odt|rtf|tex|dvi|ps|epub|html?|xhtml|txt|indd|qxd)$/i.test(text)) return true;
  if (/^microsoft (?:word|powerpoint|excel) - /i.test(text)) return true;
  // One "word" made of lower-case letters and digits joined by - _ . is a slug, not a title.
  return /^[a-z0-9]+(?:[-_.][a-z0-9]+)+$/.test(text);
}
