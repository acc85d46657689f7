/**
 * The user's decryption key (reader.md §3: "The decryption key is also kept in local storage"; §7: GET /nest/key/).
 * Stored with the uuid of the user it belongs to, so a second account on the same browser never decrypts with the
 * first one's key. A failed key request is "Unable to decrypt content" (§8).
 */
import { MESSAGES } from '@lectern/core';
import { readerApi } from '../../../api/reader.ts';
import { storedKey, storeKey } from './keyStorage.ts';

export { KEY_STORAGE, storedKey } from './keyStorage.ts';

export class KeyUnavailableError extends Error {
  constructor() {
    super(MESSAGES.unableToDecrypt);
    this.name = 'KeyUnavailableError';
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
      storeKey(userId, key);
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
