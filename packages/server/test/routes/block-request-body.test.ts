import { blockRequestSchema } from '@lectern/core';
import { describe, expect, it } from 'vitest';
import { blockRequestOf } from '../../src/routes/reader.ts';

/** What zod makes of a body: its value, or its refusal's issues. */
function viaZod(body: unknown): { value?: unknown; issues?: unknown } {
  const parsed = blockRequestSchema.safeParse(body ?? {});
  return parsed.success ? { value: parsed.data } : { issues: parsed.error.issues };
}
function viaRoute(body: unknown): { value?: unknown; issues?: unknown } {
  try {
    return { value: blockRequestOf(body) };
  } catch (err) {
    return { issues: (err as { issues?: unknown }).issues ?? String(err) };
  }
}

const reader = { book_id: 'b1', hrefs: 'text/ch1.xhtml', package_resources: 1, screen_width: 1280, screen_height: 800, update_progress: true };
const bodies: unknown[] = [
  reader,
  { book_id: 'b1', hrefs: 'a' },
  { book_id: 'b1', hrefs: ['a', 'b?x=1#y'] },
  { ...reader, package_resources: '1' },
  { ...reader, package_resources: false },
  { ...reader, package_resources: '0' },
  { ...reader, update_progress: 0 },
  { ...reader, update_progress: 1 },
  { ...reader, screen_width: 0, screen_height: 20_000 },
  // the forms zod coerces or refuses: the same answer either way
  { ...reader, screen_width: '1280' },
  { ...reader, screen_width: 12.5 },
  { ...reader, screen_width: -1 },
  { ...reader, screen_height: 20_001 },
  { ...reader, screen_width: null },
  { ...reader, package_resources: 2 },
  { ...reader, update_progress: 'true' },
  { ...reader, extra: 'kept out' },
  { ...reader, book_id: '' },
  { ...reader, book_id: 'x'.repeat(200) },
  { ...reader, book_id: 'x'.repeat(201) },
  { ...reader, book_id: 7 },
  { ...reader, hrefs: '' },
  { ...reader, hrefs: 'x'.repeat(1000) },
  { ...reader, hrefs: 'x'.repeat(1001) },
  { ...reader, hrefs: [] },
  { ...reader, hrefs: ['a', 'b', 'c', 'd', 'e'] },
  { ...reader, hrefs: ['a', 'b', 'c', 'd', 'e', 'f'] },
  { ...reader, hrefs: ['a', 3] },
  { book_id: 'b1' },
  {},
  undefined,
  null,
  [],
  'text',
  Object.assign(Object.create({ inherited: 1 }), reader),
];

describe('the block request body', () => {
  it.each(bodies.map((body, i) => [i, body]))('body %i is read as blockRequestSchema reads it', (_i, body) => {
    expect(viaRoute(body)).toEqual(viaZod(body));
  });

  it('keeps nothing of the request body itself (a copy, as zod makes)', () => {
    const body = { ...reader, hrefs: ['a'] };
    const read = blockRequestOf(body);
    expect(read).toEqual({ ...reader, hrefs: ['a'] });
    expect(read).not.toBe(body);
    expect(read.hrefs).not.toBe(body.hrefs);
  });
});
