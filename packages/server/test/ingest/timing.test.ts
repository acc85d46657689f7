import { beforeAll, expect, it } from 'vitest';
import { parseEpub } from '../../src/ingest/epub.ts';
import { renderChapter } from '../../src/ingest/render.ts';
import { FETCH_TIMEOUT_MS, fetchNpmSamples, readBook, type NpmSamples } from './helpers.ts';

let samples: NpmSamples;
beforeAll(async () => {
  samples = await fetchNpmSamples();
}, FETCH_TIMEOUT_MS);

/** Prints the figure; the import budget (all samples well under 10 s with the database) is checked by eye here. */
it('times parsing and rendering every chapter of the npm books', () => {
  const lines: string[] = [];
  let total = 0;
  for (const sample of [samples.alice, samples.worlds, samples.moby]) {
    const data = readBook(sample);
    const started = performance.now();
    const book = parseEpub(data, sample.file);
    const parsed = performance.now();
    const chapters = new Set(book.chapters.map((chapter) => chapter.fullPath));
    let characters = 0;
    for (const chapter of book.chapters) {
      characters += renderChapter(chapter.rawHtml, {
        chapterFullPath: chapter.fullPath,
        allowScripts: false,
        chapterUrl: (fullPath, fragment) => `/read/${fullPath}${fragment ? `#${fragment}` : ''}`,
        resourceUrl: (fullPath) => `/files/${fullPath}`,
        isChapter: (fullPath) => chapters.has(fullPath),
      }).html.length;
    }
    const rendered = performance.now();
    total += rendered - started;
    lines.push(
      `${book.title}: ${book.chapters.length} chapters, ${(data.byteLength / 1024).toFixed(0)} KB, ` +
        `parse ${(parsed - started).toFixed(1)} ms + render ${(rendered - parsed).toFixed(1)} ms ` +
        `(${((rendered - parsed) / book.chapters.length).toFixed(2)} ms per chapter, ${characters} characters of HTML)`,
    );
    expect(characters).toBeGreaterThan(0);
  }
  console.log(`ingest timing (cold, first run in this worker):\n  ${lines.join('\n  ')}\n  total ${total.toFixed(1)} ms`);
});
