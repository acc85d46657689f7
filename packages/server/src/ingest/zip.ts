/**
 * A defensive view of a zip archive for the EPUB importer. Uploaded books are untrusted, so nothing here trusts
 * a size the archive states:
 * - the central directory is read first (no inflation) and the declared sizes are checked against the budget
 *   and against the archive's own size (a zip bomb declares far more than any book compresses to);
 * - each entry is inflated with zlib's maxOutputLength set to the size it declares, so the bytes are counted
 *   as they come out and an entry that lies about its size is stopped at the lie, not after it;
 * - the bytes actually inflated are counted against the same budget;
 * - entry names are normalised so that "../" cannot reach outside the archive.
 */
import { crc32, inflateRawSync } from 'node:zlib';
import { normalisePath } from './paths.ts';
import { IngestError } from './types.ts';

export interface ZipLimits {
  /** Bytes the whole archive may inflate to (declared and actually inflated). */
  maxInflatedBytes: number;
  /** What the limit is called for operators (the environment variable that sets it). */
  limitName?: string;
}

/** Books compress text 3-5 times and images not at all; 100 times is a zip bomb. Small archives are let through. */
const MAX_RATIO = 100;
const RATIO_FLOOR_BYTES = 16 * 1024 * 1024;
export const DEFAULT_ZIP_LIMITS: ZipLimits = { maxInflatedBytes: 400 * 1024 * 1024 };

const MB = 1024 * 1024;
const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_DIRECTORY = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END = 0x06064b50;
/** What a split archive's first part starts with (APPNOTE 8.5.3). */
const SPLIT_MARKER = 0x08074b50;
const METHOD_NAMES: Record<number, string> = {
  1: 'Shrink', 2: 'Reduce', 3: 'Reduce', 4: 'Reduce', 5: 'Reduce', 6: 'Implode', 9: 'Deflate64', 10: 'PKWARE DCL Implode',
  12: 'bzip2', 14: 'LZMA', 18: 'IBM TERSE', 19: 'IBM LZ77', 93: 'Zstandard', 94: 'MP3', 95: 'XZ', 96: 'JPEG', 97: 'WavPack',
  98: 'PPMd', 99: 'AES encryption',
};

interface Entry {
  rawName: string;
  method: number;
  encrypted: boolean;
  compressedSize: number;
  size: number;
  localOffset: number;
}

const megabytes = (bytes: number): string => `${Math.ceil(bytes / MB)} MB`;

export class ZipArchive {
  /** Normalised file paths in archive order (directories left out). */
  readonly paths: string[] = [];
  /** Name in the first local file header, which the OCF rules reserve for "mimetype". */
  readonly firstEntryName: string | null;
  private readonly entries = new Map<string, Entry>();
  private readonly lowerCase = new Map<string, string>();
  private readonly inflated = new Set<string>();
  private inflatedBytes = 0;
  private readonly limitName: string;

  constructor(
    private readonly data: Uint8Array,
    warn: (message: string) => void,
    private readonly limits: ZipLimits = DEFAULT_ZIP_LIMITS,
    /** How errors name the book (its file name). */
    private readonly bookName = 'the book',
  ) {
    this.limitName = limits.limitName ? ` (${limits.limitName})` : '';
    this.firstEntryName = readFirstEntryName(data);
    const entries = readCentralDirectory(data, bookName);
    let declared = 0;
    for (const entry of entries) {
      declared += entry.size;
      if (declared > limits.maxInflatedBytes) {
        throw new IngestError(
          `the zip archive would inflate to more than ${megabytes(limits.maxInflatedBytes)}, the limit for one import${this.limitName}`,
        );
      }
    }
    if (declared > RATIO_FLOOR_BYTES && declared > MAX_RATIO * data.byteLength) {
      throw new IngestError(
        `the zip archive would inflate to ${megabytes(declared)}, ${Math.round(declared / data.byteLength)} times its own size (at most ${MAX_RATIO} times is accepted): it looks like a zip bomb`,
      );
    }
    for (const entry of entries) this.index(entry, warn);
  }

  has(path: string): boolean {
    return this.entries.has(path);
  }

  /** The entry path for `path`, falling back to a match that ignores letter case (as case-insensitive file systems do). */
  lookup(path: string): string | undefined {
    return this.entries.has(path) ? path : this.lowerCase.get(path.toLowerCase());
  }

  /**
   * Inflates the given entries. A damaged entry does not sink the others: it is reported through `damaged`
   * and left out of the result. An entry that inflates past its declared size, or past the budget, sinks the
   * whole import (IngestError): that is an attack, not damage.
   */
  read(paths: Iterable<string>, damaged: (path: string, reason: string) => void): Map<string, Uint8Array> {
    const out = new Map<string, Uint8Array>();
    for (const path of paths) {
      const entry = this.entries.get(path);
      if (!entry || out.has(path)) continue;
      try {
        const bytes = this.inflate(path, entry);
        out.set(path, bytes);
      } catch (error) {
        if (error instanceof IngestError) throw error;
        damaged(path, error instanceof Error ? error.message : String(error));
      }
    }
    return out;
  }

  /** The entry is stored compressed (OCF wants "mimetype" stored as is). */
  isCompressed(path: string): boolean {
    return (this.entries.get(path)?.method ?? 0) !== 0;
  }

  private inflate(path: string, entry: Entry): Uint8Array {
    if (entry.encrypted) throw new Error('the entry is encrypted');
    const start = dataOffset(this.data, entry);
    const raw = this.data.subarray(start, start + entry.compressedSize);
    if (raw.byteLength < entry.compressedSize) throw new Error('the entry is truncated');
    let bytes: Uint8Array;
    if (entry.method === 0) {
      if (entry.compressedSize !== entry.size) throw new Error('a stored entry whose sizes disagree');
      bytes = raw.slice();
    } else if (entry.method === 8) {
      try {
        // maxOutputLength stops zlib as soon as the output passes the declared size: the lie costs nothing.
        bytes = new Uint8Array(inflateRawSync(raw, { maxOutputLength: Math.max(1, entry.size) }));
      } catch (error) {
        if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
          throw new IngestError(`zip entry ${entry.rawName} inflates to more than the ${entry.size} bytes its directory declares: the archive lies about its sizes`);
        }
        throw new Error(error instanceof Error ? error.message : String(error), { cause: error });
      }
      if (bytes.byteLength !== entry.size) throw new Error(`it inflates to ${bytes.byteLength} bytes, not the ${entry.size} declared`);
    } else {
      // Not damage: the whole book is written this way. Say so, naming the book and the entry.
      const method = METHOD_NAMES[entry.method] ? `${METHOD_NAMES[entry.method]} (zip method ${entry.method})` : `zip compression method ${entry.method}`;
      throw new IngestError(
        `${this.bookName}: the zip entry ${entry.rawName} is compressed with ${method}, which Lectern cannot read; EPUB files use only stored or Deflate entries (save the book again with ordinary zip compression)`,
      );
    }
    if (!this.inflated.has(path)) {
      this.inflated.add(path);
      this.inflatedBytes += bytes.byteLength;
      if (this.inflatedBytes > this.limits.maxInflatedBytes) {
        throw new IngestError(`the zip archive inflates to more than ${megabytes(this.limits.maxInflatedBytes)}, the limit for one import${this.limitName}`);
      }
    }
    return bytes;
  }

  private index(entry: Entry, warn: (message: string) => void): void {
    const rawName = entry.rawName;
    if (rawName.endsWith('/')) return;
    const path = rawName.startsWith('/') ? null : normalisePath(rawName);
    if (!path) {
      warn(`zip entry ${rawName} points outside the archive; ignored`);
      return;
    }
    if (this.entries.has(path)) return;
    this.entries.set(path, entry);
    this.paths.push(path);
    const lower = path.toLowerCase();
    if (!this.lowerCase.has(lower)) this.lowerCase.set(lower, path);
  }
}

/** The central directory (APPNOTE 4.3.12, 4.3.16 and the ZIP64 records of 4.3.14, 4.3.15, 4.5.3). */
function readCentralDirectory(data: Uint8Array, bookName: string): Entry[] {
  const split = (detail: string): IngestError =>
    new IngestError(`${bookName} is one part of a split (multi-part) zip archive${detail}; join the parts into one file (zip -s 0) and import that`);
  const broken = (): IngestError => {
    if (readUint32(data, 0) === SPLIT_MARKER) return split(' (the first part)');
    return new IngestError(
      startsWithLocalHeader(data) ? 'the zip archive is damaged or truncated (its central directory cannot be read)' : 'not a zip archive',
    );
  };
  let end = -1;
  for (let i = data.byteLength - 22; i >= Math.max(0, data.byteLength - 22 - 0xffff); i--) {
    if (readUint32(data, i) === END_OF_DIRECTORY) {
      end = i;
      break;
    }
  }
  if (end < 0) throw broken();
  const disk = readUint16(data, end + 4);
  const directoryDisk = readUint16(data, end + 6);
  if (disk !== 0 || directoryDisk !== 0 || readUint16(data, end + 8) !== readUint16(data, end + 10)) {
    // The last part holds the directory: name an entry that lives in an earlier part.
    const offset = readUint32(data, end + 16);
    const first = directoryDisk === disk && readUint32(data, offset) === CENTRAL_HEADER ? data.subarray(offset + 46, offset + 46 + readUint16(data, offset + 28)) : null;
    throw split(`${disk > 0 ? ` (part ${disk + 1})` : ''}${first ? `: the entry ${new TextDecoder().decode(first)} is in part ${readUint16(data, offset + 34) + 1}` : ''}`);
  }
  let count = readUint16(data, end + 10);
  let offset = readUint32(data, end + 16);
  if ((count === 0xffff || offset === 0xffffffff) && end >= 20 && readUint32(data, end - 20) === ZIP64_LOCATOR) {
    const zip64End = readUint64(data, end - 12);
    if (readUint32(data, zip64End) !== ZIP64_END) throw broken();
    count = readUint64(data, zip64End + 32);
    offset = readUint64(data, zip64End + 48);
  }
  const entries: Entry[] = [];
  for (let i = 0; i < count; i++) {
    if (offset + 46 > data.byteLength || readUint32(data, offset) !== CENTRAL_HEADER) throw broken();
    const flags = readUint16(data, offset + 8);
    const nameLength = readUint16(data, offset + 28);
    const extraLength = readUint16(data, offset + 30);
    const commentLength = readUint16(data, offset + 32);
    const nameBytes = data.subarray(offset + 46, offset + 46 + nameLength);
    const extra = data.subarray(offset + 46 + nameLength, offset + 46 + nameLength + extraLength);
    const entry: Entry = {
      rawName: entryName(nameBytes, flags, extra),
      method: readUint16(data, offset + 10),
      encrypted: (flags & 1) !== 0,
      compressedSize: readUint32(data, offset + 20),
      size: readUint32(data, offset + 24),
      localOffset: readUint32(data, offset + 42),
    };
    readZip64Extra(extra, entry);
    entries.push(entry);
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

const UTF8_STRICT = new TextDecoder('utf-8', { fatal: true });

/**
 * An entry's name. Bit 11 says UTF-8; without it, Info-ZIP's Unicode Path field (0x7075) when it is there and
 * belongs to this name (its CRC-32 is the raw name's); else UTF-8 when the bytes are valid UTF-8 — OCF requires
 * UTF-8 names, and Info-ZIP's `zip -X`, the usual EPUB recipe, writes them without the flag (a Japanese book's
 * `xhtml/一.xhtml` matched no manifest href and the book had "no readable chapters") — and Latin-1 only for bytes
 * that cannot be UTF-8 (an old DOS or Windows archiver's name).
 */
function entryName(nameBytes: Uint8Array, flags: number, extra: Uint8Array): string {
  if (flags & 0x800) return new TextDecoder('utf-8').decode(nameBytes);
  for (let at = 0; at + 4 <= extra.byteLength; ) {
    const id = readUint16(extra, at);
    const length = readUint16(extra, at + 2);
    if (id === 0x7075 && length >= 5 && at + 4 + length <= extra.byteLength && extra[at + 4] === 1 && readUint32(extra, at + 5) === crc32(nameBytes)) {
      try {
        return UTF8_STRICT.decode(extra.subarray(at + 9, at + 4 + length));
      } catch {
        break;
      }
    }
    at += 4 + length;
  }
  try {
    return UTF8_STRICT.decode(nameBytes);
  } catch {
    return new TextDecoder('latin1').decode(nameBytes);
  }
}

/** ZIP64 extended information (header 0x0001): the 64-bit values of the fields that read 0xFFFFFFFF, in this order. */
function readZip64Extra(extra: Uint8Array, entry: Entry): void {
  for (let at = 0; at + 4 <= extra.byteLength; ) {
    const id = readUint16(extra, at);
    const length = readUint16(extra, at + 2);
    if (id === 0x0001) {
      let field = at + 4;
      for (const key of ['size', 'compressedSize', 'localOffset'] as const) {
        if (entry[key] === 0xffffffff && field + 8 <= at + 4 + length) {
          entry[key] = readUint64(extra, field);
          field += 8;
        }
      }
      return;
    }
    at += 4 + length;
  }
}

function dataOffset(data: Uint8Array, entry: Entry): number {
  if (readUint32(data, entry.localOffset) !== LOCAL_HEADER) throw new Error('its local header is missing');
  return entry.localOffset + 30 + readUint16(data, entry.localOffset + 26) + readUint16(data, entry.localOffset + 28);
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

/** Sizes past 2^53 are not real for a book; they become a number that fails every limit. */
function readUint64(data: Uint8Array, offset: number): number {
  return readUint32(data, offset) + readUint32(data, offset + 4) * 0x100000000;
}
