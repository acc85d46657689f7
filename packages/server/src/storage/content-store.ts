/**
 * Content files (book resources, covers, PDF documents) below DATA_DIR/content. An import writes into a staging
 * folder and renames it into place only after its database transaction committed, so a failed import leaves
 * neither rows nor files behind.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomToken } from '../util/random.ts';

export class ContentStore {
  readonly root: string;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, 'content');
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

export class Staging {
  private index = 0;

  constructor(
    private readonly store: ContentStore,
    readonly dir: string,
  ) {}

  /** Writes one file and returns the name it gets inside the title's folder (numbered: book paths can be anything). */
  async write(data: Uint8Array, extension: string): Promise<string> {
    const safeExt = /^\.[a-z0-9]{1,8}$/i.test(extension) ? extension.toLowerCase() : '';
    const name = `${String(this.index++).padStart(5, '0')}${safeExt}`;
    await fs.writeFile(path.join(this.dir, name), data);
    return name;
  }

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
