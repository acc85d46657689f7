/**
 * gzip for answers that are mostly base64 (a crypt64 chapter's JSON), at a fraction of zlib's cost.
 *
 * Ciphertext is random, so zlib finds no repeats in it; what it saves on base64 (about a quarter: 6 bits of
 * information in each 8-bit character) comes from Huffman coding alone, and zlib spent 50-80 µs a 10 KB chapter
 * (more than the encryption) searching for repeats that are not there. This writes one deflate block (RFC 1951,
 * dynamic Huffman, literals only) with a code fixed once for base64 text: 60 of the 64 alphabet characters in
 * 6 bits and 4 in 7; every other byte (the JSON around the content, labels in any script) and the end of block in
 * 12 or 13. Any byte sequence encodes; base64 comes out at about 76 % of its size. Any gzip reader inflates it.
 */
import { crc32 } from 'node:zlib';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const EOB = 256;

/** Code length of each literal (0-255) and of the end of block (256). The code is complete (Kraft sum exactly 1), as inflaters require. */
const LENGTHS = new Uint8Array(257);
{
  for (let i = 0; i < 64; i++) LENGTHS[B64.charCodeAt(i)] = i < 60 ? 6 : 7;
  // The other 193 symbols share the last 1/32 of the code space: 63 of 12 bits and 130 of 13 (2*63 + 130 = 256).
  // The 12-bit ones: the end of block, then the printable ASCII outside the alphabet (JSON's punctuation), then
  // whatever comes first.
  const rest: number[] = [EOB];
  for (let c = 0x20; c < 0x7f; c++) if (!LENGTHS[c]) rest.push(c);
  for (let c = 0; c < 256; c++) if (!LENGTHS[c] && !rest.includes(c)) rest.push(c);
  rest.forEach((symbol, i) => (LENGTHS[symbol] = i < 63 ? 12 : 13));
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
  // The code-length alphabet: lengths 12, 13 and 6 in 2 bits, 7 and 1 in 3 (complete: 3/4 + 2/8).
  const clLengths = new Uint8Array(19);
  clLengths[12] = 2;
  clLengths[13] = 2;
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
const SCRATCH_KEPT = 1024 * 1024;

/** gzip (RFC 1952) of the bytes, Huffman-coded for base64 as described above. */
export function gzipBase64(data: Uint8Array): Buffer {
  const n = data.length;
  // At most 13 bits a byte, plus the headers and the trailer.
  const bound = GZIP_HEADER.length + HEADER.bytes.length + 1 + Math.ceil(((n + 1) * 13) / 8) + 8;
  if (bound > scratch.length && bound <= SCRATCH_KEPT) scratch = Buffer.allocUnsafeSlow(Math.min(SCRATCH_KEPT, bound * 2));
  const out = bound <= scratch.length ? scratch : Buffer.allocUnsafe(bound);
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
  return out === scratch ? Buffer.from(out.subarray(0, o + 8)) : out.subarray(0, o + 8);
}
