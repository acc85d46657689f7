/**
 * What makes two files one work (docs/decisions.md "What makes two files one work"), on both engines:
 * publications with different identifiers and different content are two works even when their titles and authors
 * match — the W3C EPUB tests, titled with their ids, had all become "Link to main page" and one work of 188
 * editions. One book in two formats (EPUB and PDF), one ISBN, or one package identifier is one work.
 */
import { bookDetailSchema } from '@lectern/core';
import { unzipSync } from 'fflate';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { minimalEpub3, xhtml } from '../ingest/helpers.ts';

const base = minimalEpub3();
const OPF = new TextDecoder().decode(unzipSync(base)['OEBPS/content.opf']);
const NAV = new TextDecoder().decode(unzipSync(base)['OEBPS/nav/toc.xhtml']);

/** An EPUB made as the W3C tests are: its own identifier and dc:title, "Link to main page" as its contents. */
function publication(identifier: string, title: string, text: string): Uint8Array {
  return minimalEpub3({
    'OEBPS/content.opf': OPF.replace('urn:uuid:5a1e0c3e-0000-4000-8000-000000000001', identifier).replace('A Small Book', title),
    'OEBPS/nav/toc.xhtml': NAV.replace('>Part One<', '>Link to main page<'),
    'OEBPS/text/ch2.xhtml': xhtml('Chapter Two', `<h1>Two</h1><p id="end">${text}</p>`),
  });
}

async function pdf(title: string, author: string, subject = ''): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(title);
  doc.setSubject(subject);
  doc.setAuthor(author);
  doc.addPage();
  return doc.save();
}

describe.each(ENGINES)('works in the catalog on %s', (engine) => {
  let t: TestApp;
  let anon: TestClient;
  const formatsOf = async (bookId: string) => bookDetailSchema.parse((await anon.get(`/api/v1/book/${bookId}/`)).json()).formats.map((f) => f.book_id);
  const cards = async (title: string) =>
    ((await anon.get('/api/v1/book/?page_size=100')).json().results as { book_id: string; title: string }[]).filter((b) => b.title === title).map((b) => b.book_id);

  beforeAll(async () => {
    t = await startTestApp(engine);
    anon = new TestClient(t.lectern.app);
  });
  afterAll(() => t.close());

  it('keeps two publications with the same title and author but different identifiers and content apart', async () => {
    const importer = t.lectern.services.importer;
    // Test ids as titles stay the titles, each its own work.
    const woff = await importer.importBytes(publication('cnt-css-fonts_woff', 'cnt-css-fonts_woff', 'WOFF'), 'cnt-css-fonts_woff.epub');
    const order = await importer.importBytes(publication('pkg-title-order', 'pkg-title-order', 'Order'), 'pkg-title-order.epub');
    expect([woff.title, order.title]).toEqual(['cnt-css-fonts_woff', 'pkg-title-order']);
    expect(await cards('Link to main page')).toEqual([]);
    expect(await formatsOf(woff.book_id)).toEqual([woff.book_id]);

    // Same title, same author, other identifiers and other text: two works, two cards.
    const first = await importer.importBytes(publication('urn:uuid:00000000-0000-4000-8000-00000000000a', 'Shared Title', 'One text.'), 'a.epub');
    const second = await importer.importBytes(publication('urn:uuid:00000000-0000-4000-8000-00000000000b', 'Shared Title', 'Another text.'), 'b.epub');
    expect((await cards('Shared Title')).sort()).toEqual([first.book_id, second.book_id].sort());
    expect(await formatsOf(first.book_id)).toEqual([first.book_id]);
    expect(await formatsOf(second.book_id)).toEqual([second.book_id]);

    // A PDF of it would be ambiguous between the two: a work of its own too.
    const loose = await importer.importBytes(await pdf('Shared Title', 'Ada Lovelace'), 'shared.pdf');
    expect(await formatsOf(loose.book_id)).toEqual([loose.book_id]);
    expect((await cards('Shared Title')).length).toBe(3);
  });

  it('makes one work of one book in two formats, or of two files with one identifier, but not of a second file in one format', async () => {
    const importer = t.lectern.services.importer;
    const epub = await importer.importBytes(publication('urn:uuid:00000000-0000-4000-8000-0000000000c1', 'Two Formats', 'The text.'), 'two.epub');
    const asPdf = await importer.importBytes(await pdf('Two Formats', 'Ada Lovelace'), 'two-formats.pdf');
    expect(await formatsOf(epub.book_id)).toEqual([epub.book_id, asPdf.book_id]);
    // A second PDF with that title and author is another document: the work has its PDF already.
    const otherPdf = await importer.importBytes(await pdf('Two Formats', 'Ada Lovelace', 'another document'), 'two-formats-again.pdf');
    expect(await formatsOf(otherPdf.book_id)).toEqual([otherPdf.book_id]);
    // The same package identifier, other content: a revision of the same publication, one work.
    const revision = await importer.importBytes(publication('urn:uuid:00000000-0000-4000-8000-0000000000c1', 'Two Formats', 'The text, corrected.'), 'two-v2.epub');
    expect(revision.book_id).not.toBe(epub.book_id);
    expect(await formatsOf(epub.book_id)).toEqual([epub.book_id, asPdf.book_id, revision.book_id]);
    expect((await cards('Two Formats')).sort()).toEqual([epub.book_id, otherPdf.book_id].sort());
  });
});
