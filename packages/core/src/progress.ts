/**
 * Progress of a title (docs/decisions.md): the share of its text read - each chapter's furthest position weighted by
 * its text length; when no chapter has text (PDFs, without extracted text) the chapters weigh equally. Chapter
 * positions never move back, and the weights are fixed, so neither does this.
 */
export interface ChapterReading {
  /** the chapter's visible text length (any unit proportional to it, e.g. its reading minutes) */
  textLength: number;
  /** the furthest position read, 0-100 */
  furthest: number;
}

const clamp = (value: number) => (Number.isFinite(value) ? Math.min(100, Math.max(0, value)) : 0);

/** A title's progress as a whole percentage, 0-100. */
export function titleProgress(chapters: readonly ChapterReading[]): number {
  if (chapters.length === 0) return 0;
  const weight = (c: ChapterReading) => (Number.isFinite(c.textLength) && c.textLength > 0 ? c.textLength : 0);
  const total = chapters.reduce((sum, c) => sum + weight(c), 0);
  const value =
    total > 0
      ? chapters.reduce((sum, c) => sum + weight(c) * clamp(c.furthest), 0) / total
      : chapters.reduce((sum, c) => sum + clamp(c.furthest), 0) / chapters.length;
  return Math.round(clamp(value));
}
