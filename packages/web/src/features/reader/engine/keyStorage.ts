/**
 * Where the user's decryption key is kept in this browser (reader.md §3: "The decryption key is also kept in local
 * storage"), with the uuid of the user it belongs to, so a second account on the same browser never decrypts with the
 * first one's key. Apart from keyStore.ts (which asks the server for it) so the app's start can keep the key a reader
 * address's page brings (workerStart.ts) without the client's schemas.
 */
import { browserStorage } from '../../../shared/storage.ts';

export const KEY_STORAGE = 'reader_key';

export function storedKey(userId: string): string | null {
  try {
    const raw = browserStorage()?.getItem(KEY_STORAGE);
    if (!raw) return null;
    const v = JSON.parse(raw) as { user?: unknown; key?: unknown };
    return v.user === userId && typeof v.key === 'string' && v.key ? v.key : null;
  } catch {
    return null;
  }
}

export function storeKey(userId: string, key: string): void {
  try {
    browserStorage()?.setItem(KEY_STORAGE, JSON.stringify({ user: userId, key }));
  } catch {
    /* kept in memory by the caller's query cache */
  }
}
