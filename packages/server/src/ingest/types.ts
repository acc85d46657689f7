/**
 * What the importers hand to the import service: one shape for an EPUB and a PDF, so that storing a title,
 * its chapters, its table of contents and its resources does not care where they came from.
 * Paths are package paths: relative to the OPF file's folder, decoded, without a leading slash or fragment.
 */

import type { ChapterOverlay } from './media-overlays.ts';

import type { ChapterRendition, TitleRendition } from './rendition.ts';

export interface ParsedResource {
  fullPath: string;
  mediaType: string;
  data: Uint8Array;
}

export interface ParsedChapter {
  /** Path inside the package, relative to the OPF file's folder, e.g. "text/ch01.xhtml" (no leading slash, no fragment, decoded). */
  fullPath: string;
  /** How the spine item asks to be laid out (EPUB only; ingest/rendition.ts): layout, spread, side, flow, page size. */
  rendition?: ChapterRendition;
  /** From the TOC when it names this file, else the first <h1> or the <title>, else "Chapter N". */
  label: string;
  /** "application/xhtml+xml", "text/html", or "application/pdf" for a PDF document. */
  mediaType: string;
  /** The file's text as found (decoded UTF-8, BOM stripped); "" for PDFs. */
  rawHtml: string;
  /** Characters of visible text (whitespace runs count as one), for reading-time estimates. */
  textLength: number;
  /** The spine itemref's linear attribute is not "no". */
  linear: boolean;
  /** Why its XHTML is not well-formed XML (markup.ts xmlProblem), when it is not: shown recovered, with a notice. */
  markupError?: string;
  /** Its EPUB Media Overlay (ingest/media-overlays.ts), when the book has one for it. */
  mediaOverlay?: ChapterOverlay;
}

/** One table-of-contents entry; depth starts at 1; the list is flattened in document order. */
export interface ParsedTocEntry {
  label: string;
  fullPath: string;
  fragment: string | null;
  depth: number;
}

export interface ParsedTitle {
  source: 'application/epub+zip' | 'application/pdf';
  /** dc:identifier (the one the package's unique-identifier names, else the first), trimmed; null for PDFs. */
  identifier: string | null;
  /** Never empty: falls back to the file name without its extension. */
  title: string;
  authors: string[];
  publishers: string[];
  /** "YYYY-MM-DD", "YYYY-MM" or "YYYY". */
  issued: string | null;
  language: string | null;
  /** Plain text. */
  description: string | null;
  subjects: string[];
  /** Readable spine items in spine order; a PDF gives one chapter {fullPath: "document.pdf", mediaType: "application/pdf"}. */
  chapters: ParsedChapter[];
  /** Index in `chapters` of the sample chapter: the first real chapter, past the front matter (0 for a PDF). */
  sampleIndex: number;
  toc: ParsedTocEntry[];
  /** The print edition's pages (EPUB 3 page-list nav, EPUB 2 NCX pageList), in order; depth 0. */
  pageList: ParsedTocEntry[];
  /** Landmarks (EPUB 3 landmarks nav, EPUB 2 guide): the body matter's start, the index, …; depth 0. */
  landmarks: (ParsedTocEntry & { type: string })[];
  /** Every manifest item that is not a chapter; for PDFs the PDF itself as "document.pdf". */
  resources: ParsedResource[];
  cover: { fullPath: string; mediaType: string; data: Uint8Array } | null;
  /** PDFs only. */
  pageCount: number | null;
  /** Every rule the book breaks that was forgiven, in plain English. */
  warnings: string[];
  /** dir and language of the title and of each author (by name), as the package gives them (EPUB only). */
  textDirection?: { title: TextDirection; authors: Record<string, TextDirection> };
  /**
   * Which way pages turn: the spine's page-progression-direction; for "default" (or none) the direction of the
   * book's language (Arabic, Hebrew, Persian, Urdu, … turn right to left). null for PDFs.
   */
  pageProgression?: 'ltr' | 'rtl' | null;
  /** The package's rendition:layout, spread, flow and viewport (EPUB only; ingest/rendition.ts). */
  rendition?: TitleRendition;
}

export interface TextDirection {
  dir: 'ltr' | 'rtl' | 'auto' | null;
  lang: string | null;
}

/** Thrown when a file cannot be imported at all; the message says why in plain English. */
export class IngestError extends Error {
  override name = 'IngestError';
}
