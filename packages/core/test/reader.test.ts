import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  clampPercentage,
  columnWidthFromSlider,
  consumeAvailable,
  fontSizeFromSlider,
  formatMinutesRequired,
  normalizePreferences,
  READER_LIMITS,
  stepFontSize,
  stepZoom,
  USAGE_MESSAGES,
  validateUsageEvent,
} from '../src/index.ts';

const pct = fc.double({ min: 0, max: 100, noNaN: true });
const validEvent = fc.record({
  chapter: fc.constant('api/v1/book/b/chapter/c.html'),
  start_percentage: pct,
  end_percentage: pct,
  client_timestamp: fc.integer({ min: 0, max: 4_000_000_000_000 }),
  usage_uuid: fc.stringMatching(/^[\w-]{1,64}$/),
});

describe('usage event validation (reader.md §5)', () => {
  it('accepts exactly the events whose start and end differ', () => {
    fc.assert(
      fc.property(validEvent, (e) => {
        const r = validateUsageEvent(e);
        expect(r.ok).toBe(e.start_percentage !== e.end_percentage);
        if (!r.ok) expect(r.reason).toBe(USAGE_MESSAGES.positionUnchanged);
      }),
    );
  });

  it('rejects percentages outside 0–100 or not numbers', () => {
    fc.assert(
      fc.property(validEvent, fc.oneof(fc.double({ min: 100.0001, max: 1e9 }), fc.double({ max: -0.0001, min: -1e9 }), fc.constant(Number.NaN), fc.constant('50')), (e, bad) => {
        expect(validateUsageEvent({ ...e, end_percentage: bad }).ok).toBe(false);
        expect(validateUsageEvent({ ...e, start_percentage: bad }).ok).toBe(false);
      }),
    );
  });

  it('requires each required field and refuses fields outside the allowed extras', () => {
    fc.assert(
      fc.property(validEvent, fc.constantFrom('chapter', 'start_percentage', 'end_percentage', 'client_timestamp', 'usage_uuid'), (e, field) => {
        const copy: Record<string, unknown> = { ...e, end_percentage: e.start_percentage === 50 ? 60 : 50 };
        delete copy[field];
        expect(validateUsageEvent(copy)).toEqual({ ok: false, reason: `${field} is required.` });
      }),
    );
    const base = { chapter: 'c', start_percentage: 1, end_percentage: 2, client_timestamp: 1, usage_uuid: 'u' };
    for (const extra of ['is_offline', 'usage_is_complete'] as const) expect(validateUsageEvent({ ...base, [extra]: true }).ok).toBe(true);
    expect(validateUsageEvent({ ...base, id: 3, idAttribute: 'id', product: 'book' }).ok).toBe(true);
    expect(validateUsageEvent({ ...base, user: 'x' })).toEqual({ ok: false, reason: 'user is not an allowed field.' });
    expect(validateUsageEvent({ ...base, is_offline: 'yes' })).toEqual({ ok: false, reason: 'is_offline must be a boolean.' });
    for (const chapter of [null, Number.NaN, '']) expect(validateUsageEvent({ ...base, chapter })).toEqual({ ok: false, reason: 'chapter must be defined.' });
    expect(validateUsageEvent([base]).ok).toBe(false);
  });

  it('applies the video rules: start before end, span at most 50', () => {
    fc.assert(
      fc.property(validEvent, (e) => {
        const r = validateUsageEvent({ ...e, product: 'video' });
        const ok = e.start_percentage < e.end_percentage && e.end_percentage - e.start_percentage <= 50;
        expect(r.ok).toBe(ok);
      }),
    );
  });

  it('counts down the available percentage and completes at zero', () => {
    let state = { available: 100, complete: false };
    for (const [s, e] of [[0, 40], [40, 80], [80, 100]] as const) state = consumeAvailable(state.available, s, e);
    expect(state).toEqual({ available: 0, complete: true });
    expect(consumeAvailable(100, 60, 20)).toEqual({ available: 60, complete: false });
    expect(clampPercentage(130)).toBe(100);
    expect(clampPercentage(-3)).toBe(0);
    expect(clampPercentage(Number.NaN)).toBe(0);
  });
});

describe('reader settings limits (clamped)', () => {
  it('always lands inside the limits whatever is stored', () => {
    fc.assert(
      fc.property(fc.record({ font_size: fc.anything(), column_width: fc.anything(), brightness: fc.anything(), zoom_factor: fc.anything(), reading_mode: fc.anything(), pagination: fc.anything() }), (raw) => {
        const p = normalizePreferences(raw);
        const L = READER_LIMITS;
        expect(p.font_size).toBeGreaterThanOrEqual(L.fontSize.min);
        expect(p.font_size).toBeLessThanOrEqual(L.fontSize.max);
        expect(p.column_width).toBeGreaterThanOrEqual(L.columnWidth.min);
        expect(p.column_width).toBeLessThanOrEqual(L.columnWidth.max);
        expect(p.zoom_factor).toBeGreaterThanOrEqual(L.zoom.min);
        expect(p.zoom_factor).toBeLessThanOrEqual(L.zoom.max);
        expect(p.brightness === L.brightness.max || (p.brightness - L.brightness.min) % L.brightness.step === 0).toBe(true);
        expect(['day-mode', 'cloudy-mode', 'night-mode']).toContain(p.reading_mode);
        expect(['scroll', 'page']).toContain(p.pagination);
      }),
    );
  });

  it('steps font size by 0.1 and zoom by x1.2 within bounds, and maps the sliders', () => {
    expect(stepFontSize(1, 1)).toBe(1.1);
    expect(stepFontSize(1.85, 1)).toBe(1.85);
    expect(stepFontSize(0.4, -1)).toBe(0.35);
    expect(stepZoom(1.5, 1)).toBe(1.8);
    expect(stepZoom(2.9, 1)).toBe(3);
    expect(stepZoom(0.8, -1)).toBe(0.75);
    expect(fontSizeFromSlider(65)).toBe(1);
    expect(columnWidthFromSlider(76)).toBe(50);
    expect(normalizePreferences({ brightness: 140 }).brightness).toBe(150);
    expect(normalizePreferences({}).brightness).toBe(255);
    expect(normalizePreferences({ brightness: 251 }).brightness).toBe(250);
  });

  it('shows reading time as mm:ss mins', () => {
    expect(formatMinutesRequired(3.5)).toBe('03:30 mins');
    expect(formatMinutesRequired(0)).toBe('00:00 mins');
    expect(formatMinutesRequired(75.25)).toBe('75:15 mins');
  });
});
