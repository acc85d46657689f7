import { afterEach, describe, expect, it } from 'vitest';
import { clearSearchMarks, markSearch } from '../src/features/reader/engine/frame/searchMarks.ts';
import { hitLocator, SEARCH_MARK_CLASS, SEARCH_MARK_CURRENT_CLASS } from '../src/features/reader/engine/textMarks.ts';
import { chapterFrame, removeFrames } from './frame-fixture.ts';

afterEach(removeFrames);

describe('frame search marks', () => {
  it('marks the words in the reading root only and gives the hit (a Locator) found by its passage\'s words', () => {
    const c = chapterFrame('<p>A lantern by the door.</p><p>The old lantern burned all night long.</p>');
    const outside = c.doc.createElement('p');
    outside.textContent = 'lantern outside the book';
    c.doc.body.append(outside);
    const range = markSearch(c.doc, hitLocator('ch1.xhtml', '… old lantern burned …'), ['lantern'])!;
    expect(c.root.querySelectorAll(`.${SEARCH_MARK_CLASS}`)).toHaveLength(2);
    // the mark within the passage is the hit's own
    expect(c.root.querySelector(`.${SEARCH_MARK_CURRENT_CLASS}`)!.closest('p')!.textContent).toContain('The old lantern');
    expect(outside.querySelector(`.${SEARCH_MARK_CLASS}`)).toBeNull();
    expect(range.startContainer.parentElement!.closest('p')!.textContent).toContain('The old lantern');
    clearSearchMarks(c.doc);
    expect(c.doc.querySelectorAll(`.${SEARCH_MARK_CLASS}`)).toHaveLength(0);
    expect(c.root.textContent).toBe('A lantern by the door.The old lantern burned all night long.');
  });

  it('finds nothing in a chapter without the words or without a reading root', () => {
    const c = chapterFrame('<p>Nothing here.</p>');
    expect(markSearch(c.doc, hitLocator('ch1.xhtml', 'lantern'), ['lantern'])).toBeNull();
    c.root.remove();
    expect(markSearch(c.doc, hitLocator('ch1.xhtml', null), ['nothing'])).toBeNull();
  });

  it('a hit without its passage goes to the first mark', () => {
    const c = chapterFrame('<p>A lantern by the door.</p><p>The old lantern burned all night long.</p>');
    const range = markSearch(c.doc, hitLocator('ch1.xhtml', null), ['lantern'])!;
    expect(range.startContainer.parentElement!.closest('p')!.textContent).toBe('A lantern by the door.');
  });
});
