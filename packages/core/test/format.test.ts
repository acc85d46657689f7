import { describe, expect, it } from 'vitest';
import { byline, formatLabel, mediaIcon, paths, publisherLine, slugify, titleDisplay } from '../src/index.ts';
import { bookListQuerySchema, loginRequestSchema } from '../src/schemas.ts';

describe('title format labels (spec §9)', () => {
  it.each([
    ['chapter', 'BOOK SECTION'],
    ['learning-path', 'VIDEO'],
    ['book', 'BOOK'],
    ['audio-clip', 'AUDIO CLIP'],
    ['document', 'DOCUMENT'],
    [null, 'BOOK'],
    ['', 'BOOK'],
  ])('%s -> %s', (format, label) => expect(formatLabel(format)).toBe(label));

  it('maps media icons', () => {
    expect(['article', 'book', 'chapter'].map(mediaIcon)).toEqual(['book', 'book', 'book']);
    expect(['audiobook', 'audio-clip'].map(mediaIcon)).toEqual(['audiobook', 'audiobook']);
    expect(['video', 'video-clip', 'learning-path'].map(mediaIcon)).toEqual(['video', 'video', 'video']);
  });
});

describe('title card lines', () => {
  it('puts month and year of issued before the publishers', () => {
    expect(publisherLine('2012-05-03', ["O'Reilly Media", 'Penguin'])).toBe("May 2012 · O'Reilly Media, Penguin");
    expect(publisherLine('1851', [])).toBe('1851');
    expect(publisherLine(null, ['Project Gutenberg'])).toBe('Project Gutenberg');
    expect(publisherLine(null, [])).toBe('');
  });

  it('writes by {authors}', () => {
    expect(byline(['Lewis Carroll'])).toBe('by Lewis Carroll');
    expect(byline(['A', 'B'])).toBe('by A, B');
    expect(byline([])).toBe('');
  });

  it('shrinks titles past 60 characters and elides past twice that', () => {
    expect(titleDisplay('x'.repeat(60))).toEqual({ text: 'x'.repeat(60), shrink: false });
    expect(titleDisplay('x'.repeat(61)).shrink).toBe(true);
    const long = titleDisplay('word '.repeat(40));
    expect(long.text.length).toBeLessThanOrEqual(120);
    expect(long.text.endsWith('…')).toBe(true);
  });
});

describe('paths and slugs', () => {
  it('slugifies titles into title_safe', () => {
    expect(slugify("Alice's Adventures in Wonderland")).toBe('alice-s-adventures-in-wonderland');
    expect(slugify('Ça va — Café')).toBe('ca-va-cafe');
    expect(slugify('!!!')).toBe('untitled');
    // other Latin letters separate words as before (existing slugs stay); other scripts keep their letters
    expect(slugify('Straße – Øresund')).toBe('stra-e-resund');
    expect(slugify('吾輩は猫である')).toBe('吾輩は猫である');
    expect(slugify('夏目 漱石 (1905)')).toBe('夏目-漱石-1905');
    expect(slugify('Война и мир')).toBe('война-и-мир');
    expect(slugify('が')).toBe('が');
    expect(Array.from(slugify('𠀋'.repeat(100)))).toHaveLength(80);
  });

  it('builds reader and chapter paths with each segment encoded and the slashes kept', () => {
    expect(paths.reader('moby-dick', 'abc', 'OEBPS/ch 1.xhtml')).toBe('/library/view/moby-dick/abc/OEBPS/ch%201.xhtml');
    expect(paths.reader('moby-dick', 'abc')).toBe('/library/view/moby-dick/abc/');
    expect(paths.chapterApi('abc', 'text/ch1.xhtml')).toBe('/api/v1/book/abc/chapter/text/ch1.xhtml');
  });
});

describe('call schemas', () => {
  it('requires both sign-in fields with the spec wording', () => {
    const r = loginRequestSchema.safeParse({ email: '', password: '' });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.message)).toContain('This field is required.');
  });

  it('defaults and bounds catalog paging', () => {
    expect(bookListQuerySchema.parse({})).toEqual({ page: 1, page_size: 24, sort: 'title' });
    expect(bookListQuerySchema.safeParse({ page_size: '101' }).success).toBe(false);
    expect(bookListQuerySchema.safeParse({ page: '0' }).success).toBe(false);
  });
});
