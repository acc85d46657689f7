/**
 * The page's first data, written into index.html by the server (docs/decisions.md "The first screen's data in the
 * page"): for a reader with a session, the profile `/u/information_for_javascript` would answer, so the app does
 * not ask for it. Read once, as the app starts; a page without it (a visitor, the dev server) has none.
 */
import { type AccountProfile, BOOT_DATA_ID } from '@lectern/core';

export interface BootData {
  /** The profile as the profile route answers it; null when the session the cookie named has gone. */
  profile: AccountProfile | null;
  /**
   * On a reader address with a chapter, for a signed-in reader: the book, the chapter, the title's content_format
   * (so the router need not ask POST /api/v1/metadata/ before the reader's code runs) and the account's position of
   * the book as GET /api/v1/book/{id}/position/ answers it (checked where it is used), and the reader's decryption
   * key as GET /nest/key/ answers it. The page also asked for the chapter already (earlyBlock.ts).
   */
  reader?: { book_id: string; href: string; format: string; position: unknown; key?: unknown };
}

let taken = false;

/** The boot data, the first time it is asked for (null after that, or when the page holds none or it is unreadable). */
export function takeBootData(): BootData | null {
  if (taken || typeof document === 'undefined') return null;
  taken = true;
  const element = document.getElementById(BOOT_DATA_ID);
  if (!element) return null;
  element.remove();
  try {
    const data = JSON.parse(element.textContent ?? '') as unknown;
    return data && typeof data === 'object' && 'profile' in data ? (data as BootData) : null;
  } catch {
    return null;
  }
}

/** Tests only: read the page again. */
export function resetBootData(): void {
  taken = false;
}
