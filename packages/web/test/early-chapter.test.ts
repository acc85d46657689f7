/**
 * The chapter asked for as the page starts (engine/earlyChapter.ts): which addresses are a reader's chapter, as
 * ReaderPage reads them; and the slicing the worker worked out, taken instead of scanning the chapter again
 * (engine/chapterSlices.ts primeSlices/slicesOf).
 */
import { describe, expect, it } from 'vitest';
import { blockBody } from '../src/api/blockRequest.ts';
import { primeSlices, sliceChapter, slicesOf } from '../src/features/reader/engine/chapterSlices.ts';
import { readerAddress } from '../src/features/reader/engine/earlyChapter.ts';

describe('readerAddress', () => {
  it('reads the book and the chapter of a reader address as the router does', () => {
    expect(readerAddress('/library/view/moby-dick/9781/OEBPS/ch01.xhtml')).toEqual({ bookId: '9781', href: 'OEBPS/ch01.xhtml' });
    // each segment decoded; trailing slashes dropped (the splat never carries them)
    expect(readerAddress('/library/view/t/b%20c/text/caf%C3%A9%20one.xhtml/')).toEqual({ bookId: 'b c', href: 'text/café one.xhtml' });
  });

  it('is null for any other address, and for a reader address without a chapter', () => {
    expect(readerAddress('/library/view/t/9781/')).toBeNull();
    expect(readerAddress('/library/view/t/9781')).toBeNull();
    expect(readerAddress('/library/book/9781')).toBeNull();
    expect(readerAddress('/home')).toBeNull();
    // a broken escape is no address (the router would not match it either)
    expect(readerAddress('/library/view/t/9781/%E0%A4%A.xhtml')).toBeNull();
  });
});

describe('blockBody', () => {
  it('is the request reader.md §7 names, screen size rounded and only when known', () => {
    expect(blockBody({ bookId: 'b', href: 'c.xhtml', screenWidth: 1280.4, screenHeight: 800, updateProgress: false })).toEqual({
      book_id: 'b',
      hrefs: 'c.xhtml',
      package_resources: 1,
      screen_width: 1280,
      screen_height: 800,
      update_progress: false,
    });
    expect(blockBody({ bookId: 'b', href: 'c.xhtml' })).toEqual({ book_id: 'b', hrefs: 'c.xhtml', package_resources: 1, update_progress: true });
  });
});

describe('slicesOf', () => {
  const html = Array.from({ length: 400 }, (_, i) => `<p id="p${i}">Paragraph ${i} of a chapter long enough to be cut into slices.</p>\n`).join('').repeat(20);

  it('takes the slicing given for the same chapter, and works it out for any other', () => {
    const worked = sliceChapter(html);
    expect(worked).not.toBeNull();
    const given = { ...worked!, slices: worked!.slices.slice() };
    primeSlices(html, given);
    expect(slicesOf(html)).toBe(given);
    // a copy with equal text is the same chapter
    expect(slicesOf(html.slice(0, 10) + html.slice(10))).toBe(given);
    const other = html.replace('Paragraph 0', 'Paragraph zero');
    expect(slicesOf(other)).toEqual(sliceChapter(other));
    expect(slicesOf(other)).not.toBe(given);
  });

  it('keeps a chapter written whole whole (the worker found nothing to cut)', () => {
    primeSlices(html, null);
    expect(slicesOf(html)).toBeNull();
  });
});
