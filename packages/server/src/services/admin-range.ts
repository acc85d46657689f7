/** Date ranges of the console's queries: a day means the whole UTC day; an instant is itself. */
import { ADMIN_CONSOLE_MESSAGES as M, ADMIN_DASHBOARD_MAX_DAYS } from '@lectern/core';
import { fieldError } from '../errors.ts';

const DAY_MS = 86_400_000;
const isDay = (s: string) => /^\d{4}-\d{2}-\d{2}$/.test(s);

/** The ISO instant a query's day or instant stands for: a day's start, or (as an end) the next day's start. */
export function dayOrInstant(s: string, as: 'start' | 'end'): string {
  if (isDay(s)) return new Date(Date.parse(`${s}T00:00:00Z`) + (as === 'end' ? DAY_MS : 0)).toISOString();
  return new Date(s).toISOString();
}

/** The days of a dashboard range (default the 30 days up to today), both ends included, as YYYY-MM-DD. */
export function dayRange(from: string | undefined, to: string | undefined, now: Date): { days: string[]; start: string; end: string } {
  const toDay = to !== undefined ? new Date(dayOrInstant(to, 'start')) : now;
  const last = Date.UTC(toDay.getUTCFullYear(), toDay.getUTCMonth(), toDay.getUTCDate());
  const first = from !== undefined ? Date.parse(dayOrInstant(from, 'start').slice(0, 10) + 'T00:00:00Z') : last - 29 * DAY_MS;
  if (first > last) throw fieldError('from', M.rangeBackwards);
  const n = Math.round((last - first) / DAY_MS) + 1;
  if (n > ADMIN_DASHBOARD_MAX_DAYS) throw fieldError('from', M.rangeTooLong(ADMIN_DASHBOARD_MAX_DAYS));
  const days = Array.from({ length: n }, (_, i) => new Date(first + i * DAY_MS).toISOString().slice(0, 10));
  return { days, start: new Date(first).toISOString(), end: new Date(last + DAY_MS).toISOString() };
}

/** The ISO instant of the start of `now`'s UTC day. */
export function startOfDay(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())).toISOString();
}
