/**
 * PDF importer. A PDF is stored whole and shown by pdf.js in the browser, so the server only needs its
 * catalogue facts: the document information dictionary (title, author, subject, keywords, creation date), the
 * catalog's /Lang and the page count. pdf-lib reads them without rendering anything.
 *
 * pdf-lib decompresses every object stream and cross-reference stream while it loads, in JavaScript and with
 * no limit: a 3 MB PDF whose object stream inflates to gigabytes held the server for half a minute and grew it
 * past 5 GB. Every buffer pdf-lib's decoders grow is therefore counted against a budget for the document.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import { PDFDocument, PDFName, PDFString, PDFHexString } from 'pdf-lib';
import { isFileNameItself, isGenericHeading, isoDay, looksLikeFileName, prettyFileTitle, uniqueNonEmpty } from './metadata.ts';
import { titleFromFirstPage } from './pdf-text.ts';
import { IngestError, type ParsedTitle } from './types.ts';

const PDF_MEDIA_TYPE = 'application/pdf';
const DOCUMENT_PATH = 'document.pdf';
const MB = 1024 * 1024;
/** Object and cross-reference streams of real documents decode to a few MB; this leaves room for big ones. */
export const MAX_PDF_DECODED_BYTES = 64 * MB;

interface DecodeBudget {
  limit: number;
  used: number;
  exceeded: boolean;
  grown: WeakMap<object, number>;
}
const decodeBudget = new AsyncLocalStorage<DecodeBudget>();
installDecodeBudget();

export async function parsePdf(data: Uint8Array, fileName: string, options: { maxDecodedBytes?: number } = {}): Promise<ParsedTitle> {
  if (new TextDecoder('latin1').decode(data.subarray(0, 5)) !== '%PDF-') throw new IngestError('not a PDF');
  const budget: DecodeBudget = { limit: options.maxDecodedBytes ?? MAX_PDF_DECODED_BYTES, used: 0, exceeded: false, grown: new WeakMap() };
  const overBudget = () =>
    new IngestError(`the PDF's compressed object streams decode to more than ${Math.round(budget.limit / MB)} MB (the limit for a PDF's internal structure): it looks like a decompression bomb`);
  let document: PDFDocument;
  try {
    document = await decodeBudget.run(budget, () => PDFDocument.load(data, { ignoreEncryption: true, updateMetadata: false }));
  } catch (error) {
    if (budget.exceeded) throw overBudget();
    throw new IngestError(`the PDF cannot be read (${error instanceof Error ? error.message : String(error)})`);
  }
  // pdf-lib forgives objects it cannot parse, so the budget error may have been swallowed on the way.
  if (budget.exceeded) throw overBudget();

  const warnings: string[] = [];
  if (document.isEncrypted) warnings.push('the PDF is encrypted; its metadata may be unreadable');
  const info = (read: () => string | undefined): string => {
    try {
      return read()?.trim() ?? '';
    } catch {
      return '';
    }
  };
  const title = await pdfTitle(info(() => document.getTitle()), data, fileName, warnings);
  let issued: string | null = null;
  try {
    const created = document.getCreationDate();
    issued = created ? isoDay(created) : null;
  } catch {
    warnings.push('the PDF creation date is malformed; ignored');
  }
  const pageCount = document.getPageCount();
  if (pageCount === 0) throw new IngestError('the PDF has no pages');

  return {
    source: PDF_MEDIA_TYPE,
    identifier: null,
    title,
    authors: splitList(info(() => document.getAuthor()), /\s*(?:;|,|\band\b)\s*/i),
    publishers: [],
    issued,
    language: catalogLanguage(document),
    description: null,
    subjects: splitList(`${info(() => document.getKeywords())};${info(() => document.getSubject())}`, /\s*[;,]\s*/),
    chapters: [
      { fullPath: DOCUMENT_PATH, label: title, mediaType: PDF_MEDIA_TYPE, rawHtml: '', textLength: 0, linear: true },
    ],
    sampleIndex: 0,
    toc: [{ label: title, fullPath: DOCUMENT_PATH, fragment: null, depth: 1 }],
    pageList: [],
    pageProgression: null,
    landmarks: [],
    resources: [{ fullPath: DOCUMENT_PATH, mediaType: PDF_MEDIA_TYPE, data }],
    cover: null,
    pageCount,
    warnings,
  };
}

/**
 * The Title entry, unless it is a file name (word processors and PDF printers put one there); else the first page's
 * largest type, unless that names a place rather than the document ("Contents", "Page 1"); else the Title entry
 * after all; else the file name. A PDF's links and outline are never read for a title.
 */
async function pdfTitle(infoTitle: string, data: Uint8Array, fileName: string, warnings: string[]): Promise<string> {
  if (infoTitle && !looksLikeFileName(infoTitle, fileName)) return infoTitle;
  const printed = await titleFromFirstPage(data);
  if (printed && !looksLikeFileName(printed, fileName) && !isGenericHeading(printed)) {
    warnings.push(`the PDF has no usable title; "${printed}" is taken from its first page`);
    return printed;
  }
  // a slug says more than nothing; the file's very name ("report.pdf") does not
  if (infoTitle && !isFileNameItself(infoTitle, fileName)) return infoTitle;
  warnings.push('the PDF has no title; the file name is used as the title');
  return prettyFileTitle(fileName);
}

function splitList(text: string, separator: RegExp): string[] {
  return uniqueNonEmpty(text.split(separator));
}

function catalogLanguage(document: PDFDocument): string | null {
  const lang = document.catalog.lookup(PDFName.of('Lang'));
  const text = lang instanceof PDFString || lang instanceof PDFHexString ? lang.decodeText().trim() : '';
  return text || null;
}

/**
 * Every pdf-lib decoder (Flate, LZW, ASCII85, ...) grows its output through DecodeStream.ensureBuffer; counting
 * there bounds them all. pdf-lib (pinned) has no option for this and does not export the class, hence the patch;
 * the budget applies only inside parsePdf.
 */
function installDecodeBudget(): void {
  const require = createRequire(import.meta.url);
  const { default: DecodeStream } = require('pdf-lib/cjs/core/streams/DecodeStream.js') as {
    default: { prototype: { ensureBuffer(this: object, requested: number): Uint8Array } };
  };
  const ensureBuffer = DecodeStream.prototype.ensureBuffer;
  if ((ensureBuffer as { budgeted?: boolean }).budgeted) return;
  const budgeted = function (this: object, requested: number): Uint8Array {
    const budget = decodeBudget.getStore();
    if (budget) {
      const before = budget.grown.get(this) ?? 0;
      if (requested > before) {
        budget.used += requested - before;
        budget.grown.set(this, requested);
        if (budget.used > budget.limit) {
          budget.exceeded = true;
          throw new IngestError('decode budget exceeded');
        }
      }
    }
    return ensureBuffer.call(this, requested);
  };
  DecodeStream.prototype.ensureBuffer = Object.assign(budgeted, { budgeted: true });
}
