import { locatorSchema } from '@lectern/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { lastSeen, markSeen, toEngineLocator, toWireLocator } from '../src/shared/reading/useServerPosition.ts';

describe('the reader position on the wire', () => {
  it('turns the engine locator (percent, any snippet) into a valid core Locator (0-1, bounded snippets) and back', () => {
    const engine = { href: 'ch03.xhtml', progression: 62.5, text: { before: 'b'.repeat(150), highlight: 'h'.repeat(300), after: 'a'.repeat(150) } };
    const wire = toWireLocator(engine);
    expect(locatorSchema.safeParse(wire).success).toBe(true);
    expect(wire.progression).toBe(0.625);
    expect(wire.text).toEqual({ before: 'b'.repeat(100), highlight: 'h'.repeat(200), after: 'a'.repeat(100) });
    expect(toEngineLocator(wire)).toEqual({ href: 'ch03.xhtml', progression: 62.5, text: wire.text });
    // Out of range or not a number: clamped, never refused by the server.
    expect(toWireLocator({ href: 'x', progression: 140 }).progression).toBe(1);
    expect(toWireLocator({ href: 'x', progression: Number.NaN }).progression).toBe(0);
    // A locator without words to find is restored by its progression alone.
    expect(toEngineLocator({ href: 'x', progression: 0.5, text: { after: 'only after' } })).toEqual({ href: 'x', progression: 50 });
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
