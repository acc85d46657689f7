/**
 * Where the chapter worker (chapter.worker.ts) is started: on its first use (chapterWorker.ts), or as the app starts
 * on a reader address whose page already asked for its chapter (readerFromPage.ts). Kept apart from chapterWorker.ts
 * so the entry takes only the worker's address, not the client's schemas and the cipher. Whether the worker said it
 * is ready is recorded here, from its first message, whoever listens to it later.
 */

let worker: Worker | null | undefined;
let ready = false;
let broken = false;

/** The one chapter worker, started now if it is not yet; null where there can be none (no Worker, a CSP, a failure). */
export function startChapterWorker(): Worker | null {
  if (worker !== undefined) return worker;
  if (typeof Worker === 'undefined') return (worker = null);
  try {
    worker = new Worker(new URL('./chapter.worker.ts', import.meta.url), { type: 'module', name: 'lectern-chapter' });
    worker.addEventListener('message', (event: MessageEvent<{ kind?: string }>) => {
      if (event.data?.kind === 'ready') ready = true;
    });
    worker.addEventListener('error', () => {
      broken = true;
      ready = false;
    });
  } catch {
    worker = null;
  }
  return worker;
}

/** The worker has run its script and said so (and has not failed since). */
export const chapterWorkerReady = (): boolean => ready && !broken;

/** The worker failed (its script would not load, or it crashed), perhaps before anyone listened to it. */
export const chapterWorkerFailed = (): boolean => broken;
