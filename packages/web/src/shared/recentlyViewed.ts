/**
 * The recently viewed cookie (library-playlists-account.md §3, §9: 31 days, at most 10, newest first, unique by
 * id): the title page and the reader note a title here; the home's "Last viewed" row reads it on the server.
 * The value is core's format, URI-encoded once more as a cookie value (the server decodes cookie values once).
 */
import { addRecentlyViewed, RECENTLY_VIEWED_COOKIE, RECENTLY_VIEWED_DAYS } from '@lectern/core';
import { readCookie } from '../api/cookies.ts';

export function rememberViewed(bookId: string, extra: 'title' | 'reader'): void {
  if (typeof document === 'undefined') return;
  const value = addRecentlyViewed(readCookie(RECENTLY_VIEWED_COOKIE), bookId, extra);
  const secure = window.location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${RECENTLY_VIEWED_COOKIE}=${encodeURIComponent(value)}; Max-Age=${RECENTLY_VIEWED_DAYS * 86_400}; Path=/; SameSite=Lax${secure}`;
}
