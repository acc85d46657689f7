import { beforeAll, expect, it } from 'vitest';
import { parseEpub } from '../../src/ingest/epub.ts';
import { renderChapter } from '../../src/ingest/render.ts';
import { FETCH_TIMEOUT_MS, fetchNpmSamples, readBook, type NpmSamples } from './helpers.ts';

let samples: NpmSamples;
beforeAll(async () => {
  samples = await fetchNpmSamples();
}, FETCH_TIMEOUT_MS);

/** How long this takes is measured in bench/ingest.ts, against an anchor; here only what it produces. */
it('parses and renders every chapter of the npm books to HTML', () => {
  for (const sample of [samples.alice, samples.worlds, samples.moby]) {
    const book = parseEpub(readBook(sample), sample.file);
    expect(book.chapters.length).toBeGreaterThan(0);
    const chapters = new Set(book.chapters.map((chapter) => chapter.fullPath));
    for (const chapter of book.chapters) {
      const { html } = renderChapter(chapter.rawHtml, {
        chapterFullPath: chapter.fullPath,
        allowScripts: false,
        chapterUrl: (fullPath, fragment) => `/read/${fullPath}${fragment ? `#${fragment}` : ''}`,
        resourceUrl: (fullPath) => `/files/${fullPath}`,
        isChapter: (fullPath) => chapters.has(fullPath),
      });
      expect(html.length, `${book.title}: ${chapter.fullPath}`).toBeGreaterThan(0);
    }
  }
});
