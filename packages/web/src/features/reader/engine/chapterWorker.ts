/**
 * The page's side of the chapter worker (chapter.worker.ts): chapter requests and crypt64 decryption (reader.md
 * §5: "A chapter is decrypted only if its encoding is crypt64"; the checksum must match, else "This chapter could
 * not be decrypted.") off the main thread. Every call falls back to doing the work here when there is no worker
 * (an old browser, a CSP that forbids it, a worker that failed to start), so the reader never depends on one.
 */
import { decryptChapter, type ArchiveItem, type DecryptChapterResult } from '@lectern/core';
import { ApiError, type FieldErrors } from '../../../api/client.ts';
import { csrfToken } from '../../../api/cookies.ts';
import { readerApi, type BlockParams } from '../../../api/reader.ts';
import type { SlicedChapter } from './chapterSlices.ts';

/**
 * Without a block request to ride along (a retry with a fresh key), chapters of more than this many characters of
 * ciphertext are decrypted in the worker; smaller ones here, where a round trip would cost more than the work
 * (about 1 ms per 100 KB once warm).
 */
export const WORKER_THRESHOLD = 1_000_000;

export type WorkerRequest =
  | { kind: 'decrypt'; id: number; content: string; checksum: string; key: string; bookId: string; chapterHref: string }
  | { kind: 'block'; id: number; params: BlockParams; csrf: string | null; key: string | null }
  | { kind: 'abort'; id: number }
  | { kind: 'warm' };

export type WorkerResponse =
  | { kind: 'ready' }
  | { kind: 'decrypt'; id: number; result: DecryptChapterResult }
  /**
   * `decrypted`: the chapter decrypted with the key sent, when there was one (its `content` is then emptied);
   * `sliced`: how a long chapter is cut into slices (chapterSlices.ts), worked out there too.
   */
  | { kind: 'block'; id: number; items: ArchiveItem[]; decrypted: DecryptChapterResult | null; sliced?: SlicedChapter | null }
  | {
      kind: 'error';
      id: number;
      aborted?: boolean;
      api?: { status: number; detail: string; errors: FieldErrors; url: string; statusText: string };
    };

type Settled = Exclude<WorkerResponse, { kind: 'ready' }>;

let worker: Worker | null = null;
let workerBroken = false;
let workerReady = false;
let nextId = 1;
const waiting = new Map<number, (r: Settled | null) => void>();

function getWorker(): Worker | null {
  if (workerBroken || typeof Worker === 'undefined') return null;
  if (worker) return worker;
  try {
    worker = new Worker(new URL('./chapter.worker.ts', import.meta.url), { type: 'module', name: 'lectern-chapter' });
    worker.onmessage = (event: MessageEvent<WorkerResponse>) => {
      const m = event.data;
      if (m.kind === 'ready') {
        workerReady = true;
        return;
      }
      const done = waiting.get(m.id);
      waiting.delete(m.id);
      done?.(m);
    };
    worker.onerror = () => {
      // A worker that cannot start or crashed: what it was doing is done here instead, and so is what follows.
      workerBroken = true;
      workerReady = false;
      worker = null;
      for (const done of waiting.values()) done(null);
      waiting.clear();
    };
  } catch {
    workerBroken = true;
    worker = null;
  }
  return worker;
}

/** Starts the worker ahead of need (its module loads while the first chapter is fetched on the main thread). */
export function warmChapterWorker() {
  getWorker();
}

let warmed = false;

/**
 * Once the first chapter is on screen and the page is idle: the worker runs the cipher over a throwaway chapter, so
 * its JavaScript is compiled and optimised before the reader's next chapter needs it (a first decryption in a cold
 * worker runs in the interpreter, several times slower). Costs the worker a few tens of milliseconds, once.
 */
export function warmChapterWorkerJit() {
  if (warmed || !workerReady || !worker) return;
  warmed = true;
  worker.postMessage({ kind: 'warm' } satisfies WorkerRequest);
}

/** One request to the worker; null when it is not there (or went away), so the caller does the work itself. */
function ask(request: Exclude<WorkerRequest, { kind: 'warm' }>, signal?: AbortSignal): Promise<Settled | null> {
  const w = getWorker();
  if (!w) return Promise.resolve(null);
  return new Promise((resolve) => {
    waiting.set(request.id, resolve);
    signal?.addEventListener(
      'abort',
      () => {
        if (waiting.has(request.id)) w.postMessage({ kind: 'abort', id: request.id } satisfies WorkerRequest);
      },
      { once: true },
    );
    w.postMessage(request);
  });
}

function decryptHere(content: string, checksum: string, key: string, bookId: string, chapterHref: string): DecryptChapterResult {
  try {
    return decryptChapter(content, checksum, key, bookId, chapterHref);
  } catch {
    return { ok: false, reason: 'corrupt' };
  }
}

export async function decryptAsync(input: { content: string; checksum: string; key: string; bookId: string; chapterHref: string }): Promise<DecryptChapterResult> {
  const here = () => decryptHere(input.content, input.checksum, input.key, input.bookId, input.chapterHref);
  if (input.content.length <= WORKER_THRESHOLD) return here();
  const answer = await ask({ kind: 'decrypt', id: nextId++, ...input });
  return answer?.kind === 'decrypt' ? answer.result : here();
}

export interface LoadedBlock {
  items: ArchiveItem[];
  decrypted: DecryptChapterResult | null;
  /** a long chapter's slices, when the worker worked them out (chapterSlices.ts primeSlices) */
  sliced?: SlicedChapter | null;
}

/**
 * POST /nest/epub/block/ for one chapter, decrypted with `key` when one is given and the chapter is crypt64. In
 * the worker once it is up (the first chapter of a visit does not wait for it to start), else on the main thread.
 * Errors are the client's ApiError either way; an abort rejects with an AbortError.
 */
export async function loadBlock(params: BlockParams, key: string | null, signal?: AbortSignal): Promise<LoadedBlock> {
  const csrf = csrfToken();
  if (workerReady && csrf) {
    const answer = await ask({ kind: 'block', id: nextId++, params, csrf, key }, signal);
    if (answer?.kind === 'block') return { items: answer.items, decrypted: answer.decrypted, sliced: answer.sliced ?? null };
    if (answer?.kind === 'error') {
      if (answer.aborted || signal?.aborted) throw new DOMException('The chapter request was cancelled.', 'AbortError');
      if (answer.api) throw new ApiError(answer.api.status, answer.api.detail, answer.api.errors, answer.api.url, answer.api.statusText);
    }
    // No worker after all, or it failed in an unexpected way: ask again from here.
  }
  // Here the caller decrypts (decryptAsync: a very long chapter still goes to the worker if there is one).
  return { items: await readerApi.getBlock(params, signal), decrypted: null };
}
