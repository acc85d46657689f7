/**
 * `track(category, action, label)`: first-party analytics (library-playlists-account.md §7 "Analytics events are
 * sent on form submits and clicks, each with category, action, label"; docs/decisions.md "Analytics").
 *
 * Events are gathered for a moment and sent in one POST to our own server (never a third party), at once when the
 * page is hidden or left (fetch keepalive: a beacon cannot carry the CSRF header every POST needs). Tracking never
 * stands in the way: `track` returns at once, never throws, and a failed send is only logged. Under the test runner
 * the app's tracker is off; tests that want events build one with `createTracker` over a client of a real server.
 */
import { ANALYTICS_CONTROL_PATTERN, ANALYTICS_FLUSH_DELAY_MS, ANALYTICS_LIMITS, type AnalyticsCategory, type AnalyticsEventInput } from '@lectern/core';
import { api } from '../api/client.ts';

export interface Tracker {
  track(category: AnalyticsCategory, action: string, label: string, value?: number): void;
  /** Sends what is waiting now; `keepalive` lets the request outlive the page. */
  flush(keepalive?: boolean): Promise<void>;
}

export interface TrackerOptions {
  send: (events: AnalyticsEventInput[], keepalive: boolean) => Promise<unknown>;
  delayMs?: number;
  /** the page's path sent with each event (no query: it may hold search words or tokens) */
  path?: () => string;
  log?: (message: string, error: unknown) => void;
  /** send at once when the page is hidden or left (the app's tracker does) */
  flushOnHide?: boolean;
}

/** what the server refuses in a label (core's ANALYTICS_CONTROL_PATTERN), each turned into a space */
const CONTROL = new RegExp(ANALYTICS_CONTROL_PATTERN.source, 'g');

export function createTracker(options: TrackerOptions): Tracker {
  const delayMs = options.delayMs ?? ANALYTICS_FLUSH_DELAY_MS;
  const log = options.log ?? ((message, error) => console.warn(message, error));
  const pathOf = options.path ?? (() => window.location.pathname);
  const waiting: AnalyticsEventInput[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;

  const flush = async (keepalive = false): Promise<void> => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    const sends: Promise<unknown>[] = [];
    while (waiting.length) {
      const batch = waiting.splice(0, ANALYTICS_LIMITS.batch);
      try {
        sends.push(options.send(batch, keepalive).catch((error: unknown) => log('analytics: sending events failed', error)));
      } catch (error) {
        log('analytics: sending events failed', error);
      }
    }
    await Promise.all(sends);
  };

  const track: Tracker['track'] = (category, action, label, value) => {
    try {
      const path = pathOf();
      const event: AnalyticsEventInput = { category, action, label: label.replace(CONTROL, ' ').slice(0, ANALYTICS_LIMITS.label) };
      if (value !== undefined && Number.isInteger(value)) event.value = value;
      if (/^\/[^?#]*$/.test(path) && path.length <= ANALYTICS_LIMITS.path) event.path = path;
      waiting.push(event);
      if (waiting.length >= ANALYTICS_LIMITS.batch) void flush();
      else timer ??= setTimeout(() => void flush(), delayMs);
    } catch (error) {
      log('analytics: tracking failed', error);
    }
  };

  if (options.flushOnHide && typeof document !== 'undefined') {
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'hidden') void flush(true);
    });
    window.addEventListener('pagehide', () => void flush(true));
  }
  return { track, flush };
}

const appTracker: Tracker | null =
  import.meta.env?.MODE === 'test' ? null : createTracker({ send: (events, keepalive) => api.sendAnalytics(events, keepalive), flushOnHide: true });

/** Records one event (category, action, label as §7 says); returns at once. */
export function track(category: AnalyticsCategory, action: string, label: string, value?: number): void {
  appTracker?.track(category, action, label, value);
}
