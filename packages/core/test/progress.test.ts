import { describe, expect, it } from 'vitest';
import { titleProgress } from '../src/index.ts';

describe('titleProgress: the share of a title’s text read', () => {
  it('weighs each chapter’s furthest position by its text length', () => {
    // a long chapter read to the end and a short one untouched: 900 of 1,000 characters read
    expect(titleProgress([{ textLength: 900, furthest: 100 }, { textLength: 100, furthest: 0 }])).toBe(90);
    expect(titleProgress([{ textLength: 900, furthest: 0 }, { textLength: 100, furthest: 100 }])).toBe(10);
    expect(titleProgress([{ textLength: 300, furthest: 50 }, { textLength: 100, furthest: 50 }])).toBe(50);
  });

  it('weighs chapters equally when none has text (a PDF)', () => {
    expect(titleProgress([{ textLength: 0, furthest: 100 }, { textLength: 0, furthest: 0 }, { textLength: 0, furthest: 50 }])).toBe(50);
  });

  it('gives a chapter without text no weight when others have text', () => {
    expect(titleProgress([{ textLength: 0, furthest: 0 }, { textLength: 500, furthest: 100 }])).toBe(100);
  });

  it('is 0 for no chapters and stays within 0-100 whatever the inputs', () => {
    expect(titleProgress([])).toBe(0);
    expect(titleProgress([{ textLength: 10, furthest: 250 }])).toBe(100);
    expect(titleProgress([{ textLength: 10, furthest: -5 }])).toBe(0);
    expect(titleProgress([{ textLength: Number.NaN, furthest: Number.NaN }])).toBe(0);
  });

  it('never moves back when any chapter moves forward', () => {
    const before = [{ textLength: 700, furthest: 30 }, { textLength: 300, furthest: 80 }];
    const after = [{ textLength: 700, furthest: 31 }, { textLength: 300, furthest: 80 }];
    expect(titleProgress(after)).toBeGreaterThanOrEqual(titleProgress(before));
  });
});
