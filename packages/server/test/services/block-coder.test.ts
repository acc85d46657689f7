/** The block coder's WebAssembly: assembled from its WAT, and its cipher the same bytes as xxtea-node's. */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { xxteaPlaintext } from '@lectern/core';
import { describe, expect, it } from 'vitest';
import { gzipBase64, gzipText } from '../../src/util/base64-gzip.ts';
import { assembleBlockCoder, BLOCK_CODER_WASM } from '../../src/util/block-coder-source.ts';
import { encryptWords } from '../../src/util/block-coder.ts';

/** xxtea-node (CommonJS, no types): the part of its API the test uses. */
const xxteaNode = 'xxtea-node';
const xxtea = ((await import(xxteaNode)) as { default: { encrypt(data: Uint8Array, key: Uint8Array): Uint8Array } }).default;

describe('the block coder', () => {
  it('is block-coder.wat assembled (npx tsx scripts/block-coder-wasm.ts writes it again)', async () => {
    expect(Buffer.from(await assembleBlockCoder()).equals(fs.readFileSync(BLOCK_CODER_WASM))).toBe(true);
  });

  it('encrypts as xxtea-node does, whatever the length and the key', () => {
    for (const length of [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 100, 1001, 7_800, 30_001]) {
      for (const keyLength of [0, 1, 15, 16, 17, 40]) {
        const data = randomBytes(length);
        const key = randomBytes(keyLength);
        const expected = Buffer.from(xxtea.encrypt(data, key));
        expect(Buffer.from(encryptWords(xxteaPlaintext(data), key)).equals(expected)).toBe(true);
      }
    }
    expect(encryptWords(xxteaPlaintext(new Uint8Array(0)), randomBytes(16)).length).toBe(0);
  });

  it('codes the ciphertext where it was encrypted, and a chapter past the memory it keeps', () => {
    for (const length of [7_800, 9_000_000]) {
      const data = randomBytes(length);
      const key = randomBytes(16);
      const cipher = encryptWords(xxteaPlaintext(data), key);
      const expected = Buffer.from(xxtea.encrypt(data, key));
      const text = Buffer.from(`["${expected.toString('base64')}"]`);
      const packed = gzipText(['["', { base64Of: cipher }, '"]']);
      if (length < 10_000) expect(packed.equals(gzipBase64(text))).toBe(true);
      expect(gunzipSync(packed).equals(text)).toBe(true);
    }
  });
});
