/**
 * Chapter encryption for `encoding: crypt64` (DESIGN.md "Contract details", reader.md §5 and §9).
 *
 * Other clients rely on the exact bytes, so every piece here is pinned down:
 * - key: 16 UTF-16 code units, unit i = userKey[i % |userKey|] ^ bookId[i % |bookId|] ^ chapterUri[i % |chapterUri|],
 *   used as the UTF-8 bytes of that string;
 * - cipher: XXTEA in the byte-string form of the npm package `xxtea-node` (little-endian words, plaintext length in
 *   a trailing word), over the UTF-8 bytes of the chapter HTML, carried in standard padded base64;
 * - checksum: lower-case hex MD5 of the UTF-8 bytes of the HTML (first 256 + last 256 UTF-16 code units when the
 *   HTML is 512 or more code units long).
 *
 * This deters bulk copying; it is NOT DRM: the key is derivable by anyone who can read the chapter.
 *
 * Pure TypeScript with no Node or DOM imports: it runs in the server, the browser and a Web Worker. The only globals
 * it uses are TextEncoder and TextDecoder, which exist in all three.
 */

/*
 * TextEncoder/TextDecoder are globals in browsers, workers and Node, but this package compiles with `lib: ES2022`
 * and no DOM or Node types. These module-scoped declarations describe just the part used here; they shadow nothing
 * outside this module and emit no code.
 */
declare const TextEncoder: new () => { encode(input?: string): Uint8Array };
declare const TextDecoder: new (
  label?: string,
  options?: { fatal?: boolean; ignoreBOM?: boolean },
) => { decode(input?: Uint8Array): string };

const encoder = new TextEncoder();
/** Lenient (U+FFFD for bad sequences) and BOM-preserving, so utf8Decode(utf8Encode(s)) === s for well-formed s. */
const lenientDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
/** Strict: a decrypted chapter that is not valid UTF-8 is corrupt, not something to patch with U+FFFD. */
const fatalDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// ---------------------------------------------------------------------------------------------------------------
// UTF-8
// ---------------------------------------------------------------------------------------------------------------

/**
 * UTF-8 bytes of a string (WHATWG TextEncoder). The cipher, the key and the checksum are all defined over UTF-8
 * bytes. A lone surrogate (e.g. a surrogate pair cut by the checksum's 256-unit slices) encodes as U+FFFD
 * (EF BF BD), exactly as Node's `Buffer.from(s, 'utf8')` does.
 */
export function utf8Encode(s: string): Uint8Array {
  return encoder.encode(s);
}

/**
 * String from UTF-8 bytes (WHATWG TextDecoder). Invalid sequences become U+FFFD; a leading BOM is kept (not
 * stripped) so that decoding is the exact inverse of {@link utf8Encode}.
 */
export function utf8Decode(b: Uint8Array): string {
  return lenientDecoder.decode(b);
}

// ---------------------------------------------------------------------------------------------------------------
// Base64 (RFC 4648 §4, standard alphabet, with padding)
// ---------------------------------------------------------------------------------------------------------------

const B64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** 6-bit value -> ASCII code. */
const B64_ENC = new Uint8Array(64);
/** ASCII code -> 6-bit value, or 64 for "not in the alphabet" ('=' included: it is handled separately). */
const B64_DEC = new Uint8Array(256).fill(64);
for (let i = 0; i < 64; i++) {
  const code = B64_ALPHABET.charCodeAt(i);
  B64_ENC[i] = code;
  B64_DEC[code] = i;
}
const PAD = 61; // '='

/**
 * Standard padded base64 of the bytes; `content` of a crypt64 chapter carries the ciphertext in this form.
 * Builds the ASCII output in a byte array through lookup tables and turns it into a string in one call (no
 * per-character string concatenation, no atob/btoa), so megabyte chapters take milliseconds.
 */
export function base64Encode(bytes: Uint8Array): string {
  const n = bytes.length;
  const out = new Uint8Array(Math.ceil(n / 3) * 4);
  const full = n - (n % 3);
  let o = 0;
  for (let i = 0; i < full; i += 3) {
    const t = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out[o++] = B64_ENC[t >>> 18]!;
    out[o++] = B64_ENC[(t >>> 12) & 63]!;
    out[o++] = B64_ENC[(t >>> 6) & 63]!;
    out[o++] = B64_ENC[t & 63]!;
  }
  const rest = n - full;
  if (rest === 1) {
    const t = bytes[full]! << 16;
    out[o++] = B64_ENC[t >>> 18]!;
    out[o++] = B64_ENC[(t >>> 12) & 63]!;
    out[o++] = PAD;
    out[o++] = PAD;
  } else if (rest === 2) {
    const t = (bytes[full]! << 16) | (bytes[full + 1]! << 8);
    out[o++] = B64_ENC[t >>> 18]!;
    out[o++] = B64_ENC[(t >>> 12) & 63]!;
    out[o++] = B64_ENC[(t >>> 6) & 63]!;
    out[o++] = PAD;
  }
  // The output is pure ASCII, which is valid UTF-8: one native decode call.
  return lenientDecoder.decode(out);
}

/**
 * `Uint8Array.fromBase64` (browsers since 2025; not Node 20): native decoding, so a long chapter is not decoded in
 * cold JavaScript on its first open. Used with the same strictness as the fallback below: `lastChunkHandling:
 * 'strict'` rejects missing padding and non-zero bits before it, the platform rejects characters outside the
 * alphabet and misplaced '=', and the length checks reject what it alone allows, whitespace (see nativeBase64Decode).
 */
type FromBase64 = (text: string, options: { lastChunkHandling: 'strict' }) => Uint8Array;
const nativeFromBase64: FromBase64 | undefined = (() => {
  const fn = (Uint8Array as unknown as { fromBase64?: FromBase64 }).fromBase64;
  return typeof fn === 'function' ? fn.bind(Uint8Array) : undefined;
})();
function nativeBase64Decode(text: string, fromBase64: FromBase64): Uint8Array {
  const len = text.length;
  if (len % 4 !== 0) throw new Error('invalid base64');
  let out: Uint8Array;
  try {
    out = fromBase64(text, { lastChunkHandling: 'strict' });
  } catch {
    throw new Error('invalid base64');
  }
  // Whitespace, which the platform skips: a text with any holds a whole chunk fewer of the alphabet's characters than
  // its length (strict decoding takes whole chunks only), so it decodes to at least 3 bytes fewer than its length
  // says, more than any padding accounts for. A length check, where a regular expression over a megabyte chapter
  // cost 5-9 ms of its first decryption (docs/performance.md "On a quiet machine, with the page's path alone").
  const pad = len > 0 && text.charCodeAt(len - 1) === PAD ? (text.charCodeAt(len - 2) === PAD ? 2 : 1) : 0;
  if (out.length !== (len / 4) * 3 - pad) throw new Error('invalid base64');
  return out;
}

/** Value of the base64 character at position i, or 64 when it is not in the alphabet. */
function b64Value(text: string, i: number): number {
  const code = text.charCodeAt(i);
  return code < 256 ? B64_DEC[code]! : 64;
}

/**
 * Bytes from standard padded base64. Strict, so that a damaged `content` is reported as corrupt instead of being
 * silently "repaired": the length must be a multiple of 4, only the 64 alphabet characters may appear, '=' only as
 * one or two trailing pad characters, no whitespace, and the unused low bits before the padding must be zero
 * (canonical form, which is what every encoder emits). Throws `Error('invalid base64')` otherwise.
 */
export function base64Decode(text: string): Uint8Array {
  if (nativeFromBase64) return nativeBase64Decode(text, nativeFromBase64);
  const len = text.length;
  if (len === 0) return new Uint8Array(0);
  if (len % 4 !== 0) throw new Error('invalid base64');
  let pad = 0;
  if (text.charCodeAt(len - 1) === PAD) pad = text.charCodeAt(len - 2) === PAD ? 2 : 1;
  const out = new Uint8Array((len / 4) * 3 - pad);
  const lastQuad = len - 4;
  let bad = 0;
  let o = 0;
  for (let i = 0; i < lastQuad; i += 4) {
    const a = b64Value(text, i);
    const b = b64Value(text, i + 1);
    const c = b64Value(text, i + 2);
    const d = b64Value(text, i + 3);
    bad |= a | b | c | d; // bit 6 (value 64) marks an invalid character
    const t = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = t >>> 16;
    out[o++] = t >>> 8;
    out[o++] = t;
  }
  const a = b64Value(text, lastQuad);
  const b = b64Value(text, lastQuad + 1);
  const c = pad === 2 ? 0 : b64Value(text, lastQuad + 2);
  const d = pad >= 1 ? 0 : b64Value(text, lastQuad + 3);
  bad |= a | b | c | d;
  if ((bad & 64) !== 0) throw new Error('invalid base64');
  const t = (a << 18) | (b << 12) | (c << 6) | d;
  out[o++] = t >>> 16;
  if (pad === 2) {
    if ((t & 0xffff) !== 0) throw new Error('invalid base64');
  } else {
    out[o++] = t >>> 8;
    if (pad === 1) {
      if ((t & 0xff) !== 0) throw new Error('invalid base64');
    } else {
      out[o++] = t;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// XXTEA, byte-string form of xxtea-node 1.1.5
// ---------------------------------------------------------------------------------------------------------------

const DELTA = 0x9e3779b9;

/**
 * On a little-endian platform (every browser and server in practice) a Uint32Array over the bytes already is the
 * little-endian word array XXTEA wants: words are copied natively instead of assembled byte by byte.
 */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Little-endian words of the bytes, the last word zero-padded; with `withLength`, one more word holding the length. */
function toWords(bytes: Uint8Array, withLength: boolean): Uint32Array {
  const len = bytes.length;
  const n = (len + 3) >>> 2;
  if (LITTLE_ENDIAN) {
    const buffer = new Uint8Array((withLength ? n + 1 : n) << 2);
    buffer.set(bytes);
    const words = new Uint32Array(buffer.buffer);
    if (withLength) words[n] = len;
    return words;
  }
  const v = new Uint32Array(withLength ? n + 1 : n);
  if (withLength) v[n] = len;
  const full = len >>> 2;
  for (let w = 0, i = 0; w < full; w++, i += 4) {
    v[w] = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
  }
  for (let i = full << 2; i < len; i++) v[i >>> 2] = v[i >>> 2]! | (bytes[i]! << ((i & 3) << 3));
  return v;
}

/** The first `n` little-endian bytes of the words (a view of them on a little-endian platform). */
function fromWords(v: Uint32Array, n: number): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(v.buffer, v.byteOffset, n);
  const out = new Uint8Array(n);
  const full = n >>> 2;
  for (let w = 0, i = 0; w < full; w++, i += 4) {
    const x = v[w]!;
    out[i] = x;
    out[i + 1] = x >>> 8;
    out[i + 2] = x >>> 16;
    out[i + 3] = x >>> 24;
  }
  for (let i = full << 2; i < n; i++) out[i] = v[i >>> 2]! >>> ((i & 3) << 3);
  return out;
}

/** The four key words: the key bytes zero-padded to 16; bytes past the 16th are never used (as in xxtea-node). */
function keyWords(key: Uint8Array): Uint32Array {
  const k = new Uint8Array(16);
  k.set(key.length > 16 ? key.subarray(0, 16) : key);
  return toWords(k, false);
}

function encryptWords(words: Uint32Array, k: Uint32Array): void {
  // Signed words: every value stays a 32-bit integer in V8 (an unsigned word above 2^31 would be a double).
  const v = new Int32Array(words.buffer, words.byteOffset, words.length);
  const length = v.length;
  const n = length - 1;
  const k0 = k[0]! | 0;
  const k1 = k[1]! | 0;
  const k2 = k[2]! | 0;
  const k3 = k[3]! | 0;
  const end4 = n - (n & 3);
  let z = v[n]!;
  let y: number;
  // The word about to change, read once: each step reads its neighbour, which is the next step's own word (not yet
  // changed), so the unrolled loop reads each word once instead of twice.
  let x: number;
  let sum = 0;
  for (let q = Math.floor(6 + 52 / length); q > 0; --q) {
    sum = (sum + DELTA) | 0;
    const e = (sum >>> 2) & 3;
    // Word p takes key word k[(p & 3) ^ e]: this round's four, in order, held in locals (no array lookups), and the
    // loop unrolled by four so each step names its key word directly. Same arithmetic as the reference, modulo 2^32.
    const a0 = e === 0 ? k0 : e === 1 ? k1 : e === 2 ? k2 : k3;
    const a1 = e === 0 ? k1 : e === 1 ? k0 : e === 2 ? k3 : k2;
    const a2 = e === 0 ? k2 : e === 1 ? k3 : e === 2 ? k0 : k1;
    const a3 = e === 0 ? k3 : e === 1 ? k2 : e === 2 ? k1 : k0;
    let p = 0;
    x = v[0]!;
    for (; p < end4; p += 4) {
      y = v[p + 1]!;
      z = v[p] = (x + ((((z >>> 5) ^ (y << 2)) + ((y >>> 3) ^ (z << 4))) ^ ((sum ^ y) + (a0 ^ z)))) | 0;
      x = v[p + 2]!;
      z = v[p + 1] = (y + ((((z >>> 5) ^ (x << 2)) + ((x >>> 3) ^ (z << 4))) ^ ((sum ^ x) + (a1 ^ z)))) | 0;
      y = v[p + 3]!;
      z = v[p + 2] = (x + ((((z >>> 5) ^ (y << 2)) + ((y >>> 3) ^ (z << 4))) ^ ((sum ^ y) + (a2 ^ z)))) | 0;
      x = v[p + 4]!;
      z = v[p + 3] = (y + ((((z >>> 5) ^ (x << 2)) + ((x >>> 3) ^ (z << 4))) ^ ((sum ^ x) + (a3 ^ z)))) | 0;
    }
    for (; p <= n; ++p) {
      y = v[p === n ? 0 : p + 1]!;
      const r = p & 3;
      const kw = r === 0 ? a0 : r === 1 ? a1 : r === 2 ? a2 : a3;
      z = v[p] = (v[p]! + ((((z >>> 5) ^ (y << 2)) + ((y >>> 3) ^ (z << 4))) ^ ((sum ^ y) + (kw ^ z)))) | 0;
    }
  }
}

function decryptWords(words: Uint32Array, k: Uint32Array): void {
  // As in encryptWords: signed words and the round's key words in locals keep the loop in 32-bit integers.
  const v = new Int32Array(words.buffer, words.byteOffset, words.length);
  const length = v.length;
  const n = length - 1;
  const k0 = k[0]! | 0;
  const k1 = k[1]! | 0;
  const k2 = k[2]! | 0;
  const k3 = k[3]! | 0;
  let y = v[0]!;
  let z: number;
  const rounds = Math.floor(6 + 52 / length);
  let sum = Math.imul(rounds, DELTA) | 0;
  for (let q = rounds; q > 0; --q) {
    const e = (sum >>> 2) & 3;
    const a0 = e === 0 ? k0 : e === 1 ? k1 : e === 2 ? k2 : k3;
    const a1 = e === 0 ? k1 : e === 1 ? k0 : e === 2 ? k3 : k2;
    const a2 = e === 0 ? k2 : e === 1 ? k3 : e === 2 ? k0 : k1;
    const a3 = e === 0 ? k3 : e === 1 ? k2 : e === 2 ? k1 : k0;
    let p = n;
    for (; p > 0 && (p & 3) !== 0; --p) {
      z = v[p - 1]!;
      const r = p & 3;
      const kw = r === 1 ? a1 : r === 2 ? a2 : a3;
      y = v[p] = (v[p]! - ((((z >>> 5) ^ (y << 2)) + ((y >>> 3) ^ (z << 4))) ^ ((sum ^ y) + (kw ^ z)))) | 0;
    }
    // p is now a multiple of 4: four steps at a time, key words 0, 3, 2, 1.
    for (; p > 0; p -= 4) {
      z = v[p - 1]!;
      y = v[p] = (v[p]! - ((((z >>> 5) ^ (y << 2)) + ((y >>> 3) ^ (z << 4))) ^ ((sum ^ y) + (a0 ^ z)))) | 0;
      z = v[p - 2]!;
      y = v[p - 1] = (v[p - 1]! - ((((z >>> 5) ^ (y << 2)) + ((y >>> 3) ^ (z << 4))) ^ ((sum ^ y) + (a3 ^ z)))) | 0;
      z = v[p - 3]!;
      y = v[p - 2] = (v[p - 2]! - ((((z >>> 5) ^ (y << 2)) + ((y >>> 3) ^ (z << 4))) ^ ((sum ^ y) + (a2 ^ z)))) | 0;
      z = v[p - 4]!;
      y = v[p - 3] = (v[p - 3]! - ((((z >>> 5) ^ (y << 2)) + ((y >>> 3) ^ (z << 4))) ^ ((sum ^ y) + (a1 ^ z)))) | 0;
    }
    z = v[n]!;
    y = v[0] = (v[0]! - ((((z >>> 5) ^ (y << 2)) + ((y >>> 3) ^ (z << 4))) ^ ((sum ^ y) + (a0 ^ z)))) | 0;
    sum = (sum - DELTA) | 0;
  }
}

/**
 * XXTEA-encrypts bytes exactly as xxtea-node's `encrypt(data, key)`: the data as little-endian 32-bit words
 * (last word zero-padded) plus a trailing word holding the byte length, key zero-padded to 16 bytes (only the
 * first 16 bytes count), delta 0x9E3779B9, 6 + 52/n rounds. The output is 4 * (ceil(len/4) + 1) bytes; empty input
 * gives empty output. The byte-exact match matters because other clients decrypt with xxtea-node.
 */
export function xxteaEncrypt(data: Uint8Array, key: Uint8Array): Uint8Array {
  if (data.length === 0) return new Uint8Array(0);
  const v = toWords(data, true);
  encryptWords(v, keyWords(key));
  return fromWords(v, v.length << 2);
}

/**
 * The plaintext as {@link xxteaEncrypt} lays it out (little-endian words, the last zero-padded, and the trailing
 * length word), ready to be encrypted under any key by {@link xxteaEncryptWords}. It depends on no key, so a server
 * makes it once per chapter and encrypts a copy for each reader, instead of UTF-8-encoding the chapter every time.
 */
export function xxteaPlaintext(data: Uint8Array): Uint32Array {
  return toWords(data, true);
}

/**
 * {@link xxteaEncrypt} of the bytes that {@link xxteaPlaintext} laid out (the same output bytes): `plain` is
 * left as it was; the ciphertext goes into `into` when it is given and long enough (a buffer the caller reuses),
 * else into a new array. Empty input gives empty output.
 */
export function xxteaEncryptWords(plain: Uint32Array, key: Uint8Array, into?: Uint32Array): Uint8Array {
  const n = plain.length;
  // An empty plaintext is its length word alone (zero): xxteaEncrypt's empty output.
  if (n <= 1) return new Uint8Array(0);
  const v = into && into.length >= n ? into.subarray(0, n) : new Uint32Array(n);
  v.set(plain);
  encryptWords(v, keyWords(key));
  return fromWords(v, n << 2);
}

/**
 * Inverse of {@link xxteaEncrypt}, exactly as xxtea-node's `decrypt(data, key)`: a length that is not a multiple of
 * 4 is zero-padded, and the result is `null` when the decrypted trailing length word does not fit the data (which
 * is what a wrong key or damaged ciphertext almost always produces). Empty input gives empty output.
 */
export function xxteaDecrypt(data: Uint8Array, key: Uint8Array): Uint8Array | null {
  if (data.length === 0) return new Uint8Array(0);
  const v = toWords(data, false);
  decryptWords(v, keyWords(key));
  const last = v.length - 1;
  const max = last << 2;
  const m = v[last]!;
  if (m < max - 3 || m > max) return null;
  return fromWords(v, m);
}

// ---------------------------------------------------------------------------------------------------------------
// MD5 (RFC 1321)
// ---------------------------------------------------------------------------------------------------------------

/** floor(abs(sin(i + 1)) * 2^32), written out so the result never depends on the platform's Math.sin. */
const MD5_K = new Int32Array([
  0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501, 0x698098d8,
  0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340,
  0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87,
  0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
  0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039,
  0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92,
  0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
  0xeb86d391,
]);
const MD5_S = new Uint8Array([
  7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
  4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15,
  21,
]);
/** Message word used by step i. */
const MD5_G = new Uint8Array(64);
for (let i = 0; i < 64; i++) {
  MD5_G[i] = i < 16 ? i : i < 32 ? (5 * i + 1) & 15 : i < 48 ? (3 * i + 5) & 15 : (7 * i) & 15;
}
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * Lower-case hex MD5 (RFC 1321) of the bytes. Implemented here because the browser has no synchronous MD5 (Web
 * Crypto has none at all) and the chapter checksum is MD5 by contract. Not used for anything security-relevant.
 */
export function md5Hex(bytes: Uint8Array): string {
  const n = bytes.length;
  // Padded tail: the bytes after the last full block, 0x80, zeros, and the 64-bit little-endian bit length.
  const fullEnd = n - (n % 64);
  const tailLen = n - fullEnd < 56 ? 64 : 128;
  const tail = new Uint8Array(tailLen);
  tail.set(bytes.subarray(fullEnd));
  tail[n - fullEnd] = 0x80;
  const bitsLo = (n * 8) >>> 0;
  const bitsHi = Math.floor(n / 0x20000000) >>> 0;
  for (let j = 0; j < 4; j++) {
    tail[tailLen - 8 + j] = bitsLo >>> (8 * j);
    tail[tailLen - 4 + j] = bitsHi >>> (8 * j);
  }

  const m = new Int32Array(16);
  let a0 = 0x67452301;
  let b0 = 0xefcdab89 | 0;
  let c0 = 0x98badcfe | 0;
  let d0 = 0x10325476;

  const block = (src: Uint8Array, off: number): void => {
    for (let w = 0, i = off; w < 16; w++, i += 4) {
      m[w] = src[i]! | (src[i + 1]! << 8) | (src[i + 2]! << 16) | (src[i + 3]! << 24);
    }
    let a = a0;
    let b = b0;
    let c = c0;
    let d = d0;
    for (let i = 0; i < 64; i++) {
      let f: number;
      if (i < 16) f = (b & c) | (~b & d);
      else if (i < 32) f = (d & b) | (~d & c);
      else if (i < 48) f = b ^ c ^ d;
      else f = c ^ (b | ~d);
      const x = (a + f + MD5_K[i]! + m[MD5_G[i]!]!) | 0;
      const s = MD5_S[i]!;
      a = d;
      d = c;
      c = b;
      b = (b + ((x << s) | (x >>> (32 - s)))) | 0;
    }
    a0 = (a0 + a) | 0;
    b0 = (b0 + b) | 0;
    c0 = (c0 + c) | 0;
    d0 = (d0 + d) | 0;
  };

  for (let off = 0; off < fullEnd; off += 64) block(bytes, off);
  for (let off = 0; off < tailLen; off += 64) block(tail, off);

  let hex = '';
  for (const word of [a0, b0, c0, d0]) {
    hex += HEX[word & 0xff]! + HEX[(word >>> 8) & 0xff]! + HEX[(word >>> 16) & 0xff]! + HEX[word >>> 24]!;
  }
  return hex;
}

// ---------------------------------------------------------------------------------------------------------------
// The crypt64 chapter contract
// ---------------------------------------------------------------------------------------------------------------

/** Length of the derived chapter key, in UTF-16 code units. */
export const CHAPTER_KEY_LENGTH = 16;

/**
 * The per-chapter key (DESIGN.md): 16 UTF-16 code units, unit i = userKey[i % |userKey|] ^ bookId[i % |bookId|] ^
 * chapterUri[i % |chapterUri|], each string indexed modulo its own length. `userKey` is what `GET /nest/key/`
 * returns, `bookId` the item's `book_id`, `chapterUri` its `chapter_href`. Throws when any input is empty (there
 * would be nothing to index; it is a caller error, not a bad chapter). The result may contain control characters,
 * and with non-ASCII inputs even lone surrogates; it is only ever used through {@link chapterKeyBytes}.
 */
export function deriveChapterKey(userKey: string, bookId: string, chapterUri: string): string {
  if (userKey.length === 0) throw new Error('deriveChapterKey: userKey is empty');
  if (bookId.length === 0) throw new Error('deriveChapterKey: bookId is empty');
  if (chapterUri.length === 0) throw new Error('deriveChapterKey: chapterUri is empty');
  const units = new Array<number>(CHAPTER_KEY_LENGTH);
  for (let i = 0; i < CHAPTER_KEY_LENGTH; i++) {
    units[i] =
      userKey.charCodeAt(i % userKey.length) ^
      bookId.charCodeAt(i % bookId.length) ^
      chapterUri.charCodeAt(i % chapterUri.length);
  }
  return String.fromCharCode(...units);
}

/**
 * The cipher key bytes: the UTF-8 bytes of the derived key (16 bytes for ASCII inputs; for non-ASCII ones more,
 * of which XXTEA uses the first 16; a lone surrogate encodes as U+FFFD).
 */
export function chapterKeyBytes(key: string): Uint8Array {
  return utf8Encode(key);
}

/**
 * The item `checksum`: lower-case hex MD5 of the UTF-8 bytes of the plain HTML, whole when it is shorter than 512
 * UTF-16 code units, else of its first 256 + last 256 code units (reader.md §9). Cheap on any chapter size.
 */
export function chapterChecksum(html: string): string {
  return md5Hex(utf8Encode(html.length < 512 ? html : html.slice(0, 256) + html.slice(-256)));
}

/** What the server stores and sends for a crypt64 chapter. */
export interface EncryptedChapter {
  /** Standard base64 of the XXTEA ciphertext of the UTF-8 HTML. */
  content: string;
  /** {@link chapterChecksum} of the plain HTML. */
  checksum: string;
}

/** What a caller can hand {@link encryptChapter} to spare it work; the output is the same bytes either way. */
export interface EncryptChapterOptions {
  /** {@link chapterChecksum} of the html, when the caller keeps it with the chapter (it depends on no key). */
  checksum?: string;
  /** A native base64 encoder of the same standard padded form (the server's Buffer), in place of {@link base64Encode}. */
  toBase64?: (bytes: Uint8Array) => string;
  /** {@link chapterPlaintext} of the html, when the caller keeps it with the chapter (it depends on no key). */
  plaintext?: Uint32Array;
  /** Words the ciphertext may be written into (reused by the caller; the base64 text is made before it returns). */
  scratch?: Uint32Array;
}

/** A chapter's plaintext laid out for the cipher: {@link xxteaPlaintext} of the html's UTF-8 bytes. */
export function chapterPlaintext(html: string): Uint32Array {
  return xxteaPlaintext(utf8Encode(html));
}

/**
 * Encrypts a chapter for `encoding: crypt64`. Throws when userKey, bookId or chapterUri is empty.
 */
export function encryptChapter(html: string, userKey: string, bookId: string, chapterUri: string, options: EncryptChapterOptions = {}): EncryptedChapter {
  const cipher = encryptChapterPlaintext(options.plaintext ?? chapterPlaintext(html), userKey, bookId, chapterUri, options.scratch);
  return { content: (options.toBase64 ?? base64Encode)(cipher), checksum: options.checksum ?? chapterChecksum(html) };
}

/**
 * The ciphertext bytes of {@link encryptChapter}'s `content` (before its base64), from the chapter's
 * {@link chapterPlaintext}: for a server that writes the base64 itself (into its compressed answer). With `scratch`,
 * the bytes are a view of it (valid until the caller reuses it). Throws when userKey, bookId or chapterUri is empty.
 */
export function encryptChapterPlaintext(plaintext: Uint32Array, userKey: string, bookId: string, chapterUri: string, scratch?: Uint32Array): Uint8Array {
  return xxteaEncryptWords(plaintext, chapterKeyBytes(deriveChapterKey(userKey, bookId, chapterUri)), scratch);
}

/** Outcome of {@link decryptChapter}. */
export type DecryptChapterResult = { ok: true; html: string } | { ok: false; reason: 'corrupt' | 'checksum' };

/**
 * Decrypts a crypt64 chapter and verifies its checksum. `reason: 'corrupt'` when the content is not strict base64,
 * XXTEA rejects it (trailing length out of range) or the plaintext is not valid UTF-8; `reason: 'checksum'` when it
 * decrypts but the MD5 does not equal `checksum` (compared case-insensitively) — typically a wrong user key that
 * happened to pass the length check. Either way the reader shows "This chapter could not be decrypted." (§5).
 * Throws (a caller error) when userKey, bookId or chapterUri is empty.
 */
export function decryptChapter(
  content: string,
  checksum: string,
  userKey: string,
  bookId: string,
  chapterUri: string,
): DecryptChapterResult {
  const key = chapterKeyBytes(deriveChapterKey(userKey, bookId, chapterUri));
  let cipher: Uint8Array;
  try {
    cipher = base64Decode(content);
  } catch {
    return { ok: false, reason: 'corrupt' };
  }
  const plain = xxteaDecrypt(cipher, key);
  if (plain === null) return { ok: false, reason: 'corrupt' };
  let html: string;
  try {
    html = fatalDecoder.decode(plain);
  } catch {
    return { ok: false, reason: 'corrupt' };
  }
  if (chapterChecksum(html) !== checksum.toLowerCase()) return { ok: false, reason: 'checksum' };
  return { ok: true, html };
}
