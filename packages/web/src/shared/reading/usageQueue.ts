/**
 * The browser's usage-event store (reader.md §4 "Usage logging", §5): every event is validated with core's
 * validateUsageEvent before it is queued (invalid ones are dropped), kept in local storage until the server
 * acknowledges it (its uuid comes back accepted or rejected), and sent in batches of at most 20
 * (LIMITS.maxEventsPerRequest). A failed sync marks the events of the batch `is_offline: true` and keeps them;
 * they go out again on the next flush (the `online` event, the next interval, the next event). The server is
 * idempotent by usage_uuid, so a batch that arrived but whose answer was lost is simply acknowledged again.
 *
 * Local storage is the only source of truth (no copy in memory), so two tabs and a reload never lose or duplicate
 * an event. The key carries the user's uuid: events are never sent under somebody else's session.
 */
import { LIMITS, validateUsageEvent, type UsageEvent } from '@lectern/core';
import type { UsageAck } from '../../api/reader.ts';

export const USAGE_STORE_PREFIX = 'reader_usage_events';
/** A guard against unbounded growth (a user signed out for months): the oldest go first beyond this many. */
export const USAGE_STORE_MAX = 5000;

export type StorageLike = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export interface UsageQueueOptions {
  userId: string;
  storage: StorageLike | null;
  send: (events: UsageEvent[]) => Promise<UsageAck>;
  batchSize?: number;
  onError?: (error: unknown) => void;
}

export interface FlushResult {
  sent: number;
  acknowledged: number;
  failed: number;
}

export class UsageQueue {
  readonly key: string;
  private readonly batchSize: number;
  private flushing: Promise<FlushResult> | null = null;
  /** Events stored while storage was unavailable (private mode, quota): better in memory than lost. */
  private memory: UsageEvent[] = [];

  constructor(private readonly opts: UsageQueueOptions) {
    this.key = `${USAGE_STORE_PREFIX}:${opts.userId}`;
    this.batchSize = Math.min(opts.batchSize ?? LIMITS.maxEventsPerRequest, LIMITS.maxEventsPerRequest);
  }

  /** The events waiting for the server, oldest first. */
  pending(): UsageEvent[] {
    const { storage } = this.opts;
    if (!storage) return [...this.memory];
    let raw: string | null = null;
    try {
      raw = storage.getItem(this.key);
    } catch {
      return [...this.memory];
    }
    if (!raw) return [...this.memory];
    try {
      const parsed: unknown = JSON.parse(raw);
      if (!Array.isArray(parsed)) return [...this.memory];
      // Re-validate what was stored: an older app or a hand edit must not poison the batch.
      const out: UsageEvent[] = [];
      for (const e of parsed) {
        const v = validateUsageEvent(e);
        if (v.ok) out.push(v.event);
      }
      return [...out, ...this.memory.filter((m) => !out.some((o) => o.usage_uuid === m.usage_uuid))];
    } catch {
      return [...this.memory];
    }
  }

  private write(events: UsageEvent[]) {
    const trimmed = events.length > USAGE_STORE_MAX ? events.slice(events.length - USAGE_STORE_MAX) : events;
    const { storage } = this.opts;
    if (!storage) {
      this.memory = trimmed;
      return;
    }
    try {
      if (trimmed.length === 0) storage.removeItem(this.key);
      else storage.setItem(this.key, JSON.stringify(trimmed));
      this.memory = [];
    } catch {
      this.memory = trimmed;
    }
  }

  /** Validates and stores one event; false (and nothing stored) when it is invalid. */
  enqueue(input: unknown): boolean {
    const v = validateUsageEvent(input);
    if (!v.ok) return false;
    const events = this.pending();
    if (events.some((e) => e.usage_uuid === v.event.usage_uuid)) return true;
    events.push({ ...v.event });
    this.write(events);
    return true;
  }

  /** Sends everything pending, batch by batch; one flush at a time. */
  flush(): Promise<FlushResult> {
    if (this.flushing) return this.flushing;
    this.flushing = this.doFlush().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async doFlush(): Promise<FlushResult> {
    const result: FlushResult = { sent: 0, acknowledged: 0, failed: 0 };
    const snapshot = this.pending();
    for (let i = 0; i < snapshot.length; i += this.batchSize) {
      const batch = snapshot.slice(i, i + this.batchSize);
      let ack: UsageAck;
      try {
        ack = await this.opts.send(batch);
      } catch (error) {
        this.opts.onError?.(error);
        // reader.md §4: a sync failure is logged; the events are marked is_offline and kept.
        const uuids = new Set(batch.map((e) => e.usage_uuid));
        const rest = snapshot.slice(i + this.batchSize).map((e) => e.usage_uuid);
        const allFailed = new Set([...uuids, ...rest]);
        this.write(this.pending().map((e) => (allFailed.has(e.usage_uuid) ? { ...e, is_offline: true } : e)));
        result.failed += allFailed.size;
        return result;
      }
      result.sent += batch.length;
      const done = new Set<string>(ack.accepted);
      for (const r of ack.rejected) if (r.usage_uuid) done.add(r.usage_uuid);
      result.acknowledged += done.size;
      this.write(this.pending().filter((e) => !done.has(e.usage_uuid)));
    }
    return result;
  }
}
