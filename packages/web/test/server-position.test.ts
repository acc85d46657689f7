import { locatorSchema } from '@lectern/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { lastSeen, markSeen, sendableLocator } from '../src/shared/reading/useServerPosition.ts';
import { PositionStore } from '../src/shared/reading/position.ts';

describe('the reader position on the wire', () => {
  it('is sent as the one Locator, held to the contract\'s bounds (0-1, bounded snippets)', () => {
    const wire = sendableLocator({ href: 'ch03.xhtml', progression: 0.625, text: { before: 'b'.repeat(150), highlight: 'h'.repeat(300), after: 'a'.repeat(150) } });
    expect(locatorSchema.safeParse(wire).success).toBe(true);
    expect(wire.progression).toBe(0.625);
    expect(wire.text).toEqual({ before: 'b'.repeat(100), highlight: 'h'.repeat(200), after: 'a'.repeat(100) });
    // Out of range or not a number: clamped, never refused by the server.
    expect(sendableLocator({ href: 'x', progression: 1.4 }).progression).toBe(1);
    expect(sendableLocator({ href: 'x', progression: Number.NaN }).progression).toBe(0);
    expect(sendableLocator({ href: 'x', progression: 0.5, text: { after: 'only after' } })).toEqual({ href: 'x', progression: 0.5, text: { after: 'only after' } });
  });

  it('is kept in local storage in percent, as browsers have always kept it, and read back as a Locator', () => {
    localStorage.clear();
    // a place a browser stored before the Locator was the one type (progression in percent)
    localStorage.setItem('reader_positions', JSON.stringify({ 'b1/ch1.xhtml': { href: 'ch1.xhtml', progression: 40, text: { before: 'a', highlight: 'b', after: 'c' }, at: 1 } }));
    const store = new PositionStore(localStorage);
    expect(store.get('b1', 'ch1.xhtml')).toEqual({ href: 'ch1.xhtml', progression: 0.4, text: { before: 'a', highlight: 'b', after: 'c' } });
    store.set('b1', { href: 'ch2.xhtml', progression: 0.625 }, 2);
    const raw = JSON.parse(localStorage.getItem('reader_positions')!) as Record<string, { progression: number }>;
    expect(raw['b1/ch2.xhtml']!.progression).toBe(62.5);
    expect(store.get('b1', 'ch2.xhtml')).toEqual({ href: 'ch2.xhtml', progression: 0.625 });
  });
});

describe('the server positions this browser has seen', () => {
  beforeEach(() => localStorage.clear());

  it('keeps the newest per user and book, so an older answer never counts as news', () => {
    expect(lastSeen('u1', 'b1')).toBeNull();
    markSeen('u1', 'b1', '2026-11-23T10:00:00.000Z');
    markSeen('u1', 'b1', '2026-11-23T09:00:00.000Z');
    expect(lastSeen('u1', 'b1')).toBe('2026-11-23T10:00:00.000Z');
    expect(lastSeen('u2', 'b1')).toBeNull();
    markSeen('u1', 'b1', '2026-11-23T11:00:00.000Z');
    expect(lastSeen('u1', 'b1')).toBe('2026-11-23T11:00:00.000Z');
  });
});
