/**
 * SQLite's searches read on threads of their own (db/sqlite-readers.ts; docs/decisions.md "Searches read SQLite on
 * threads of their own"), on both engines: a title imported is found at once by the library search and inside the
 * book, also by threads that had already read before it came; on SQLite the statements ran on the reader threads
 * (and the home's most-read aggregate), and closing the app ends them.
 */
import { catalogSearchResponseSchema, inBookSearchResponseSchema, searchPaths } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, type TestClient } from '../helpers/client.ts';
import { epubBook } from '../ingest/helpers.ts';

describe.each(['sqlite', 'postgres'] as const)('searches on reader threads (%s)', (engine) => {
  let t: TestApp;
  let reader: TestClient;
  let closed = false;
  const book = (n: number, word: string) =>
    epubBook({
      identifier: `urn:uuid:4a4a4a4a-0000-4000-8000-${String(n).padStart(12, '0')}`,
      title: `Reader Thread Book ${n}`,
      creator: 'Ann Example',
      chapters: [
        { path: 'one.xhtml', label: 'One', body: `<h1>One</h1><p>The lane and the pond, the ${word} by the hedge.</p>` },
        { path: 'two.xhtml', label: 'Two', body: `<h1>Two</h1><p>The grass again, and the ${word} once more.</p>` },
      ],
    });
  const titlesFor = async (q: string) => {
    const res = await reader.get(`${searchPaths.catalog()}?q=${encodeURIComponent(q)}`);
    expect(res.statusCode, res.body).toBe(200);
    return catalogSearchResponseSchema.parse(res.json()).results.map((r) => r.metadata.title);
  };
  const answered = () => t.lectern.db.readers?.load.answered ?? 0;

  beforeAll(async () => {
    t = await startTestApp(engine);
    [reader] = await signedInSubscribers(t.lectern, [`readers-${engine}@example.com`]);
  });
  afterAll(async () => {
    if (!closed) await t?.close();
  });

  it('finds a title the moment its import returns, in the library and inside the book', async () => {
    const { book_id } = await t.lectern.services.importer.importBytes(book(1, 'quillwort'), 'one.epub');
    const before = answered();
    expect(await titlesFor('quillwort')).toEqual(['Reader Thread Book 1']);
    const inside = await reader.get(`${searchPaths.inBook()}?query=quillwort&identifier=${book_id}`);
    expect(inside.statusCode, inside.body).toBe(200);
    expect(inBookSearchResponseSchema.parse(inside.json()).total).toBe(2);
    if (engine === 'sqlite') {
      // the searches' statements ran on the reader threads, not on the event loop's connection
      expect(answered() - before).toBeGreaterThanOrEqual(4);
      expect(t.lectern.db.readers!.load.threads).toBeGreaterThanOrEqual(1);
    } else expect(t.lectern.db.readers).toBeNull();
  });

  it('finds a title imported after the threads have read, on every thread, at once', async () => {
    // every thread busy once, so each has read before the import (a reader holding an old snapshot would miss it)
    expect((await Promise.all([titlesFor('pondweed'), titlesFor('pondweed'), titlesFor('pondweed')])).flat()).toEqual([]);
    await t.lectern.services.importer.importBytes(book(2, 'pondweed'), 'two.epub');
    for (const found of await Promise.all([titlesFor('pondweed'), titlesFor('pondweed'), titlesFor('pondweed'), titlesFor('pondweed')])) {
      expect(found).toEqual(['Reader Thread Book 2']);
    }
  });

  it("reads the home's most-read count (a library-wide aggregate) on the reader threads too", async () => {
    const before = answered();
    const res = await reader.get(searchPaths.home());
    expect(res.statusCode, res.body).toBe(200);
    if (engine === 'sqlite') expect(answered()).toBeGreaterThan(before);
  });

  it('closing the app ends the reader threads', async () => {
    closed = true;
    const readers = t.lectern.db.readers;
    await t.close();
    if (engine === 'sqlite') expect(readers!.load).toMatchObject({ threads: 0, busy: 0, waiting: 0 });
  });
});
