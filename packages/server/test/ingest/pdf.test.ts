import { readFileSync } from 'node:fs';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { isGenericHeading, looksLikeFileName } from '../../src/ingest/metadata.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { parsePdf } from '../../src/ingest/pdf.ts';
import { IngestError } from '../../src/ingest/types.ts';
import { fetchSampleLibrary, type SampleBook } from '../../src/sample/fetch.ts';
import { FETCH_TIMEOUT_MS, SAMPLE_CACHE } from './helpers.ts';

let debianPdfs: SampleBook[] = [];
beforeAll(async () => {
  const books = await fetchSampleLibrary(SAMPLE_CACHE, { withDebian: true, log: (message) => console.log(message) });
  debianPdfs = books.filter((book) => book.origin.startsWith('debian ') && book.file.endsWith('.pdf'));
}, FETCH_TIMEOUT_MS);

async function buildPdf(fill: (document: PDFDocument) => void): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  fill(document);
  return document.save();
}

describe('parsePdf', () => {
  it('reads the metadata and page count of a PDF', async () => {
    const data = await buildPdf((document) => {
      document.setTitle('Packaging Handbook');
      document.setAuthor('Ada Lovelace; Charles Babbage and Mary Somerville');
      document.setKeywords(['debian, packaging; policy']);
      document.setSubject('Packaging');
      document.setCreationDate(new Date('2021-03-04T05:06:07Z'));
      document.addPage();
      document.addPage();
      document.addPage();
    });
    const title = await parsePdf(data, 'handbook.pdf');
    expect(title).toMatchObject({
      source: 'application/pdf',
      identifier: null,
      title: 'Packaging Handbook',
      authors: ['Ada Lovelace', 'Charles Babbage', 'Mary Somerville'],
      subjects: ['debian', 'packaging', 'policy'],
      issued: '2021-03-04',
      pageCount: 3,
      cover: null,
      warnings: [],
    });
    expect(title.chapters).toEqual([
      { fullPath: 'document.pdf', label: 'Packaging Handbook', mediaType: 'application/pdf', rawHtml: '', textLength: 0, linear: true },
    ]);
    expect(title.resources).toEqual([{ fullPath: 'document.pdf', mediaType: 'application/pdf', data }]);
    expect(title.toc).toEqual([{ label: 'Packaging Handbook', fullPath: 'document.pdf', fragment: null, depth: 1 }]);
  });

  it('falls back to the file name when the PDF has no title', async () => {
    const data = await buildPdf((document) => document.addPage());
    const title = await parsePdf(data, 'uploads/Quarterly Report.pdf');
    expect(title.title).toBe('Quarterly Report');
    expect(title.warnings).toEqual(['the PDF has no title; the file name is used as the title']);
  });

  it('takes the title printed largest on the first page when the document information has none, or a file name', async () => {
    const printed = async (infoTitle: string | null) => {
      const document = await PDFDocument.create();
      if (infoTitle) document.setTitle(infoTitle);
      const font = await document.embedFont(StandardFonts.Helvetica);
      const page = document.addPage([600, 800]);
      page.drawText('Annual Report', { x: 50, y: 700, size: 28, font });
      page.drawText('of the Lectern Society', { x: 50, y: 660, size: 28, font });
      page.drawText('Prepared by the treasurer for the members.', { x: 50, y: 500, size: 11, font });
      page.drawText('Page 1', { x: 50, y: 50, size: 9, font });
      return parsePdf(await document.save(), 'uploads/annual-report.pdf');
    };
    const untitled = await printed(null);
    expect(untitled.title).toBe('Annual Report of the Lectern Society');
    expect(untitled.warnings).toEqual(['the PDF has no usable title; "Annual Report of the Lectern Society" is taken from its first page']);
    expect((await printed('Microsoft Word - report_final.docx')).title).toBe('Annual Report of the Lectern Society');
    expect((await printed('annual-report')).title).toBe('Annual Report of the Lectern Society');
    expect((await printed('The Real Title')).title).toBe('The Real Title');
  });

  it('takes no heading that names a place for a title, and not the file name itself', async () => {
    const made = async (infoTitle: string | null, largest: string) => {
      const document = await PDFDocument.create();
      if (infoTitle) document.setTitle(infoTitle);
      const font = await document.embedFont(StandardFonts.Helvetica);
      const page = document.addPage([600, 800]);
      page.drawText(largest, { x: 50, y: 700, size: 28, font });
      page.drawText('Some words of the text.', { x: 50, y: 500, size: 11, font });
      return (await parsePdf(await document.save(), 'uploads/field_notes.pdf')).title;
    };
    expect(await made('field-notes-v2', 'Contents')).toBe('field-notes-v2');
    expect(await made('field_notes.pdf', 'Table of Contents')).toBe('Field notes');
    expect(await made(null, 'Page 1')).toBe('Field notes');
  });

  it('tells file names from titles', () => {
    for (const name of ['developers-reference', 'fhs-3.0', 'report_v2', 'notes.docx', 'Untitled', 'Microsoft Word - a b.doc']) {
      expect(looksLikeFileName(name), name).toBe(true);
    }
    expect(looksLikeFileName('quarterly', 'quarterly.pdf')).toBe(true);
    expect(looksLikeFileName('Dracula', 'Dracula.epub')).toBe(false);
    // a heading that names a place in any book is no better than the file name
    for (const heading of ['Page 1', 'Chapter 3', 'PART IV', 'Cover', 'Table of Contents', 'Title Page', 'Copyright.']) expect(isGenericHeading(heading), heading).toBe(true);
    for (const heading of ["Debian Developer's Reference", 'Chapter One: The Beginning', 'Pages from a Diary', 'The Cover Story']) expect(isGenericHeading(heading), heading).toBe(false);
    for (const title of ['Moby-Dick', 'Debian Policy Manual', 'Quarterly Report', 'R2-D2 Manual', 'X.509']) {
      expect(looksLikeFileName(title), title).toBe(false);
    }
  });

  it('refuses files that are not PDFs or cannot be read', async () => {
    await expect(parsePdf(new TextEncoder().encode('PK\u0003\u0004 a zip'), 'x.pdf')).rejects.toThrow(new IngestError('not a PDF'));
    const data = await buildPdf((document) => document.addPage());
    await expect(parsePdf(data.subarray(0, data.length >> 1), 'half.pdf')).rejects.toThrow(/^the PDF cannot be read/);
    await expect(parsePdf(data.subarray(0, data.length >> 1), 'half.pdf')).rejects.toBeInstanceOf(IngestError);
  });

  it("reads Debian's PDFs", async (context) => {
    if (debianPdfs.length === 0) context.skip(); // apt-get is not available on this machine
    const policy = debianPdfs.find((book) => book.file.endsWith('policy.pdf'));
    expect(policy, 'debian-policy ships policy.pdf.gz').toBeDefined();
    const title = await parsePdf(new Uint8Array(readFileSync(policy?.file ?? '')), 'policy.pdf');
    expect(title.title).toBe('Debian Policy Manual');
    expect(title.authors).toEqual(['The Debian Policy Mailing List']);
    expect(title.pageCount).toBeGreaterThan(100);
    expect(title.issued).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // The FHS sets no Title: its first page says what it is.
    const fhs = debianPdfs.find((book) => book.file.endsWith('fhs-3.0.pdf'));
    expect((await parsePdf(new Uint8Array(readFileSync(fhs?.file ?? '')), 'fhs-3.0.pdf')).title).toBe('Filesystem Hierarchy Standard');
    for (const book of debianPdfs) {
      const parsed = await parsePdf(new Uint8Array(readFileSync(book.file)), book.file);
      expect(parsed.pageCount, book.origin).toBeGreaterThan(10);
    }
  });
});

describe('parsePdf against decompression bombs', () => {
  it("counts what pdf-lib's decoders inflate and stops at the budget", async () => {
    const { pdfDecompressionBomb } = await import('../fixtures/hostile.ts');
    const bomb = new Uint8Array(await pdfDecompressionBomb(24));
    await expect(parsePdf(bomb, 'bomb.pdf', { maxDecodedBytes: 16 * 1024 * 1024 })).rejects.toThrow(
      new IngestError("the PDF's compressed object streams decode to more than 16 MB (the limit for a PDF's internal structure): it looks like a decompression bomb"),
    );
    // Under a budget it fits, the same file loads: the bound is on bytes, not on the kind of file.
    await expect(parsePdf(bomb, 'bomb.pdf', { maxDecodedBytes: 32 * 1024 * 1024 })).resolves.toMatchObject({ pageCount: 1 });
  });
});
