/**
 * Scaled copies of covers for title cards (library-playlists-account.md §2: "cover image (360h variant)"). Books
 * ship covers of 600 × 800 and more, up to 800 KB, where a card shows some 200 × 300 pixels: a catalog page of
 * originals costs a phone seconds of its largest paint. A variant is made on first request and kept beside the
 * original in the content store, so a new edition (stored in a folder of its own, the old folder deleted) drops it
 * with the cover it came from.
 */
import { type ContentStore, readStored } from './content-store.ts';
import { coverKindOf } from './cover-upload.ts';

/** The heights asked for: title cards' 360. */
export type CoverVariantHeight = 360;

/** Raster types only: an SVG cover is book markup, not rendered on the server. */
const SCALABLE = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** A cover larger than this is sent as it is (an import keeps files far smaller; this bounds the memory). */
const MAX_ORIGINAL_BYTES = 32 * 1024 * 1024;

const inFlight = new Map<string, Promise<string | null>>();

/**
 * The variant's storage path (WebP, `height` pixels high, never enlarged), made if missing; null when the cover
 * cannot be scaled (an SVG, a broken image), in which case the original is what to send.
 */
export function coverVariant(store: ContentStore, original: string, mediaType: string, height: CoverVariantHeight): Promise<string | null> {
  if (!SCALABLE.has(mediaType)) return Promise.resolve(null);
  const target = `${original}.${height}h.webp`;
  let pending = inFlight.get(target);
  if (!pending) {
    pending = make(store, original, target, mediaType, height).finally(() => inFlight.delete(target));
    inFlight.set(target, pending);
  }
  return pending;
}

/**
 * Whether the bytes begin as the raster type they claim. sharp picks its decoder from the bytes, not the name: an
 * SVG (or anything else) stored as `cover.png` would reach librsvg on the server; a book's bytes are hostile.
 */
export function looksLike(mediaType: string, bytes: Uint8Array): boolean {
  // GIF8: covers in books may be GIFs, which an operator's upload (coverKindOf's list) does not take
  if (mediaType === 'image/gif') return [0x47, 0x49, 0x46, 0x38].every((b, i) => bytes[i] === b);
  return coverKindOf(bytes)?.mediaType === mediaType;
}

async function make(store: ContentStore, original: string, target: string, mediaType: string, height: number): Promise<string | null> {
  if (await store.stat(target).catch(() => null)) return target;
  // loaded on the first variant made, not at start (storage/cover-upload.ts)
  const { default: sharp } = await import('sharp');
  try {
    const input = await readStored(store, original, MAX_ORIGINAL_BYTES);
    if (!looksLike(mediaType, input)) return null;
    const data = await sharp(input, { failOn: 'error', limitInputPixels: 40_000_000 })
      .rotate()
      .resize({ height, withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer();
    // whole or not at all (ContentStore.write); a concurrent import's folder swap wins on the local store
    await store.write(target, data);
    return target;
  } catch {
    return null;
  }
}
