/**
 * `content:move --to s3://… | local` (docs/operations.md "The content store"): copies every file a row names from the
 * library's content store to another, each one verified there (its size, and its SHA-256 read back) before it counts.
 * Rows hold relative storage paths, the same in either store, so nothing in the database changes: once every file is
 * copied and verified, the operator points CONTENT_STORE at the new store and restarts the servers. The old store is
 * left as it was (deleting it is the operator's, once the servers read the new one).
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../errors.ts';
import type { ContentFilesRepository } from '../repositories/content-files.ts';
import type { ContentStore } from '../storage/content-store.ts';
import { randomToken } from '../util/random.ts';

export interface ContentMoveReport {
  from: string;
  to: string;
  /** files copied and verified, and their bytes */
  copied: number;
  bytes: number;
  /** named by a row but not in the old store (nothing to copy) */
  missing: string[];
  /** copied, but not the same bytes when read back */
  mismatched: string[];
}

/** Files copied at once (each one a stream through a temporary file). */
const AT_ONCE = 4;

export class ContentMoveService {
  constructor(
    private readonly files: ContentFilesRepository,
    private readonly from: ContentStore,
    /** a folder on this machine for the files on their way (DATA_DIR/tmp) */
    private readonly tmpRoot: string,
  ) {}

  async move(to: ContentStore, progress: (done: number, total: number) => void = () => {}): Promise<ContentMoveReport> {
    if (to.location === this.from.location) throw new AppError(400, `The library's content is in ${to.location} already: nothing to move.`);
    const paths = await this.files.storedPaths();
    const report: ContentMoveReport = { from: this.from.location, to: to.location, copied: 0, bytes: 0, missing: [], mismatched: [] };
    await fs.mkdir(this.tmpRoot, { recursive: true });
    let next = 0;
    let done = 0;
    const worker = async () => {
      while (next < paths.length) {
        const storagePath = paths[next++]!;
        const outcome = await this.copyOne(storagePath, to);
        if (outcome === 'missing') report.missing.push(storagePath);
        else if (outcome === 'mismatched') report.mismatched.push(storagePath);
        else {
          report.copied++;
          report.bytes += outcome;
        }
        progress(++done, paths.length);
      }
    };
    await Promise.all(Array.from({ length: Math.min(AT_ONCE, paths.length) }, worker));
    report.missing.sort();
    report.mismatched.sort();
    return report;
  }

  /** Copies one file through a temporary file, hashing it as it goes; its size, or why it did not count. */
  private async copyOne(storagePath: string, to: ContentStore): Promise<number | 'missing' | 'mismatched'> {
    const stat = await this.from.stat(storagePath);
    if (!stat) return 'missing';
    const temp = path.join(this.tmpRoot, `move-${randomToken(9)}`);
    try {
      const sent = createHash('sha256');
      await pipeline(await this.from.read(storagePath), tap(sent), createWriteStream(temp));
      await to.putFile(storagePath, temp);
      const there = await to.stat(storagePath);
      if (!there || there.size !== stat.size) return 'mismatched';
      const back = createHash('sha256');
      for await (const chunk of await to.read(storagePath)) back.update(chunk as Buffer);
      return back.digest('hex') === sent.digest('hex') ? stat.size : 'mismatched';
    } finally {
      await fs.rm(temp, { force: true });
    }
  }
}

/** A pass-through that feeds every chunk to `hash`. */
function tap(hash: ReturnType<typeof createHash>): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      callback(null, chunk);
    },
  });
}
