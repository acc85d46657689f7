/**
 * Usage of a video or an audiobook part (reader.md §4 "Video"): on player ready the start is set; on pause, seek
 * start, playback complete and play end the interval start -> here is logged; on seek end the start is reset. The
 * events go to the shared usage queue (validated there by reader.md §5's video rules: start < end, span at most 50;
 * an audiobook's product 'audio' follows them too). Percentages are of the part's duration. Each part's available
 * percentage drops as for books (consumeAvailable), so the event that plays it through is `usage_is_complete`.
 */
import { consumeAvailable } from '@lectern/core';
import type { StorageLike, UsageQueue } from '../../shared/reading/usageQueue.ts';
import { usageSpans } from './mediaTime.ts';

export const MEDIA_AVAILABLE_PREFIX = 'media_usage_available';

export interface MediaUsageOptions {
  queue: Pick<UsageQueue, 'enqueue' | 'flush'>;
  userId: string;
  product: 'video' | 'audio';
  storage: StorageLike | null;
  now?: () => number;
  uuid?: () => string;
}

const randomUuid = () =>
  typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : `u${Date.now().toString(36)}${Math.random().toString(36).slice(2, 12)}`;

export class MediaUsage {
  private chapter: string | null = null;
  /** where the current interval started (percent); null until the player is ready */
  private start: number | null = null;
  private readonly key: string;

  constructor(private readonly opts: MediaUsageOptions) {
    this.key = `${MEDIA_AVAILABLE_PREFIX}:${opts.userId}`;
  }

  private availableMap(): Record<string, number> {
    try {
      const v: unknown = JSON.parse(this.opts.storage?.getItem(this.key) ?? '{}');
      return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, number>) : {};
    } catch {
      return {};
    }
  }

  private available(chapter: string): number {
    const v = this.availableMap()[chapter];
    return typeof v === 'number' && Number.isFinite(v) ? v : 100;
  }

  /** The part on show (its chapter address, /api/v1/book/{id}/chapter/{path}); a new one drops the old interval. */
  setChapter(chapter: string) {
    if (this.chapter === chapter) return;
    this.chapter = chapter;
    this.start = null;
  }

  /** Player ready, or a seek ended: the interval starts here. */
  startAt(percent: number) {
    this.start = percent;
  }

  /** Pause, seek start, playback complete, play end: logs start -> here (in spans the validator accepts) and posts. */
  logTo(percent: number) {
    const chapter = this.chapter;
    if (!chapter || this.start === null) return;
    const spans = usageSpans(this.start, percent);
    this.start = percent;
    if (!spans.length) return;
    let available = this.available(chapter);
    for (const [from, to] of spans) {
      const next = consumeAvailable(available, from, to);
      const queued = this.opts.queue.enqueue({
        chapter,
        start_percentage: from,
        end_percentage: to,
        client_timestamp: new Date(this.opts.now?.() ?? Date.now()).toISOString(),
        usage_uuid: (this.opts.uuid ?? randomUuid)(),
        usage_is_complete: next.complete,
        product: this.opts.product,
      });
      if (queued) available = next.available;
    }
    const map = this.availableMap();
    map[chapter] = available;
    try {
      this.opts.storage?.setItem(this.key, JSON.stringify(map));
    } catch {
      /* completion is judged from this visit only */
    }
    void this.opts.queue.flush();
  }
}
