/**
 * Whether this is the reader's first home page ("Welcome back" greeted a reader who had just signed up).
 * The browser remembers, per account, that it has shown the home before; until then the greeting has no "back".
 * A reader on a new device is greeted without "back" once: "Welcome" is never untrue, "Welcome back" can be.
 * Remembered in a cookie (core's COOKIES.homeSeen), not in localStorage: the server renders the signed-in home
 * (docs/decisions.md "The first screen rendered on the server") and must greet as the browser then does, from the
 * request's cookies (api/cookies.ts reads them on either side).
 */
import { COOKIES } from '@lectern/core';
import { useEffect, useState } from 'react';
import { readCookie } from '../../api/cookies.ts';

/** How many accounts one browser remembers (a shared computer's readers); the oldest is forgotten first. */
const KEPT = 5;
const YEAR_S = 365 * 24 * 3600;

const seenAccounts = (): string[] => (readCookie(COOKIES.homeSeen) ?? '').split('.').filter(Boolean);

export function useFirstVisit(userUuid: string | null): boolean {
  // Read once per account and kept for the page's life: writing the mark must not change the heading under the reader.
  const [known] = useState(() => new Map<string, boolean>());
  if (userUuid && !known.has(userUuid)) known.set(userUuid, !seenAccounts().includes(userUuid));
  useEffect(() => {
    // (a user_uuid is letters, digits and hyphens: nothing of it needs encoding, and '.' separates them)
    if (!userUuid || !/^[\w-]+$/.test(userUuid)) return;
    const seen = [userUuid, ...seenAccounts().filter((u) => u !== userUuid)].slice(0, KEPT);
    document.cookie = `${COOKIES.homeSeen}=${seen.join('.')}; path=/; max-age=${YEAR_S}; samesite=lax${location.protocol === 'https:' ? '; secure' : ''}`;
  }, [userUuid]);
  return userUuid ? (known.get(userUuid) ?? false) : false;
}
