/**
 * Bytes kept with their compressed forms, each made once on first demand. A chapter answer is serialised once per
 * cache lifetime and asked for thousands of times: compressing it once and sending a quarter of the bytes costs the
 * server less per request than sending it whole, and the reader gets it sooner.
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export type ContentCoding = 'br' | 'gzip' | 'identity';

/** Below this, compression saves less than the header it adds. */
const MIN_COMPRESSIBLE = 1024;

export class CompressedBytes {
  private brBytes: Buffer | undefined;
  private gzipBytes: Buffer | undefined;

  constructor(readonly raw: Buffer) {}

  get compressible(): boolean {
    return this.raw.byteLength >= MIN_COMPRESSIBLE;
  }

  /** The bytes in `coding`; brotli at quality 5 and gzip at 6 are fast enough to make inline once. */
  in(coding: ContentCoding): Buffer {
    if (coding === 'br') {
      this.brBytes ??= brotliCompressSync(this.raw, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: this.raw.byteLength },
      });
      return this.brBytes;
    }
    if (coding === 'gzip') {
      this.gzipBytes ??= gzipSync(this.raw, { level: 6 });
      return this.gzipBytes;
    }
    return this.raw;
  }

  /** What the cache counts: the raw bytes and room for the compressed forms once they exist. */
  get byteLength(): number {
    return this.raw.byteLength + (this.brBytes?.byteLength ?? 0) + (this.gzipBytes?.byteLength ?? 0);
  }
}

/**
 * The coding to answer with from an Accept-Encoding header (RFC 9110 §12.5.3): brotli, then gzip, when the client
 * accepts them with a non-zero weight (directly or through `*`); otherwise the bytes as they are.
 */
export function chooseCoding(acceptEncoding: string | undefined): ContentCoding {
  if (!acceptEncoding) return 'identity';
  // Browsers send one of a handful of header values: parse each once (bounded: a client making up values cannot
  // grow it past CODING_MEMO_MAX).
  const known = codingMemo.get(acceptEncoding);
  if (known) return known;
  const coding = parseCoding(acceptEncoding);
  if (codingMemo.size >= CODING_MEMO_MAX) codingMemo.clear();
  codingMemo.set(acceptEncoding, coding);
  return coding;
}

const CODING_MEMO_MAX = 256;
const codingMemo = new Map<string, ContentCoding>();

function parseCoding(acceptEncoding: string): ContentCoding {
  const accepts = acceptance(acceptEncoding);
  if (accepts('br')) return 'br';
  if (accepts('gzip')) return 'gzip';
  return 'identity';
}

/** Whether a client takes `coding` by its Accept-Encoding: a non-zero weight, given directly or through `*`. */
function acceptance(acceptEncoding: string): (coding: string) => boolean {
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q ? Number(q.slice(2)) : 1;
    weights.set(name.trim(), Number.isFinite(weight) ? weight : 0);
  }
  return (coding: string) => (weights.get(coding) ?? weights.get('*') ?? 0) > 0;
}

const gzipMemo = new Map<string, boolean>();

/** Whether the client takes gzip, even where it would prefer brotli (memoised like {@link chooseCoding}). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  const known = gzipMemo.get(acceptEncoding);
  if (known !== undefined) return known;
  const yes = acceptance(acceptEncoding)('gzip');
  if (gzipMemo.size >= CODING_MEMO_MAX) gzipMemo.clear();
  gzipMemo.set(acceptEncoding, yes);
  return yes;
}
