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
import { buildServices } from '../../src/app.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, type TestClient } from '../helpers/client.ts';
import { buildZip, CONTAINER_XML, PNG, xhtml } from '../ingest/helpers.ts';

function edition(title: string, text: string): Uint8Array {
  return buildZip({
    mimetype: 'application/epub+zip',
    'META-INF/container.xml': CONTAINER_XML,
    'OEBPS/content.opf': `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="uid">urn:uuid:7e1ace00-0000-4000-8000-0000000e15e1</dc:identifier>
    <dc:title>${title}</dc:title><dc:creator>Ann Editor</dc:creator><dc:language>en</dc:language>
    <meta property="dcterms:modified">2024-01-01T00:00:00Z</meta>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="cover" href="cover.png" media-type="image/png" properties="cover-image"/>
    <item id="one" href="one.xhtml" media-type="application/xhtml+xml"/>
    <item id="two" href="two.xhtml" media-type="application/xhtml+xml"/>
  </manifest>
  <spine><itemref idref="one"/><itemref idref="two"/></spine>
</package>`,
    'OEBPS/nav.xhtml': xhtml('Contents', '<nav epub:type="toc"><ol><li><a href="one.xhtml">One</a></li><li><a href="two.xhtml">Two</a></li></ol></nav>'),
    'OEBPS/cover.png': PNG,
    'OEBPS/one.xhtml': xhtml('One', `<h1>One</h1><p>${text} ${'Filler words to make a page of it. '.repeat(20)}</p>`),
    'OEBPS/two.xhtml': xhtml('Two', `<h1>Two</h1><p>${'The second chapter does not change. '.repeat(20)}</p>`),
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
    await vi.waitFor(async () => expect(await chapter()).toContain('speaks of gales'), { timeout: 5_000, interval: 100 });
    const after = await detail();
    expect(after.title).toBe('The Harbour Log, Corrected');
    // the same address, now the new edition's file (the row kept had the old folder's path)
    expect((await reader.get(after.cover_image_url!)).statusCode).toBe(200);
  });
});
