/**
 * What the import service and its worker process say to each other, and the limits every import runs under.
 * The worker parses and renders an untrusted file; the service owns the database and the content folder.
 */
import type { RootAttributes } from '@lectern/core';
import type { ParsedChapter, ParsedTitle, ParsedTocEntry } from './types.ts';

/** Bounds on one import (see docs/decisions.md, "Imports are bounded"); bytes and milliseconds. */
export interface ImportLimits {
  /** One file, uploaded or imported from disk (IMPORT_MAX_FILE_MB). */
  maxFileBytes: number;
  /** All files of one upload request together (IMPORT_MAX_UPLOAD_MB). */
  maxUploadBytes: number;
  /** Bytes one import may inflate and write: zip entries, stored files and chapter HTML (IMPORT_MAX_WRITTEN_MB). */
  maxWrittenBytes: number;
  /** Resident memory of the worker process (IMPORT_MAX_MEMORY_MB). */
  maxMemoryBytes: number;
  /** Wall-clock time of one import (IMPORT_TIMEOUT_SECONDS). */
  timeoutMs: number;
}

export const LIMIT_NAMES = {
  maxFileBytes: 'IMPORT_MAX_FILE_MB',
  maxUploadBytes: 'IMPORT_MAX_UPLOAD_MB',
  maxWrittenBytes: 'IMPORT_MAX_WRITTEN_MB',
  maxMemoryBytes: 'IMPORT_MAX_MEMORY_MB',
  timeoutMs: 'IMPORT_TIMEOUT_SECONDS',
} as const satisfies Record<keyof ImportLimits, string>;

const MB = 1024 * 1024;
export const DEFAULT_IMPORT_LIMITS: ImportLimits = {
  maxFileBytes: 200 * MB,
  maxUploadBytes: 500 * MB,
  maxWrittenBytes: 400 * MB,
  maxMemoryBytes: 1536 * MB,
  timeoutMs: 120_000,
};

/** Service -> worker: the first message. */
export interface StartMessage {
  type: 'start';
  file: string;
  fileName: string;
  stagingDir: string;
  allowScripts: boolean;
  limits: ImportLimits;
}

/** Worker -> service: the file is parsed; the service answers with the book id (or stops the worker). */
export interface ParsedMessage {
  type: 'parsed';
  identifier: string | null;
  title: string;
}

/** Service -> worker. */
export interface ContinueMessage {
  type: 'continue';
  bookId: string;
}

export interface RenderedChapter extends Omit<ParsedChapter, 'rawHtml'> {
  html: string;
  stylesheets: string[];
  /** Visible text of the rendered chapter (the parsed textLength stays for choosing the sample). */
  renderedTextLength: number;
  /** The class, id and style of the content document's own html and body (render.ts rootAttributes), or null. */
  root: RootAttributes | null;
  /** A one-chapter book's bounded sample: the opening part of its only chapter (ingest/sample.ts); else null. */
  sampleContent: string | null;
  /** A PDF's text, page by page (for search; empty when pdf.js could not read it in time). */
  pageTexts?: string[];
}

/** Worker -> service: everything written to the staging folder and what the database needs. */
export interface DoneMessage {
  type: 'done';
  title: Omit<ParsedTitle, 'chapters' | 'resources' | 'cover' | 'toc'>;
  chapters: RenderedChapter[];
  toc: ParsedTocEntry[];
  /** `name` is the file's name in the staging folder. */
  resources: { fullPath: string; mediaType: string; size: number; name: string; sample?: { name: string; size: number } }[];
  cover: { name: string; mediaType: string } | null;
  peakRssBytes: number;
}

/** Worker -> service. `refused`: the file was refused for a reason its message gives (IngestError). */
export interface FailedMessage {
  type: 'failed';
  message: string;
  refused: boolean;
}

export type WorkerMessage = ParsedMessage | DoneMessage | FailedMessage;
