/**
 * Chapter decryption for `encoding: crypt64` (reader.md §5: "A chapter is decrypted only if its encoding is
 * crypt64"; the checksum must match, else "This chapter could not be decrypted."). Small chapters are decrypted
 * in place (a worker round trip would cost more than the work); chapters over WORKER_THRESHOLD characters go to a
 * module Web Worker so a long chapter never blocks the main thread.
 */
import { decryptChapter, type DecryptChapterResult } from '@lectern/core';

/**
 * Above this many characters of ciphertext (about 750 KB of HTML) the work moves to a worker. Decryption runs at
 * roughly 1 ms per 100 KB here (an 800,000-character chapter takes 9-12 ms), so below this it fits in a frame,
 * and a worker round trip (posting the text both ways) costs more than the work: measured with bench/reader.ts.
 */
export const WORKER_THRESHOLD = 1_000_000;

export interface DecryptRequest {
  id: number;
  content: string;
  checksum: string;
  key: string;
  bookId: string;
  chapterHref: string;
}
export interface DecryptResponse {
  id: number;
  result: DecryptChapterResult;
}

let worker: Worker | null = null;
let workerBroken = false;
let nextId = 1;
const waiting = new Map<number, (r: DecryptChapterResult) => void>();

function getWorker(): Worker | null {
  if (workerBroken || typeof Worker === 'undefined') return null;
  if (worker) return worker;
  try {
    worker = new Worker(new URL('./decrypt.worker.ts', import.meta.url), { type: 'module', name: 'lectern-decrypt' });
    worker.onmessage = (event: MessageEvent<DecryptResponse>) => {
      const done = waiting.get(event.data.id);
      waiting.delete(event.data.id);
      done?.(event.data.result);
    };
    worker.onerror = () => {
      // A worker that cannot start (CSP, old browser): decrypt the waiting chapters here instead.
      workerBroken = true;
      worker = null;
    };
  } catch {
    workerBroken = true;
    worker = null;
  }
  return worker;
}

/** Starts the worker ahead of need (its module load overlaps the chapter request). */
export function warmDecryptWorker() {
  getWorker();
}

export function decryptAsync(input: Omit<DecryptRequest, 'id'>): Promise<DecryptChapterResult> {
  const inline = () => {
    try {
      return decryptChapter(input.content, input.checksum, input.key, input.bookId, input.chapterHref);
    } catch {
      return { ok: false, reason: 'corrupt' } as const;
    }
  };
  const w = input.content.length > WORKER_THRESHOLD ? getWorker() : null;
  if (!w) return Promise.resolve(inline());
  const id = nextId++;
  return new Promise<DecryptChapterResult>((resolve) => {
    let settled = false;
    const finish = (r: DecryptChapterResult) => {
      if (settled) return;
      settled = true;
      resolve(r);
    };
    waiting.set(id, finish);
    w.addEventListener('error', () => {
      waiting.delete(id);
      finish(inline());
    }, { once: true });
    w.postMessage({ id, ...input } satisfies DecryptRequest);
  });
}
