/**
 * The page's first data, written into index.html by the server (docs/decisions.md "The first screen's data in the
 * page"): for a reader with a session, the profile `/u/information_for_javascript` would answer, so the app does
 * not ask for it, and the answers the screen's first content is rendered from (core's firstScreenRequests: the
 * home's sections, the catalog's first page, a search's first page), which the client takes instead of its first
 * request for each. Read once, as the app starts; a page without it (a visitor, the dev server) has none.
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

export interface PageData extends BootData {
  /** API address (path and query, as the client asks it) -> its answer when the page was made */
  answers?: Record<string, unknown>;
}

let read = false;
let profileTaken = false;
let page: PageData | null = null;
/** The address the page was loaded at: its answers are for that screen only. */
let pageAddress = '';
/** The address being rendered on the server (ssr.tsx), where there is no `location`. */
let serverAddress: string | null = null;
const currentAddress = () => (typeof location === 'undefined' ? serverAddress : location.pathname + location.search);

function readPage(): PageData | null {
  if (read || typeof document === 'undefined') return page;
  read = true;
  const element = document.getElementById(BOOT_DATA_ID);
  if (!element) return null;
  element.remove();
  pageAddress = location.pathname + location.search;
  try {
    const data = JSON.parse(element.textContent ?? '') as unknown;
    page = data && typeof data === 'object' && 'profile' in data ? (data as PageData) : null;
  } catch {
    page = null;
  }
  return page;
}

/** The boot data, the first time it is asked for (null after that, or when the page holds none or it is unreadable). */
export function takeBootData(): BootData | null {
  const data = readPage();
  if (profileTaken || !data) return null;
  profileTaken = true;
  return { profile: data.profile, ...(data.reader ? { reader: data.reader } : {}) };
}

/**
 * The page's answer for a GET of `url` (path and query, as the client builds it), once, and only while the app
 * is still on the screen the page was loaded for: an answer is the screen's first data, not a cache (a later visit
 * to the same address asks the server, as it always did).
 */
export function takeBootAnswer(url: string): { json: unknown } | null {
  const answers = readPage()?.answers;
  if (!answers || !Object.hasOwn(answers, url)) return null;
  const json = answers[url];
  delete answers[url];
  if (currentAddress() !== pageAddress) return null;
  return { json };
}

/** Tests only: read the page again. */
export function resetBootData(): void {
  read = false;
  profileTaken = false;
  page = null;
  pageAddress = '';
  serverAddress = null;
}

/**
 * The server's render of a page's first screen (ssr.tsx): the page data it is about to write into the page, taken
 * as the browser will take it from there, at `address` (path and query). null ends the render.
 */
export function setServerPage(data: PageData | null, address: string | null): void {
  resetBootData();
  if (!data || address === null) return;
  read = true;
  page = { ...data, ...(data.answers ? { answers: { ...data.answers } } : {}) };
  pageAddress = serverAddress = address;
}
