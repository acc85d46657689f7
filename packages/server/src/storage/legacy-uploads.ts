/**
 * The upload area before uploads moved into the content store (docs/decisions.md "Import jobs queued before uploads
 * moved into the store"): DATA_DIR/import-jobs/<job>/files/<name>, named by DATA_DIR/import-jobs/area. A job queued
 * there by a server of the release before still names that area and those files; an upgraded server that has the
 * folder runs such jobs from it (services/import-jobs.ts), and removes each job's folder when the job ends. Nothing new
 * is ever written here.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { checkUploadName } from './content-store.ts';

/** A job's files are gone from the old area (its request ended and removed them, or the folder was not kept). */
export class LegacyUploadGone extends Error {
  override name = 'LegacyUploadGone';
}

export class LegacyUploadArea {
  private name: string | null | undefined;

  constructor(readonly root: string) {}

  /** The old area's name, null when this DATA_DIR never had one (never created: only the release before did). */
  async id(): Promise<string | null> {
    if (this.name !== undefined) return this.name;
    const name = await fs.readFile(path.join(this.root, 'area'), 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    this.name = name?.trim() || null;
    return this.name;
  }

  /** Writes file `name` of job `upload` to the local file `to` (a hard link where it can). */
  async get(upload: string, name: string, to: string): Promise<void> {
    // the release before named a job's files by where it wrote them: only the last segment is taken, never a climb
    const base = path.basename(name);
    if (!base || base === '.' || base === '..') throw new LegacyUploadGone(`its file name ${JSON.stringify(name)} is not one this server reads`);
    const from = path.join(this.root, checkUploadName(upload), 'files', base);
    await fs.link(from, to).catch(async (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') {
        throw new LegacyUploadGone(
          `it was queued before this server's upgrade and its files are no longer in ${path.join(this.root, upload)} (the upload's request ended, or the folder was not kept); send the file again`,
        );
      }
      await fs.copyFile(from, to);
    });
  }

  /** Removes job `upload`'s folder; none is not an error. */
  async remove(upload: string): Promise<void> {
    await fs.rm(path.join(this.root, checkUploadName(upload)), { recursive: true, force: true });
  }

  /** Every job folder left, with its time (the sweep). */
  async *list(): AsyncGenerator<{ upload: string; modified: Date }> {
    const entries = await fs.readdir(this.root, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (!e.isDirectory() || !/^[A-Za-z0-9-]{1,64}$/.test(e.name)) continue;
      const stat = await fs.stat(path.join(this.root, e.name)).catch(() => null);
      if (stat) yield { upload: e.name, modified: stat.mtime };
    }
  }
}
