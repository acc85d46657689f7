/**
 * Content files (book resources, covers, PDF documents, media parts) by their storage path (`<folder>/<name>`, what
 * the rows hold). Two stores (docs/decisions.md "The content store"): the local folder DATA_DIR/content (the default),
 * and an S3-compatible bucket (storage/s3-content-store.ts, CONTENT_STORE=s3://bucket/prefix). Either way an import
 * writes into a local staging folder (from its worker process, through StagedFileWriter) and commits it whole into a
 * folder of its own; if the database transaction then fails the folder is removed again, so a failed import leaves
 * neither rows nor files behind. An upload is received into a folder of this machine (DATA_DIR/tmp), then waits for
 * its import job in the store's upload area (`.uploads/<job>/`, UploadArea), where every server sharing the store
 * can read it; it is removed when its job ends, and swept when orphaned (services/import-jobs.ts).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { randomToken } from '../util/random.ts';

/**
 * The store's folder of uploads waiting for their import (docs/decisions.md "Uploads wait in the content store"): beside the titles' folders, left out of `list()`
 * (a title's folder never starts with a dot), so content moves and store sizes never see it.
 */
export const UPLOADS_FOLDER = '.uploads';

/** What a stored file's answer needs: Content-Length, Last-Modified and the validators made from them. */
export interface StoredFile {
  size: number;
  mtime: Date;
}

/** Bytes `start` to `end`, both included (an HTTP byte range once checked against the size). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface ContentStore {
  /** Where the files are, for people: a folder, or s3://bucket/prefix. */
  readonly location: string;
  /** A private folder on this machine for the files of one upload; `remove()` takes it away with everything in it. */
  beginUpload(): Promise<UploadFolder>;
  /** Uploads waiting for their import job, where every server sharing this store reads them. */
  readonly uploads: UploadArea;
  /** A local folder the import worker writes one title's files into; `commit(folder)` stores them whole. */
  beginStaging(): Promise<Staging>;
  /** The file's size and time, null when there is no such file. */
  stat(storagePath: string): Promise<StoredFile | null>;
  /** The file (or the bytes of `range`) as a stream: never read whole into memory here. */
  read(storagePath: string, range?: ByteRange): Promise<Readable>;
  /** Writes one whole file into an existing folder (a cover variant); a reader never sees half of it. */
  write(storagePath: string, data: Uint8Array): Promise<void>;
  /** Stores a local file as `storagePath`, making its folder if need be (the move between stores). */
  putFile(storagePath: string, file: string): Promise<void>;
  /** Removes a folder (`<folder>/…`) with everything in it; nothing there is not an error. */
  removeFolder(folder: string): Promise<void>;
  /** Every stored file (the move between stores, the console's store size); staging left out. */
  list(): AsyncIterable<{ path: string; size: number }>;
}

/**
 * Uploads waiting for their import (services/import-jobs.ts), in the store itself: `.uploads/<upload>/<name>`. Files
 * go in and out as streams between the store and a local file, never whole in memory.
 */
export interface UploadArea {
  /**
   * Names the area: servers sharing the store read the same name, and take each other's import jobs. `create`: name
   * it if it has no name yet (an upload is about to be stored); without, null until then (no job can be of it).
   */
  id(create?: boolean): Promise<string | null>;
  /** Stores the local file `file` as `name` of `upload` (the local file may be moved rather than copied). */
  put(upload: string, name: string, file: string): Promise<void>;
  /** Writes `name` of `upload` to the local file `to`. */
  get(upload: string, name: string, to: string): Promise<void>;
  /** Removes `upload` with all its files; none is not an error. */
  remove(upload: string): Promise<void>;
  /** Every upload held, with the time of its newest file (the sweep of orphans). */
  list(): AsyncIterable<{ upload: string; modified: Date }>;
}

/** An upload's id or a file's name in it: letters, digits and hyphens only (a job id, a part's number). */
export function checkUploadName(name: string): string {
  if (!/^[A-Za-z0-9-]{1,64}$/.test(name)) throw new Error(`not an upload or file name: ${name}`);
  return name;
}

export interface Staging {
  readonly dir: string;
  /** Stores the staged files as `folder/<name>`, `folder` being what their storage paths then start with. */
  commit(folder: string): Promise<void>;
  abort(): Promise<void>;
}

/** A storage path as rows hold it, checked: relative, no `..`, no empty or dot segments. */
export function checkStoragePath(storagePath: string): string {
  const parts = storagePath.split('/');
  if (!storagePath || storagePath.includes('\\') || parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\0'))) {
    throw new Error(`storage path escapes the content folder: ${storagePath}`);
  }
  return storagePath;
}

/** A stored file read whole (a cover to scale, an SVG to check), refused past `maxBytes`. */
export async function readStored(store: ContentStore, storagePath: string, maxBytes: number): Promise<Buffer> {
  const stat = await store.stat(storagePath);
  if (!stat) throw new Error(`no stored file ${storagePath}`);
  if (stat.size > maxBytes) throw new Error(`${storagePath} is larger than ${maxBytes} bytes`);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of await store.read(storagePath)) {
    total += (chunk as Buffer).length;
    if (total > maxBytes) throw new Error(`${storagePath} is larger than ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The bytes of every stored file (the console's store size). */
export async function totalBytes(store: ContentStore): Promise<number> {
  let total = 0;
  for await (const f of store.list()) total += f.size;
  return total;
}

/** Every file below `dir`, as paths relative to it with `/` between folders. */
export async function* filesBelow(dir: string, prefix = ''): AsyncGenerator<{ path: string; full: string; size: number }> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) yield* filesBelow(full, `${prefix}${e.name}/`);
    else if (e.isFile()) yield { path: `${prefix}${e.name}`, full, size: (await fs.stat(full)).size };
  }
}

/** A stored path the store's listing leaves out: a staging folder or the upload area (top-level names with a dot). */
export const isHiddenPath = (storagePath: string) => storagePath.startsWith('.');

export function localUploads(tmpRoot: string): () => Promise<UploadFolder> {
  return async () => {
    await fs.mkdir(tmpRoot, { recursive: true });
    const dir = await fs.mkdtemp(path.join(tmpRoot, 'upload-'));
    return { dir, remove: () => fs.rm(dir, { recursive: true, force: true }) };
  };
}

const STAGING_PREFIX = '.staging-';

/** The files in DATA_DIR/content: staging folders are renamed into place. */
export class LocalContentStore implements ContentStore {
  readonly root: string;
  /** Uploads on their way to an import. */
  readonly tmpRoot: string;
  readonly beginUpload: () => Promise<UploadFolder>;
  readonly uploads: UploadArea;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, 'content');
    this.tmpRoot = path.join(dataDir, 'tmp');
    this.beginUpload = localUploads(this.tmpRoot);
    this.uploads = new LocalUploadArea(path.join(this.root, UPLOADS_FOLDER));
  }

  get location(): string {
    return this.root;
  }

  /** Absolute path of a stored file; refuses anything that would leave the content folder. */
  resolve(storagePath: string): string {
    const full = path.resolve(this.root, checkStoragePath(storagePath));
    if (!full.startsWith(this.root + path.sep)) throw new Error(`storage path escapes the content folder: ${storagePath}`);
    return full;
  }

  async beginStaging(): Promise<Staging> {
    const dir = path.join(this.root, `${STAGING_PREFIX}${randomToken(9)}`);
    await fs.mkdir(dir, { recursive: true });
    return new LocalStaging(this, dir);
  }

  async stat(storagePath: string): Promise<StoredFile | null> {
    const stat = await fs.stat(this.resolve(storagePath)).catch(() => null);
    return stat?.isFile() ? { size: stat.size, mtime: stat.mtime } : null;
  }

  async read(storagePath: string, range?: ByteRange): Promise<Readable> {
    const file = this.resolve(storagePath);
    // opened before the stream is handed out, so a missing file is an error here, not on the stream
    const handle = await fs.open(file, 'r');
    return handle.createReadStream({ highWaterMark: 64 * 1024, ...(range ? { start: range.start, end: range.end } : {}) });
  }

  async write(storagePath: string, data: Uint8Array): Promise<void> {
    const target = this.resolve(storagePath);
    // Written aside and renamed: a reader never sees half a file, and a folder removed meanwhile stays removed.
    const temp = path.join(path.dirname(target), `.${path.basename(target)}.${randomToken(6)}`);
    await fs.writeFile(temp, data);
    await fs.rename(temp, target).catch(async (err: unknown) => {
      await fs.rm(temp, { force: true });
      throw err;
    });
  }

  async putFile(storagePath: string, file: string): Promise<void> {
    const target = this.resolve(storagePath);
    await fs.mkdir(path.dirname(target), { recursive: true });
    const temp = path.join(path.dirname(target), `.${path.basename(target)}.${randomToken(6)}`);
    await fs.copyFile(file, temp);
    await fs.rename(temp, target).catch(async (err: unknown) => {
      await fs.rm(temp, { force: true });
      throw err;
    });
  }

  async removeFolder(folder: string): Promise<void> {
    await fs.rm(this.resolve(checkStoragePath(folder)), { recursive: true, force: true });
  }

  async *list(): AsyncGenerator<{ path: string; size: number }> {
    for await (const f of filesBelow(this.root)) {
      if (!isHiddenPath(f.path)) yield { path: f.path, size: f.size };
    }
  }
}

export interface UploadFolder {
  dir: string;
  remove(): Promise<void>;
}

/** Thrown when an import would write more than its budget; the message names the limit. */
export class WriteBudgetError extends Error {
  override name = 'WriteBudgetError';
}

/**
 * Writes the files of one staged title, counting every byte against the import's budget before it is written.
 * The import worker holds one; it knows only the staging folder, never the content folder.
 */
export class StagedFileWriter {
  private index = 0;
  written = 0;

  constructor(
    readonly dir: string,
    private readonly maxBytes: number = Number.POSITIVE_INFINITY,
    private readonly limitName = '',
  ) {}

  /** Counts bytes that go elsewhere (chapter HTML goes to the database) against the same budget. */
  count(bytes: number): void {
    this.written += bytes;
    if (this.written > this.maxBytes) {
      throw new WriteBudgetError(`the import would write more than ${Math.round(this.maxBytes / (1024 * 1024))} MB, the limit for one import${this.limitName ? ` (${this.limitName})` : ''}`);
    }
  }

  /**
   * A name for a file another process writes (ffmpeg, for a media import): counted with `count` once written, and
   * kept within the budget meanwhile by the writer's own cap (`remaining`).
   */
  reserve(extension: string): { name: string; path: string } {
    const safeExt = /^\.[a-z0-9]{1,8}$/i.test(extension) ? extension.toLowerCase() : '';
    const name = `${String(this.index++).padStart(5, '0')}${safeExt}`;
    return { name, path: path.join(this.dir, name) };
  }

  /** Bytes still within the budget. */
  get remaining(): number {
    return Math.max(0, this.maxBytes - this.written);
  }

  /** Writes one file and returns the name it gets inside the title's folder (numbered: book paths can be anything). */
  async write(data: Uint8Array, extension: string): Promise<string> {
    this.count(data.byteLength);
    const safeExt = /^\.[a-z0-9]{1,8}$/i.test(extension) ? extension.toLowerCase() : '';
    const name = `${String(this.index++).padStart(5, '0')}${safeExt}`;
    await fs.writeFile(path.join(this.dir, name), data);
    return name;
  }
}

class LocalStaging implements Staging {
  constructor(
    private readonly store: LocalContentStore,
    readonly dir: string,
  ) {}

  async commit(folder: string): Promise<void> {
    const target = this.store.resolve(checkStoragePath(folder));
    await fs.rm(target, { recursive: true, force: true });
    await fs.rename(this.dir, target);
  }

  async abort(): Promise<void> {
    await fs.rm(this.dir, { recursive: true, force: true });
  }
}

/**
 * The upload area of the local store: DATA_DIR/content/.uploads/<upload>/<name>. Servers that share the content folder
 * (a shared mount) share it; its name is written in `.uploads/area` by the first.
 */
class LocalUploadArea implements UploadArea {
  private name: string | null = null;

  constructor(private readonly root: string) {}

  /** Made at the first upload (a library that never takes one has no `.uploads`), then read by every server. */
  async id(create = false): Promise<string | null> {
    if (this.name) return this.name;
    const marker = path.join(this.root, 'area');
    if (create) {
      await fs.mkdir(this.root, { recursive: true });
      await fs.writeFile(marker, randomToken(12), { flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
      });
    }
    const name = await fs.readFile(marker, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    // kept once read: the name never changes
    if (name?.trim()) this.name = name.trim();
    return this.name;
  }

  private at(upload: string, name?: string): string {
    return name === undefined ? path.join(this.root, checkUploadName(upload)) : path.join(this.root, checkUploadName(upload), checkUploadName(name));
  }

  async put(upload: string, name: string, file: string): Promise<void> {
    const target = this.at(upload, name);
    await fs.mkdir(path.dirname(target), { recursive: true });
    // moved when on the same file system (DATA_DIR/tmp beside DATA_DIR/content), else copied aside and renamed
    await fs.rename(file, target).catch(async (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EXDEV') throw err;
      const temp = `${target}.${randomToken(6)}`;
      await fs.copyFile(file, temp);
      await fs.rename(temp, target);
    });
  }

  async get(upload: string, name: string, to: string): Promise<void> {
    const from = this.at(upload, name);
    await fs.link(from, to).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') throw err;
      return fs.copyFile(from, to);
    });
  }

  async remove(upload: string): Promise<void> {
    await fs.rm(this.at(upload), { recursive: true, force: true });
  }

  async *list(): AsyncGenerator<{ upload: string; modified: Date }> {
    const entries = await fs.readdir(this.root, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      const dir = path.join(this.root, e.name);
      let modified = (await fs.stat(dir).catch(() => null))?.mtime.getTime() ?? 0;
      for (const f of await fs.readdir(dir).catch(() => [])) modified = Math.max(modified, (await fs.stat(path.join(dir, f)).catch(() => null))?.mtime.getTime() ?? 0);
      yield { upload: e.name, modified: new Date(modified) };
    }
  }
}
