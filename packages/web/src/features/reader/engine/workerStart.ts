/**
 * Where the chapter worker (chapter.worker.ts) is started: on its first use (chapterWorker.ts), or as the app starts
 * on a reader address whose page already asked for its chapter (readerFromPage.ts). Kept apart from chapterWorker.ts
 * so the entry takes only the worker's address, not the client's schemas and the cipher. Whether the worker said it
 * is ready is recorded here, from its first message, whoever listens to it later.
 */

import { EARLY_BLOCK_GLOBAL } from '@lectern/core';

let worker: Worker | null | undefined;
let ready = false;
let broken = false;

/**
 * The worker a reader address's page started itself (server routes/web.ts EARLY_BLOCK_SCRIPT), with what it said
 * before the app listened; null when the page started none. Read, not taken: api/earlyBlock.ts takes the rest.
 */
export function pageWorker(): { worker: Worker; replies: unknown[] | null; failed: boolean } | null {
  if (typeof window === 'undefined') return null;
  const early = (window as unknown as Record<string, { worker?: unknown; replies?: unknown; failed?: unknown } | undefined>)[EARLY_BLOCK_GLOBAL];
  if (!early || typeof Worker === 'undefined' || !(early.worker instanceof Worker)) return null;
  return { worker: early.worker, replies: Array.isArray(early.replies) ? early.replies : null, failed: early.failed === true };
}

/** The one chapter worker, started now if it is not yet; null where there can be none (no Worker, a CSP, a failure). */
export function startChapterWorker(): Worker | null {
  if (worker !== undefined) return worker;
  if (typeof Worker === 'undefined') return (worker = null);
  const fromPage = pageWorker();
  if (fromPage) {
    // already loading (or loaded) since the page was parsed: taken as the app's one worker
    worker = fromPage.worker;
    broken = fromPage.failed;
    ready = !broken && (fromPage.replies ?? []).some((r) => (r as { kind?: string } | null)?.kind === 'ready');
    listen(worker);
    return worker;
  }
  try {
    worker = new Worker(new URL('./chapter.worker.ts', import.meta.url), { type: 'module', name: 'lectern-chapter' });
    listen(worker);
  } catch {
    worker = null;
  }
  return worker;
}

function listen(w: Worker) {
  w.addEventListener('message', (event: MessageEvent<{ kind?: string }>) => {
    if (event.data?.kind === 'ready') ready = true;
  });
  w.addEventListener('error', () => {
    broken = true;
    ready = false;
  });
}

/** The worker has run its script and said so (and has not failed since). */
export const chapterWorkerReady = (): boolean => ready && !broken;

/** The worker failed (its script would not load, or it crashed), perhaps before anyone listened to it. */
export const chapterWorkerFailed = (): boolean => broken;
