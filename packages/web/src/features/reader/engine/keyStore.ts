/**
 * The user's decryption key (reader.md §3: "The decryption key is also kept in local storage"; §7: GET /nest/key/).
 * Stored with the uuid of the user it belongs to, so a second account on the same browser never decrypts with the
 * first one's key. A failed key request is "Unable to decrypt content" (§8).
 */
import { MESSAGES } from '@lectern/core';
import { readerApi } from '../../../api/reader.ts';
import { browserStorage } from '../../../shared/storage.ts';

export const KEY_STORAGE = 'reader_key';

export class KeyUnavailableError extends Error {
  constructor() {
    super(MESSAGES.unableToDecrypt);
    this.name = 'KeyUnavailableError';
  }
}

const storage = browserStorage;

export function storedKey(userId: string): string | null {
  try {
    const raw = storage()?.getItem(KEY_STORAGE);
    if (!raw) return null;
    const v = JSON.parse(raw) as { user?: unknown; key?: unknown };
    return v.user === userId && typeof v.key === 'string' && v.key ? v.key : null;
  } catch {
    return null;
  }
}

let inflight: Promise<string> | null = null;

/** The key, from storage unless `refresh`; one request at a time. */
export async function userKey(userId: string, refresh = false): Promise<string> {
  if (!refresh) {
    const k = storedKey(userId);
    if (k) return k;
  }
  inflight ??= readerApi
    .getKey()
    .then((key) => {
      try {
        storage()?.setItem(KEY_STORAGE, JSON.stringify({ user: userId, key }));
      } catch {
        /* kept in memory by the caller's query cache */
      }
      return key;
    })
    .catch(() => {
      throw new KeyUnavailableError();
    })
    .finally(() => {
      inflight = null;
    });
  return inflight;
}
