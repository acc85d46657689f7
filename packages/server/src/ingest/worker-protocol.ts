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
  /** A video course or audiobook (ingest/media.ts): its staged parts; `file` is then the first part. */
  media?: MediaJob;
}

/** A media title to import: the staged copies of its parts in order, and what a manifest says of them. */
export interface MediaJob {
  /** what the operator named: the folder's or the file's name (for titles and messages) */
  name: string;
  /** true when `name` is a folder (a course or a folder of tracks), false for a single file */
  folder: boolean;
  parts: MediaJobPart[];
  /** from lectern-media.json when there is one; empty otherwise */
  meta: MediaMeta;
}

export interface MediaJobPart {
  /** the staged copy to read (never the operator's own path) */
  file: string;
  /** the file's name as the operator gave it */
  name: string;
  title: string | null;
  /** plain text */
  description: string | null;
  transcript: { file: string; name: string } | null;
}

export interface MediaMeta {
  title: string | null;
  authors: string[];
  description: string | null;
  publishers: string[];
  topics: string[];
  language: string | null;
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

/** Worker -> service: a media title's parts, converted and written to the staging folder (ingest/media.ts). */
export interface MediaDoneMessage {
  type: 'media-done';
  title: {
    title: string;
    authors: string[];
    publishers: string[];
    description: string | null;
    subjects: string[];
    language: string | null;
    issued: string | null;
    contentFormat: 'video' | 'audiobook';
    durationMs: number;
    warnings: string[];
  };
  parts: MediaPartDone[];
  /** poster frame or embedded art, as JPEG */
  cover: { name: string; mediaType: 'image/jpeg' } | null;
  /** the opening MEDIA_PREVIEW_SECONDS of the first part */
  preview: { name: string; mime: string } | null;
  peakRssBytes: number;
}

export interface MediaPartDone {
  /** the chapter's full_path: a file-like name, unique in the title, without slashes */
  fullPath: string;
  label: string;
  /** the playable file in the staging folder */
  name: string;
  mime: string;
  size: number;
  durationMs: number;
  width: number | null;
  height: number | null;
  videoCodec: string | null;
  audioCodec: string | null;
  /** sanitised HTML or null */
  description: string | null;
  captionsVtt: string | null;
  /** the transcript as the chapter's content ('' when none) and its text length */
  html: string;
  textLength: number;
}

export type WorkerMessage = ParsedMessage | DoneMessage | MediaDoneMessage | FailedMessage;
