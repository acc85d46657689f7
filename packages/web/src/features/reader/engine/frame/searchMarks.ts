/**
 * Search marks in a chapter frame (reader.md §4 "search jump"): the searched words marked in the reading root and
 * the passage found by its phrases (engine/textMarks.ts does the folding and marking; this part finds the root).
 */
import { ROOT_ID } from '../chapterDocument.ts';
import { clearMarks, markAndFind } from '../textMarks.ts';

/** Marks `words` and finds the passage by `phrases` (the first mark when it is not found); null: nothing to go to. */
export function markSearch(doc: Document, phrases: readonly string[], words: readonly string[], extent = 0): Range | null {
  const root = doc.getElementById(ROOT_ID);
  if (!root) return null;
  return markAndFind(root, phrases, words, extent).range;
}

export function clearSearchMarks(doc: Document) {
  const root = doc.getElementById(ROOT_ID);
  if (root) clearMarks(root);
}
