/**
 * The chapter request's shape (reader.md §7, POST /nest/epub/block/), shared by the client's call (reader.ts) and
 * the request sent as the page starts (earlyRequests.ts), so the two cannot drift apart. Imports nothing.
 */

export const BLOCK_PATH = '/nest/epub/block/';
export const KEY_PATH = '/nest/key/';

export interface BlockParams {
  bookId: string;
  href: string;
  screenWidth?: number;
  screenHeight?: number;
  updateProgress?: boolean;
}

/** The request's JSON body. */
export function blockBody(p: BlockParams) {
  return {
    book_id: p.bookId,
    hrefs: p.href,
    package_resources: 1,
    ...(p.screenWidth ? { screen_width: Math.round(p.screenWidth) } : {}),
    ...(p.screenHeight ? { screen_height: Math.round(p.screenHeight) } : {}),
    update_progress: p.updateProgress ?? true,
  };
}
