/**
 * A common word's results paged with the real next links, on both engines: more works than a page, several of them
 * tied in rank (one title, one author, one text), one work in two formats imported far apart, the sample books
 * among them (found by their text, behind more passages than one walk sees). Every matching work is listed exactly
 * once across the pages (the e2e "a reader pages a common word's results to the page where Alice is").
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { catalogSearchResponseSchema, searchPaths } from '@lectern/core';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, type TestClient } from '../helpers/client.ts';
import { importSampleLibrary } from '../../src/first-start.ts';
import { SAMPLE_CACHE } from '../helpers/sample.ts';
import { epubBook } from '../ingest/helpers.ts';

describe.each(ENGINES)('search pages list every work once (%s)', (engine) => {
  let t: TestApp;
  let reader: TestClient;
  const text = (n: number) => Array.from({ length: n }, (_, i) => `<p>Line ${i + 1}: the keeper and the lamp.</p>`).join('');
  const book = (n: number, title: string) =>
    epubBook({
      identifier: `urn:uuid:31313131-0000-4000-8000-${String(n).padStart(12, '0')}`,
      title,
      creator: 'Tie Example',
      chapters: [{ path: 'one.xhtml', label: 'One', body: `<h1>One</h1>${text(4)}` }],
    });
  const epub = (n: number, title: string) => t.lectern.services.importer.importBytes(book(n, title), `fixture-${n}.epub`);
  const pdf = async (title: string, author: string) => {
    const doc = await PDFDocument.create();
    doc.setTitle(title);
    doc.setAuthor(author);
    const font = await doc.embedFont(StandardFonts.TimesRoman);
    doc.addPage([595, 842]).drawText('Line one: the keeper and the lamp.', { x: 60, y: 760, size: 14, font });
    return t.lectern.services.importer.importBytes(await doc.save(), `${title}.pdf`);
  };

  beforeAll(async () => {
    t = await startTestApp(engine);
    // a work whose EPUB is older than every sample book, its PDF newer than all of them
    const lamp = await epub(0, 'Two Formats of the Lamp');
    // and one whose PDF (its lead) is older than the samples, its EPUB newer
    await pdf('Lead Is the Paper', 'Tie Example');
    await epub(40, 'Quiet Pond');
    expect((await importSampleLibrary(t.lectern.services, t.lectern.config, { cacheDir: SAMPLE_CACHE })).failed).toEqual([]);
    // tied in rank: one title word, one author, one text; some with "the" in their titles, some only in the text
    for (let n = 1; n <= 22; n++) await epub(n, n % 2 ? `The Keeper ${n}` : `Keeper ${n}`);
    await pdf('Two Formats of the Lamp', 'Tie Example');
    await epub(41, 'Lead Is the Paper');
    // a new edition of the old EPUB: its rows are the newest now
    const file = path.join(os.tmpdir(), `lamp-${engine}-${process.pid}.epub`);
    fs.writeFileSync(file, book(0, 'Two Formats of the Lamp'));
    await t.lectern.services.importer.replacePath(file, lamp.book_id);
    fs.rmSync(file);
    [reader] = await signedInSubscribers(t.lectern, [`works-paging-${engine}@example.com`]);
  });
  afterAll(() => t?.close());

  it.each([20, 7, 1])('walks "the" page by page with the next links: each work once, Alice among them (%i a page)', async (size) => {
    const titles: string[] = [];
    let next: string | null = `${searchPaths.catalog()}?q=the${size === 20 ? '' : `&page_size=${size}`}`;
    let last = null;
    while (next) {
      expect(titles.length, 'pages never end').toBeLessThan(200);
      const res = await reader.get(next);
      expect(res.statusCode, res.body).toBe(200);
      last = catalogSearchResponseSchema.parse(res.json());
      titles.push(...last.results.map((r) => r.metadata.title));
      next = last.next;
    }
    const repeated = titles.filter((title, i) => titles.indexOf(title) !== i);
    expect(repeated, JSON.stringify(titles)).toEqual([]);
    for (const title of ["Alice's Adventures in Wonderland", 'The War of the Worlds', 'Two Formats of the Lamp', 'Keeper 2', 'The Keeper 21', 'Lead Is the Paper', 'Quiet Pond', 'Moby-Dick'])
      expect(titles, JSON.stringify(titles)).toContain(title);
    expect(titles.length).toBeGreaterThan(20);
    // the whole set at once agrees with the pages
    const all = catalogSearchResponseSchema.parse((await reader.get(`${searchPaths.catalog()}?q=the&page_size=50`)).json());
    expect([...titles].sort()).toEqual(all.results.map((r) => r.metadata.title).sort());
    // tsc narrows `last` to null here (it is assigned in the loop above); the type-aware lint knows better
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
    expect(last!.count).toBe(titles.length);
  });
});
