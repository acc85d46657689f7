/**
 * The page's side of the chapter worker (chapter.worker.ts): chapter requests and crypt64 decryption (reader.md
 * §5: "A chapter is decrypted only if its encoding is crypt64"; the checksum must match, else "This chapter could
 * not be decrypted.") off the main thread. Every call falls back to doing the work here when there is no worker
 * (an old browser, a CSP that forbids it, a worker that failed to start), so the reader never depends on one.
 */
import { decryptChapter, type ArchiveItem, type DecryptChapterResult } from '@lectern/core';
import { ApiError, type FieldErrors } from '../../../api/client.ts';
import { csrfToken } from '../../../api/cookies.ts';
import { type BlockAnswer, PAGE_BLOCK_ID, responseOf, takeEarlyBlock, type TakenEarlyBlock } from '../../../api/earlyBlock.ts';
import { readerApi, type BlockParams } from '../../../api/reader.ts';
import type { SlicedChapter } from './chapterSlices.ts';
import type { PageFirstScreen, PageView } from './pageFirstScreen.ts';
import { chapterWorkerFailed, chapterWorkerReady, startChapterWorker } from './workerStart.ts';

/**
 * Without a block request to ride along (a retry with a fresh key), chapters of more than this many characters of
 * ciphertext are decrypted in the worker; smaller ones here, where a round trip would cost more than the work
 * (about 1 ms per 100 KB once warm).
 */
export const WORKER_THRESHOLD = 1_000_000;

export type WorkerRequest =
  | { kind: 'decrypt'; id: number; content: string; checksum: string; key: string; bookId: string; chapterHref: string }
  /** `answer`: the block answer the page itself asked for (api/earlyBlock.ts), read there instead of asking again */
  /** `view`: what the page's script read for its own first screen (pageFirstScreen.ts), from the page only */
  | { kind: 'block'; id: number; params: BlockParams; csrf: string | null; key: string | null; answer?: BlockAnswer; view?: PageView }
  | { kind: 'abort'; id: number }
  | { kind: 'warm' };

export type WorkerResponse =
  | { kind: 'ready' }
  /** for the page's script alone (it paints it): no id, nothing of the reader's waits for it */
  | PageFirstScreen
  /** the page's request has no first screen of the page's (app/pageFirstScreenGate.ts stops waiting for one) */
  | { kind: 'no-first-screen' }
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

type Settled = Exclude<WorkerResponse, { kind: 'ready' } | PageFirstScreen | { kind: 'no-first-screen' }>;
/** What the worker says to the page rather than in answer to a request (no id). */
const isPageNews = (kind: string | undefined) => kind === 'ready' || kind === 'first-screen' || kind === 'no-first-screen';

let worker: Worker | null = null;
let workerBroken = false;
let nextId = 1;
const waiting = new Map<number, (r: Settled | null) => void>();
/** Ready: it said so (workerStart.ts records its first message, whenever it was started). */
const workerReady = () => !!worker && chapterWorkerReady();

function getWorker(): Worker | null {
  if (workerBroken || chapterWorkerFailed()) return null;
  if (worker) return worker;
  const started = startChapterWorker();
  if (!started) {
    workerBroken = true;
    return null;
  }
  worker = started;
  worker.onmessage = (event: MessageEvent<WorkerResponse>) => {
    const m = event.data;
    if (m.kind === 'ready' || m.kind === 'first-screen' || m.kind === 'no-first-screen') return; // (isPageNews)
    const done = waiting.get(m.id);
    waiting.delete(m.id);
    done?.(m);
  };
  worker.onerror = () => {
    // A worker that cannot start or crashed: what it was doing is done here instead, and so is what follows.
    workerBroken = true;
    worker = null;
    for (const done of waiting.values()) done(null);
    waiting.clear();
  };
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
  if (warmed || !workerReady() || !worker) return;
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
 * The page's early block answer (api/earlyBlock.ts), read whole; null when that request failed on the way (the
 * chapter is then asked for again, as it would have been without it).
 */
async function earlyAnswer(early: Promise<Response>): Promise<BlockAnswer | null> {
  try {
    const r = await early;
    return { bytes: await r.arrayBuffer(), status: r.status, statusText: r.statusText };
  } catch {
    return null;
  }
}

/**
 * A block answer already received, made ready as the worker makes the reader's own: parsed, decrypted with `key`
 * and cut into slices there (the worker is started if it is not yet: the bytes wait there for it rather than being
 * parsed and decrypted on the main thread), else read here. Null when there is no answer to read.
 */
async function fromAnswer(params: BlockParams, key: string | null, answering: Promise<BlockAnswer | null>): Promise<LoadedBlock | null> {
  const answer = await answering;
  if (!answer) return null;
  const csrf = csrfToken();
  if (csrf) {
    const reply = await ask({ kind: 'block', id: nextId++, params, csrf, key, answer });
    if (reply?.kind === 'block') return { items: reply.items, decrypted: reply.decrypted, sliced: reply.sliced ?? null };
    if (reply?.kind === 'error' && reply.api) throw new ApiError(reply.api.status, reply.api.detail, reply.api.errors, reply.api.url, reply.api.statusText);
  }
  return { items: await readerApi.getBlock(params, undefined, Promise.resolve(responseOf(answer))), decrypted: null };
}

/** The page's chapter answer, taken as the app started (adoptEarlyBlock) and on its way through the worker. */
let adopted: { bookId: string; href: string; loaded: Promise<LoadedBlock | null> } | null = null;

/**
 * As the app starts (readerFromPage.ts): the page's early block request is taken now, and its answer goes to the
 * worker the moment it arrives, decrypted with `key` (the one the page brought, or this browser's stored one) while
 * the app's start goes on. The reader's first request for that chapter then takes the result (loadBlock).
 */
export function adoptEarlyBlock(key: string | null): void {
  const early = takeEarlyBlock();
  if (!early) return;
  const params: BlockParams = { bookId: early.bookId, href: early.href, updateProgress: true };
  const loaded = early.inWorker ? fromPageWorker(params, key, early, early.inWorker) : fromAnswer(params, key, earlyAnswer(early.response));
  loaded.catch(() => undefined); // the reader's request reports it
  adopted = { bookId: early.bookId, href: early.href, loaded };
}

/**
 * The page's worker's answer to the block the page handed it (PAGE_BLOCK_ID): already said (kept by the page's script
 * until now) or awaited here. When the page could not hand it over, or the worker went away, the page's response is
 * read as without it (fromAnswer).
 */
async function fromPageWorker(params: BlockParams, key: string | null, early: TakenEarlyBlock, inWorker: NonNullable<TakenEarlyBlock['inWorker']>): Promise<LoadedBlock | null> {
  const said = inWorker.replies.find((r): r is Settled => {
    const m = r as { kind?: string; id?: number } | null;
    return !isPageNews(m?.kind) && m?.id === PAGE_BLOCK_ID;
  });
  // listening from now on (and told if it fails) before anything is awaited, so no reply falls between
  const w = getWorker();
  const reply: Promise<Settled | null> = said
    ? Promise.resolve(said)
    : w
      ? new Promise((resolve) => waiting.set(PAGE_BLOCK_ID, resolve))
      : Promise.resolve(null);
  if (!said && w && !(await inWorker.posted)) {
    waiting.delete(PAGE_BLOCK_ID);
    return fromAnswer(params, key, earlyAnswer(early.response));
  }
  const m = await reply;
  if (m?.kind === 'block') return { items: m.items, decrypted: m.decrypted, sliced: m.sliced ?? null };
  if (m?.kind === 'error' && m.api) throw new ApiError(m.api.status, m.api.detail, m.api.errors, m.api.url, m.api.statusText);
  return fromAnswer(params, key, earlyAnswer(early.response));
}

/**
 * POST /nest/epub/block/ for one chapter, decrypted with `key` when one is given and the chapter is crypt64. In
 * the worker once it is up (the first chapter of a visit does not wait for it to start), else on the main thread.
 * When the page itself already asked for this chapter as it started (a reader address, api/earlyBlock.ts), that
 * answer is taken instead of asking again: one request per chapter opened; the first opening of a chapter takes
 * it or leaves it for good (a prefetch leaves it alone).
 * Errors are the client's ApiError either way; an abort rejects with an AbortError.
 */
export async function loadBlock(params: BlockParams, key: string | null, signal?: AbortSignal): Promise<LoadedBlock> {
  if (params.updateProgress !== false) {
    const taken = adopted;
    adopted = null;
    const early = taken ? null : takeEarlyBlock();
    let loaded: Promise<LoadedBlock | null> | null = null;
    if (taken && taken.bookId === params.bookId && taken.href === params.href) loaded = taken.loaded;
    else if (early && early.bookId === params.bookId && early.href === params.href) {
      loaded = early.inWorker ? fromPageWorker(params, key, early, early.inWorker) : fromAnswer(params, key, earlyAnswer(early.response));
    }
    const done = loaded ? await loaded : null;
    if (done) return done;
    // (a page's request that failed on its way: asked again here)
  }
  const csrf = csrfToken();
  if (workerReady() && csrf) {
    const reply = await ask({ kind: 'block', id: nextId++, params, csrf, key }, signal);
    if (reply?.kind === 'block') return { items: reply.items, decrypted: reply.decrypted, sliced: reply.sliced ?? null };
    if (reply?.kind === 'error') {
      if (reply.aborted || signal?.aborted) throw new DOMException('The chapter request was cancelled.', 'AbortError');
      if (reply.api) throw new ApiError(reply.api.status, reply.api.detail, reply.api.errors, reply.api.url, reply.api.statusText);
    }
    // No worker after all, or it failed in an unexpected way: ask again from here.
  }
  // Here the caller decrypts (decryptAsync: a very long chapter still goes to the worker if there is one).
  return { items: await readerApi.getBlock(params, signal), decrypted: null };
}
