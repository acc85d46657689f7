/**
 * The page's own first screen of a long chapter (engine/pageFirstScreen.ts): built only where the reader's first
 * screen would be that document at that place, at the slice holding the reader's place, the place marked where the
 * reader's frame finds it, with the reader's settings and the chapter's CSP.
 */
import { PAGE_PLACE_ATTR, PAGE_VIEW_KEYS, type ArchiveItem } from '@lectern/core';
import { describe, expect, it } from 'vitest';
import { CHAPTER_CSP, ROOT_ID } from '../src/features/reader/engine/chapterDocument.ts';
import { sliceChapter } from '../src/features/reader/engine/chapterSlices.ts';
import { pageFirstScreen, type PageView } from '../src/features/reader/engine/pageFirstScreen.ts';
import { CHROME_KEY, PAGINATION_CHOSEN_KEY, PREFERENCES_KEY } from '../src/features/reader/engine/preferences.ts';
import { POSITIONS_KEY } from '../src/shared/reading/position.ts';

const html = `<section class="chapter">${Array.from({ length: 4000 }, (_, i) => `<p id="p${i}">Paragraph ${i} of the long afternoon, fish &amp; chips.</p>`).join('')}</section>`;
const sliced = sliceChapter(html)!;

const item = (over: Partial<ArchiveItem> = {}): ArchiveItem =>
  ({
    book_id: 'book-1',
    chapter_href: 'text/ch2.xhtml',
    chapter_label: 'Chapter Two',
    allow_scripts: false,
    top_percentage: 0,
    rendition: { layout: 'reflowable', spread: 'auto', flow: 'auto', page_spread: null, viewport: null, align_x_center: false },
    resources: [{ label: 'Chapter Two', stylesheets: ['../styles/book.css'], allow_scripts: false }],
    ...over,
  }) as unknown as ArchiveItem;

const view = (over: Partial<PageView> = {}): PageView => ({ width: 1280, hash: '', cookie: '', storage: {}, user: 'u-1', position: null, ...over });

const deepWords = { before: 'of the long afternoon, fish & chips.', highlight: 'Paragraph 3100 of the long after' };
const positions = (progression: number) => JSON.stringify({ 'book-1/text/ch2.xhtml': { href: 'text/ch2.xhtml', progression, text: deepWords, at: 1 } });
const parse = (doc: string) => new DOMParser().parseFromString(doc, 'text/html');

describe("the page's first screen of a long chapter", () => {
  it("is handed what the reader reads, under the reader's own keys (the page's script reads core's list)", () => {
    expect([...PAGE_VIEW_KEYS].sort()).toEqual([PREFERENCES_KEY, PAGINATION_CHOSEN_KEY, CHROME_KEY, POSITIONS_KEY, 'reader_server_positions'].sort());
  });

  it("from the start: the first slice in the reader's document, the chapter's CSP, the book's stylesheets, the reader's type", () => {
    const first = pageFirstScreen(item(), html, sliced, view({ storage: { reader_preferences: JSON.stringify({ font_size: 1.4, reading_mode: 'night-mode' }) } }))!;
    expect(first.percentage).toBe(0);
    const doc = parse(first.document);
    expect(doc.querySelector('meta[http-equiv="Content-Security-Policy"]')!.getAttribute('content')).toBe(CHAPTER_CSP);
    expect(doc.querySelector('link[rel="stylesheet"]')!.getAttribute('href')).toBe('../styles/book.css');
    expect(doc.querySelector('base')!.getAttribute('href')).toMatch(/\/api\/v1\/book\/book-1\/chapter\/text\/ch2\.xhtml$/);
    expect(doc.documentElement.className).toContain('lectern-scroll');
    expect(doc.documentElement.className).toContain('night-mode');
    expect(doc.getElementById('lectern-settings')!.textContent).toContain('--lectern-font-size: 1.4');
    // the first slice only
    expect(doc.getElementById('p0')).not.toBeNull();
    expect(doc.getElementById('p3999')).toBeNull();
    expect(doc.getElementById(ROOT_ID)!.textContent.length).toBeLessThan(html.length / 4);
    // written in two pieces: the first, the head and the slice's opening (a few screens), cut before a tag
    expect(first.split).toBeLessThan(first.document.length);
    expect(first.split - first.document.indexOf('<body')).toBeLessThan(9_000);
    expect(first.document[first.split]).toBe('<');
    const opening = parse(first.document.slice(0, first.split));
    expect(opening.querySelector('link[rel="stylesheet"]')).not.toBeNull();
    expect(opening.getElementById('p0')).not.toBeNull();
  });

  it("resuming: the slice holding the stored words, marked where the reader's range starts", () => {
    const first = pageFirstScreen(item(), html, sliced, view({ storage: { reader_positions: positions(77) } }))!;
    const doc = parse(first.document);
    const mark = doc.querySelector(`[${PAGE_PLACE_ATTR}]`)!;
    expect(mark.parentElement!.id).toBe('p3100');
    expect(mark.nextSibling!.textContent!.startsWith('Paragraph 3100')).toBe(true);
    expect(doc.getElementById('p0')).toBeNull();
    // the first piece holds the place and what follows it for a few screens
    const opening = first.document.slice(0, first.split);
    expect(first.split).toBeLessThan(first.document.length);
    expect(opening.indexOf('Paragraph 3100')).toBeGreaterThan(opening.indexOf(PAGE_PLACE_ATTR));
    expect(opening.length - opening.indexOf(PAGE_PLACE_ATTR)).toBeGreaterThanOrEqual(8_000);
  });

  it("takes the account's place when it is newer than what this browser saw of it, else this browser's", () => {
    const server = { position: { updated_at: '2026-11-30T10:00:00.000Z', locator: { href: 'text/ch2.xhtml', progression: 0.1, text: { before: 'of the long afternoon, fish & chips.', highlight: 'Paragraph 400 of the long afterno' } } } };
    const newer = parse(pageFirstScreen(item(), html, sliced, view({ position: server }))!.document);
    expect(newer.querySelector(`[${PAGE_PLACE_ATTR}]`)!.parentElement!.id).toBe('p400');
    // Newer, where this browser has a place of its own in the book: the reader asks the server again rather than
    // take the page's (serverPositionSeed.ts), so the page paints nothing it might then move away from.
    expect(pageFirstScreen(item(), html, sliced, view({ position: server, storage: { reader_positions: positions(77) } }))).toBeNull();
    const seen = JSON.stringify({ 'u-1/book-1': '2026-11-30T11:00:00.000Z' });
    const older = parse(pageFirstScreen(item(), html, sliced, view({ position: server, storage: { reader_positions: positions(77), reader_server_positions: seen } }))!.document);
    expect(older.querySelector(`[${PAGE_PLACE_ATTR}]`)!.parentElement!.id).toBe('p3100');
  });

  it('a share of the chapter without stored words: that slice, scrolled to its share of it', () => {
    const first = pageFirstScreen(item({ top_percentage: 50 }), html, sliced, view())!;
    expect(parse(first.document).getElementById('p0')).toBeNull();
    expect(first.percentage).toBeGreaterThanOrEqual(0);
    expect(first.percentage).toBeLessThanOrEqual(100);
    // (a share of the slice needs the slice's whole height: not cut)
    expect(first.split).toBe(first.document.length);
  });

  it("leaves it to the reader where its first screen would be another: pages, hidden bars, dimming, an anchor, a scripted title, fixed layout, one scroll, a short chapter, words not found", () => {
    expect(pageFirstScreen(item(), html, sliced, view({ storage: { reader_preferences: JSON.stringify({ pagination: 'page' }) } }))).toBeNull();
    expect(pageFirstScreen(item({ rendition: { layout: 'reflowable', spread: 'auto', flow: 'paginated', page_spread: null, viewport: null, align_x_center: false } }), html, sliced, view())).toBeNull();
    expect(pageFirstScreen(item(), html, sliced, view({ storage: { reader_chrome: JSON.stringify({ masthead: false, menu: true }) } }))).toBeNull();
    expect(pageFirstScreen(item(), html, sliced, view({ storage: { reader_preferences: JSON.stringify({ brightness: 150 }) } }))).toBeNull();
    expect(pageFirstScreen(item(), html, sliced, view({ hash: '#p12' }))).toBeNull();
    expect(pageFirstScreen(item({ allow_scripts: true }), html, sliced, view())).toBeNull();
    expect(pageFirstScreen(item({ rendition: { layout: 'pre-paginated', spread: 'auto', flow: 'auto', page_spread: null, viewport: null, align_x_center: false } }), html, sliced, view())).toBeNull();
    expect(pageFirstScreen(item({ rendition: { layout: 'reflowable', spread: 'auto', flow: 'scrolled-continuous', page_spread: null, viewport: null, align_x_center: false } }), html, sliced, view())).toBeNull();
    expect(pageFirstScreen(item(), html, null, view())).toBeNull();
    const lost = JSON.stringify({ 'book-1/text/ch2.xhtml': { href: 'text/ch2.xhtml', progression: 50, text: { before: 'nowhere', highlight: 'in this chapter' }, at: 1 } });
    expect(pageFirstScreen(item(), html, sliced, view({ storage: { reader_positions: lost } }))).toBeNull();
  });
});
