/**
 * The block answer's cipher and coder in WebAssembly (block-coder.wat; docs/decisions.md "The block request: the
 * cipher and the coder in WebAssembly"). The bytes are those of core's `xxteaEncryptWords` and of the literal-only
 * deflate of util/base64-gzip.ts (tests compare them on random data); WebAssembly does each in about a third of
 * the JavaScript's time, with 64-bit shifts and no bounds checks on typed arrays.
 *
 * One instance serves every request (each call runs to its end before another starts): its memory keeps the
 * tables, the last ciphertext, the text and the coded answer, and grows up to {@link KEPT}; a call that needs more
 * gets an instance of its own, dropped afterwards.
 */
import fs from 'node:fs';
import { BLOCK_CODER_WASM } from './block-coder-source.ts';

/** The part of WebAssembly's JS API used here (this package's `lib` has no WebAssembly types). */
interface Memory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
const wasm = (globalThis as unknown as {
  WebAssembly: { Module: new (bytes: Uint8Array) => object; Instance: new (module: object) => { exports: unknown } };
}).WebAssembly;

interface Exports {
  memory: Memory;
  encrypt(v: number, len: number): void;
  begin(o: number, t: number, acc: number, nbits: number): void;
  bytes(len: number): void;
  base64(src: number, len: number): void;
  finish(): number;
  textEnd(): number;
}

const MODULE = new wasm.Module(fs.readFileSync(BLOCK_CODER_WASM));
const CODE2 = 0;
const CHARS2 = 16384;
const TABLE_AT = 24576;
const KEY = 25616;
/** Where data starts: the ciphertext, then (for a coding) staged bytes, the text and the coded answer. */
export const DATA = 32768;
/** Memory the shared instance keeps (a larger answer is made in an instance of its own). */
const KEPT = 8 * 1024 * 1024;
const PAGE = 65536;

export interface CoderTables {
  /** code | length << 16 of each byte and of the end of block (256) */
  table: Int32Array;
  /** code | length << 16 of each base64 digit (its value) */
  digit: Int32Array;
  /** the base64 alphabet */
  alphabet: string;
}

export class BlockCoder {
  readonly exports: Exports;
  private u8: Uint8Array;

  constructor(tables: CoderTables, bytes: number) {
    this.exports = new wasm.Instance(MODULE).exports as Exports;
    this.ensure(Math.max(bytes, DATA + PAGE));
    const own = this.exports.memory;
    this.u8 = new Uint8Array(own.buffer);
    const words = new Int32Array(own.buffer);
    const halves = new Uint16Array(own.buffer);
    const { table, digit, alphabet } = tables;
    for (let a = 0; a < 64; a++) {
      for (let b = 0; b < 64; b++) {
        const first = digit[a]!;
        const second = digit[b]!;
        const length = (first >>> 16) + (second >>> 16);
        words[(CODE2 >> 2) + ((a << 6) | b)] = (first & 0xffff) | ((second & 0xffff) << (first >>> 16)) | (length << 16);
        halves[(CHARS2 >> 1) + ((a << 6) | b)] = alphabet.charCodeAt(a) | (alphabet.charCodeAt(b) << 8);
      }
    }
    words.set(table, TABLE_AT >> 2);
  }

  /** The memory's bytes (a new view after the memory grew). */
  get memory(): Uint8Array {
    if (this.u8.buffer !== this.exports.memory.buffer) this.u8 = new Uint8Array(this.exports.memory.buffer);
    return this.u8;
  }

  /** Grows the memory to at least `bytes`; views made before are detached when it grows. */
  ensure(bytes: number): void {
    const have = this.exports.memory.buffer.byteLength;
    if (bytes > have) this.exports.memory.grow(Math.ceil((bytes - have) / PAGE));
  }

  /** The memory's size in bytes. */
  get size(): number {
    return this.exports.memory.buffer.byteLength;
  }

  /** Whether `bytes` are a view of this instance's memory. */
  holds(bytes: Uint8Array): boolean {
    return bytes.buffer === this.exports.memory.buffer;
  }
}

let tablesGiven: CoderTables | undefined;
let shared: BlockCoder | undefined;

/** The coder's tables (util/base64-gzip.ts gives them as it loads: its code is the one used). */
export function setCoderTables(tables: CoderTables): void {
  tablesGiven = tables;
}

/** The shared instance when `bytes` of memory is within what it keeps, else an instance of its own. */
export function coderFor(bytes: number): BlockCoder {
  if (!tablesGiven) throw new Error('block coder: no tables (load util/base64-gzip.ts)');
  if (bytes > KEPT) return new BlockCoder(tablesGiven, bytes);
  shared ??= new BlockCoder(tablesGiven, DATA + PAGE);
  shared.ensure(bytes);
  return shared;
}

/** The little-endian words of a 16-byte-padded key (the first 16 bytes count, as in xxtea-node). */
function setKey(memory: Uint8Array, key: Uint8Array): void {
  memory.fill(0, KEY, KEY + 16);
  memory.set(key.length > 16 ? key.subarray(0, 16) : key, KEY);
}

/**
 * core's `xxteaEncryptWords(plain, key)`: the ciphertext of the words core's `xxteaPlaintext` laid out, the same
 * bytes, as a view of the coder's memory (valid until the next encryption or coding: copy it to keep it).
 */
export function encryptWords(plain: Uint32Array, key: Uint8Array): Uint8Array {
  const n = plain.length;
  if (n <= 1) return new Uint8Array(0);
  const coder = coderFor(DATA + n * 4);
  const memory = coder.memory;
  setKey(memory, key);
  new Uint32Array(memory.buffer, DATA, n).set(plain);
  coder.exports.encrypt(DATA, n);
  return new Uint8Array(memory.buffer, DATA, n * 4);
}
