/**
 * The console's keyset cursors (titles by sort title, people by email): the last row's sort key and id, as an
 * opaque base64url JSON pair. Anything else is a 400 naming cursor.
 */
import { ADMIN_CONSOLE_MESSAGES as M } from '@lectern/core';
import { fieldError } from '../errors.ts';

export const encodeKeyCursor = (key: string, id: number) => Buffer.from(JSON.stringify([key, id])).toString('base64url');

export function decodeKeyCursor(cursor: string): { key: string; id: number } {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && Number.isSafeInteger(v[1])) return { key: v[0], id: v[1] as number };
  } catch {
    // falls through to the 400
  }
  throw fieldError('cursor', M.cursorShape);
}
