/**
 * Hostile files, built in the tests themselves: each is small on disk and costly to whoever trusts it.
 * - zipBomb: an EPUB whose one extra entry inflates 1000 times (zeros);
 * - lyingZip: an EPUB whose central directory says an entry is 100 bytes while its data inflates to megabytes;
 * - pdfDecompressionBomb: a PDF whose object stream (which pdf-lib inflates at load) decodes to `decodedMb` MB;
 * - pdfHeapBomb: a PDF whose object stream holds one array of millions of numbers: each becomes a JavaScript
 *   object, so a few KB on disk ask pdf-lib for gigabytes of heap (the 3 MB PDF that grew the server to 5.3 GB);
 * - slowEpub: a valid EPUB with many long chapters, memory-light but slow to sanitise.
 */
import { createDeflate } from 'node:zlib';
import { unzipSync } from 'fflate';
import { buildZip, declareUncompressedSize, minimalEpub3, xhtml } from './helpers.ts';

const MB = 1024 * 1024;

/** The deflate (zlib) stream of `prefix` then `chunk` repeated `times` times, without holding the inflated whole. */
async function deflateRepeated(prefix: string, chunk: Buffer, times: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (b: Buffer) => out.push(b));
  const ended = new Promise((resolve) => deflate.on('end', resolve));
  deflate.write(Buffer.from(prefix, 'latin1'));
  for (let i = 0; i < times; i++) if (!deflate.write(chunk)) await new Promise((resolve) => deflate.once('drain', resolve));
  deflate.end();
  await ended;
  return Buffer.concat(out);
}

/** An EPUB with OEBPS/data.bin in its manifest, so the importer reads it. */
function epubWith(name: string, data: Uint8Array): Uint8Array {
  const opf = minimalEpub3Opf.replace('</manifest>', `<item id="data" href="${name}" media-type="application/octet-stream"/></manifest>`);
  return minimalEpub3({ 'OEBPS/content.opf': opf, [`OEBPS/${name}`]: data });
}
/** The stock package document, read back out of the stock book. */
const minimalEpub3Opf = new TextDecoder().decode(unzipSync(minimalEpub3())['OEBPS/content.opf']);

export function zipBomb(inflatedMb: number): Uint8Array {
  return epubWith('data.bin', new Uint8Array(inflatedMb * MB));
}

export function lyingZip(inflatedMb: number): Uint8Array {
  return declareUncompressedSize(epubWith('data.bin', new Uint8Array(inflatedMb * MB)), 'OEBPS/data.bin', 100);
}

function pdfWithObjectStream(stream: Buffer): Buffer {
  const head = `%PDF-1.7
1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj
2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj
3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >> endobj
4 0 obj << /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${stream.length} >>
stream
`;
  const tail = `
endstream
endobj
trailer << /Root 1 0 R /Size 6 >>
%%EOF
`;
  return Buffer.concat([Buffer.from(head, 'latin1'), stream, Buffer.from(tail, 'latin1')]);
}

export async function pdfDecompressionBomb(decodedMb: number): Promise<Buffer> {
  // Object 5 at offset 0 of the stream, then spaces: nothing to parse, everything to inflate.
  return pdfWithObjectStream(await deflateRepeated('5 0 ', Buffer.alloc(MB, 0x20), decodedMb));
}

export async function pdfHeapBomb(arraysMillions: number): Promise<Buffer> {
  // "[" then millions of "[]": pdf-lib makes an object (and an array) of each, some 100 bytes of heap for 2 on disk.
  return pdfWithObjectStream(await deflateRepeated('5 0 [', Buffer.from('[]'.repeat(MB / 2)), arraysMillions));
}

export function slowEpub(chapters: number, chapterKb: number): Uint8Array {
  // Numbered paragraphs: repetitive enough to be small, not so repetitive that it passes for a zip bomb.
  const chapterBody = (i: number): string => {
    const paragraphs: string[] = [];
    for (let j = 0, size = 0; size < chapterKb * 1024; j++) {
      const p = `<p id="p${i}-${j}">Paragraph ${j} of chapter ${i}, with <b>some</b> and <i>more</i> words.</p>`;
      paragraphs.push(p);
      size += p.length;
    }
    return paragraphs.join('');
  };
  const items: string[] = [];
  const spine: string[] = [];
  const files: Record<string, string> = {};
  for (let i = 0; i < chapters; i++) {
    items.push(`<item id="c${i}" href="c${i}.xhtml" media-type="application/xhtml+xml"/>`);
    spine.push(`<itemref idref="c${i}"/>`);
    files[`OEBPS/c${i}.xhtml`] = xhtml(`Chapter ${i}`, `<h1>Chapter ${i}</h1>${chapterBody(i)}`);
  }
  return buildZip({
    mimetype: 'application/epub+zip',
    'META-INF/container.xml': `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`,
    'OEBPS/content.opf': `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="u"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="u">slow-${chapters}-${chapterKb}</dc:identifier><dc:title>A Slow Book</dc:title></metadata><manifest>${items.join('')}</manifest><spine>${spine.join('')}</spine></package>`,
    ...files,
  });
}
