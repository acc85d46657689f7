/** library-playlists-account.md §9 relative time thresholds (seconds 45, minutes 45, hours 22, days 26, months 11). */
import { describe, expect, it } from 'vitest';
import { RELATIVE_TIME_THRESHOLDS, relativeDistance, relativeTime } from '../src/index.ts';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('relative times', () => {
  it('keeps the spec thresholds', () => {
    expect(RELATIVE_TIME_THRESHOLDS).toEqual({ seconds: 45, minutes: 45, hours: 22, days: 26, months: 11 });
  });

  it.each([
    [0, 'a few seconds'],
    [44 * S, 'a few seconds'],
    [45 * S, 'a minute'],
    [89 * S, 'a minute'],
    [90 * S, '2 minutes'],
    [44 * M, '44 minutes'],
    [45 * M, 'an hour'],
    [89 * M, 'an hour'],
    [90 * M, '2 hours'],
    [21 * H, '21 hours'],
    [22 * H, 'a day'],
    [36 * H, '2 days'],
    [25 * D, '25 days'],
    [26 * D, 'a month'],
    [45 * D, 'a month'],
    [46 * D, '2 months'],
    [10 * 30.44 * D, '10 months'],
    [11 * 30.44 * D, 'a year'],
    [18 * 30.44 * D, '2 years'],
    [5 * 365.25 * D, '5 years'],
  ])('%i ms is "%s" each way', (ms, words) => {
    expect(relativeDistance(ms)).toBe(words);
    expect(relativeDistance(-ms)).toBe(words);
  });

  it('says ago for the past and in for the future, from numbers, strings and dates', () => {
    const now = Date.parse('2026-05-12T10:00:00Z');
    expect(relativeTime(now - 3 * H, now)).toBe('3 hours ago');
    expect(relativeTime('2026-05-14T10:00:00Z', now)).toBe('in 2 days');
    expect(relativeTime(new Date(now - 10 * S), now)).toBe('a few seconds ago');
    expect(relativeTime(now + 10 * M, now)).toBe('in 10 minutes');
  });
});
