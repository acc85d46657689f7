/**
 * A new edition made by another process — the command line's `import --replace` beside a running server, or another
 * server behind PostgreSQL — reaches the server at once, not after its cache's minute: the server had kept the old
 * edition's chapter, title and cover path in memory, and the replacement deleted the old edition's folder
 * (services/catalog-changes.ts). On both engines.
 */
import fs from 'node:fs';
import path from 'node:path';
import { bookDetailSchema, chapterContentSchema } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildServices } from '../../src/build-services.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, type TestClient } from '../helpers/client.ts';
import { epubBook, PNG } from '../ingest/helpers.ts';

function edition(title: string, text: string): Uint8Array {
  return epubBook({
    identifier: 'urn:uuid:7e1ace00-0000-4000-8000-0000000e15e1',
    title,
    creator: 'Ann Editor',
    cover: PNG,
    chapters: [
      { path: 'one.xhtml', label: 'One', body: `<h1>One</h1><p>${text} ${'Filler words to make a page of it. '.repeat(20)}</p>` },
      { path: 'two.xhtml', label: 'Two', body: `<h1>Two</h1><p>${'The second chapter does not change. '.repeat(20)}</p>` },
    ],
  });
}

describe.each(ENGINES)('a new edition made by another process, on %s', (engine) => {
  let t: TestApp;
  let reader: TestClient;
  let bookId: string;

  beforeAll(async () => {
    t = await startTestApp(engine);
    [reader] = await signedInSubscribers(t.lectern, ['reader@example.com']);
    const first = path.join(t.dataDir, 'first.epub');
    fs.writeFileSync(first, edition('The Harbour Log', 'The first edition speaks of storms.'));
    bookId = (await t.lectern.services.importer.importFile(first, 'first.epub')).book_id;
  });
  afterAll(async () => t?.close());

  it('is served by the running server within a second: new text, title and cover', async () => {
    const chapter = async () => chapterContentSchema.parse((await reader.get(`/api/v1/book/${bookId}/chapter/one.xhtml`)).json()).content;
    const detail = async () => bookDetailSchema.parse((await reader.get(`/api/v1/book/${bookId}/`)).json());
    // The server has read (and keeps) the first edition.
    expect(await chapter()).toContain('speaks of storms');
    const before = await detail();
    expect(before.title).toBe('The Harbour Log');

    // The command line, a process of its own on the same database and DATA_DIR, publishes the second edition.
    const cli = await buildServices(t.lectern.config);
    try {
      const second = path.join(t.dataDir, 'second.epub');
      fs.writeFileSync(second, edition('The Harbour Log, Corrected', 'The second edition speaks of gales.'));
      const done = await cli.services.importer.replaceFile(second, 'second.epub', bookId);
      expect(done.replaced).toEqual({ kept: 2, added: 0, removed: [] });
    } finally {
      await cli.db.close();
    }

    // Well within the cache's minute: the server answers the new edition, and its cover (the old one's folder is gone).
    // Each waited for on its own (the poll runs once a second; CI's load has held it for seconds): a chapter that the
    // server reads again from the database can be the new text while the title row is still the one kept in memory
    // until the poll forgets it (CatalogService.loadChapter takes the title from the cache, the chapter's row fresh).
    await vi.waitFor(async () => expect(await chapter()).toContain('speaks of gales'), { timeout: 15_000, interval: 100 });
    await vi.waitFor(async () => expect((await detail()).title).toBe('The Harbour Log, Corrected'), { timeout: 15_000, interval: 100 });
    const after = await detail();
    // the same address, now the new edition's file (the row kept had the old folder's path)
    expect((await reader.get(after.cover_image_url!)).statusCode).toBe(200);
  });
});
