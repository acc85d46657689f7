/**
 * Video courses and audiobooks (docs/decisions.md "Media serving"; reader.md §2 "Video chapter screen", §3 "Video
 * session", §7): what a media chapter carries for the players, the video session, and how long a session lasts. The
 * addresses are in paths.ts.
 */
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';

/**
 * A media chapter's playable part (ours, beside the spec's archive item): `src_path` streams it (add `?ks=` from the
 * video session unless the part is a sample or public one); `captions_url` is its WebVTT, `poster_url` the title's
 * poster frame or cover; `duration_ms` is what a Locator's progression is a fraction of (docs/decisions.md
 * "Media positions").
 */
export const chapterMediaSchema = lazySchema(() => z.object({
  mime: z.string(),
  duration_ms: z.number().int(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  /** sanitised HTML for the Description tab; null when the part has none */
  description: z.string().nullable(),
  captions_url: z.string().nullable(),
  poster_url: z.string().nullable(),
  src_path: z.string(),
  /** the title's preview clip (anyone may play it), or null when the title has none */
  preview_url: z.string().nullable(),
}));
export type ChapterMedia = z.infer<typeof chapterMediaSchema>;

/** GET /api/v1/player/kaltura_session/?reference_id={book_id}: reader.md §3 "Video session" (`ks`), and its end. */
export const mediaSessionSchema = lazySchema(() => z.object({ ks: z.string(), expires_at: z.string() }));
export type MediaSession = z.infer<typeof mediaSessionSchema>;

export const mediaSessionQuerySchema = lazySchema(() => z.object({ reference_id: z.string().min(1, 'reference_id is required').max(200) }));

/**
 * GET /api/v1/player/support/: where the video-failure page points a reader (reader.md §2 "points to support"; the
 * spec names no address: the operator's SUPPORT_EMAIL, null when unset).
 */
export const mediaSupportSchema = lazySchema(() => z.object({ support_email: z.string().nullable() }));
export type MediaSupport = z.infer<typeof mediaSupportSchema>;

/**
 * How long a video session stays good (docs/decisions.md "Media sessions"): the players re-fetch it on a media error
 * (reader.md §9, at most every 90 s), so an hour only costs a long video one quiet re-fetch.
 */
export const MEDIA_SESSION_TTL_MS = 60 * 60 * 1000;

/**
 * The player's query parameter for the second to open a part at (a search hit in a transcript: where the words are
 * said). Not reader.md §4's `start`, which constrains the playhead; this only seeks once, when the part is ready.
 */
export const MEDIA_TIME_PARAM = 't';

/** Usage products (reader.md §5) that follow the video rules: start < end, span at most 50. */
export const MEDIA_USAGE_PRODUCTS = ['video', 'audio'] as const;

/**
 * How much of a part has been played, 0-100: the union of the played spans (usage events' start and end
 * percentages), so a stretch replayed any number of times counts once (docs/decisions.md "Media usage").
 */
export function playedPercentage(spans: readonly { start: number; end: number }[]): number {
  const clean = spans
    .map((s) => ({ start: Math.max(0, Math.min(s.start, s.end)), end: Math.min(100, Math.max(s.start, s.end)) }))
    .filter((s) => Number.isFinite(s.start) && Number.isFinite(s.end) && s.end > s.start)
    .sort((a, b) => a.start - b.start);
  let total = 0;
  let from = -1;
  let to = -1;
  for (const s of clean) {
    if (s.start > to) {
      total += to - from;
      from = s.start;
      to = s.end;
    } else if (s.end > to) to = s.end;
  }
  total += to - from;
  return Math.min(100, Math.round(total * 10_000) / 10_000);
}
