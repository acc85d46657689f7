import { describe, expect, it } from 'vitest';
import { bookProgress } from '../src/shared/reading/bookProgress.ts';

describe('bookProgress (the table of contents’ "n% complete")', () => {
  it('weighs chapters by their text, as the server’s title progress does', () => {
    const chapters = [
      { uri: 'long.xhtml', minutes_required: 9 },
      { uri: 'short.xhtml', minutes_required: 1 },
    ];
    expect(bookProgress(chapters, new Map([['long.xhtml', 100]]))).toBe(90);
    expect(bookProgress(chapters, new Map([['short.xhtml', 100]]))).toBe(10);
  });
  it('weighs a PDF’s chapters (no text, 0 minutes) equally', () => {
    const pages = [{ uri: 'p1', minutes_required: 0 }, { uri: 'p2', minutes_required: 0 }];
    expect(bookProgress(pages, new Map([['p1', 100]]))).toBe(50);
  });
});
