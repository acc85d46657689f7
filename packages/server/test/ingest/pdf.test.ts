import { readFileSync } from 'node:fs';
import { PDFDocument } from 'pdf-lib';
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
    for (const book of debianPdfs) {
      const parsed = await parsePdf(new Uint8Array(readFileSync(book.file)), book.file);
      expect(parsed.pageCount, book.origin).toBeGreaterThan(10);
    }
  });
});

describe('parsePdf against decompression bombs', () => {
  it("counts what pdf-lib's decoders inflate and stops at the budget", async () => {
    const { pdfDecompressionBomb } = await import('./hostile.ts');
    const bomb = new Uint8Array(await pdfDecompressionBomb(24));
    await expect(parsePdf(bomb, 'bomb.pdf', { maxDecodedBytes: 16 * 1024 * 1024 })).rejects.toThrow(
      new IngestError("the PDF's compressed object streams decode to more than 16 MB (the limit for a PDF's internal structure): it looks like a decompression bomb"),
    );
    // Under a budget it fits, the same file loads: the bound is on bytes, not on the kind of file.
    await expect(parsePdf(bomb, 'bomb.pdf', { maxDecodedBytes: 32 * 1024 * 1024 })).resolves.toMatchObject({ pageCount: 1 });
  });
});
