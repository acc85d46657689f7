/**
 * A reader address's early chapter request (docs/decisions.md "A reader address asks for its chapter from the page
 * itself"): the page's inline script (server routes/web.ts, EARLY_BLOCK_SCRIPT) sent the reader's own
 * POST /nest/epub/block/ while the page was parsed and left it under EARLY_BLOCK_GLOBAL. Taken once (as the app
 * starts, or by the reader's first opening of a chapter: engine/chapterWorker.ts); the reader uses it for the book
 * and chapter it names instead of asking again, and asks for anything else.
 */
import { EARLY_BLOCK_GLOBAL } from '@lectern/core';

interface EarlyBlock {
  book_id?: unknown;
  href?: unknown;
  response?: unknown;
  /** the page also started the chapter worker and handed it a copy of the answer (id 0): whether it went */
  posted?: unknown;
  /** what that worker said before the app listened */
  replies?: unknown;
  /** the reader has painted its own first screen: the page paints no frame of its own after that */
  released?: boolean;
  /** takes the page's frame's resize listener off */
  unfollow?: () => void;
}

/** The page's early state once taken: the reader still tells it when it is released (pageScriptState). */
let taken: EarlyBlock | null = null;

/**
 * The page script's state, whether or not the app has taken its block: releasePageFrame sets `released` on it and
 * calls its `unfollow`, which the page's script reads and defines on the same object.
 */
export function pageScriptState(): Pick<EarlyBlock, 'released' | 'unfollow'> | null {
  if (typeof window === 'undefined') return null;
  return (window as unknown as Record<string, EarlyBlock | undefined>)[EARLY_BLOCK_GLOBAL] ?? taken;
}

/** The page's early block request as the app takes it. */
export interface TakenEarlyBlock {
  bookId: string;
  href: string;
  response: Promise<Response>;
  /**
   * Whether the page's own chapter worker was handed the answer (its reply is id 0), with what the worker said
   * before the app listened; null when the page started no worker.
   */
  inWorker: { posted: Promise<boolean>; replies: unknown[] } | null;
}

/** The id the page's script gives the answer it hands the worker (the app's own requests start at 1). */
export const PAGE_BLOCK_ID = 0;

/**
 * The page's early block request, taken away (a second call finds nothing); null when the page sent none. Whether it
 * is the chapter a request wants is the taker's to check (book and chapter).
 */
export function takeEarlyBlock(): TakenEarlyBlock | null {
  if (typeof window === 'undefined') return null;
  const holder = window as unknown as Record<string, EarlyBlock | undefined>;
  const early = holder[EARLY_BLOCK_GLOBAL];
  if (!early) return null;
  delete holder[EARLY_BLOCK_GLOBAL];
  taken = early;
  const replies = Array.isArray(early.replies) ? (early.replies as unknown[]) : null;
  // the page's script keeps no more of what the worker says: the app listens from here
  early.replies = null;
  if (typeof early.book_id !== 'string' || typeof early.href !== 'string' || !(early.response instanceof Promise)) return null;
  const inWorker = early.posted instanceof Promise && replies ? { posted: early.posted as Promise<boolean>, replies } : null;
  return { bookId: early.book_id, href: early.href, response: early.response as Promise<Response>, inWorker };
}

/** A block answer already received, as bytes: what crosses to the chapter worker, a Response again on the other side. */
export interface BlockAnswer {
  bytes: ArrayBuffer;
  status: number;
  statusText: string;
}

export const responseOf = (a: BlockAnswer): Response => new Response(a.bytes, { status: a.status, statusText: a.statusText });
