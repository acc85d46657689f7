/**
 * The catalog's `cursor`: where a `next` or `previous` link continues a listing, as the sort key and id of the
 * row it continues from. Opaque to clients: base64url JSON with a checksum, so a cut or altered cursor is a 400
 * naming `cursor` rather than a silently different page. The checksum is not a secret: a forged cursor can only
 * start a public listing at another point.
 */
import { createHash } from 'node:crypto';
import { CATALOG_MESSAGES, CATALOG_SORTS, type CatalogSort } from '@lectern/core';
import { z } from 'zod';
import { fieldError } from '../errors.ts';
import type { OrderKey } from '../repositories/catalog.ts';

export interface ListingCursor {
  sort: CatalogSort;
  /** after: the page after the row at `key`; before: the page before it */
  direction: 'after' | 'before';
  key: OrderKey;
}

const text = z.string().max(2000);
const id = z.number().int().min(0);
/** The key of each order (repositories/catalog.ts ORDER_COLUMNS). */
const keyShapes: Record<CatalogSort, z.ZodType<OrderKey>> = {
  title: z.tuple([text, id]),
  recent: z.tuple([text, id]),
  author: z.tuple([z.union([z.literal(0), z.literal(1)]), text, text, id]),
};
const payloadSchema = z.object({ s: z.enum(CATALOG_SORTS), d: z.enum(['a', 'b']), k: z.array(z.union([z.string(), z.number()])) });

const checksum = (body: string) => createHash('sha256').update('lectern-listing-cursor\0').update(body).digest('base64url').slice(0, 12);

export function encodeCursor(cursor: ListingCursor): string {
  const body = Buffer.from(JSON.stringify({ s: cursor.sort, d: cursor.direction === 'after' ? 'a' : 'b', k: cursor.key })).toString('base64url');
  return `${body}.${checksum(body)}`;
}

/** The cursor a listing in `sort` gave out, or a 400 naming `cursor`. */
export function decodeCursor(value: string, sort: CatalogSort): ListingCursor {
  const invalid = () => fieldError('cursor', CATALOG_MESSAGES.cursorInvalid);
  const [body, sum, ...rest] = value.split('.');
  if (!body || !sum || rest.length || checksum(body) !== sum) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const payload = payloadSchema.safeParse(parsed);
  if (!payload.success || payload.data.s !== sort) throw invalid();
  const key = keyShapes[sort].safeParse(payload.data.k);
  if (!key.success) throw invalid();
  return { sort, direction: payload.data.d === 'a' ? 'after' : 'before', key: key.data };
}
