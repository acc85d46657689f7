import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalContentStore } from '../../src/storage/content-store.ts';
import { coverVariant, looksLike } from '../../src/storage/cover-variants.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-covers-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const store = new LocalContentStore(dir);
// a title's folder, as an import leaves it (write() puts a file beside others, it makes no folder)
for (const folder of ['b1', 'b2']) fs.mkdirSync(path.join(dir, 'content', folder), { recursive: true });

const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="800"><rect width="600" height="800" fill="red"/></svg>';

describe('cover variants', () => {
  it('scales a cover whose bytes are the raster type it claims', async () => {
    const png = await sharp({ create: { width: 600, height: 800, channels: 3, background: '#345' } }).png().toBuffer();
    await store.write('b1/cover.png', png);
    const made = await coverVariant(store, 'b1/cover.png', 'image/png', 360);
    expect(made).toBe('b1/cover.png.360h.webp');
    expect((await sharp(fs.readFileSync(path.join(dir, 'content', made!))).metadata()).height).toBe(360);
  });

  it('never hands the image decoder bytes that are not what the book says: an SVG stored as a PNG is sent as it is', async () => {
    await store.write('b2/cover.png', Buffer.from(SVG));
    expect(await coverVariant(store, 'b2/cover.png', 'image/png', 360)).toBeNull();
    expect(await store.stat('b2/cover.png.360h.webp')).toBeNull();
    // the same SVG bytes claimed as each raster type
    for (const type of ['image/jpeg', 'image/png', 'image/gif', 'image/webp']) expect(looksLike(type, Buffer.from(SVG))).toBe(false);
  });

  it('knows each raster type by its first bytes', async () => {
    const base = sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } });
    expect(looksLike('image/jpeg', await base.clone().jpeg().toBuffer())).toBe(true);
    expect(looksLike('image/png', await base.clone().png().toBuffer())).toBe(true);
    expect(looksLike('image/gif', await base.clone().gif().toBuffer())).toBe(true);
    expect(looksLike('image/webp', await base.clone().webp().toBuffer())).toBe(true);
    expect(looksLike('image/png', await base.clone().jpeg().toBuffer())).toBe(false);
    expect(looksLike('image/svg+xml', Buffer.from(SVG))).toBe(false);
  });
});
