/** gzipBase64 is gzip any reader inflates, for any bytes, and about three quarters of base64's size. */
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { gzipBase64, gzipText, textOf, type TextPart } from '../../src/util/base64-gzip.ts';

describe('gzipBase64', () => {
  it('inflates back to the bytes, whatever they are', () => {
    const cases = [
      Buffer.alloc(0),
      Buffer.from([0]),
      Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
      randomBytes(5000),
      Buffer.from('{"label":"第二十章 — Chapter 20","content":"QUJD+/=="}'),
      // nothing of the alphabet: every byte in the code's longest length (15 bits)
      Buffer.alloc(3000, 0xff),
    ];
    for (let n = 1; n < 40; n++) cases.push(Buffer.from(randomBytes(n).toString('base64')));
    for (const data of cases) expect(gunzipSync(gzipBase64(data)).equals(data)).toBe(true);
  });

  it('codes views at odd and even offsets, base64 pairs and other bytes side by side, as the bytes they are', () => {
    // Pairs of base64 characters are coded together from a 16-bit view, which needs an even offset.
    const text = Buffer.from(`{"a":"${randomBytes(301).toString('base64')}","b":"é\u0000x"}${randomBytes(3).toString('base64')}`);
    const backing = Buffer.alloc(text.length + 4);
    for (const offset of [0, 1, 2, 3]) {
      text.copy(backing, offset);
      for (const end of [text.length, text.length - 1]) {
        const view = backing.subarray(offset, offset + end);
        expect(gunzipSync(gzipBase64(view)).equals(view)).toBe(true);
      }
    }
  });

  it('gives each call bytes of its own: a later call leaves an earlier answer as it was', () => {
    // The coding is written in one buffer that every call reuses; what a call returns must not be that buffer.
    const first = Buffer.from(randomBytes(3000).toString('base64'));
    const packed = gzipBase64(first);
    const copy = Buffer.from(packed);
    gzipBase64(Buffer.from(randomBytes(3000).toString('base64')));
    gzipBase64(Buffer.alloc(200_000, 'A'));
    expect(packed.equals(copy)).toBe(true);
    expect(gunzipSync(packed).equals(first)).toBe(true);
  });

  it('codes base64 in about 6 bits a character', () => {
    const json = Buffer.from(JSON.stringify([{ book_id: 'b', resources: [{ content: randomBytes(30_000).toString('base64') }] }]));
    const packed = gzipBase64(json);
    expect(gunzipSync(packed).equals(json)).toBe(true);
    expect(packed.length / json.length).toBeGreaterThan(0.74);
    expect(packed.length / json.length).toBeLessThan(0.77);
  });
});

describe('gzipText: the same gzip, written from parts, the base64 made from the bytes', () => {
  it('is gzipBase64 of the text, byte for byte, whatever the bytes, their length and their offset', () => {
    const backing = new Uint8Array(4000);
    for (let n = 0; n < 60; n++) {
      for (const offset of [0, 1, 3]) {
        const bytes = backing.subarray(offset, offset + n);
        bytes.set(randomBytes(n));
        const parts: TextPart[] = [Buffer.from('[{"a":"é\u2028 海","c":"'), { base64Of: bytes }, '","n":', JSON.stringify(n / 7), Buffer.from([0, 255, 0x3d]), '}]'];
        const text = Buffer.concat([Buffer.from('[{"a":"é\u2028 海","c":"'), Buffer.from(Buffer.from(bytes).toString('base64')), Buffer.from(`","n":${JSON.stringify(n / 7)}`), Buffer.from([0, 255, 0x3d]), Buffer.from('}]')]);
        expect(textOf(parts).equals(text)).toBe(true);
        const packed = gzipText(parts);
        expect(packed.equals(gzipBase64(text))).toBe(true);
        expect(gunzipSync(packed).equals(text)).toBe(true);
      }
    }
  });

  it('codes text with nothing of the alphabet, every byte in the longest code, past the reused buffer', () => {
    // 15 bits a byte; 1.4 MB of text is coded into memory of its own, sized by the bound alone
    const labels = Buffer.alloc(700_000, 0xff);
    const bytes = randomBytes(10);
    expect(gunzipSync(gzipText([labels, { base64Of: bytes }, labels])).equals(Buffer.concat([labels, Buffer.from(bytes.toString('base64')), labels]))).toBe(true);
  });

  it('carries a chapter-sized ciphertext, and several in one text, in about 6 bits a character', () => {
    const one = randomBytes(30_001);
    const two = randomBytes(7_802);
    const parts: TextPart[] = ['["', { base64Of: one }, '","', { base64Of: two }, '"]'];
    const text = Buffer.from(`["${one.toString('base64')}","${two.toString('base64')}"]`);
    const packed = gzipText(parts);
    expect(gunzipSync(packed).equals(text)).toBe(true);
    expect(packed.length / text.length).toBeGreaterThan(0.74);
    expect(packed.length / text.length).toBeLessThan(0.77);
    // what it returns is its own: a later call leaves it as it was
    const copy = Buffer.from(packed);
    gzipText([{ base64Of: randomBytes(50_000) }]);
    expect(packed.equals(copy)).toBe(true);
  });

  it('gives each of many chapter-sized answers bytes of its own (small answers share slabs, none overlap)', () => {
    // Small answers are copied into a shared slab, one after another: forty of them fill several slabs.
    const answers = Array.from({ length: 40 }, (_, i) => {
      const bytes = randomBytes(3_000 + 997 * (i % 9));
      const packed = gzipText(['["', { base64Of: bytes }, '"]']);
      return { packed, copy: Buffer.from(packed), text: Buffer.from(`["${bytes.toString('base64')}"]`) };
    });
    for (const { packed, copy, text } of answers) {
      expect(packed.equals(copy)).toBe(true);
      expect(gunzipSync(packed).equals(text)).toBe(true);
    }
  });
});
