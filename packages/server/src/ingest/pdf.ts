/**
 * PDF importer. A PDF is stored whole and shown by pdf.js in the browser, so the server only needs its
 * catalogue facts: the document information dictionary (title, author, subject, keywords, creation date), the
 * catalog's /Lang and the page count. pdf-lib reads them without rendering anything.
 */
import { PDFDocument, PDFName, PDFString, PDFHexString } from 'pdf-lib';
import { isoDay, looksLikeFileName, titleFromFileName, uniqueNonEmpty } from './metadata.ts';
import { titleFromFirstPage } from './pdf-text.ts';
import { IngestError, type ParsedTitle } from './types.ts';

const PDF_MEDIA_TYPE = 'application/pdf';
const DOCUMENT_PATH = 'document.pdf';

export async function parsePdf(data: Uint8Array, fileName: string): Promise<ParsedTitle> {
  if (new TextDecoder('latin1').decode(data.subarray(0, 5)) !== '%PDF-') throw new IngestError('not a PDF');
  let document: PDFDocument;
  try {
    document = await PDFDocument.load(data, { ignoreEncryption: true, updateMetadata: false });
  } catch (error) {
    throw new IngestError(`the PDF cannot be read (${error instanceof Error ? error.message : String(error)})`);
  }

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
    resources: [{ fullPath: DOCUMENT_PATH, mediaType: PDF_MEDIA_TYPE, data }],
    cover: null,
    pageCount,
    warnings,
  };
}

/** The Title entry, unless it is a file name; else the first page's largest type; else the file name. */
async function pdfTitle(infoTitle: string, data: Uint8Array, fileName: string, warnings: string[]): Promise<string> {
  if (infoTitle && !looksLikeFileName(infoTitle, fileName)) return infoTitle;
  const printed = await titleFromFirstPage(data);
  if (printed && !looksLikeFileName(printed, fileName)) {
    warnings.push(`the PDF has no usable title; "${printed}" is taken from its first page`);
    return printed;
  }
  if (infoTitle) return infoTitle;
  warnings.push('the PDF has no title; the file name is used as the title');
  return titleFromFileName(fileName);
}

function splitList(text: string, separator: RegExp): string[] {
  return uniqueNonEmpty(text.split(separator));
}

function catalogLanguage(document: PDFDocument): string | null {
  const lang = document.catalog.lookup(PDFName.of('Lang'));
  const text = lang instanceof PDFString || lang instanceof PDFHexString ? lang.decodeText().trim() : '';
  return text || null;
}
