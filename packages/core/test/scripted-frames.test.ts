/**
 * The messages a scripted page may send the reader (docs/decisions.md "Scripted titles on their own origin", "A scripted
 * book read as one scroll"): a book's script can post anything, so a height is taken only as a finite, non-negative
 * number of px up to SCRIPTED_FRAME_MAX_HEIGHT.
 */
import { describe, expect, it } from 'vitest';
import { SCRIPTED_FRAME_MAX_HEIGHT, scriptedFrameMessageSchema } from '../src/index.ts';

const height = (value: unknown) => scriptedFrameMessageSchema.safeParse({ lectern: 'height', height: value });

describe('a scripted page reporting its height', () => {
  it('is taken from 0 up to the bound, fractions included', () => {
    for (const value of [0, 1, 812.5, SCRIPTED_FRAME_MAX_HEIGHT]) expect(height(value)).toMatchObject({ success: true, data: { lectern: 'height', height: value } });
  });

  it('is refused past the bound, below zero, not finite, or not a number', () => {
    for (const value of [SCRIPTED_FRAME_MAX_HEIGHT + 1, 1e300, -1, -0.5, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN, '800', null, undefined, { valueOf: () => 800 }])
      expect(height(value).success, String(value)).toBe(false);
  });

  it('keeps to its own fields: another kind of message with a height is still that kind', () => {
    expect(scriptedFrameMessageSchema.safeParse({ lectern: 'ready', height: 5 })).toMatchObject({ success: true, data: { lectern: 'ready' } });
    expect(scriptedFrameMessageSchema.safeParse({ lectern: 'heights', height: 5 }).success).toBe(false);
  });
});
