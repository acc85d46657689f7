/**
 * Search marks in a chapter frame (reader.md §4 "search jump"): the searched words marked in the reading root and
 * the hit (a Locator) found by its passage's words (engine/textMarks.ts does the folding and marking; this part finds
 * the root).
 */
import type { Locator } from '@lectern/core';
import { ROOT_ID } from '../chapterDocument.ts';
import { clearMarks, hitPassage, markAndFind } from '../textMarks.ts';

/** Marks `words` and finds the hit by its passage (the first mark when it is not found); null: nothing to go to. */
export function markSearch(doc: Document, hit: Locator, words: readonly string[]): Range | null {
  const root = doc.getElementById(ROOT_ID);
  if (!root) return null;
  const { phrases, extent } = hitPassage(hit);
  return markAndFind(root, phrases, words, extent).range;
}

export function clearSearchMarks(doc: Document) {
  const root = doc.getElementById(ROOT_ID);
  if (root) clearMarks(root);
}
