/**
 * gzip for answers that are mostly base64 (a crypt64 chapter's JSON), at a fraction of zlib's cost.
 *
 * Ciphertext is random, so zlib finds no repeats in it; what it saves on base64 (about a quarter: 6 bits of
 * information in each 8-bit character) comes from Huffman coding alone, and zlib spent 50-80 µs a 10 KB chapter
 * (more than the encryption) searching for repeats that are not there. This writes one deflate block (RFC 1951,
 * dynamic Huffman, literals only) with a code fixed once for base64 text: 63 of the 64 alphabet characters in
 * 6 bits and `+` in 7; every other byte (the JSON's punctuation, labels in any script) and the end of block in
 * 14 or 15. Any byte sequence encodes; base64 comes out at about 75 % of its size. Any gzip reader inflates it.
 * With 63 characters in 6 bits, four characters of base64 (three bytes of ciphertext) are almost always exactly 24
 * bits of code: `gzipText` writes them as three whole bytes, with no count of bits to keep (see there).
 */
import { crc32 } from 'node:zlib';
import { coderFor, DATA, setCoderTables } from './block-coder.ts';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const EOB = 256;
/** The one base64 digit coded in 7 bits (the value of `+`): 64 codes of 6 bits would leave no room for the rest. */
const PLUS = 62;

/** Code length of each literal (0-255) and of the end of block (256). The code is complete (Kraft sum exactly 1), as inflaters require. */
const LENGTHS = new Uint8Array(257);
{
  for (let i = 0; i < 64; i++) LENGTHS[B64.charCodeAt(i)] = i === PLUS ? 7 : 6;
  // The other 193 symbols share the last 1/128 of the code space: 63 of 14 bits and 130 of 15 (2*63 + 130 = 256;
  // 15 is deflate's longest code). The 14-bit ones: the end of block, then the printable ASCII outside the alphabet
  // (JSON's punctuation), then whatever comes first.
  const rest: number[] = [EOB];
  for (let c = 0x20; c < 0x7f; c++) if (!LENGTHS[c]) rest.push(c);
  for (let c = 0; c < 256; c++) if (!LENGTHS[c] && !rest.includes(c)) rest.push(c);
  rest.forEach((symbol, i) => (LENGTHS[symbol] = i < 63 ? 14 : 15));
}

/** Canonical Huffman codes (RFC 1951 §3.2.2) for the lengths, bit-reversed: deflate sends a code's first bit first, into the low bits. */
function canonicalCodes(lengths: ArrayLike<number>): Uint16Array {
  const max = Math.max(...Array.from(lengths));
  const count = new Uint16Array(max + 1);
  for (let i = 0; i < lengths.length; i++) count[lengths[i]!]!++;
  count[0] = 0;
  const next = new Uint16Array(max + 2);
  let code = 0;
  for (let bits = 1; bits <= max; bits++) {
    code = (code + count[bits - 1]!) << 1;
    next[bits] = code;
  }
  const codes = new Uint16Array(lengths.length);
  for (let i = 0; i < lengths.length; i++) {
    const len = lengths[i]!;
    if (!len) continue;
    let c = next[len]!++;
    let reversed = 0;
    for (let b = 0; b < len; b++, c >>>= 1) reversed = (reversed << 1) | (c & 1);
    codes[i] = reversed;
  }
  return codes;
}

const CODES = canonicalCodes(LENGTHS);
/** Code and length of each symbol in one word (code in the low 16 bits), for one lookup a byte. */
const TABLE = new Int32Array(257);
for (let i = 0; i < 257; i++) TABLE[i] = CODES[i]! | (LENGTHS[i]! << 16);
/** Bits written least significant first, as deflate packs them. */
class BitWriter {
  acc = 0;
  nbits = 0;
  o = 0;
  constructor(readonly out: Buffer) {}
  write(value: number, length: number): void {
    this.acc |= value << this.nbits;
    this.nbits += length;
    while (this.nbits >= 8) {
      this.out[this.o++] = this.acc & 0xff;
      this.acc >>>= 8;
      this.nbits -= 8;
    }
  }
}

/**
 * The block header, the same for every answer: BFINAL, dynamic Huffman, 257 literal/length codes, one distance
 * code (unused; a single code of length 1 is what inflaters accept for "no distances"), and the code lengths
 * themselves in the code-length alphabet. Kept as its whole bytes plus the bits of its last, partial byte.
 */
const HEADER: { bytes: Buffer; tailBits: number; tailLength: number } = (() => {
  const ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
  const all = [...LENGTHS, 1]; // 257 literal/length code lengths, then the one distance code's
  // The code-length alphabet: lengths 14, 15 and 6 in 2 bits, 7 and 1 in 3 (complete: 3/4 + 2/8).
  const clLengths = new Uint8Array(19);
  clLengths[14] = 2;
  clLengths[15] = 2;
  clLengths[6] = 2;
  clLengths[7] = 3;
  clLengths[1] = 3;
  const clCodes = canonicalCodes(clLengths);
  let hclen = 19;
  while (hclen > 4 && clLengths[ORDER[hclen - 1]!] === 0) hclen--;
  const w = new BitWriter(Buffer.alloc(512));
  w.write(1, 1); // BFINAL
  w.write(2, 2); // BTYPE 10: dynamic Huffman
  w.write(257 - 257, 5); // HLIT
  w.write(1 - 1, 5); // HDIST
  w.write(hclen - 4, 4); // HCLEN
  for (let i = 0; i < hclen; i++) w.write(clLengths[ORDER[i]!]!, 3);
  for (const len of all) w.write(clCodes[len]!, clLengths[len]!);
  // The partial last byte's bits stay apart: each answer's bit stream goes on from them.
  return { bytes: Buffer.from(w.out.subarray(0, w.o)), tailBits: w.acc, tailLength: w.nbits };
})();

const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);

/**
 * Two bytes at a time where both are base64 characters (the ciphertext's run, nearly all of an answer): the pair's
 * codes joined in one word, indexed by the two bytes as one little-endian 16-bit read. Zero where either byte
 * is not in the alphabet (a pair of codes longer than 14 bits): those pairs are coded a byte at a time.
 */
const PAIR = new Int32Array(65536);
for (let a = 0; a < 64; a++) {
  for (let b = 0; b < 64; b++) {
    const first = B64.charCodeAt(a);
    const second = B64.charCodeAt(b);
    const length = LENGTHS[first]! + LENGTHS[second]!;
    PAIR[first | (second << 8)] = (CODES[first]! | (CODES[second]! << LENGTHS[first]!)) | (length << 16);
  }
}
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Where the coding is written: one buffer reused by every call (the coding is synchronous), then copied out at its
 * size. The server wrote each answer's gzip into new memory twice its size, which missed the cache on every store.
 */
let scratch = Buffer.allocUnsafeSlow(32 * 1024);
let scratchView = new DataView(scratch.buffer, scratch.byteOffset, scratch.byteLength);
const SCRATCH_KEPT = 1024 * 1024;

/** Where a coding of at most `bound` bytes is written: the scratch buffer when it fits, else memory of its own; and a DataView of it. */
function outputFor(bound: number): { out: Buffer; view: DataView } {
  if (bound > scratch.length && bound <= SCRATCH_KEPT) {
    scratch = Buffer.allocUnsafeSlow(Math.min(SCRATCH_KEPT, bound * 2));
    scratchView = new DataView(scratch.buffer, scratch.byteOffset, scratch.byteLength);
  }
  if (bound <= scratch.length) return { out: scratch, view: scratchView };
  const out = Buffer.allocUnsafe(bound);
  return { out, view: new DataView(out.buffer, out.byteOffset, out.byteLength) };
}

/**
 * Answers up to this size are copied out of the scratch buffer into a shared slab, one after another, as Node's own
 * buffer pool does for small buffers: a fresh allocation for each answer (8 KB, outside the heap) cost twice the
 * copy and pressed the collector. A slab lives as long as any answer in it does (a slow client's pending write
 * keeps at most SLAB_BYTES, not more).
 */
const SLAB_ANSWER_MAX = 16 * 1024;
const SLAB_BYTES = 64 * 1024;
let slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
let slabAt = 0;

/** The coded answer, bytes 0 to `end` of `out`, as bytes of its own (the scratch buffer is the next call's). */
function copyOut(out: Buffer, end: number): Buffer {
  if (out !== scratch) return out.subarray(0, end);
  if (end > SLAB_ANSWER_MAX) return Buffer.from(out.subarray(0, end));
  if (slabAt + end > SLAB_BYTES) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    slabAt = 0;
  }
  out.copy(slab, slabAt, 0, end);
  const answer = slab.subarray(slabAt, slabAt + end);
  slabAt = (slabAt + end + 7) & ~7;
  return answer;
}

/** gzip (RFC 1952) of the bytes, Huffman-coded for base64 as described above. */
export function gzipBase64(data: Uint8Array): Buffer {
  const n = data.length;
  // At most 15 bits a byte, plus the headers and the trailer.
  const bound = GZIP_HEADER.length + HEADER.bytes.length + 1 + Math.ceil(((n + 1) * 15) / 8) + 8;
  const { out } = outputFor(bound);
  GZIP_HEADER.copy(out, 0);
  HEADER.bytes.copy(out, GZIP_HEADER.length);
  let o = GZIP_HEADER.length + HEADER.bytes.length;
  let acc = HEADER.tailBits;
  let nbits = HEADER.tailLength;
  // The accumulator holds fewer than 16 bits between steps and takes at most 14 (a pair) or 13 (a byte) more;
  // two bytes go out whenever 16 bits are in.
  let i = 0;
  if (LITTLE_ENDIAN && n >= 2) {
    // A 16-bit view needs an even offset: an odd first byte goes alone.
    if (data.byteOffset & 1) {
      const entry = TABLE[data[0]!]!;
      acc |= (entry & 0xffff) << nbits;
      nbits += entry >>> 16;
      i = 1;
    }
    const pairs = new Uint16Array(data.buffer, data.byteOffset + i, (n - i) >>> 1);
    const count = pairs.length;
    for (let j = 0; j < count; j++) {
      const pair = pairs[j]!;
      const both = PAIR[pair]!;
      if (both !== 0) {
        acc |= (both & 0xffff) << nbits;
        nbits += both >>> 16;
        if (nbits >= 16) {
          out[o++] = acc;
          out[o++] = acc >>> 8;
          acc >>>= 16;
          nbits -= 16;
        }
      } else {
        const first = TABLE[pair & 0xff]!;
        acc |= (first & 0xffff) << nbits;
        nbits += first >>> 16;
        if (nbits >= 16) {
          out[o++] = acc;
          out[o++] = acc >>> 8;
          acc >>>= 16;
          nbits -= 16;
        }
        const second = TABLE[pair >>> 8]!;
        acc |= (second & 0xffff) << nbits;
        nbits += second >>> 16;
        if (nbits >= 16) {
          out[o++] = acc;
          out[o++] = acc >>> 8;
          acc >>>= 16;
          nbits -= 16;
        }
      }
    }
    i += count << 1;
  }
  for (; i < n; i++) {
    const entry = TABLE[data[i]!]!;
    acc |= (entry & 0xffff) << nbits;
    nbits += entry >>> 16;
    if (nbits >= 16) {
      out[o++] = acc;
      out[o++] = acc >>> 8;
      acc >>>= 16;
      nbits -= 16;
    }
  }
  acc |= CODES[EOB]! << nbits;
  nbits += LENGTHS[EOB]!;
  while (nbits > 0) {
    out[o++] = acc & 0xff;
    acc >>>= 8;
    nbits -= 8;
  }
  out.writeUInt32LE(crc32(data), o);
  out.writeUInt32LE(n >>> 0, o + 4);
  return copyOut(out, o + 8);
}

/**
 * The same coding for a text given in parts, some of them the standard base64 of bytes (a crypt64 chapter's
 * ciphertext) that is made from the bytes instead of coming as text. The coding runs in WebAssembly
 * (util/block-coder.ts): the text is written into the coder's memory, for its CRC (native zlib), and coded as it
 * is written; a ciphertext already in that memory (`encryptWords`) is read where it is, with no copy. No base64
 * string, no answer body is made on the way.
 */
export type TextPart = Uint8Array | string | { base64Of: Uint8Array };

/** A base64 digit's code and length, as TABLE has them for its character. */
const DIGIT = Int32Array.from({ length: 64 }, (_, d) => TABLE[B64.charCodeAt(d)]!);
setCoderTables({ table: TABLE, digit: DIGIT, alphabet: B64 });

/** The length of a part as text. */
const textLength = (part: TextPart): number =>
  typeof part === 'string' ? part.length : part instanceof Uint8Array ? part.length : Math.ceil(part.base64Of.length / 3) * 4;

/** The parts' text as bytes, uncompressed (for a client that takes no gzip): the text {@link gzipText} codes. */
export function textOf(parts: readonly TextPart[]): Buffer {
  let n = 0;
  for (const part of parts) n += textLength(part);
  const text = Buffer.allocUnsafe(n);
  let t = 0;
  for (const part of parts) {
    if (typeof part === 'string') t += text.write(part, t, 'latin1');
    else if (part instanceof Uint8Array) {
      text.set(part, t);
      t += part.length;
    }
    else t += text.write(Buffer.from(part.base64Of.buffer, part.base64Of.byteOffset, part.base64Of.byteLength).toString('base64'), t, 'latin1');
  }
  return text;
}

const align8 = (n: number): number => (n + 7) & ~7;

/** A coded answer's bytes, copied out of the coder's memory (into the shared slab when it is small). */
function ownCopy(bytes: Uint8Array): Buffer {
  const end = bytes.length;
  if (end > SLAB_ANSWER_MAX) return Buffer.from(bytes);
  if (slabAt + end > SLAB_BYTES) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    slabAt = 0;
  }
  slab.set(bytes, slabAt);
  const answer = slab.subarray(slabAt, slabAt + end);
  slabAt = (slabAt + end + 7) & ~7;
  return answer;
}

/**
 * gzip (RFC 1952) of the parts' text, one after another: a Uint8Array as its bytes, a string as latin1 (the callers
 * pass ASCII: numbers, hex), `{ base64Of }` as the standard padded base64 of those bytes. The same bytes as
 * `gzipBase64` of the whole text.
 */
export function gzipText(parts: readonly TextPart[]): Buffer {
  let n = 0;
  for (const part of parts) n += textLength(part);
  const bound = GZIP_HEADER.length + HEADER.bytes.length + 1 + Math.ceil(((n + 1) * 15) / 8) + 8 + 8;
  // Ciphertext already in the shared coder's memory is read there; other bytes to base64 are staged after it.
  let coder = coderFor(0);
  let list = parts;
  let residentEnd = DATA;
  let staged = 0;
  for (const part of list) {
    if (typeof part === 'string' || part instanceof Uint8Array) continue;
    if (coder.holds(part.base64Of)) residentEnd = Math.max(residentEnd, part.base64Of.byteOffset + part.base64Of.byteLength);
    else staged += align8(part.base64Of.length);
  }
  let need = align8(residentEnd) + staged + align8(n) + bound;
  if (need > coder.size) {
    // The memory grows, or another instance codes this: the ciphertext in the memory is copied out first.
    list = parts.map((part) => (typeof part === 'object' && !(part instanceof Uint8Array) && coder.holds(part.base64Of) ? { base64Of: part.base64Of.slice() } : part));
    residentEnd = DATA;
    staged = 0;
    for (const part of list) if (typeof part === 'object' && !(part instanceof Uint8Array)) staged += align8(part.base64Of.length);
    need = DATA + staged + align8(n) + bound;
    coder = coderFor(need);
  }
  const memory = coder.memory;
  let at = align8(residentEnd);
  const sources = list.map((part) => {
    if (typeof part === 'string' || part instanceof Uint8Array || coder.holds(part.base64Of)) return -1;
    const src = at;
    memory.set(part.base64Of, src);
    at += align8(part.base64Of.length);
    return src;
  });
  const textAt = at;
  const outAt = align8(textAt + n);
  memory.set(GZIP_HEADER, outAt);
  memory.set(HEADER.bytes, outAt + GZIP_HEADER.length);
  const { exports } = coder;
  exports.begin(outAt + GZIP_HEADER.length + HEADER.bytes.length, textAt, HEADER.tailBits, HEADER.tailLength);
  let t = textAt;
  list.forEach((part, i) => {
    if (typeof part === 'string') {
      for (let k = 0; k < part.length; k++) memory[t + k] = part.charCodeAt(k);
      exports.bytes(part.length);
      t += part.length;
    } else if (part instanceof Uint8Array) {
      memory.set(part, t);
      exports.bytes(part.length);
      t += part.length;
    } else {
      const bytes = part.base64Of;
      exports.base64(sources[i]! >= 0 ? sources[i]! : bytes.byteOffset, bytes.length);
      t += Math.ceil(bytes.length / 3) * 4;
    }
  });
  const o = exports.finish();
  const crc = crc32(memory.subarray(textAt, t));
  const end = o + 8;
  memory[o] = crc;
  memory[o + 1] = crc >>> 8;
  memory[o + 2] = crc >>> 16;
  memory[o + 3] = crc >>> 24;
  memory[o + 4] = n;
  memory[o + 5] = n >>> 8;
  memory[o + 6] = n >>> 16;
  memory[o + 7] = n >>> 24;
  return ownCopy(memory.subarray(outAt, end));
}
