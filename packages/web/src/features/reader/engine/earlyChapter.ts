/**
 * The chapter asked for as the page starts (reader.md §7: "The chapter can be preloaded from the page"). Opening a
 * reader address, the chapter's POST /nest/epub/block/ waited for the whole app: its entry evaluated, the profile,
 * the reader's chunks, the reader's first render; a long chapter's answer (about 1 MB of crypt64) then came back
 * hundreds of milliseconds later and was decrypted in a worker that had only just started. Here the chapter worker
 * is started and the request sent from a script of a few hundred bytes that runs before the app (src/early.ts), so
 * the answer comes and is decrypted while the app starts. loadBlock (chapterWorker.ts) claims the answer when the
 * reader asks for the same chapter; the worker is adopted as the reader's chapter worker.
 *
 * The requests go from the page, not the worker: the worker's script (the client, the schemas, the cipher) takes
 * a while to load and start, and the request would wait for it. The worker gets the answers' text.
 *
 * This module stays small and imports nothing of the app but the cookie readers and the two raw requests: it is in
 * the first script a reader address runs.
 */
import { csrfToken, hasLoginCookie } from '../../../api/cookies.ts';
import { sendBlockRequest, sendKeyRequest } from '../../../api/earlyRequests.ts';

/** The request as loadBlock sends it (chapterWorker.ts's BlockParams). */
export interface EarlyParams {
  bookId: string;
  href: string;
  screenWidth: number;
  screenHeight: number;
  updateProgress: boolean;
}

export interface EarlyChapter {
  worker: Worker;
  /** The worker's messages until chapterWorker.ts adopts it (then it sets its own handler). */
  messages: unknown[];
  /** The one chapter asked for, its message id and the stored key it was sent with (null: the worker fetched one). */
  request: { id: number; params: EarlyParams; key: string | null } | null;
  /** The worker failed to start (or crashed) before it was adopted: its answer will never come. */
  failed: boolean;
}

let early: EarlyChapter | null = null;
/** The reader has its own chapter worker (it asked before this started): nothing more is started here. */
let closed = false;

/** The module worker of chapter.worker.ts (one place names it, so the build emits it once). */
export function createChapterWorker(): Worker {
  return new Worker(new URL('./chapter.worker.ts', import.meta.url), { type: 'module', name: 'lectern-chapter' });
}

/** Id of the early request; loadBlock's own ids count up from 1, so this one never meets them. */
export const EARLY_ID = -1;

/**
 * The reader's book and chapter in a reader address (router.tsx: library/view/:titleSafe/:bookId/*), as
 * ReaderPage reads them (useParams decodes each segment; the splat loses trailing slashes), or null.
 */
export function readerAddress(pathname: string): { bookId: string; href: string } | null {
  const m = /^\/library\/view\/[^/]+\/([^/]+)\/(.+)$/.exec(pathname);
  if (!m) return null;
  try {
    const bookId = decodeURIComponent(m[1]!);
    const href = m[2]!.split('/').map(decodeURIComponent).join('/').replace(/\/+$/, '');
    return bookId && href ? { bookId, href } : null;
  } catch {
    return null;
  }
}

/** Where keyStore.ts keeps the reader's key (here, so this small module need not import keyStore's weight). */
export const KEY_STORAGE = 'reader_key';

/** The key kept in local storage, whoever it was stored for: the checksum decides whether it decrypts. */
function anyStoredKey(): string | null {
  try {
    const raw = localStorage.getItem(KEY_STORAGE);
    const v = raw ? (JSON.parse(raw) as { key?: unknown }) : null;
    return typeof v?.key === 'string' && v.key ? v.key : null;
  } catch {
    return null;
  }
}

/**
 * On a reader address, signed in (the readable cookies): sends the chapter's request (and the key's, when none is
 * stored) and starts the chapter worker, which gets their answers. Does nothing anywhere else, or twice.
 *
 * Not at once but once the app's entry and its files are in (DOMContentLoaded, after the module scripts ran): the
 * server's 1 MB answer, made on its one event loop, held the app's own files back behind it when asked for first
 * (docs/performance.md). It still goes well before the reader's first render.
 */
export function startEarlyChapter(): void {
  if (typeof document !== 'undefined' && document.readyState === 'loading') document.addEventListener('DOMContentLoaded', begin, { once: true });
  else begin();
}

function begin(): void {
  if (early || closed || typeof Worker === 'undefined' || typeof window === 'undefined') return;
  const at = readerAddress(window.location.pathname);
  const csrf = csrfToken();
  if (!at || !csrf || !hasLoginCookie()) return;
  let worker: Worker;
  try {
    worker = createChapterWorker();
  } catch {
    return;
  }
  const messages: unknown[] = [];
  worker.onmessage = (event: MessageEvent) => {
    messages.push(event.data);
    // (read by the bench, STEPS=1: the early chapter decrypted and on the page)
    if ((event.data as { id?: unknown } | null)?.id === EARLY_ID) performance.mark('reader:early-answer');
  };
  const key = anyStoredKey();
  const params: EarlyParams = { ...at, screenWidth: window.innerWidth, screenHeight: window.innerHeight, updateProgress: true };
  const block = sendBlockRequest(params);
  // Without a stored key (a first visit on this browser) the key is asked for alongside, as loadChapter does.
  const keyText = key === null ? sendKeyRequest() : Promise.resolve(null);
  // The worker compiles the cipher while the answers are on their way (it takes the messages once it has started).
  worker.postMessage({ kind: 'warm' });
  void Promise.all([block, keyText]).then(([b, k]) =>
    // (chapterWorker.ts's WorkerRequest 'early', which this module cannot import without its weight)
    worker.postMessage({ kind: 'early', id: EARLY_ID, block: b, key, keyText: k }),
  );
  const started: EarlyChapter = { worker, messages, request: { id: EARLY_ID, params, key }, failed: false };
  worker.onerror = () => void (started.failed = true);
  early = started;
}

/** Whether the page started a chapter worker as it loaded (not yet adopted). */
export const hasEarlyWorker = (): boolean => early !== null;

/** The early worker and what it has said so far, handed over once (to chapterWorker.ts). */
export function adoptEarlyWorker(): EarlyChapter | null {
  closed = true;
  const e = early;
  early = null;
  return e;
}
