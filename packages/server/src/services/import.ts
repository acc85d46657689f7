/**
 * Importing EPUB and PDF files into the catalog. A file imports whole or not at all: a worker process parses and
 * renders it and writes its resources to a staging folder, under bounds on file size, bytes written, memory and
 * time (ingest/worker-host.ts); the staging folder is renamed into place and the rows inserted in one
 * transaction; any failure removes what was staged. Imports run one at a time. A book that breaks EPUB rules
 * but can be read imports with warnings.
 */
import type { SearchDocument } from '../repositories/search.ts';
import { passagesOf } from '../util/search-text.ts';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { authorSortKey, type ImportReport, isMediaFormat, slugify, titleSortKey, workKey } from '@lectern/core';
import type { ChapterRow, TitleRow } from '../db/schema.ts';
import { notFound } from '../errors.ts';
import { storedOverlay } from '../ingest/media-overlays.ts';
import { storedSide, type ChapterRendition, type TitleRendition } from '../ingest/rendition.ts';
import { IngestError } from '../ingest/types.ts';
import { findJobs, type FoundJob, isMediaName, MANIFEST_NAME } from '../ingest/media-job.ts';
import { mediaToolsAvailable, NO_MEDIA_TOOLS } from '../ingest/media-tools.ts';
import { runImportWorker, runMediaWorker, type WorkerRunStats } from '../ingest/worker-host.ts';
import {
  DEFAULT_IMPORT_LIMITS,
  type DoneMessage,
  type ImportLimits,
  LIMIT_NAMES,
  type MediaDoneMessage,
  type MediaJob,
  type ParsedMessage,
} from '../ingest/worker-protocol.ts';
import { BookIdTaken, type CatalogRepository, type NewTitleBundle } from '../repositories/catalog.ts';
import type { ContentStore, UploadFolder } from '../storage/content-store.ts';
import { randomToken } from '../util/random.ts';
import { unreachable, unreachableReason } from '../util/unavailable.ts';
import type { CatalogCache } from './catalog.ts';
import type { CatalogChanges } from './catalog-changes.ts';
import { sha256 } from './tokens.ts';

export interface ImportOptions {
  /** topic slugs (or "Name" strings) to attach besides the book's own subjects */
  topics?: string[];
  /** where the file came from, kept for operators */
  origin?: string;
  allowScripts?: boolean;
}

const MAX_SUBJECT_TOPICS = 3;

/** An upload's file that belongs to a media title: a part, a transcript or a manifest. */
const namedTitle = (t: Pick<TitleRow, 'title' | 'book_id'>) => `"${t.title}" (book id ${t.book_id})`;
const formatName = (format: string) => (format === 'video' ? 'a video course' : format === 'audiobook' ? 'an audiobook' : format === 'document' ? 'a PDF' : 'a book');
/** A book's new edition is one file; a video course's or audiobook's is its media files. */
export const replacedByOneFile = (title: Pick<TitleRow, 'content_format'>): boolean => !isMediaFormat(title.content_format);
const isMediaUpload = (name: string) => isMediaName(name) || /\.(vtt|srt)$/i.test(name) || path.posix.basename(name.replace(/\\/g, '/')) === MANIFEST_NAME;
const MB = 1024 * 1024;

export class ImportService {
  /** The last worker run's figures (peak memory, why it was stopped), for operators and tests. */
  lastRun: WorkerRunStats | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  /** jobs in the queue, the one running included (the console's health page) */
  private queued = 0;

  /** One job runs at a time: the rest wait. */
  get queueLoad(): { running: number; waiting: number } {
    return { running: Math.min(1, this.queued), waiting: Math.max(0, this.queued - 1) };
  }

  /** Runs `job` after those already queued. */
  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    this.queued++;
    const run = this.queue.then(job).finally(() => this.queued--);
    this.queue = run.catch(() => {});
    return run;
  }

  constructor(
    private readonly catalog: CatalogRepository,
    private readonly store: ContentStore,
    readonly limits: ImportLimits = DEFAULT_IMPORT_LIMITS,
    private readonly now: () => Date = () => new Date(),
    /** the catalog's in-process caches, told when a title gets a new edition */
    private readonly cache: Pick<CatalogCache, 'forgetTitle'> | null = null,
    /** where a new edition is recorded for other processes (a server beside this command line) to forget the old */
    private readonly changes: Pick<CatalogChanges, 'record'> | null = null,
  ) {}

  /**
   * A new title is told to the other server processes like a new edition (catalog_changes), so their listings and
   * homes, keyed on what was added, show it within a second. The title is in whatever happens here.
   */
  private async told(title: Pick<TitleRow, 'book_id' | 'id'>): Promise<void> {
    await this.changes?.record(title.book_id, title.id).catch(() => {});
  }

  /**
   * Imports every .epub and .pdf among the given files and folders (folders searched recursively), and the media
   * titles they hold (ingest/media-job.ts): a media file, a folder of numbered media files, a folder with a
   * lectern-media.json manifest — each one title.
   */
  async importPaths(inputs: string[], options: ImportOptions = {}): Promise<ImportReport> {
    const report: ImportReport = { imported: [], failed: [] };
    const jobs = await findJobs(inputs, (input) => report.failed.push({ file: input, reason: 'no such file or folder' }));
    for (const job of jobs) {
      const file = job.kind === 'book' ? job.file : job.source;
      try {
        if (job.kind === 'refused') throw new IngestError(job.reason);
        report.imported.push(job.kind === 'book' ? await this.importFile(job.file, path.basename(job.file), options) : await this.importMedia(job, options));
      } catch (err) {
        report.failed.push({ file, reason: reasonOf(err) });
      }
    }
    return report;
  }

  /**
   * Imports one video course or audiobook: its files are copied into an upload folder first (the worker reads only
   * those copies), then probed, converted and written by the import worker under the same bounds as a book; the
   * title lands whole or not at all.
   */
  importMedia(job: Extract<FoundJob, { kind: 'media' }>, options: ImportOptions = {}): Promise<ImportReport['imported'][number]> {
    return this.enqueue(() => this.importMediaOne(job, options));
  }

  private async importMediaOne(job: Extract<FoundJob, { kind: 'media' }>, options: ImportOptions): Promise<ImportReport['imported'][number]> {
    await this.measureMedia(job);
    const upload = await this.store.beginUpload();
    try {
      const staged = await this.stageMedia(job, upload.dir);
      return await this.importStagedMedia(staged.media, staged.hash, job.name, options);
    } finally {
      await upload.remove();
    }
  }

  /**
   * Every file of a media title is measured before any is copied (or an upload folder made): one past the limit for
   * a file, or all together past what one import may write (a manifest may name up to 1,000 parts), refuses the
   * title whole with nothing staged.
   */
  private async measureMedia(job: Extract<FoundJob, { kind: 'media' }>): Promise<void> {
    if (!mediaToolsAvailable()) throw new IngestError(NO_MEDIA_TOOLS);
    let total = 0;
    for (const file of job.parts.flatMap((part) => (part.transcript ? [part, part.transcript] : [part]))) {
      const size = (await fs.stat(file.path)).size;
      if (size > this.limits.maxFileBytes) {
        throw new IngestError(`${file.name} is ${Math.ceil(size / MB)} MB, more than the ${Math.round(this.limits.maxFileBytes / MB)} MB limit for one file (${LIMIT_NAMES.maxFileBytes})`);
      }
      total += size;
    }
    if (total > this.limits.maxWrittenBytes) throw this.tooMuch(total);
  }

  private tooMuch(bytes: number): IngestError {
    return new IngestError(`the title's files come to ${Math.ceil(bytes / MB)} MB, more than the ${Math.round(this.limits.maxWrittenBytes / MB)} MB one import may write (${LIMIT_NAMES.maxWrittenBytes})`);
  }

  /**
   * Copies a media title's files into `dir` for the worker (it reads only those copies), hashing them as they are
   * made: the title's hash covers its parts, transcripts and manifest.
   */
  private async stageMedia(job: Extract<FoundJob, { kind: 'media' }>, dir: string): Promise<{ media: MediaJob; hash: string }> {
    let copied = 0;
    const hash = createHash('sha256');
    hash.update(job.manifest ?? '');
    const stage = async (from: string, name: string, index: number, kind: string): Promise<string> => {
      const to = path.join(dir, `${kind}-${String(index).padStart(4, '0')}${path.extname(name).toLowerCase().replace(/[^.a-z0-9]/g, '')}`);
      await fs.copyFile(from, to);
      // a file that grew since it was measured still counts
      copied += (await fs.stat(to)).size;
      if (copied > this.limits.maxWrittenBytes) throw this.tooMuch(copied);
      hash.update(`${kind}:${index}:${await hashFile(to)}\n`);
      return to;
    };
    const parts: MediaJob['parts'] = [];
    for (const [i, part] of job.parts.entries()) {
      parts.push({
        file: await stage(part.path, part.name, i, 'part'),
        name: part.name,
        title: part.title,
        description: part.description,
        transcript: part.transcript ? { file: await stage(part.transcript.path, part.transcript.name, i, 'transcript'), name: part.transcript.name } : null,
      });
    }
    return { media: { name: job.name, folder: job.folder, parts, meta: job.meta }, hash: hash.digest('hex') };
  }

  /** A media title whose files are staged already (an upload's folder, or the copies importMedia made). */
  private async importStagedMedia(media: MediaJob, fileHash: string, origin: string, options: ImportOptions): Promise<ImportReport['imported'][number]> {
    const existing = await this.catalog.findTitleByFileHash(fileHash);
    if (existing) throw alreadyIn(existing);
    const staging = await this.store.beginStaging();
    let committedFolder: string | null = null;
    try {
      let bookId = '';
      const worked = await runMediaWorker(
        { file: media.parts[0]!.file, fileName: media.parts[0]!.name, stagingDir: staging.dir, allowScripts: false, media },
        this.limits,
        async () => {
          bookId = await this.uniqueBookId(null, fileHash);
          return bookId;
        },
        (stats) => {
          this.lastRun = stats;
        },
      );
      const folder = newTitleFolder(bookId);
      const edition = await mediaEditionOf(worked, folder, options);
      await staging.commit(folder);
      committedFolder = folder;
      const title = await this.catalog.insertTitle({
        ...edition,
        title: {
          ...edition.title,
          book_id: bookId,
          allow_scripts: 0,
          is_system_book: 0,
          file_sha256: fileHash,
          origin: options.origin ?? origin,
          created_at: this.now().toISOString(),
        },
        work: { isbn: null },
      });
      await this.told(title);
      return { book_id: title.book_id, title: title.title, chapters: edition.chapters.length, warnings: worked.title.warnings };
    } catch (err) {
      if (committedFolder) await this.store.removeFolder(committedFolder);
      else await staging.abort();
      throw await this.lostRace(err, fileHash);
    }
  }

  /**
   * Imports the files of one admin upload (each saved by the route to a file of its own in the upload's folder):
   * books one title each, as before; media files a title each, except that those whose names carry a folder
   * ("course/01-intro.mp4", as a browser sends a folder) are one title per folder, with the transcripts beside them;
   * and an upload holding a lectern-media.json is that manifest's one title (its paths confined to the upload).
   */
  async importUpload(files: { name: string; path: string }[], dir: string, options: ImportOptions = {}): Promise<ImportReport> {
    const report: ImportReport = { imported: [], failed: [] };
    const failed = (file: string, reason: string) => report.failed.push({ file, reason });
    const media: typeof files = [];
    for (const f of files) {
      if (isMediaUpload(f.name)) {
        media.push(f);
        continue;
      }
      try {
        const name = path.posix.basename(f.name.replace(/\\/g, '/'));
        report.imported.push(await this.importFile(f.path, name, { ...options, origin: `${options.origin ?? 'upload'} ${name}` }));
      } catch (err) {
        // the database or the store down is not this file's fault: the whole upload is tried again (import-jobs.ts)
        if (unreachable(err)) throw err;
        failed(f.name, reasonOf(err));
      }
    }
    for (const { job, shown } of await this.mediaUploadJobs(media, dir, failed)) {
      try {
        if (job.kind === 'refused') throw new IngestError(job.reason);
        if (job.kind === 'book') throw new IngestError('a book inside a media folder is not imported');
        report.imported.push(await this.importMedia(job, { ...options, origin: `${options.origin ?? 'upload'} ${shown}` }));
      } catch (err) {
        if (unreachable(err)) throw err;
        failed(shown, reasonOf(err));
      }
    }
    return report;
  }

  /**
   * The media titles of an upload's media files (parts, transcripts, a manifest), laid out as a folder tree under
   * `dir` by their names: loose files (no folder) are a title each; a manifest makes its folder one title; other
   * folders one title each. A name that is not a plain relative path, or taken twice, is refused through `failed`.
   */
  private async mediaUploadJobs(files: { name: string; path: string }[], dir: string, failed: (file: string, reason: string) => void): Promise<{ job: FoundJob; shown: string }[]> {
    const tree = path.join(dir, 'media');
    const mediaFiles: { name: string; at: string }[] = [];
    for (const f of files) {
      // the name as a path inside the upload: no absolute paths, no "..", nothing but plain segments
      // (a segment the disk cannot hold: past 255 bytes, or with a control character, NUL included)
      const segments = f.name.replace(/\\/g, '/').split('/').filter((s) => s && s !== '.');
      if (segments.length === 0 || segments.length > 8 || segments.some((s) => s === '..' || Buffer.byteLength(s) > 255 || /[\u0000-\u001f\u007f]/.test(s))) {
        failed(f.name, 'the file name must be a plain name or a folder and a name, without ".." (a folder upload sends "course/01-intro.mp4")');
        continue;
      }
      const at = path.join(tree, ...segments);
      if (mediaFiles.some((m) => m.at === at)) {
        failed(f.name, 'two files of the upload have this name');
        continue;
      }
      // "a.mp4" beside "a.mp4/b.mp4": one name cannot be a file and a folder at once
      if (mediaFiles.some((m) => m.at.startsWith(at + path.sep) || at.startsWith(m.at + path.sep))) {
        failed(f.name, 'a file and a folder of the upload have this name');
        continue;
      }
      await fs.mkdir(path.dirname(at), { recursive: true });
      await fs.rename(f.path, at);
      mediaFiles.push({ name: segments.join('/'), at });
    }
    if (mediaFiles.length === 0) return [];
    const loose = mediaFiles.filter((m) => path.dirname(m.at) === tree);
    const manifestAtRoot = loose.some((m) => path.basename(m.at) === MANIFEST_NAME);
    const roots = manifestAtRoot ? [tree] : [...loose.filter((m) => isMediaName(m.name)).map((m) => m.at), ...(await fs.readdir(tree, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => path.join(tree, e.name))];
    return (await findJobs(roots, () => {})).map((job) => {
      const shown = job.kind === 'book' ? path.relative(tree, job.file) : path.relative(tree, job.source) || 'the upload';
      return { job: job.kind === 'media' && job.source === tree ? { ...job, name: job.meta.title ?? 'Upload' } : job, shown };
    });
  }

  /** A folder for the files of one upload (DATA_DIR/tmp); the caller removes it when the request ends. */
  beginUpload(): Promise<UploadFolder> {
    return this.store.beginUpload();
  }

  /** Imports bytes held in memory (tests, tools) through a temporary file, the same way as an upload. */
  async importBytes(data: Uint8Array, fileName: string, options: ImportOptions = {}): Promise<ImportReport['imported'][number]> {
    const upload = await this.store.beginUpload();
    try {
      const file = path.join(upload.dir, 'file');
      await fs.writeFile(file, data);
      return await this.importFile(file, fileName, options);
    } finally {
      await upload.remove();
    }
  }

  /** Imports one file; imports queue up and run one at a time, so that their bounds hold for the server too. */
  importFile(file: string, fileName: string, options: ImportOptions = {}): Promise<ImportReport['imported'][number]> {
    return this.enqueue(() => this.importOne(file, fileName, options));
  }

  private async importOne(file: string, fileName: string, options: ImportOptions): Promise<ImportReport['imported'][number]> {
    const fileHash = await this.checkedHash(file);
    const existing = await this.catalog.findTitleByFileHash(fileHash);
    if (existing) throw alreadyIn(existing);
    const allowScripts = options.allowScripts ?? false;
    const staging = await this.store.beginStaging();
    let committedFolder: string | null = null;
    try {
      let bookId = '';
      const worked = await this.runWorker(file, fileName, staging.dir, allowScripts, async (parsed) => {
        bookId = await this.uniqueBookId(parsed.identifier, fileHash);
        return bookId;
      });
      const parsed = worked.title;
      const folder = newTitleFolder(bookId);
      const edition = await editionOf(worked, folder, options);
      await staging.commit(folder);
      committedFolder = folder;
      const title = await this.catalog.insertTitle({
        ...edition.bundle,
        title: {
          ...edition.columns,
          book_id: bookId,
          allow_scripts: allowScripts ? 1 : 0,
          is_system_book: 0,
          file_sha256: fileHash,
          origin: options.origin ?? fileName,
          created_at: this.now().toISOString(),
        },
        work: { isbn: isbnOf(parsed.identifier) },
      });
      await this.told(title);
      return { book_id: title.book_id, title: title.title, chapters: edition.bundle.chapters.length, warnings: parsed.warnings };
    } catch (err) {
      if (committedFolder) await this.store.removeFolder(committedFolder);
      else await staging.abort();
      throw await this.lostRace(err, fileHash);
    }
  }

  /**
   * The title a replacement would replace: refused (404) when there is no such book. The admin upload asks before
   * it reads the files.
   */
  async replaceable(bookId: string): Promise<TitleRow> {
    const title = await this.catalog.findTitleByBookId(bookId);
    if (!title) throw notFound(`There is no book with id "${bookId}" to replace.`);
    return title;
  }

  /**
   * Replaces the content of the title `bookId` with a new edition of it, keeping its book id (a corrected edition,
   * a re-import with edits). The file goes through the import worker exactly as a new import does; its files are
   * staged in a folder of their own and the rows swapped in one transaction (CatalogRepository.replaceTitle), so a
   * failure at any point leaves the old edition whole. EPUB replaces EPUB, PDF replaces PDF.
   */
  replaceFile(file: string, fileName: string, bookId: string, options: ImportOptions = {}): Promise<ReplaceReport> {
    return this.enqueue(() => this.replaceOne(file, fileName, bookId, options));
  }

  private async replaceOne(file: string, fileName: string, bookId: string, options: ImportOptions): Promise<ReplaceReport> {
    const old = await this.catalog.findTitleByBookId(bookId);
    if (!old) throw new IngestError(`there is no book with id "${bookId}" to replace`);
    const named = `"${old.title}" (book id ${old.book_id})`;
    if (isMediaFormat(old.content_format)) throw new IngestError(`${named} is ${formatName(old.content_format)}: its new edition is its media files (a file or a folder), not one EPUB or PDF`);
    if (old.source !== 'application/epub+zip' && old.source !== 'application/pdf') throw new IngestError(`${named} is not an EPUB or a PDF: only those can be replaced`);
    const oldKind = kindOf(old.source);
    const fileKind = await sniffKind(file, fileName);
    if (fileKind && fileKind !== oldKind) throw new IngestError(`${named} is ${article(oldKind)}; ${article(fileKind)} cannot replace it`);
    const fileHash = await this.checkedHash(file);
    const existing = await this.catalog.findTitleByFileHash(fileHash);
    if (existing?.id === old.id) throw new IngestError(`this file is already the edition of ${named}`);
    if (existing) throw alreadyIn(existing);
    const allowScripts = options.allowScripts ?? old.allow_scripts === 1;
    // A folder of its own for each edition: the old one's files stay whole and served until the rows are swapped,
    // and no stored path ever names two different files (book-files.ts keeps verdicts by path).
    const folder = `${old.book_id}.${randomToken(6)}`;
    const staging = await this.store.beginStaging();
    let committedFolder: string | null = null;
    try {
      const worked = await this.runWorker(file, fileName, staging.dir, allowScripts, async () => old.book_id);
      const parsed = worked.title;
      if (kindOf(parsed.source) !== oldKind) throw new IngestError(`${named} is ${article(oldKind)}; ${article(kindOf(parsed.source))} cannot replace it`);
      const edition = await editionOf(worked, folder, options);
      await staging.commit(folder);
      committedFolder = folder;
      const done = await this.catalog.replaceTitle(old.id, (had) => {
        const chapters = keepFlags(edition.bundle.chapters, had.chapters, oldKind === 'PDF');
        // The operator's topics stay (we cannot tell them from the old edition's subjects); new ones are added.
        const topics = dedupeBySlug([...had.topics, ...edition.bundle.topics]);
        return {
          ...edition.bundle,
          chapters,
          topics,
          search: edition.bundle.search ? { ...edition.bundle.search, subjects: [...topics.map((t) => t.name), ...parsed.publishers].join(' ') } : undefined,
          title: {
            ...edition.columns,
            book_id: old.book_id,
            allow_scripts: allowScripts ? 1 : 0,
            is_system_book: old.is_system_book,
            file_sha256: fileHash,
            origin: options.origin ?? fileName,
            // the title keeps its place among the newest: a corrected edition is not a new title
            created_at: old.created_at,
          },
          work: { isbn: isbnOf(parsed.identifier) },
        };
      });
      this.cache?.forgetTitle(old.book_id, old.id);
      // The new edition is in whatever happens here: a failure to tell other processes leaves them their cache's minute.
      await this.changes?.record(old.book_id, old.id).catch(() => {});
      // The old edition's folders, now that nothing refers to them (a cover variant made meanwhile goes with them).
      const oldFolders = new Set(done.oldFiles.map((f) => f.split('/')[0]!).filter((f) => f && f !== folder));
      for (const f of oldFolders) await this.store.removeFolder(f).catch(() => {});
      return {
        book_id: done.title.book_id,
        title: done.title.title,
        chapters: done.bundle.chapters.length,
        warnings: [
          // a different package identifier may mean a different book: said, not refused (an edition may get a new one)
          ...(old.identifier && parsed.identifier && old.identifier !== parsed.identifier ? [`the new file's identifier ${parsed.identifier} is not the old one's (${old.identifier})`] : []),
          ...parsed.warnings,
        ],
        replaced: { kept: done.kept, added: done.added, removed: done.removed },
      };
    } catch (err) {
      if (committedFolder) await this.store.removeFolder(committedFolder);
      else await staging.abort();
      throw err;
    }
  }

  /**
   * A new edition from an admin upload (`?replace=`): a book's one file (replaceFile), or a media title's files — its
   * parts, transcripts and manifest, a folder sent as "course/01-intro.mp4" — which must make exactly that one title.
   */
  async replaceUpload(files: { name: string; path: string }[], dir: string, bookId: string, options: ImportOptions = {}): Promise<ReplaceReport> {
    const old = await this.replaceable(bookId);
    if (replacedByOneFile(old)) {
      if (files.length !== 1) throw new IngestError(`A replacement takes exactly one file; ${files.length} were sent.`);
      const f = files[0]!;
      return this.replaceFile(f.path, path.posix.basename(f.name.replace(/\\/g, '/')), bookId, options);
    }
    const other = files.find((f) => !isMediaUpload(f.name));
    if (other) throw new IngestError(`${namedTitle(old)} is ${formatName(old.content_format)}: ${other.name} is not one of its media files, transcripts or manifest`);
    const refused: string[] = [];
    const jobs = await this.mediaUploadJobs(files, dir, (file, reason) => refused.push(`${file}: ${reason}`));
    if (refused.length) throw new IngestError(refused.join('; '));
    return this.replaceMediaJobs(old, jobs.map((j) => j.job), options);
  }

  /**
   * `import <path> --replace <book_id>`: a book's new file (replaceFile), or a media title's new file or folder
   * (a folder of numbered parts, or one with a manifest), which must make exactly one title.
   */
  async replacePath(input: string, bookId: string, options: ImportOptions = {}): Promise<ReplaceReport> {
    const old = await this.catalog.findTitleByBookId(bookId);
    if (!old) throw new IngestError(`there is no book with id "${bookId}" to replace`);
    const stat = await fs.stat(input).catch(() => null);
    if (!stat) throw new IngestError(`${input}: no such file or folder`);
    if (!isMediaFormat(old.content_format)) {
      if (!stat.isFile()) throw new IngestError(`${input} is not a file: ${namedTitle(old)} is replaced by one EPUB or PDF file`);
      return this.replaceFile(input, path.basename(input), bookId, options);
    }
    return this.replaceMediaJobs(old, await findJobs([input], () => {}), options);
  }

  private replaceMediaJobs(old: TitleRow, jobs: FoundJob[], options: ImportOptions): Promise<ReplaceReport> {
    const named = namedTitle(old);
    if (jobs.length !== 1) return Promise.reject(new IngestError(`a new edition of ${named} is one media title; these files make ${jobs.length}`));
    const job = jobs[0]!;
    if (job.kind === 'refused') return Promise.reject(new IngestError(job.reason));
    if (job.kind === 'book') return Promise.reject(new IngestError(`${named} is ${formatName(old.content_format)}; a book cannot replace it`));
    return this.enqueue(() => this.replaceMediaOne(job, old.book_id, options));
  }

  /**
   * A media title's new edition: staged and worked as a new media import, into a folder of its own, then swapped in
   * by CatalogRepository.replaceTitle like a book's (parts matched by path keep their rows, and with them usage,
   * positions and playlist items); the old edition's files go once the new one is in. Whole or not at all.
   */
  private async replaceMediaOne(job: Extract<FoundJob, { kind: 'media' }>, bookId: string, options: ImportOptions): Promise<ReplaceReport> {
    const old = await this.catalog.findTitleByBookId(bookId);
    if (!old) throw new IngestError(`there is no book with id "${bookId}" to replace`);
    const named = namedTitle(old);
    await this.measureMedia(job);
    const upload = await this.store.beginUpload();
    try {
      const staged = await this.stageMedia(job, upload.dir);
      const existing = await this.catalog.findTitleByFileHash(staged.hash);
      if (existing?.id === old.id) throw new IngestError(`these files are already the edition of ${named}`);
      if (existing) throw alreadyIn(existing);
      const folder = `${old.book_id}.${randomToken(6)}`;
      const staging = await this.store.beginStaging();
      let committedFolder: string | null = null;
      try {
        const first = staged.media.parts[0]!;
        const worked = await runMediaWorker({ file: first.file, fileName: first.name, stagingDir: staging.dir, allowScripts: false, media: staged.media }, this.limits, async () => old.book_id, (stats) => {
          this.lastRun = stats;
        });
        const format = worked.title.contentFormat;
        if (format !== old.content_format) throw new IngestError(`${named} is ${formatName(old.content_format)}; ${formatName(format)} cannot replace it`);
        const edition = await mediaEditionOf(worked, folder, options);
        await staging.commit(folder);
        committedFolder = folder;
        const done = await this.catalog.replaceTitle(old.id, (had) => {
          const chapters = keepFlags(edition.chapters, had.chapters, false);
          // The operator's topics stay; the new edition's are added (as for a book).
          const topics = dedupeBySlug([...had.topics, ...edition.topics]);
          return {
            ...edition,
            chapters,
            topics,
            search: edition.search ? { ...edition.search, subjects: [...topics.map((t) => t.name), ...worked.title.publishers].join(' ') } : undefined,
            title: {
              ...edition.title,
              book_id: old.book_id,
              allow_scripts: 0,
              is_system_book: old.is_system_book,
              file_sha256: staged.hash,
              origin: options.origin ?? job.name,
              // a corrected edition is not a new title
              created_at: old.created_at,
            },
            work: { isbn: null },
          };
        });
        this.cache?.forgetTitle(old.book_id, old.id);
        await this.changes?.record(old.book_id, old.id).catch(() => {});
        const oldFolders = new Set(done.oldFiles.map((f) => f.split('/')[0]!).filter((f) => f && f !== folder));
        for (const f of oldFolders) await this.store.removeFolder(f).catch(() => {});
        return {
          book_id: done.title.book_id,
          title: done.title.title,
          chapters: done.bundle.chapters.length,
          warnings: worked.title.warnings,
          replaced: { kept: done.kept, added: done.added, removed: done.removed },
        };
      } catch (err) {
        if (committedFolder) await this.store.removeFolder(committedFolder);
        else await staging.abort();
        throw err;
      }
    } finally {
      await upload.remove();
    }
  }

  /** The file's SHA-256 after its size is checked against the bound (hashed as it streams, before any worker). */
  private async checkedHash(file: string): Promise<string> {
    const size = (await fs.stat(file)).size;
    if (size > this.limits.maxFileBytes) {
      throw new IngestError(
        `the file is ${Math.ceil(size / MB)} MB, more than the ${Math.round(this.limits.maxFileBytes / MB)} MB limit for one file (${LIMIT_NAMES.maxFileBytes})`,
      );
    }
    return hashFile(file);
  }

  private runWorker(file: string, fileName: string, stagingDir: string, allowScripts: boolean, decide: (parsed: ParsedMessage) => Promise<string>) {
    return runImportWorker({ file, fileName, stagingDir, allowScripts }, this.limits, decide, (stats) => {
      this.lastRun = stats;
    });
  }

  /**
   * An import that lost the race for its new title's book id (another server imported the same book at the same
   * moment, and its insert came first): its own folder is gone already, and the book is in the library once — said
   * as the look before the import would have said it. Any other error is answered as it is.
   */
  private async lostRace(err: unknown, fileHash: string): Promise<unknown> {
    if (!(err instanceof BookIdTaken)) return err;
    const existing = await this.catalog.findTitleByFileHash(fileHash);
    if (existing) return alreadyIn(existing);
    return new IngestError(`${err.message} (another file with the same identifier); send the file again`);
  }

  /**
   * ISBNs become the book id as they are; other identifiers a short stable hash, so ids stay URL-safe. The id is
   * chosen once the file is parsed, after the look for the file at the start: a title holding it with the same file
   * was imported meanwhile (by another server: docs/decisions.md "The same new book imported twice at once"), and
   * the file is in the library.
   */
  private async uniqueBookId(identifier: string | null, fileHash: string): Promise<string> {
    const isbn = isbnOf(identifier);
    const base = isbn ?? sha256(identifier ? `id:${identifier}` : `file:${fileHash}`).slice(0, 12);
    const other = `${base}-${fileHash.slice(0, 6)}`;
    for (const id of [base, other]) {
      const holder = await this.catalog.findTitleByBookId(id);
      if (!holder) return id;
      if (holder.file_sha256 === fileHash) throw alreadyIn(holder);
    }
    return other;
  }
}

/** The refusal of a file the library has already: the look at the start, and a race lost to another server. */
const alreadyIn = (t: Pick<TitleRow, 'title' | 'book_id'>) => new IngestError(`already in the library as "${t.title}" (book id ${t.book_id})`);

/**
 * A new title's folder in the store: its book id and a token of its own, as each new edition's (`<book_id>.<token>`).
 * Two imports of the same new book at once (two servers) choose the same book id; each writes its own folder, so the
 * one whose insert loses removes only its own (docs/decisions.md "The same new book imported twice at once").
 */
const newTitleFolder = (bookId: string) => `${bookId}.${randomToken(6)}`;

/** A replacement's report: the imported entry, and which chapters were kept (by path), added and removed. */
export interface ReplaceReport {
  book_id: string;
  title: string;
  chapters: number;
  warnings: string[];
  replaced: { kept: number; added: number; removed: string[] };
}

type TitleColumns = Omit<NewTitleBundle['title'], 'book_id' | 'allow_scripts' | 'is_system_book' | 'file_sha256' | 'origin' | 'created_at'>;

/**
 * What a worker's output becomes in the catalog, for a new title or a new edition alike: the title's columns, its
 * chapters, resources (stored below `folder`), contents, names and search document.
 */
async function editionOf(
  worked: DoneMessage,
  folder: string,
  options: ImportOptions,
): Promise<{ columns: TitleColumns; bundle: Omit<NewTitleBundle, 'title' | 'work'> }> {
  const parsed = worked.title;
  const resources: NewTitleBundle['resources'] = worked.resources.map((r) => ({
    full_path: r.fullPath,
    media_type: r.mediaType,
    size: r.size,
    storage_path: `${folder}/${r.name}`,
    ...(r.sample ? { sample_storage_path: `${folder}/${r.sample.name}`, sample_size: r.sample.size } : {}),
  }));
  // A PDF too short to give a part of (one page) has no sample at all.
  const sampleIndex = parsed.source === 'application/pdf' && !resources.some((r) => r.sample_storage_path) ? -1 : parsed.sampleIndex;
  const chapters: NewTitleBundle['chapters'] = worked.chapters.map((c, index) => ({
    full_path: c.fullPath,
    label: c.label,
    ...chapterRenditionColumns(c.rendition),
    item_order: index,
    media_type: c.mediaType,
    content: c.html,
    stylesheets: JSON.stringify(c.stylesheets),
    text_length: c.mediaType === 'application/pdf' ? c.textLength : c.renderedTextLength,
    as_sample: (index === sampleIndex ? 1 : 0),
    is_public: 0,
    sample_content: c.sampleContent,
    media_overlay: c.mediaOverlay ? storedOverlay(c.mediaOverlay) : null,
    root_attributes: c.root ? JSON.stringify(c.root) : null,
    markup_error: c.markupError ?? null,
  }));

  // The search documents: the chapters' text in passages, a chapter at a time so other requests get their turn.
  const passages: SearchDocument['passages'] = [];
  for (const [i, c] of chapters.entries()) {
    // A PDF's passages are its pages: passage_no is the page's index, so a hit knows its page.
    if (c.media_type === 'application/pdf') {
      (worked.chapters[i]?.pageTexts ?? []).forEach((body, page) => body && passages.push({ full_path: c.full_path, passage_no: page, body }));
      continue;
    }
    passagesOf(c.content).forEach((body, passage_no) => passages.push({ full_path: c.full_path, passage_no, body }));
    await new Promise((resolve) => setImmediate(resolve));
  }
  const topicNames = [...(options.topics ?? []).map(topicFromOption).map((t) => t.name), ...parsed.subjects.slice(0, MAX_SUBJECT_TOPICS)];
  return {
    columns: {
      title: parsed.title,
      title_safe: slugify(parsed.title),
      description: parsed.description,
      content_format: parsed.source === 'application/pdf' ? 'document' : 'book',
      source: parsed.source,
      language: parsed.language,
      issued: parsed.issued,
      identifier: parsed.identifier,
      cover_path: worked.cover ? `${folder}/${worked.cover.name}` : null,
      cover_media_type: worked.cover?.mediaType ?? null,
      page_count: parsed.pageCount,
      sort_title: titleSortKey(parsed.title),
      sort_author: authorSortKey(parsed.authors),
      work_key: workKey(parsed.title, parsed.authors),
      title_dir: parsed.textDirection?.title.dir ?? null,
      title_lang: parsed.textDirection?.title.lang ?? null,
      page_progression: parsed.pageProgression ?? null,
      ...titleRenditionColumns(parsed.rendition),
      // kept for the operators' title detail (docs/decisions.md "A chapter that is not well-formed"): what the importer
      // forgave
      import_warnings: JSON.stringify(parsed.warnings),
    },
    bundle: {
      search: {
        title: parsed.title,
        people: dedupe(parsed.authors).join(' '),
        subjects: [...topicNames, ...parsed.publishers].join(' '),
        description: parsed.description ?? '',
        passages,
      },
      authors: dedupe(parsed.authors),
      authorDirections: parsed.textDirection?.authors,
      publishers: dedupeBySlug(parsed.publishers.map((name) => ({ name, slug: slugify(name) }))),
      topics: dedupeBySlug([
        ...(options.topics ?? []).map(topicFromOption),
        ...parsed.subjects.slice(0, MAX_SUBJECT_TOPICS).map((name) => ({ name: name.slice(0, 60), slug: slugify(name) })),
      ]),
      chapters,
      resources,
      // the contents, then the print pages and the landmarks: one table, told apart by kind (migration 0019)
      toc: [
        ...worked.toc.map((t) => ({ kind: 'toc' as const, landmark: null, depth: t.depth, label: t.label, full_path: t.fullPath, fragment: t.fragment })),
        ...(parsed.pageList ?? []).map((t) => ({ kind: 'page' as const, landmark: null, depth: 0, label: t.label, full_path: t.fullPath, fragment: t.fragment })),
        ...(parsed.landmarks ?? []).map((t) => ({ kind: 'landmark' as const, landmark: t.type.slice(0, 60), depth: 0, label: t.label.slice(0, 200), full_path: t.fullPath, fragment: t.fragment })),
      ].map((t, position) => ({ ...t, position })),
    },
  };
}

/**
 * What a media worker's output becomes in the catalog (the media contract): the title's columns (its length, the
 * poster or art as cover, the preview clip), one chapter per part with its transcript as content, one media_files
 * row per part, a contents entry per part and the search document (titles, description, transcripts). No part is
 * a sample: the preview clip is what visitors get (docs/decisions.md "Media import").
 */
async function mediaEditionOf(
  worked: MediaDoneMessage,
  folder: string,
  options: ImportOptions,
): Promise<Omit<NewTitleBundle, 'title' | 'work'> & { title: TitleColumns & Pick<NewTitleBundle['title'], 'duration_ms' | 'preview_path' | 'preview_mime'> }> {
  const t = worked.title;
  const chapters: NewTitleBundle['chapters'] = worked.parts.map((p, index) => ({
    full_path: p.fullPath,
    label: p.label,
    ...chapterRenditionColumns(undefined),
    item_order: index,
    media_type: p.mime,
    content: p.html,
    stylesheets: '[]',
    text_length: p.textLength,
    as_sample: 0,
    is_public: 0,
    sample_content: null,
    media_overlay: null,
    root_attributes: null,
    markup_error: null,
  }));
  const passages: SearchDocument['passages'] = [];
  for (const c of chapters) {
    if (c.content) passagesOf(c.content).forEach((body, passage_no) => passages.push({ full_path: c.full_path, passage_no, body }));
    await new Promise((resolve) => setImmediate(resolve));
  }
  const topics = dedupeBySlug([...(options.topics ?? []).map(topicFromOption), ...t.subjects.slice(0, MAX_SUBJECT_TOPICS).map((name) => ({ name: name.slice(0, 60), slug: slugify(name) }))]);
  const authors = dedupe(t.authors);
  return {
    title: {
      title: t.title,
      title_safe: slugify(t.title),
      description: t.description,
      content_format: t.contentFormat,
      source: worked.parts[0]!.mime,
      language: t.language,
      issued: t.issued,
      identifier: null,
      cover_path: worked.cover ? `${folder}/${worked.cover.name}` : null,
      cover_media_type: worked.cover?.mediaType ?? null,
      page_count: null,
      sort_title: titleSortKey(t.title),
      sort_author: authorSortKey(authors),
      work_key: workKey(t.title, authors),
      title_dir: null,
      title_lang: null,
      page_progression: null,
      ...titleRenditionColumns(undefined),
      duration_ms: t.durationMs,
      preview_path: worked.preview ? `${folder}/${worked.preview.name}` : null,
      preview_mime: worked.preview?.mime ?? null,
      import_warnings: JSON.stringify(t.warnings),
    },
    search: {
      title: t.title,
      people: authors.join(' '),
      subjects: [...topics.map((x) => x.name), ...t.publishers].join(' '),
      description: [t.description ?? '', ...worked.parts.map((p) => p.label)].join(' '),
      passages,
    },
    authors,
    publishers: dedupeBySlug(t.publishers.map((name) => ({ name, slug: slugify(name) }))),
    topics,
    chapters,
    resources: [],
    toc: worked.parts.map((p, position) => ({ kind: 'toc' as const, landmark: null, depth: 1, label: p.label, full_path: p.fullPath, fragment: null, position })),
    media: worked.parts.map((p) => ({
      full_path: p.fullPath,
      storage_path: `${folder}/${p.name}`,
      mime: p.mime,
      size: p.size,
      duration_ms: p.durationMs,
      width: p.width,
      height: p.height,
      video_codec: p.videoCodec,
      audio_codec: p.audioCodec,
      description: p.description,
      captions_vtt: p.captionsVtt,
    })),
  };
}

/**
 * A new edition's chapter flags: a chapter still in the book keeps the operator's `is_public` and `as_sample`; new
 * chapters are not public. When no kept chapter is a sample, the new edition's own choice stands (the sample
 * chapter was removed). A PDF's sample is its first pages, which exist only when the new file has more than one:
 * that flag always follows the new file.
 */
function keepFlags(chapters: NewTitleBundle['chapters'], old: Pick<ChapterRow, 'full_path' | 'as_sample' | 'is_public'>[], pdf: boolean): NewTitleBundle['chapters'] {
  const before = new Map(old.map((c) => [c.full_path, c]));
  const kept = chapters.map((c) => {
    const o = before.get(c.full_path);
    if (!o) return c;
    return { ...c, is_public: o.is_public, as_sample: pdf ? c.as_sample : o.as_sample };
  });
  if (pdf || kept.some((c) => c.as_sample === 1)) return kept;
  return kept.map((c, i) => ({ ...c, as_sample: chapters[i]!.as_sample }));
}

/** How a title asks to be laid out, as stored (migration 0022); null for PDFs. */
function titleRenditionColumns(r: TitleRendition | undefined) {
  return {
    rendition_layout: r?.layout ?? null,
    rendition_spread: r?.spread ?? null,
    rendition_flow: r?.flow ?? null,
    // a device-sized side (device-width / device-height) is stored as DEVICE_SIDE (0), never a real size
    viewport_width: storedSide(r?.viewport?.width),
    viewport_height: storedSide(r?.viewport?.height),
  };
}

/** How a spine item asks to be laid out, as stored (migration 0022); null for PDFs. */
function chapterRenditionColumns(r: ChapterRendition | undefined) {
  return {
    rendition_layout: r?.layout ?? null,
    rendition_spread: r?.spread ?? null,
    rendition_flow: r?.flow ?? null,
    page_spread: r?.pageSpread ?? null,
    align_x_center: r ? (r.alignXCenter ? 1 : 0) : null,
    // a device-sized side (device-width / device-height) is stored as DEVICE_SIDE (0), never a real size
    viewport_width: storedSide(r?.viewport?.width),
    viewport_height: storedSide(r?.viewport?.height),
  };
}

type Kind = 'EPUB' | 'PDF';
const kindOf = (source: string): Kind => (source === 'application/pdf' ? 'PDF' : 'EPUB');
const article = (kind: Kind) => (kind === 'EPUB' ? 'an EPUB' : 'a PDF');

/** What the worker will read the file as (the rule of ingest/worker.ts parseFile), or null when it will refuse it. */
async function sniffKind(file: string, fileName: string): Promise<Kind | null> {
  const handle = await fs.open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(5), 0, 5, 0);
    const head = buffer.subarray(0, bytesRead).toString('latin1');
    const ext = path.extname(fileName).toLowerCase();
    if (head.startsWith('PK') || (head !== '%PDF-' && ext === '.epub')) return 'EPUB';
    if (head === '%PDF-' || ext === '.pdf') return 'PDF';
    return null;
  } finally {
    await handle.close();
  }
}

function isbnOf(identifier: string | null): string | null {
  return identifier?.replace(/[-\s]/g, '').match(/(?:^|[^0-9])(97[89][0-9]{10}|[0-9]{9}[0-9X])(?:$|[^0-9])/i)?.[1] ?? null;
}

async function hashFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function topicFromOption(value: string): { name: string; slug: string } {
  const slug = slugify(value);
  const name = value.includes(' ') || /[A-Z]/.test(value) ? value : value.split(/[-_]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
  return { name, slug };
}

const dedupe = (items: string[]) => [...new Set(items.map((s) => s.trim()).filter(Boolean))];
function dedupeBySlug<T extends { slug: string }>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((i) => i.slug !== 'untitled' && !seen.has(i.slug) && seen.add(i.slug));
}

export function reasonOf(err: unknown): string {
  if (err instanceof IngestError) return err.message;
  // the command line's report says which part was down rather than "import failed: Connection terminated…"
  if (unreachable(err)) return unreachableReason(err);
  if (err instanceof Error) return `import failed: ${err.message}`;
  return 'import failed';
}
