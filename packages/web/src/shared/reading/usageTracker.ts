/**
 * Usage logging of reader.md §4 for one signed-in reader:
 * - a new chapter resets the start to 0 and posts (what is queued goes out);
 * - a new start (the initial position applied, a jump) records the start only;
 * - reading is throttled to the update interval (15 s) and logs the interval start -> current;
 * - leaving a chapter sets the end to the current position, logs and posts.
 * Positions are clamped to 0-100 (clampPercentage). Each chapter's available percentage starts at 100 and drops by
 * the span of each event (consumeAvailable); the event that takes it to 0 or below is `usage_is_complete`. The
 * remainders are kept in local storage so that completion survives a reload.
 */
import { clampPercentage, consumeAvailable, READER_CONSTANTS } from '@lectern/core';
import type { StorageLike, UsageQueue } from './usageQueue.ts';

export const AVAILABLE_STORE_PREFIX = 'reader_usage_available';

export interface UsageTrackerOptions {
  queue: UsageQueue;
  userId: string;
  storage: StorageLike | null;
  now?: () => number;
  uuid?: () => string;
  intervalMs?: number;
}

function randomUuid(): string {
  if (typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return 'u' + Date.now().toString(36) + Math.random().toString(36).slice(2, 12);
}

export class UsageTracker {
  private chapter: string | null = null;
  private start = 0;
  private current = 0;
  private lastLogged = 0;
  private readonly now: () => number;
  private readonly uuid: () => string;
  private readonly intervalMs: number;
  private readonly availableKey: string;

  constructor(private readonly opts: UsageTrackerOptions) {
    this.now = opts.now ?? (() => Date.now());
    this.uuid = opts.uuid ?? randomUuid;
    this.intervalMs = opts.intervalMs ?? READER_CONSTANTS.usageUpdateIntervalMs;
    this.availableKey = `${AVAILABLE_STORE_PREFIX}:${opts.userId}`;
  }

  get currentChapter() {
    return this.chapter;
  }

  private availableMap(): Record<string, number> {
    try {
      const raw = this.opts.storage?.getItem(this.availableKey);
      const v: unknown = raw ? JSON.parse(raw) : {};
      return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, number>) : {};
    } catch {
      return {};
    }
  }

  available(chapter: string): number {
    const v = this.availableMap()[chapter];
    return typeof v === 'number' && Number.isFinite(v) ? v : 100;
  }

  private setAvailable(chapter: string, value: number) {
    const map = this.availableMap();
    map[chapter] = value;
    try {
      this.opts.storage?.setItem(this.availableKey, JSON.stringify(map));
    } catch {
      /* completion is then judged from this session only */
    }
  }

  /** Logs start -> end of the current chapter (nothing when they are equal, which the validator would drop). */
  private log(end: number): boolean {
    if (!this.chapter) return false;
    const start = clampPercentage(this.start);
    const stop = clampPercentage(end);
    if (start === stop) return false;
    const { available, complete } = consumeAvailable(this.available(this.chapter), start, stop);
    const queued = this.opts.queue.enqueue({
      chapter: this.chapter,
      start_percentage: Math.round(start * 100) / 100,
      end_percentage: Math.round(stop * 100) / 100,
      client_timestamp: new Date(this.now()).toISOString(),
      usage_uuid: this.uuid(),
      usage_is_complete: complete,
    });
    if (queued) this.setAvailable(this.chapter, available);
    this.start = stop;
    this.lastLogged = this.now();
    return queued;
  }

  /** A new chapter: leaves the previous one (logging its last interval), resets the start to 0 and posts. */
  newChapter(chapter: string) {
    if (this.chapter && this.chapter !== chapter) this.log(this.current);
    this.chapter = chapter;
    this.start = 0;
    this.current = 0;
    this.lastLogged = this.now();
    void this.opts.queue.flush();
  }

  /** A new start (initial position, a jump within the chapter): records the start only. */
  newStart(position: number) {
    this.start = clampPercentage(position);
    this.current = this.start;
    this.lastLogged = this.now();
  }

  /** The reader moved; logs the interval when the update interval has passed since the last log. */
  reading(position: number) {
    this.current = clampPercentage(position);
    if (this.now() - this.lastLogged >= this.intervalMs) {
      if (this.log(this.current)) void this.opts.queue.flush();
      else this.lastLogged = this.now();
    }
  }

  /** Leaving the chapter (another chapter, another page, the tab hidden): end = current position, log, post. */
  leave(position?: number) {
    if (position !== undefined) this.current = clampPercentage(position);
    this.log(this.current);
    void this.opts.queue.flush();
  }

  /** Ends tracking of the chapter (after leave). */
  close() {
    this.chapter = null;
  }
}
