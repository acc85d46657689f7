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
 * ciphertext) that is made here from the bytes instead of coming as text: three bytes are four characters, two
 * lookups of a 4,096-entry table of two characters' codes (16 KB, which stays in the cache where the table of byte
 * pairs, 256 KB, did not), with no test of whether a character is in the alphabet. The text itself is written only
 * into a buffer reused by every call, for its CRC: no base64 string, no answer body is made on the way.
 */
export type TextPart = Uint8Array | string | { base64Of: Uint8Array };

/**
 * Two base64 digits (12 bits of the bytes) -> their two 6-bit codes joined (12 bits), or -1 when either is `+`
 * (7 bits): the common case of `codeBase64`. 16-bit entries: 8 KB, half the cache lines of 32-bit ones.
 */
const SIX_PAIR = new Int16Array(4096);
for (let a = 0; a < 64; a++) {
  for (let b = 0; b < 64; b++) SIX_PAIR[(a << 6) | b] = a === PLUS || b === PLUS ? -1 : CODES[B64.charCodeAt(a)]! | (CODES[B64.charCodeAt(b)]! << 6);
}
/** A base64 digit's code and length, as TABLE has them for its character. */
const DIGIT = Int32Array.from({ length: 64 }, (_, d) => TABLE[B64.charCodeAt(d)]!);

let textScratch = Buffer.allocUnsafeSlow(32 * 1024);

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

/** Where a coding stands between parts (the hot loop keeps these in locals). */
interface Coder {
  out: Buffer;
  o: number;
  acc: number;
  nbits: number;
  text: Buffer;
  t: number;
  /** `out` as a DataView, for the 32-bit stores of codeBase64 */
  view: DataView;
}

/** One byte of text, coded alone. */
function codeByte(c: Coder, byte: number): void {
  c.text[c.t++] = byte;
  const entry = TABLE[byte]!;
  c.acc |= (entry & 0xffff) << c.nbits;
  c.nbits += entry >>> 16;
  if (c.nbits >= 16) {
    c.out[c.o++] = c.acc;
    c.out[c.o++] = c.acc >>> 8;
    c.acc >>>= 16;
    c.nbits -= 16;
  }
}

/** Bytes of text, each coded alone (the JSON around the ciphertext). */
function codeBytes(c: Coder, bytes: Uint8Array): void {
  const { out, text } = c;
  let { o, acc, nbits, t } = c;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    text[t++] = byte;
    const entry = TABLE[byte]!;
    acc |= (entry & 0xffff) << nbits;
    nbits += entry >>> 16;
    if (nbits >= 16) {
      out[o++] = acc;
      out[o++] = acc >>> 8;
      acc >>>= 16;
      nbits -= 16;
    }
  }
  Object.assign(c, { o, acc, nbits, t });
}

/** One group of four base64 digits (24 bits of the bytes), a digit at a time: a group holding a `+`. */
function codeGroupByDigit(c: Coder, group: number): void {
  const { out } = c;
  let { o, acc, nbits } = c;
  for (let shift = 18; shift >= 0; shift -= 6) {
    const entry = DIGIT[(group >>> shift) & 63]!;
    acc |= (entry & 0xffff) << nbits;
    nbits += entry >>> 16;
    if (nbits >= 8) {
      out[o++] = acc;
      acc >>>= 8;
      nbits -= 8;
    }
  }
  c.o = o;
  c.acc = acc;
  c.nbits = nbits;
}

/**
 * The standard padded base64 of `bytes`: its text (Node's native encoder, for the CRC) and its code. Three bytes
 * are four digits; when none is `+` (15 times in 16) their codes are 24 bits, two lookups of 12, and go out as three
 * whole bytes: the bits below a byte that were waiting stay waiting, so there is no count to keep and no test of
 * when to write. The bytes are read a word at a time where they are aligned (twelve bytes, four groups, one test).
 * A group with a `+` is coded a digit at a time.
 */
function codeBase64(c: Coder, bytes: Uint8Array): void {
  c.t += c.text.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'), c.t, 'latin1');
  // Fewer than 8 bits waiting, so that 24 more fit in the 32 of `acc`.
  if (c.nbits >= 8) {
    c.out[c.o++] = c.acc;
    c.acc >>>= 8;
    c.nbits -= 8;
  }
  const { out, view } = c;
  let { o, acc, nbits } = c;
  const len = bytes.length;
  let i = 0;
  if (LITTLE_ENDIAN && (bytes.byteOffset & 3) === 0) {
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset, Math.floor(len / 12) * 3);
    const count = words.length;
    for (let w = 0; w < count; w += 3) {
      const w0 = words[w]!;
      const w1 = words[w + 1]!;
      const w2 = words[w + 2]!;
      // bytes 0-11 of the chunk, little-endian in the words; each group is three of them, big-endian
      const g0 = ((w0 & 0xff) << 16) | (w0 & 0xff00) | ((w0 >>> 16) & 0xff);
      const g1 = ((w0 >>> 24) << 16) | ((w1 & 0xff) << 8) | ((w1 >>> 8) & 0xff);
      const g2 = (((w1 >>> 16) & 0xff) << 16) | ((w1 >>> 24) << 8) | (w2 & 0xff);
      const g3 = (((w2 >>> 8) & 0xff) << 16) | (((w2 >>> 16) & 0xff) << 8) | (w2 >>> 24);
      const a0 = SIX_PAIR[g0 >>> 12]!;
      const b0 = SIX_PAIR[g0 & 4095]!;
      const a1 = SIX_PAIR[g1 >>> 12]!;
      const b1 = SIX_PAIR[g1 & 4095]!;
      const a2 = SIX_PAIR[g2 >>> 12]!;
      const b2 = SIX_PAIR[g2 & 4095]!;
      const a3 = SIX_PAIR[g3 >>> 12]!;
      const b3 = SIX_PAIR[g3 & 4095]!;
      if ((a0 | b0 | a1 | b1 | a2 | b2 | a3 | b3) >= 0) {
        // No `+` in the four groups (four chunks in five): 96 bits of code as four 32-bit stores 3 bytes apart,
        // each store's fourth byte the waiting bits, which the next store (or a later write) overwrites.
        acc |= (a0 | (b0 << 12)) << nbits;
        view.setInt32(o, acc, true);
        acc = (acc >>> 24) | ((a1 | (b1 << 12)) << nbits);
        view.setInt32(o + 3, acc, true);
        acc = (acc >>> 24) | ((a2 | (b2 << 12)) << nbits);
        view.setInt32(o + 6, acc, true);
        acc = (acc >>> 24) | ((a3 | (b3 << 12)) << nbits);
        view.setInt32(o + 9, acc, true);
        o += 12;
        acc >>>= 24;
        continue;
      }
      for (let k = 0; k < 4; k++) {
        const group = k === 0 ? g0 : k === 1 ? g1 : k === 2 ? g2 : g3;
        const a = SIX_PAIR[group >>> 12]!;
        const b = SIX_PAIR[group & 4095]!;
        if ((a | b) >= 0) {
          // 24 bits over the waiting ones (the sign bit may be set: only the bit pattern is used)
          acc |= (a | (b << 12)) << nbits;
          out[o] = acc;
          out[o + 1] = acc >>> 8;
          out[o + 2] = acc >>> 16;
          o += 3;
          acc >>>= 24;
        } else {
          // a `+` among the four: a digit at a time, back to fewer than 8 waiting after each
          for (let shift = 18; shift >= 0; shift -= 6) {
            const entry = DIGIT[(group >>> shift) & 63]!;
            acc |= (entry & 0xffff) << nbits;
            nbits += entry >>> 16;
            if (nbits >= 8) {
              out[o++] = acc;
              acc >>>= 8;
              nbits -= 8;
            }
          }
        }
      }
    }
    i = count << 2;
  }
  c.o = o;
  c.acc = acc;
  c.nbits = nbits;
  codeRest(c, bytes, i);
}

/** The groups of `bytes` from `from` on, a group at a time, and the last one or two bytes with the padding. */
function codeRest(c: Coder, bytes: Uint8Array, from: number): void {
  const len = bytes.length;
  const full = len - (len % 3);
  for (let i = from; i < full; i += 3) codeGroupByDigit(c, (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!);
  // The last one or two bytes: two or three digits, then the padding's `=` (its code from TABLE).
  if (len - full === 0) return;
  const group = len - full === 1 ? bytes[full]! << 16 : (bytes[full]! << 16) | (bytes[full + 1]! << 8);
  const digits = len - full === 1 ? 2 : 3;
  const { out } = c;
  let { o, acc, nbits } = c;
  for (let k = 0; k < 4; k++) {
    const entry = k < digits ? DIGIT[(group >>> (18 - 6 * k)) & 63]! : TABLE[0x3d]!;
    acc |= (entry & 0xffff) << nbits;
    nbits += entry >>> 16;
    while (nbits >= 8) {
      out[o++] = acc;
      acc >>>= 8;
      nbits -= 8;
    }
  }
  c.o = o;
  c.acc = acc;
  c.nbits = nbits;
}

/**
 * gzip (RFC 1952) of the parts' text, one after another: a Uint8Array as its bytes, a string as latin1 (the callers
 * pass ASCII: numbers, hex), `{ base64Of }` as the standard padded base64 of those bytes. The same bytes as
 * `gzipBase64` of the whole text.
 */
export function gzipText(parts: readonly TextPart[]): Buffer {
  let n = 0;
  for (const part of parts) n += textLength(part);
  if (n > textScratch.length && n <= SCRATCH_KEPT) textScratch = Buffer.allocUnsafeSlow(Math.min(SCRATCH_KEPT, n * 2));
  const text = n <= textScratch.length ? textScratch : Buffer.allocUnsafe(n);
  const bound = GZIP_HEADER.length + HEADER.bytes.length + 1 + Math.ceil(((n + 1) * 15) / 8) + 8;
  const { out, view } = outputFor(bound);
  GZIP_HEADER.copy(out, 0);
  HEADER.bytes.copy(out, GZIP_HEADER.length);
  const c: Coder = { out, o: GZIP_HEADER.length + HEADER.bytes.length, acc: HEADER.tailBits, nbits: HEADER.tailLength, text, t: 0, view };
  for (const part of parts) {
    if (typeof part === 'string') for (let i = 0; i < part.length; i++) codeByte(c, part.charCodeAt(i) & 0xff);
    else if (part instanceof Uint8Array) codeBytes(c, part);
    else codeBase64(c, part.base64Of);
  }
  let { o, acc, nbits } = c;
  acc |= CODES[EOB]! << nbits;
  nbits += LENGTHS[EOB]!;
  while (nbits > 0) {
    out[o++] = acc & 0xff;
    acc >>>= 8;
    nbits -= 8;
  }
  out.writeUInt32LE(crc32(text.subarray(0, c.t)), o);
  out.writeUInt32LE(c.t >>> 0, o + 4);
  return copyOut(out, o + 8);
}
