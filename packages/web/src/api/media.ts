/**
 * The media players' calls (docs/decisions.md "Media players"; reader.md §3 "Video session", §7): the video session and
 * the addresses of a part's stream, captions and the title's preview. Components never build these addresses
 * themselves.
 */
import { mediaSessionSchema, mediaSupportSchema, paths, type ChapterMedia, type MediaSession, type MediaSupport } from '@lectern/core';
import { api, isApiError, type ApiClient } from './client.ts';

/** How often a failed session request is tried in all (reader.md §7: "Retries on failure"), and the waits between. */
export const SESSION_ATTEMPTS = 3;
const SESSION_BACKOFF_MS = [500, 1500];
/** A session request that has not answered in this long counts as the provider timing out (reader.md §8). */
export const SESSION_TIMEOUT_MS = 10_000;

export type SessionOutcome =
  | { kind: 'ok'; session: MediaSession }
  /** 401: a visitor; no session, no usage, the preview player (reader.md §1, §6) */
  | { kind: 'anonymous' }
  /** 403: signed in without rights to the whole title: "Forbidden", then the preview (reader.md §6) */
  | { kind: 'forbidden' }
  /** no answer after the retries, or only server errors: the session timed out (reader.md §8) */
  | { kind: 'timeout' };

const wait = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason as Error);
    });
  });

/** One session request, given up after SESSION_TIMEOUT_MS (the caller's abort still wins). */
async function askSession(client: Pick<ApiClient, 'request'>, bookId: string, signal?: AbortSignal): Promise<MediaSession> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new Error('timeout')), SESSION_TIMEOUT_MS);
  const onAbort = () => timeout.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort);
  try {
    return await client.request('/api/v1/player/kaltura_session/', mediaSessionSchema, { query: { reference_id: bookId }, signal: timeout.signal });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * GET /api/v1/player/kaltura_session/?reference_id={book_id}, retried on failure (network, timeout, 5xx) up to
 * SESSION_ATTEMPTS times; 401 and 403 are answers, not failures, and are never retried.
 */
export async function getMediaSession(bookId: string, signal?: AbortSignal, client: Pick<ApiClient, 'request'> = api): Promise<SessionOutcome> {
  for (let attempt = 0; attempt < SESSION_ATTEMPTS; attempt++) {
    try {
      return { kind: 'ok', session: await askSession(client, bookId, signal) };
    } catch (e) {
      if (signal?.aborted) throw e;
      if (isApiError(e) && e.status === 401) return { kind: 'anonymous' };
      if (isApiError(e) && e.status === 403) return { kind: 'forbidden' };
      if (isApiError(e) && e.status >= 400 && e.status < 500) return { kind: 'timeout' };
      const pause = SESSION_BACKOFF_MS[attempt];
      if (pause !== undefined) await wait(pause, signal);
    }
  }
  return { kind: 'timeout' };
}

/** GET /api/v1/player/support/: the operator's support address for the video-failure page (null when none is set). */
export function getMediaSupport(signal?: AbortSignal, client: Pick<ApiClient, 'request'> = api): Promise<MediaSupport> {
  return client.request(paths.mediaSupport(), mediaSupportSchema, { signal });
}

const withKs = (url: string, ks: string | null) => (ks ? `${url}${url.includes('?') ? '&' : '?'}ks=${encodeURIComponent(ks)}` : url);

export const mediaUrls = {
  /** The part's stream with the session (`?ks=`); without one for a sample or public part. */
  stream: (media: Pick<ChapterMedia, 'src_path'>, ks: string | null) => withKs(media.src_path, ks),
  /** The part's WebVTT captions, with the session as the part has it (same rights as the part). */
  captions: (media: Pick<ChapterMedia, 'captions_url'>, ks: string | null) => (media.captions_url ? withKs(media.captions_url, ks) : null),
  /** The title's preview clip, for anyone (no session). */
  preview: (bookId: string, media?: Pick<ChapterMedia, 'preview_url'> | null) => media?.preview_url ?? paths.mediaPreview(bookId),
};
