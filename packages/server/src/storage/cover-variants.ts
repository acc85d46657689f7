/**
 * Scaled copies of covers for title cards (library-playlists-account.md §2: "cover image (360h variant)"). Books
 * ship covers of 600 × 800 and more, up to 800 KB, where a card shows some 200 × 300 pixels: a catalog page of
 * originals costs a phone seconds of its largest paint. A variant is made on first request and kept beside the
 * original, so a new edition (stored in a folder of its own, the old folder deleted) drops it with the cover it
 * came from.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { randomToken } from '../util/random.ts';

/** The heights asked for: title cards' 360. */
export type CoverVariantHeight = 360;

/** Raster types only: an SVG cover is book markup, not rendered on the server. */
const SCALABLE = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

const inFlight = new Map<string, Promise<string | null>>();

/**
 * The variant's path (WebP, `height` pixels high, never enlarged), made if missing; null when the cover cannot be
 * scaled (an SVG, a broken image), in which case the original is what to send.
 */
export function coverVariant(original: string, mediaType: string, height: CoverVariantHeight): Promise<string | null> {
  if (!SCALABLE.has(mediaType)) return Promise.resolve(null);
  const target = `${original}.${height}h.webp`;
  let pending = inFlight.get(target);
  if (!pending) {
    pending = make(original, target, height).finally(() => inFlight.delete(target));
    inFlight.set(target, pending);
  }
  return pending;
}

async function make(original: string, target: string, height: number): Promise<string | null> {
  try {
    await fs.access(target);
    return target;
  } catch {
    // not made yet
  }
  try {
    const data = await sharp(original, { failOn: 'error', limitInputPixels: 40_000_000 })
      .rotate()
      .resize({ height, withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer();
    // Written aside and renamed: a reader never sees half a file, and a concurrent import's folder swap wins.
    const temp = path.join(path.dirname(target), `.${path.basename(target)}.${randomToken(6)}`);
    await fs.writeFile(temp, data);
    await fs.rename(temp, target).catch(async (err) => {
      await fs.rm(temp, { force: true });
      throw err;
    });
    return target;
  } catch {
    return null;
  }
}
