/**
 * Whether this is the reader's first home page ("Welcome back" greeted a reader who had just signed up).
 * The browser remembers, per account, that it has shown the home before; until then the greeting has no "back".
 * A reader on a new device is greeted without "back" once: "Welcome" is never untrue, "Welcome back" can be.
 */
import { useEffect, useState } from 'react';
import { browserStorage } from '../../shared/storage.ts';

const key = (userUuid: string) => `lectern.home-seen.${userUuid}`;

export function useFirstVisit(userUuid: string | null): boolean {
  // Read once per account and kept for the page's life: writing the mark must not change the heading under the reader.
  const [known] = useState(() => new Map<string, boolean>());
  if (userUuid && !known.has(userUuid)) known.set(userUuid, browserStorage()?.getItem(key(userUuid)) !== '1');
  useEffect(() => {
    if (!userUuid) return;
    try {
      browserStorage()?.setItem(key(userUuid), '1');
    } catch {
      // storage full or refused: the next visit is greeted without "back" again, nothing worse
    }
  }, [userUuid]);
  return userUuid ? (known.get(userUuid) ?? false) : false;
}
