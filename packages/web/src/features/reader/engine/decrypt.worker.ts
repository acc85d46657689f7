/// <reference lib="webworker" />
/**
 * Decrypts crypt64 chapters off the main thread (DESIGN.md "Reader engine": decryption must never block the page
 * beyond a frame). One message in, one out; the core function does the work and the checksum check.
 */
// Straight from the pure cipher module: the package index would drag core's zod schemas into the worker.
import { decryptChapter } from '../../../../../core/src/reader-crypto.ts';
import type { DecryptRequest, DecryptResponse } from './decrypt.ts';

self.onmessage = (event: MessageEvent<DecryptRequest>) => {
  const { id, content, checksum, key, bookId, chapterHref } = event.data;
  let response: DecryptResponse;
  try {
    response = { id, result: decryptChapter(content, checksum, key, bookId, chapterHref) };
  } catch {
    response = { id, result: { ok: false, reason: 'corrupt' } };
  }
  (self as unknown as Worker).postMessage(response);
};
