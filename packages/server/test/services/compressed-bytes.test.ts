import { describe, expect, it } from 'vitest';
import { chooseCoding, CompressedBytes } from '../../src/util/compressed-bytes.ts';

describe('content coding negotiation', () => {
  it.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip', 'gzip'],
    ['br;q=0, gzip;q=0.5', 'gzip'],
    ['BR', 'br'],
    ['*', 'br'],
    ['*;q=0, gzip', 'gzip'],
    ['gzip;q=0, br;q=0', 'identity'],
    ['deflate', 'identity'],
    ['gzip;q=abc', 'identity'],
  ] as const)('%s -> %s', (header, coding) => {
    expect(chooseCoding(header)).toBe(coding);
  });

  it('compresses once and counts what it holds', () => {
    const bytes = new CompressedBytes(Buffer.from('a chapter '.repeat(500)));
    expect(bytes.compressible).toBe(true);
    const br = bytes.in('br');
    expect(bytes.in('br')).toBe(br);
    expect(br.byteLength).toBeLessThan(200);
    expect(bytes.byteLength).toBe(5000 + br.byteLength);
    expect(new CompressedBytes(Buffer.from('{}')).compressible).toBe(false);
  });
});
