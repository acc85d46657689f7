/**
 * The reader's calls (reader.md §7), built on the one typed client (`api.request`) and the core zod schemas.
 * The reader is its own lazily loaded chunk, so importing the schemas here costs the entry chunk nothing.
 */
import {
  chapterProgressPageSchema,
  keyResponseSchema,
  LIMITS,
  paths,
  scriptedFrameSchema,
  scriptsConsentSchema,
  type ScriptsConsent,
  type ScriptedFrame,
  tocResponseSchema,
  usageEventsResponseSchema,
  type ArchiveItem,
  type TocResponse,
  type UsageEvent,
} from '@lectern/core';
import { api, type ApiClient } from './client.ts';

export interface BlockParams {
  bookId: string;
  href: string;
  screenWidth?: number;
  screenHeight?: number;
  updateProgress?: boolean;
}

export interface ChapterProgressRecord {
  content: string;
  identifier: string;
  full_path: string;
  top_percentage: number;
}

export interface UsageAck {
  accepted: string[];
  rejected: { index: number; usage_uuid: string | null; reason: string }[];
}

/** `next` links are absolute or root-relative; the client wants a path plus a query. */
function pathOf(next: string): { path: string; query: Record<string, string> } {
  const u = new URL(next, 'http://lectern.invalid');
  return { path: u.pathname, query: Object.fromEntries(u.searchParams) };
}

/**
 * POST /nest/epub/block/ through a given client: the app's, or the chapter worker's own (made with the page's CSRF
 * token, since a worker cannot read cookies). resources[0] of the item is the chapter. `answer`: the answer of the
 * same request sent by the page itself (earlyBlock.ts), read instead of asking again.
 */
export function getBlockWith(client: Pick<ApiClient, 'request'>, p: BlockParams, signal?: AbortSignal, answer?: Promise<Response>): Promise<ArchiveItem[]> {
  // (the schema from the client's schemas module, not core: the chapter worker, which sends this, then starts
  // without zod, and loads it beside the answer; chapter.worker.ts)
  return client.request('/nest/epub/block/', (s) => s.blockResponseSchema, {
    method: 'POST',
    signal,
    answer,
    body: {
      book_id: p.bookId,
      hrefs: p.href,
      package_resources: 1,
      ...(p.screenWidth ? { screen_width: Math.round(p.screenWidth) } : {}),
      ...(p.screenHeight ? { screen_height: Math.round(p.screenHeight) } : {}),
      update_progress: p.updateProgress ?? true,
    },
  });
}

/**
 * Asks for a chapter's stylesheets ahead of its document, so the frame's `<link>`s find them in the HTTP cache (the
 * server lets a book's files be kept a day) instead of the first layout waiting for them. Failures are left to the
 * frame, which asks again.
 */
export function prefetchBookFiles(urls: readonly string[]): void {
  for (const url of urls) void fetch(url, { credentials: 'same-origin' }).then((r) => r.arrayBuffer()).catch(() => undefined);
}

export const readerApi = {
  /** GET /nest/key/: the signed-in user's decryption key (401 'You must be signed in to read this book.'). */
  getKey: (signal?: AbortSignal): Promise<string> => api.request('/nest/key/', keyResponseSchema, { signal }).then((r) => r.key),

  /** POST /nest/epub/block/: the archive item of one chapter (resources[0] is the chapter item). */
  getBlock: (p: BlockParams, signal?: AbortSignal, answer?: Promise<Response>): Promise<ArchiveItem[]> => getBlockWith(api, p, signal, answer),

  /** GET /api/v1/book/{id}/scripted-frame/?path=: where a scripted title's chapter frame loads from (404: no scripts here). */
  getScriptedFrame: (bookId: string, fullPath: string, signal?: AbortSignal): Promise<ScriptedFrame> =>
    api.request(paths.scriptedFrame(bookId), scriptedFrameSchema, { signal, query: { path: fullPath } }),

  /** GET|PUT|DELETE /api/v1/book/{id}/scripts-consent/: the reader's answer to running a scripted title's scripts (docs/decisions.md "Scripted publications"). */
  getScriptsConsent: (bookId: string, signal?: AbortSignal): Promise<ScriptsConsent> => api.request(paths.scriptsConsent(bookId), scriptsConsentSchema, { signal }),
  answerScripts: (bookId: string, allow: boolean): Promise<ScriptsConsent> =>
    api.request(paths.scriptsConsent(bookId), scriptsConsentSchema, { method: 'PUT', body: { allow } }),
  withdrawScriptsConsent: (bookId: string): Promise<ScriptsConsent> => api.request(paths.scriptsConsent(bookId), scriptsConsentSchema, { method: 'DELETE' }),

  /** GET /nest/epub/toc/?book_id=&chapter_href= */
  getToc: (bookId: string, chapterHref: string | null, signal?: AbortSignal): Promise<TocResponse> =>
    api.request('/nest/epub/toc/', tocResponseSchema, { signal, query: { book_id: bookId, chapter_href: chapterHref } }),

  /** POST /api/v1/usage-event/ with at most LIMITS.maxEventsPerRequest events; idempotent by usage_uuid. */
  postUsageEvents: (events: readonly UsageEvent[]): Promise<UsageAck> => {
    if (events.length > LIMITS.maxEventsPerRequest) throw new Error(`At most ${LIMITS.maxEventsPerRequest} events per request.`);
    return api.request('/api/v1/usage-event/', usageEventsResponseSchema, { method: 'POST', body: events });
  },

  /** Every page of GET /api/v1/book/{id}/chapter-progress/?page_size=50, following `next`. */
  getChapterProgress: async (bookId: string, signal?: AbortSignal): Promise<ChapterProgressRecord[]> => {
    const out: ChapterProgressRecord[] = [];
    let path = paths.chapterProgress(bookId);
    let query: Record<string, string> = { page_size: String(LIMITS.progressPageSize) };
    for (let guard = 0; guard < 200; guard++) {
      const page = await api.request(path, chapterProgressPageSchema, { signal, query });
      out.push(...page.results);
      if (!page.next) break;
      ({ path, query } = pathOf(page.next));
    }
    return out;
  },
};

export type ReaderApi = typeof readerApi;
