/**
 * crypt64 chapter crypto (DESIGN.md "Contract details", reader.md §5 and §9): each primitive is checked against an
 * independent implementation (node:crypto MD5, Buffer base64, the npm package xxtea-node) and against fixed
 * known-answer vectors, so a change on both sides would still be caught.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  base64Decode,
  base64Encode,
  CHAPTER_KEY_LENGTH,
  chapterChecksum,
  chapterPlaintext,
  chapterKeyBytes,
  decryptChapter,
  deriveChapterKey,
  encryptChapter,
  md5Hex,
  utf8Decode,
  utf8Encode,
  xxteaDecrypt,
  xxteaEncrypt,
  xxteaEncryptWords,
  xxteaPlaintext,
  encryptChapterPlaintext,
} from '../src/reader-crypto.ts';

/*
 * The reference implementations are Node's. packages/core type-checks without Node or DOM types (lib ES2022,
 * types []) so that src cannot lean on Node by accident; rather than pull @types/node into the whole program, this
 * test declares the little it uses and loads the modules through non-literal specifiers (typed here).
 */
interface NodeBuffer extends Uint8Array {
  toString(encoding?: string): string;
  equals(other: Uint8Array): boolean;
}
const Buffer = (globalThis as unknown as { Buffer: { from(data: Uint8Array | string, encoding?: string): NodeBuffer } })
  .Buffer;
const loadModule = async <T>(specifier: string): Promise<T> => {
  const mod = (await import(specifier)) as { default?: T } & T;
  return mod.default ?? mod;
};
const { createHash } = await loadModule<{
  createHash(algorithm: 'md5'): { update(data: Uint8Array): { digest(encoding: 'hex'): string } };
}>('node:crypto');
/** xxtea-node (CommonJS, no types): the part of its API the tests use. */
const xxtea = await loadModule<{
  encrypt(data: Uint8Array | string, key: Uint8Array | string): Uint8Array;
  decrypt(data: Uint8Array | string, key: Uint8Array | string): Uint8Array | null;
  decryptToString(data: Uint8Array | string, key: Uint8Array | string): string;
}>('xxtea-node');

const nodeMd5 = (b: Uint8Array): string => createHash('md5').update(b).digest('hex');
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const fromHex = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));
const ascii = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));

/** Base64 the chapter decoder must refuse (reader.md §5: a malformed chapter is not decrypted). */
const MALFORMED_BASE64: Array<[string, string]> = [
  ['length not a multiple of 4', 'Zm9'],
  ['missing padding', 'Zg'],
  ['padding in the middle', 'Zg==Zm9v'],
  ['pad then data', 'Z=9v'],
  ['three pad characters', 'Z==='],
  ['all padding', '===='],
  ['too much padding', 'Zm9v===='],
  ['URL-safe alphabet', 'ab-_'],
  ['whitespace', 'Zm9v\nYmFy'],
  ['whitespace after the padding', 'Zg==    '],
  ['a whole chunk of whitespace', 'Zm9v\n\n\n\nZm9v'],
  ['space', 'Zm 9'],
  ['non-ASCII', 'Zm9é'],
  ['character above U+00FF', 'Zm9\u4e2d'],
  ['non-canonical bits before ==', 'Zh=='],
  ['non-canonical bits before =', 'Zm9='],
];

describe('utf8Encode / utf8Decode', () => {
  it('round-trips non-ASCII text and keeps a leading BOM', () => {
    const s = '\uFEFF“curly” ‘quotes’ — 中文 日本語 😀👍🏽 é';
    expect(hex(utf8Encode(s))).toBe(Buffer.from(s, 'utf8').toString('hex'));
    expect(utf8Decode(utf8Encode(s))).toBe(s);
  });

  it('encodes a lone surrogate as U+FFFD, like Buffer', () => {
    expect(hex(utf8Encode('a\uD83Db'))).toBe(Buffer.from('a\uD83Db', 'utf8').toString('hex'));
    expect(hex(utf8Encode('a\uD83Db'))).toBe('61efbfbd62');
  });
});

describe('md5Hex', () => {
  // RFC 1321 appendix A.5 test suite, with the digests written out.
  const rfc: Array<[string, string]> = [
    ['', 'd41d8cd98f00b204e9800998ecf8427e'],
    ['a', '0cc175b9c0f1b6a831c399e269772661'],
    ['abc', '900150983cd24fb0d6963f7d28e17f72'],
    ['message digest', 'f96b697d7cb7938d525a2f31aaf161d0'],
    ['abcdefghijklmnopqrstuvwxyz', 'c3fcd3d76192e4007dfb496cca67e13b'],
    ['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 'd174ab98d277d9f5a5611c2c9f419d9f'],
    ['1234567890'.repeat(8), '57edf4a22be3c955ac49da2e2107b67a'],
  ];
  it.each(rfc)('RFC 1321 vector %j', (s, digest) => {
    expect(md5Hex(ascii(s))).toBe(digest);
    expect(md5Hex(ascii(s))).toBe(nodeMd5(ascii(s)));
  });

  it('matches node:crypto around the padding boundaries', () => {
    for (const n of [1, 54, 55, 56, 57, 63, 64, 65, 119, 120, 121, 127, 128, 129, 1000, 4096]) {
      const b = Uint8Array.from({ length: n }, (_, i) => (i * 131 + n) & 0xff);
      expect(md5Hex(b), `length ${n}`).toBe(nodeMd5(b));
    }
  });

  it('matches node:crypto on UTF-8 text', () => {
    const b = utf8Encode('“Curly” 中文 😀 '.repeat(50));
    expect(md5Hex(b)).toBe(nodeMd5(b));
  });

  it('matches node:crypto on random bytes (property, 0–5000 bytes)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 5000 }), (b) => md5Hex(b) === nodeMd5(b)),
      { numRuns: 300 },
    );
  });
});

describe('base64Encode / base64Decode', () => {
  // RFC 4648 §10 vectors.
  const rfc: Array<[string, string]> = [
    ['', ''],
    ['f', 'Zg=='],
    ['fo', 'Zm8='],
    ['foo', 'Zm9v'],
    ['foob', 'Zm9vYg=='],
    ['fooba', 'Zm9vYmE='],
    ['foobar', 'Zm9vYmFy'],
  ];
  it.each(rfc)('RFC 4648 vector %j', (s, b64) => {
    expect(base64Encode(ascii(s))).toBe(b64);
    expect(base64Encode(ascii(s))).toBe(Buffer.from(s, 'latin1').toString('base64'));
    expect(hex(base64Decode(b64))).toBe(hex(ascii(s)));
  });

  it('uses the standard alphabet (+ and /)', () => {
    const b = Uint8Array.from({ length: 256 }, (_, i) => i);
    const b64 = base64Encode(b);
    expect(b64).toBe(Buffer.from(b).toString('base64'));
    expect(b64).toContain('+');
    expect(b64).toContain('/');
    expect(hex(base64Decode(b64))).toBe(hex(b));
  });

  it('matches Buffer and round-trips (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 3000 }), (b) => {
        const b64 = base64Encode(b);
        return b64 === Buffer.from(b).toString('base64') && hex(base64Decode(b64)) === hex(b);
      }),
      { numRuns: 300 },
    );
  });

  it.each(MALFORMED_BASE64)('rejects %s', (_, bad) => {
    expect(() => base64Decode(bad)).toThrow(new Error('invalid base64'));
  });

  // Its speed is measured in bench/ingest.ts against Buffer's base64.
  it('round-trips 1 MiB', () => {
    const b = Uint8Array.from({ length: 1 << 20 }, (_, i) => (i * 7919) & 0xff);
    const b64 = base64Encode(b);
    const back = base64Decode(b64);
    expect(b64).toBe(Buffer.from(b).toString('base64'));
    expect(Buffer.from(back).equals(Buffer.from(b))).toBe(true);
  });
});

describe('base64Decode with the platform decoder (Uint8Array.fromBase64, as in browsers)', () => {
  // Node 20 has no Uint8Array.fromBase64: a deliberately lenient stand-in (Buffer skips whitespace, accepts a
  // missing padding, and stops at the first '=') shows that the module's own checks keep the native path as strict
  // as the fallback. Like the platform, it refuses characters outside the alphabet and lets whitespace through;
  // non-canonical trailing bits are left to the platform's `lastChunkHandling: 'strict'`.
  type WithFromBase64 = typeof Uint8Array & { fromBase64?: (text: string, options?: unknown) => Uint8Array };
  const U8 = Uint8Array as WithFromBase64;
  let decode: typeof base64Decode;
  let calls = 0;

  beforeAll(async () => {
    U8.fromBase64 = (text: string) => {
      calls += 1;
      if (/[^A-Za-z0-9+/=\t\n\f\r ]/.test(text)) throw new SyntaxError('not base64');
      return new Uint8Array(Buffer.from(text, 'base64'));
    };
    vi.resetModules();
    decode = (await import('../src/reader-crypto.ts')).base64Decode;
  });
  afterAll(() => {
    delete U8.fromBase64;
    vi.resetModules();
  });

  it('decodes through the platform and agrees with Buffer', () => {
    const before = calls;
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 600 }), (b) => hex(decode(Buffer.from(b).toString('base64'))) === hex(b)),
      { numRuns: 100 },
    );
    expect(calls).toBeGreaterThan(before);
  });

  // Leftover bits before the padding are the platform's to refuse (its lastChunkHandling 'strict'); this lenient
  // stand-in for it does not, so those two cases are left to the test above.
  it.each(MALFORMED_BASE64.filter(([what]) => !what.startsWith('non-canonical bits')))('still rejects %s', (_, bad) => {
    expect(() => decode(bad)).toThrow(new Error('invalid base64'));
  });
});

describe('xxteaEncrypt / xxteaDecrypt (xxtea-node byte-string form)', () => {
  // Computed once with xxtea-node 1.1.5 (`encrypt(Buffer.from(data), Buffer.from(key))`) and pasted here.
  const kat: Array<[string, string, string]> = [
    [
      'The quick brown fox jumps over the lazy dog. “Curly” 中文 😀',
      'lectern-key',
      'f56c3a77982cf6ebb9f5982fdea68a03a4a15b85cf6edfa8ce710f8a1a3830378a9e90b9af376c71296397fd82a0e6c378c187ab78364e6963ad8271179d7d2a0997057f5278d5c8',
    ],
    ['A', '0123456789abcdefXYZW', '91f040172b25f672'],
    ['12345678', 'k', '752e146167fba6d7fb1aa283'],
  ];
  it.each(kat)('known answer for %j with key %j', (data, key, cipherHex) => {
    const d = utf8Encode(data);
    const k = utf8Encode(key);
    expect(hex(xxteaEncrypt(d, k))).toBe(cipherHex);
    expect(hex(xxtea.encrypt(d, k))).toBe(cipherHex);
    expect(utf8Decode(xxteaDecrypt(fromHex(cipherHex), k)!)).toBe(data);
  });

  it('stores the length in a trailing word: output is 4 * (ceil(len / 4) + 1) bytes', () => {
    const k = utf8Encode('key');
    for (const n of [1, 2, 3, 4, 5, 7, 8, 9, 100]) {
      expect(xxteaEncrypt(new Uint8Array(n).fill(1), k).length).toBe(4 * (Math.ceil(n / 4) + 1));
    }
  });

  it('maps empty input to empty output', () => {
    const k = utf8Encode('key');
    expect(xxteaEncrypt(new Uint8Array(0), k).length).toBe(0);
    expect(xxteaDecrypt(new Uint8Array(0), k)?.length).toBe(0);
  });

  it('uses only the first 16 key bytes and zero-pads shorter keys', () => {
    const d = utf8Encode('some chapter text');
    const k16 = utf8Encode('0123456789abcdef');
    const k32 = utf8Encode('0123456789abcdefANYTHING-ELSE!!!');
    expect(hex(xxteaEncrypt(d, k32))).toBe(hex(xxteaEncrypt(d, k16)));
    expect(hex(xxteaEncrypt(d, k32))).toBe(hex(xxtea.encrypt(d, k32)));
    const short = utf8Encode('abc');
    const padded = new Uint8Array(16);
    padded.set(short);
    expect(hex(xxteaEncrypt(d, short))).toBe(hex(xxteaEncrypt(d, padded)));
  });

  it('equals xxtea-node and interoperates both ways (property: data 0–3000 bytes, keys 1–32 bytes)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 3000 }),
        fc.uint8Array({ minLength: 1, maxLength: 32 }),
        (data, key) => {
          const ours = xxteaEncrypt(data, key);
          const theirs = data.length === 0 ? new Uint8Array(0) : xxtea.encrypt(data, key);
          expect(hex(ours)).toBe(hex(theirs));
          // xxtea-node decrypts ours; we decrypt theirs.
          if (data.length > 0) expect(hex(xxtea.decrypt(ours, key)!)).toBe(hex(data));
          expect(hex(xxteaDecrypt(theirs, key)!)).toBe(hex(data));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('decrypts arbitrary bytes exactly as xxtea-node does, null included (property)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 200 }),
        fc.uint8Array({ minLength: 1, maxLength: 20 }),
        (data, key) => {
          const ours = xxteaDecrypt(data, key);
          const theirs = xxtea.decrypt(data, key);
          expect(ours === null ? null : hex(ours)).toBe(theirs === null ? null : hex(theirs));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('encrypts a plaintext laid out once under many keys as xxtea-node does, into a reused buffer, the plaintext untouched (property)', () => {
    const scratch = new Uint32Array(64);
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 400 }),
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 32 }), { minLength: 1, maxLength: 4 }),
        (data, keys) => {
          const plain = xxteaPlaintext(data);
          const before = hex(new Uint8Array(plain.buffer.slice(0)));
          for (const key of keys) {
            const theirs = data.length === 0 ? new Uint8Array(0) : xxtea.encrypt(data, key);
            // Copied out at once: the next call reuses the scratch words.
            expect(hex(xxteaEncryptWords(plain, key, scratch).slice())).toBe(hex(theirs));
            expect(hex(xxteaEncryptWords(plain, key))).toBe(hex(theirs));
          }
          expect(hex(new Uint8Array(plain.buffer))).toBe(before);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('returns null for a wrong key (trailing length out of range)', () => {
    const cipher = xxteaEncrypt(utf8Encode('x'.repeat(100)), utf8Encode('right key'));
    expect(xxteaDecrypt(cipher, utf8Encode('wrong key'))).toBeNull();
    expect(xxtea.decrypt(cipher, utf8Encode('wrong key'))).toBeNull();
  });
});

describe('deriveChapterKey', () => {
  it('XORs the three strings, each indexed modulo its own length (hand-computed vector)', () => {
    // userKey "0123456789abcdef0123" (20), bookId "9781449373320" (13), chapterUri "ch01.html" (9).
    //  i  user  book  uri        result
    //  0  '0'30 '9'39 'c'63  ->  6a 'j'
    //  1  '1'31 '7'37 'h'68  ->  6e 'n'
    //  2  '2'32 '8'38 '0'30  ->  3a ':'
    //  3  '3'33 '1'31 '1'31  ->  33 '3'
    //  4  '4'34 '4'34 '.'2e  ->  2e '.'
    //  5  '5'35 '4'34 'h'68  ->  69 'i'
    //  6  '6'36 '9'39 't'74  ->  7b '{'
    //  7  '7'37 '3'33 'm'6d  ->  69 'i'
    //  8  '8'38 '7'37 'l'6c  ->  63 'c'
    //  9  '9'39 '3'33 'c'63  ->  69 'i'   (uri wraps: 9 % 9 = 0)
    // 10  'a'61 '3'33 'h'68  ->  3a ':'
    // 11  'b'62 '2'32 '0'30  ->  60 '`'
    // 12  'c'63 '0'30 '1'31  ->  62 'b'
    // 13  'd'64 '9'39 '.'2e  ->  73 's'   (book wraps: 13 % 13 = 0)
    // 14  'e'65 '7'37 'h'68  ->  3a ':'
    // 15  'f'66 '8'38 't'74  ->  2a '*'
    const key = deriveChapterKey('0123456789abcdef0123', '9781449373320', 'ch01.html');
    expect(Array.from(key, (c) => c.charCodeAt(0))).toEqual([
      0x6a, 0x6e, 0x3a, 0x33, 0x2e, 0x69, 0x7b, 0x69, 0x63, 0x69, 0x3a, 0x60, 0x62, 0x73, 0x3a, 0x2a,
    ]);
    expect(key).toBe('jn:3.i{ici:`bs:*');
    expect(hex(chapterKeyBytes(key))).toBe(Buffer.from('jn:3.i{ici:`bs:*', 'utf8').toString('hex'));
  });

  it('works on UTF-16 code units, not code points', () => {
    // '😀' is two code units (d83d de00); a single-unit bookId and chapterUri XOR every unit with the same value.
    const key = deriveChapterKey('😀', '\u0001', '\u0002');
    expect(Array.from({ length: 16 }, (_, i) => key.charCodeAt(i))).toEqual(
      Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? 0xd83d : 0xde00) ^ 3),
    );
  });

  it('always has 16 code units (property)', () => {
    // Any UTF-16 code unit, lone surrogates included.
    const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 64, unit: anyCodeUnit }),
        fc.string({ minLength: 1, maxLength: 64, unit: anyCodeUnit }),
        fc.string({ minLength: 1, maxLength: 64 }),
        (u, b, c) => {
          const key = deriveChapterKey(u, b, c);
          if (key.length !== 16 || CHAPTER_KEY_LENGTH !== 16) return false;
          for (let i = 0; i < 16; i++) {
            const want = u.charCodeAt(i % u.length) ^ b.charCodeAt(i % b.length) ^ c.charCodeAt(i % c.length);
            if (key.charCodeAt(i) !== want) return false;
          }
          return true;
        },
      ),
      { numRuns: 300 },
    );
  });

  it('throws on an empty input', () => {
    expect(() => deriveChapterKey('', 'b', 'c')).toThrow(Error);
    expect(() => deriveChapterKey('a', '', 'c')).toThrow(Error);
    expect(() => deriveChapterKey('a', 'b', '')).toThrow(Error);
  });
});

describe('chapterChecksum', () => {
  it('hashes the whole string under 512 code units', () => {
    for (const s of ['', 'abc', '<p>“Hi” 中文 😀</p>', 'x'.repeat(511)]) {
      expect(chapterChecksum(s)).toBe(nodeMd5(Buffer.from(s, 'utf8')));
    }
  });

  it('hashes the first 256 + last 256 code units from 512 on', () => {
    for (const n of [512, 513, 1000, 100_000]) {
      const s = Array.from({ length: n }, (_, i) => String.fromCharCode(0x4e00 + (i % 500))).join('');
      const expected = nodeMd5(Buffer.from(s.slice(0, 256) + s.slice(n - 256), 'utf8'));
      expect(chapterChecksum(s), `length ${n}`).toBe(expected);
      // From 513 on the middle is left out (at 512 the two halves are the whole string).
      if (n > 512) expect(chapterChecksum(s)).not.toBe(nodeMd5(Buffer.from(s, 'utf8')));
    }
  });

  it('ignores the middle of a long chapter but not its ends', () => {
    const base = 'a'.repeat(300) + 'b'.repeat(300) + 'c'.repeat(300);
    const middle = base.slice(0, 450) + 'Z' + base.slice(451);
    expect(chapterChecksum(middle)).toBe(chapterChecksum(base));
    expect(chapterChecksum('Z' + base.slice(1))).not.toBe(chapterChecksum(base));
    expect(chapterChecksum(base.slice(0, -1) + 'Z')).not.toBe(chapterChecksum(base));
  });

  it('is lower-case hex', () => {
    expect(chapterChecksum('<p>hello</p>')).toMatch(/^[0-9a-f]{32}$/);
  });
});

/** A real-looking chapter of exactly `size` UTF-16 code units, with curly quotes, CJK and emoji (no cut pairs). */
function bigChapter(size: number): string {
  const head = '<?xml version="1.0" encoding="UTF-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><head>' +
    '<title>Chapter 1. “Getting Started”</title></head><body><section data-type="chapter" id="ch01">\n' +
    '<h1>Chapter 1. “Getting Started” — 入门 🚀</h1>\n';
  const tail = '</section></body></html>\n';
  const parts: string[] = [head];
  let len = head.length;
  for (let i = 0; ; i++) {
    const p =
      `<p id="p${i}">Paragraph ${i}: “It’s a truth universally acknowledged,” she said — ‘naïve café’ ` +
      `<em>façade</em> … 数据库事务的隔离级别 ${i % 97} 🙂📚✨ <code>SELECT * FROM t WHERE id = ${i};</code> ` +
      `日本語のテキスト、한국어 텍스트 € £ ¥ © ® ™ <a href="#p${(i * 7) % 1000}">see ¶${i}</a>.</p>\n`;
    if (len + p.length + tail.length > size) break;
    parts.push(p);
    len += p.length;
  }
  parts.push(' '.repeat(size - len - tail.length), tail);
  return parts.join('');
}

describe('encryptChapterPlaintext: the ciphertext bytes a server writes the base64 of itself', () => {
  it("is the bytes whose base64 is encryptChapter's content, in the scratch words when given", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.string({ minLength: 1, maxLength: 40 }), (html, uri) => {
        const plaintext = chapterPlaintext(html);
        const scratch = new Uint32Array(plaintext.length + 3);
        const bytes = encryptChapterPlaintext(plaintext, 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6', 'book-1', uri, scratch);
        expect(base64Encode(bytes)).toBe(encryptChapter(html, 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6', 'book-1', uri).content);
        if (bytes.length > 0) expect(bytes.buffer).toBe(scratch.buffer);
      }),
    );
  });
});

describe('encryptChapter / decryptChapter', () => {
  const userKey = '0123456789abcdef0123';
  const bookId = '9781449373320';
  const chapterUri = 'ch01.html';

  it('round-trips an 800,000-character chapter with non-ASCII text', () => {
    const html = bigChapter(800_000);
    expect(html.length).toBe(800_000);
    expect(/[“”’]/.test(html) && /[\u4e00-\u9fff]/.test(html) && /\p{Extended_Pictographic}/u.test(html)).toBe(true);

    // Its speed is measured in bench/ingest.ts against xxtea-node.
    const enc = encryptChapter(html, userKey, bookId, chapterUri);
    const dec = decryptChapter(enc.content, enc.checksum, userKey, bookId, chapterUri);

    expect(dec).toEqual({ ok: true, html });
    expect(enc.checksum).toBe(nodeMd5(Buffer.from(html.slice(0, 256) + html.slice(-256), 'utf8')));
    // Other clients: xxtea-node with the derived key string decrypts our base64 content.
    const key = deriveChapterKey(userKey, bookId, chapterUri);
    expect(enc.content).toBe(Buffer.from(xxtea.encrypt(Buffer.from(html, 'utf8'), Buffer.from(key, 'utf8'))).toString('base64'));
    expect(xxtea.decryptToString(enc.content, key)).toBe(html);
  });

  it('gives the same content from a plaintext kept with the chapter and a reused scratch buffer', () => {
    const scratch = new Uint32Array(16);
    for (const html of ['', '<p>x</p>', bigChapter(20_000), '<p>😀</p>'.repeat(200)]) {
      const plaintext = chapterPlaintext(html);
      for (const uri of [chapterUri, 'ch02.html']) {
        const kept = encryptChapter(html, userKey, bookId, uri, { plaintext, scratch });
        expect(kept).toEqual(encryptChapter(html, userKey, bookId, uri));
      }
    }
  });

  it('round-trips small, empty and BOM-prefixed chapters', () => {
    for (const html of ['', '<p>x</p>', '\uFEFF<p>“BOM”</p>', '<p>😀</p>'.repeat(200)]) {
      const enc = encryptChapter(html, userKey, bookId, chapterUri);
      expect(decryptChapter(enc.content, enc.checksum, userKey, bookId, chapterUri)).toEqual({ ok: true, html });
    }
  });

  it('rejects content with one base64 character changed', () => {
    const html = bigChapter(20_000);
    const { content, checksum } = encryptChapter(html, userKey, bookId, chapterUri);
    for (const at of [0, 1, Math.floor(content.length / 2), content.length - 5]) {
      const c = content[at]!;
      const tampered = content.slice(0, at) + (c === 'A' ? 'B' : 'A') + content.slice(at + 1);
      const r = decryptChapter(tampered, checksum, userKey, bookId, chapterUri);
      expect(r.ok, `position ${at}`).toBe(false);
    }
    // Not base64 at all.
    const bad = decryptChapter(content.slice(0, 10) + '*' + content.slice(11), checksum, userKey, bookId, chapterUri);
    expect(bad).toEqual({ ok: false, reason: 'corrupt' });
    expect(decryptChapter(content.slice(0, -4), checksum, userKey, bookId, chapterUri).ok).toBe(false);
  });

  it('rejects a wrong user key, book id or chapter uri', () => {
    const html = bigChapter(20_000);
    const { content, checksum } = encryptChapter(html, userKey, bookId, chapterUri);
    expect(decryptChapter(content, checksum, 'fedcba9876543210fedc', bookId, chapterUri).ok).toBe(false);
    expect(decryptChapter(content, checksum, '0123456789abcdeF0123', bookId, chapterUri).ok).toBe(false);
    expect(decryptChapter(content, checksum, userKey, '9781449373321', chapterUri).ok).toBe(false);
    expect(decryptChapter(content, checksum, userKey, bookId, 'ch02.html').ok).toBe(false);
  });

  it("reports 'checksum' when the content decrypts but the checksum does not match", () => {
    const { content, checksum } = encryptChapter('<p>hello</p>', userKey, bookId, chapterUri);
    expect(decryptChapter(content, '0'.repeat(32), userKey, bookId, chapterUri)).toEqual({
      ok: false,
      reason: 'checksum',
    });
    expect(decryptChapter(content, checksum.toUpperCase(), userKey, bookId, chapterUri).ok).toBe(true);
  });

  it("reports 'corrupt' when the plaintext is not UTF-8", () => {
    const key = chapterKeyBytes(deriveChapterKey(userKey, bookId, chapterUri));
    const content = base64Encode(xxteaEncrypt(new Uint8Array([0x3c, 0xff, 0xfe, 0x3e]), key));
    expect(decryptChapter(content, md5Hex(new Uint8Array(0)), userKey, bookId, chapterUri)).toEqual({
      ok: false,
      reason: 'corrupt',
    });
  });
});
