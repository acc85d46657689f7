/**
 * Content files (book resources, covers, PDF documents) below DATA_DIR/content. An import writes into a staging
 * folder (from its worker process, through StagedFileWriter) and renames it into place; if the database
 * transaction then fails the folder is removed again, so a failed import leaves neither rows nor files behind.
 * Uploads wait for their import in DATA_DIR/tmp, one folder per request, removed when the request ends.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomToken } from '../util/random.ts';

export class ContentStore {
  readonly root: string;
  /** Uploads on their way to an import. */
  readonly tmpRoot: string;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, 'content');
    this.tmpRoot = path.join(dataDir, 'tmp');
  }

  /** A private folder for the files of one upload; `remove()` takes it away with everything in it. */
  async beginUpload(): Promise<UploadFolder> {
    await fs.mkdir(this.tmpRoot, { recursive: true });
    const dir = await fs.mkdtemp(path.join(this.tmpRoot, 'upload-'));
    return { dir, remove: () => fs.rm(dir, { recursive: true, force: true }) };
  }

  /** Absolute path of a stored file; refuses anything that would leave the content folder. */
  resolve(storagePath: string): string {
    const full = path.resolve(this.root, storagePath);
    if (!full.startsWith(this.root + path.sep)) throw new Error(`storage path escapes the content folder: ${storagePath}`);
    return full;
  }

  async beginStaging(): Promise<Staging> {
    const dir = path.join(this.root, `.staging-${randomToken(9)}`);
    await fs.mkdir(dir, { recursive: true });
    return new Staging(this, dir);
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

export class Staging {
  constructor(
    private readonly store: ContentStore,
    readonly dir: string,
  ) {}

  /** Moves the staged files to their final folder, `folder/name` being what storage paths then start with. */
  async commit(folder: string): Promise<void> {
    const target = this.store.resolve(folder);
    await fs.rm(target, { recursive: true, force: true });
    await fs.rename(this.dir, target);
  }

  async abort(): Promise<void> {
    await fs.rm(this.dir, { recursive: true, force: true });
  }
}
