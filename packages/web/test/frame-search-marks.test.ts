import { afterEach, describe, expect, it } from 'vitest';
import { clearSearchMarks, markSearch } from '../src/features/reader/engine/frame/searchMarks.ts';
import { SEARCH_MARK_CLASS } from '../src/features/reader/engine/textMarks.ts';
import { chapterFrame, removeFrames } from './frame-fixture.ts';

afterEach(removeFrames);

describe('frame search marks', () => {
  it('marks the words in the reading root only and gives the passage found by its phrase', () => {
    const c = chapterFrame('<p>A lantern by the door.</p><p>The old lantern burned all night long.</p>');
    const outside = c.doc.createElement('p');
    outside.textContent = 'lantern outside the book';
    c.doc.body.append(outside);
    const range = markSearch(c.doc, ['old lantern burned'], ['lantern'])!;
    expect(c.root.querySelectorAll(`.${SEARCH_MARK_CLASS}`)).toHaveLength(2);
    expect(outside.querySelector(`.${SEARCH_MARK_CLASS}`)).toBeNull();
    expect(range.startContainer.parentElement!.closest('p')!.textContent).toContain('The old lantern');
    clearSearchMarks(c.doc);
    expect(c.doc.querySelectorAll(`.${SEARCH_MARK_CLASS}`)).toHaveLength(0);
    expect(c.root.textContent).toBe('A lantern by the door.The old lantern burned all night long.');
  });

  it('finds nothing in a chapter without the words or without a reading root', () => {
    const c = chapterFrame('<p>Nothing here.</p>');
    expect(markSearch(c.doc, ['lantern'], ['lantern'])).toBeNull();
    c.root.remove();
    expect(markSearch(c.doc, ['nothing'], ['nothing'])).toBeNull();
  });
});
