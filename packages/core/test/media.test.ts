/**
 * Media rules of core (docs/decisions.md "Media serving"): the share of a part played, spans counted once; 'audio'
 * usage is media usage.
 */
import { describe, expect, it } from 'vitest';
import { isMediaFormat, playedPercentage, validateUsageEvent } from '../src/index.ts';

describe('playedPercentage', () => {
  it.each([
    [[], 0],
    [[{ start: 0, end: 40 }], 40],
    [[{ start: 0, end: 40 }, { start: 0, end: 40 }], 40],
    [[{ start: 0, end: 40 }, { start: 30, end: 50 }], 50],
    [[{ start: 80, end: 90 }, { start: 0, end: 50 }], 60],
    [[{ start: 10, end: 20 }, { start: 20, end: 30 }, { start: 5, end: 12 }], 25],
    // backwards and out-of-range spans are read as what they cover within 0-100
    [[{ start: 60, end: 50 }, { start: -5, end: 5 }, { start: 95, end: 120 }], 20],
    [[{ start: 0, end: 50 }, { start: 50, end: 100 }, { start: 0, end: 100 }], 100],
  ])('%j -> %d', (spans, expected) => {
    expect(playedPercentage(spans)).toBeCloseTo(expected, 6);
  });
});

describe('media usage', () => {
  const base = { chapter: '/api/v1/book/b/chapter/01-a.mp3', client_timestamp: 1, usage_uuid: 'u-1' };
  it("follows the video rules for 'audio' as for 'video'", () => {
    for (const product of ['video', 'audio']) {
      expect(validateUsageEvent({ ...base, start_percentage: 40, end_percentage: 20, product })).toEqual({
        ok: false,
        reason: 'For video, start_percentage must be less than end_percentage.',
      });
      expect(validateUsageEvent({ ...base, start_percentage: 0, end_percentage: 51, product })).toEqual({ ok: false, reason: 'For video, the span must be at most 50.' });
      expect(validateUsageEvent({ ...base, start_percentage: 10, end_percentage: 60, product }).ok).toBe(true);
    }
    // a book's reading may go back
    expect(validateUsageEvent({ ...base, start_percentage: 40, end_percentage: 20, product: 'book' }).ok).toBe(true);
  });

  it('knows the media formats', () => {
    expect(['book', 'document', 'video', 'audiobook'].filter(isMediaFormat)).toEqual(['video', 'audiobook']);
  });
});
