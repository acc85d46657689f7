/**
 * An operator's cover upload (docs/decisions.md "The console's titles"), read as hostile input: its kind from its first
 * bytes (never its name or declared type), its dimensions from its header before any pixel is decoded, then decoded
 * whole and written again without metadata (EXIF and the like: a phone's photo carries where it was taken). What is
 * stored is what sharp wrote, in the kind sent.
 */
// sharp (libvips) is loaded on the first cover, not at start: the command line's commands mostly need none
import type { Metadata } from 'sharp';

export type CoverKind = { mediaType: 'image/jpeg' | 'image/png' | 'image/webp'; ext: 'jpg' | 'png' | 'webp'; format: 'jpeg' | 'png' | 'webp' };

/** JPEG, PNG or WebP by their signatures; null for anything else. */
export function coverKindOf(bytes: Uint8Array): CoverKind | null {
  const at = (offset: number, sig: number[]) => sig.every((b, i) => bytes[offset + i] === b);
  if (at(0, [0xff, 0xd8, 0xff])) return { mediaType: 'image/jpeg', ext: 'jpg', format: 'jpeg' };
  if (at(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { mediaType: 'image/png', ext: 'png', format: 'png' };
  // RIFF <size> WEBP
  if (at(0, [0x52, 0x49, 0x46, 0x46]) && at(8, [0x57, 0x45, 0x42, 0x50])) return { mediaType: 'image/webp', ext: 'webp', format: 'webp' };
  return null;
}

export type CoverCheck = { ok: true; kind: CoverKind; data: Buffer; width: number; height: number } | { ok: false; reason: 'kind' | 'broken' | 'dimensions' };

export async function checkCover(bytes: Buffer, limits: { maxSide: number; maxPixels: number }): Promise<CoverCheck> {
  const kind = coverKindOf(bytes);
  if (!kind) return { ok: false, reason: 'kind' };
  const { default: sharp } = await import('sharp');
  // sharp's own cap too, so a header that lies about its size cannot make the decoder allocate more
  const open = () => sharp(bytes, { failOn: 'error', limitInputPixels: limits.maxPixels, animated: false });
  let meta: Metadata;
  try {
    meta = await open().metadata();
  } catch {
    return { ok: false, reason: 'broken' };
  }
  // the signature and the decoder must agree (a PNG signature before JPEG data is not a PNG)
  if (meta.format !== kind.format) return { ok: false, reason: 'broken' };
  const { width = 0, height = 0 } = meta;
  if (!width || !height) return { ok: false, reason: 'broken' };
  if (width > limits.maxSide || height > limits.maxSide || width * height > limits.maxPixels) return { ok: false, reason: 'dimensions' };
  try {
    // decoded whole (a truncated file fails here) and written again: no metadata kept, the orientation applied
    const image = open().rotate();
    const data = await (kind.format === 'jpeg' ? image.jpeg({ quality: 90 }) : kind.format === 'png' ? image.png() : image.webp({ quality: 90 })).toBuffer();
    return { ok: true, kind, data, width, height };
  } catch {
    return { ok: false, reason: 'broken' };
  }
}
