/**
 * First-party analytics (library-playlists-account.md §7 "Analytics events are sent on form submits and clicks, each
 * with category, action, label"; docs/decisions.md "Analytics"). Nothing leaves the server: events are
 * rows of our own database, kept `retentionDays` and then deleted by the hourly purge.
 *
 * Privacy: an event keeps the account's id when one is signed in, and never the client's address. The per-address
 * limit (services/request-limits.ts) is counted under a keyed hash of the address, so not even the limit's counter
 * (kept a minute, deleted by the same hourly purge) holds the address itself.
 */
import { createHmac } from 'node:crypto';
import { ANALYTICS_LIMITS, ANALYTICS_MESSAGES, type AnalyticsEvent, type AnalyticsReport, type AnalyticsReportQuery } from '@lectern/core';
import { fieldError } from '../errors.ts';
import type { AnalyticsRepository } from '../repositories/analytics.ts';
import type { RequestLimits } from './request-limits.ts';

const DAY_MS = 86_400_000;
export const DEFAULT_ANALYTICS_RETENTION_DAYS = 180;

export class AnalyticsService {
  private readonly addressKey: (address: string) => string;

  constructor(
    private readonly repo: AnalyticsRepository,
    private readonly limits: RequestLimits,
    secret: string,
    readonly retentionDays: number = DEFAULT_ANALYTICS_RETENTION_DAYS,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.addressKey = (address) => createHmac('sha256', secret).update(`analytics:${address}`).digest('base64url').slice(0, 22);
  }

  /** Counts one POST from this client address; throws TooManyRequests past the minute's limit. */
  async countCall(clientAddress: string): Promise<void> {
    await this.limits.count('analytics', this.addressKey(clientAddress));
  }

  /** Stores a checked batch (core's analyticsBatchSchema), with the account's id when signed in. */
  async record(events: readonly AnalyticsEvent[], userId: number | null): Promise<{ stored: number }> {
    const at = this.clock().toISOString();
    await this.repo.insert(
      events.map((e) => ({
        category: e.category,
        action: e.action,
        label: e.label,
        value: e.value ?? null,
        path: e.path ?? null,
        user_id: userId,
        created_at: at,
      })),
    );
    return { stored: events.length };
  }

  /** Counts by category, action and label over [from, to): a day means the whole day (UTC); the default is the last 30 days. */
  async report(query: AnalyticsReportQuery): Promise<AnalyticsReport> {
    const now = this.clock();
    const to = query.to === undefined ? now : instant(query.to, 'end');
    const from = query.from === undefined ? new Date(to.getTime() - ANALYTICS_LIMITS.reportDefaultDays * DAY_MS) : instant(query.from, 'start');
    if (from.getTime() >= to.getTime()) throw fieldError('from', ANALYTICS_MESSAGES.fromAfterTo);
    const category = query.category ?? null;
    const { rows, total } = await this.repo.counts({ from: from.toISOString(), to: to.toISOString(), category, limit: ANALYTICS_LIMITS.reportRows });
    return {
      from: from.toISOString(),
      to: to.toISOString(),
      category,
      total,
      truncated: rows.length > ANALYTICS_LIMITS.reportRows,
      results: rows.slice(0, ANALYTICS_LIMITS.reportRows),
    };
  }

  /** Deletes events older than the retention (the hourly purge, and at start). */
  purge(): Promise<number> {
    return this.repo.deleteBefore(new Date(this.clock().getTime() - this.retentionDays * DAY_MS).toISOString());
  }
}

/** A day's start or end (the next day's start, UTC), or the instant given. */
function instant(value: string, edge: 'start' | 'end'): Date {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const start = Date.parse(`${value}T00:00:00Z`);
    return new Date(edge === 'start' ? start : start + DAY_MS);
  }
  return new Date(value);
}
