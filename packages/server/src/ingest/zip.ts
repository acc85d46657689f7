/**
 * A defensive view of a zip archive for the EPUB importer. Uploaded books are untrusted: the central directory
 * is read first (no inflation), sizes are checked against the zip-bomb limits before anything is inflated,
 * and entry names are normalised so that "../" cannot reach outside the archive. fflate inflates each entry
 * into a buffer of its declared size, so an entry that lies about its size cannot grow past the limit either.
 */
import { unzipSync } from 'fflate';
import { normalisePath } from './paths.ts';
import { IngestError } from './types.ts';

const MAX_ENTRY_BYTES = 200 * 1024 * 1024;
const MAX_TOTAL_BYTES = 1024 * 1024 * 1024;

const MB = 1024 * 1024;
const LOCAL_HEADER = 0x04034b50;

export class ZipArchive {
  /** Normalised file paths in archive order (directories left out). */
  readonly paths: string[] = [];
  /** Name in the first local file header, which the OCF rules reserve for "mimetype". */
  readonly firstEntryName: string | null;
  private readonly rawNames = new Map<string, string>();
  private readonly lowerCase = new Map<string, string>();
  private readonly deflated = new Set<string>();

  constructor(
    private readonly data: Uint8Array,
    warn: (message: string) => void,
  ) {
    this.firstEntryName = readFirstEntryName(data);
    let total = 0;
    try {
      unzipSync(data, {
        filter: (entry) => {
          if (entry.originalSize > MAX_ENTRY_BYTES) {
            throw new IngestError(
              `zip entry ${entry.name} would inflate to ${Math.round(entry.originalSize / MB)} MB, more than the ${MAX_ENTRY_BYTES / MB} MB limit for one file`,
            );
          }
          total += entry.originalSize;
          if (total > MAX_TOTAL_BYTES) {
            throw new IngestError(`the zip archive would inflate to more than ${MAX_TOTAL_BYTES / MB} MB`);
          }
          this.index(entry.name, entry.compression !== 0, warn);
          return false;
        },
      });
    } catch (error) {
      if (error instanceof IngestError) throw error;
      throw new IngestError(
        startsWithLocalHeader(data)
          ? 'the zip archive is damaged or truncated (its central directory cannot be read)'
          : 'not a zip archive',
      );
    }
  }

  has(path: string): boolean {
    return this.rawNames.has(path);
  }

  /** The entry path for `path`, falling back to a match that ignores letter case (as case-insensitive file systems do). */
  lookup(path: string): string | undefined {
    return this.rawNames.has(path) ? path : this.lowerCase.get(path.toLowerCase());
  }

  /**
   * Inflates the given entries. A damaged entry does not sink the others: it is reported through `damaged`
   * and left out of the result.
   */
  read(paths: Iterable<string>, damaged: (path: string, reason: string) => void): Map<string, Uint8Array> {
    const wanted = new Map<string, string>();
    for (const path of paths) {
      const raw = this.rawNames.get(path);
      if (raw !== undefined) wanted.set(raw, path);
    }
    const out = new Map<string, Uint8Array>();
    try {
      const files = unzipSync(this.data, { filter: (entry) => wanted.has(entry.name) });
      for (const [raw, bytes] of Object.entries(files)) out.set(wanted.get(raw) ?? raw, bytes);
      return out;
    } catch {
      // One bad entry fails the whole pass; inflate one by one to find it.
    }
    for (const [raw, path] of wanted) {
      try {
        const bytes = unzipSync(this.data, { filter: (entry) => entry.name === raw })[raw];
        if (bytes) out.set(path, bytes);
      } catch (error) {
        damaged(path, error instanceof Error ? error.message : String(error));
      }
    }
    return out;
  }

  /** The entry is stored compressed (OCF wants "mimetype" stored as is). */
  isCompressed(path: string): boolean {
    return this.deflated.has(path);
  }

  private index(rawName: string, compressed: boolean, warn: (message: string) => void): void {
    if (rawName.endsWith('/')) return;
    const path = rawName.startsWith('/') ? null : normalisePath(rawName);
    if (!path) {
      warn(`zip entry ${rawName} points outside the archive; ignored`);
      return;
    }
    if (this.rawNames.has(path)) return;
    this.rawNames.set(path, rawName);
    this.paths.push(path);
    if (compressed) this.deflated.add(path);
    const lower = path.toLowerCase();
    if (!this.lowerCase.has(lower)) this.lowerCase.set(lower, path);
  }
}

function startsWithLocalHeader(data: Uint8Array): boolean {
  return data.length >= 4 && readUint32(data, 0) === LOCAL_HEADER;
}

/** The name in the local file header at offset 0 (zip layout, APPNOTE 4.3.7: the name length at 26, the name at 30). */
function readFirstEntryName(data: Uint8Array): string | null {
  if (data.length < 30 || !startsWithLocalHeader(data)) return null;
  return new TextDecoder().decode(data.subarray(30, 30 + readUint16(data, 26)));
}

function readUint16(data: Uint8Array, offset: number): number {
  return (data[offset] ?? 0) | ((data[offset + 1] ?? 0) << 8);
}

function readUint32(data: Uint8Array, offset: number): number {
  return (readUint16(data, offset) | (readUint16(data, offset + 2) << 16)) >>> 0;
}
