/**
 * Items that leave a list stay on screen a little longer, where they were, marked as leaving. A title removed
 * from the playlist being viewed (from its own card's queue toggle or menu) would otherwise vanish before its
 * 'Removing from your queue...' overlay and 'Removed from your queue' banner could be read (800 ms + 1.2 s), and
 * its card is the one place where the removal can be undone.
 *
 * The removal is noticed while rendering (not in an effect), so the card is never unmounted in between and keeps
 * its state (the banner it is showing).
 */
import { useEffect, useState } from 'react';

export interface Lingering<T> {
  item: T;
  leaving: boolean;
}

type Gone<T> = ReadonlyMap<string, { item: T; index: number }>;

export function useLingering<T extends { api_url: string }>(items: readonly T[], ms: number): Lingering<T>[] {
  const [previous, setPrevious] = useState(items);
  const [gone, setGone] = useState<Gone<T>>(() => new Map());

  if (previous !== items) {
    const present = new Set(items.map((i) => i.api_url));
    // back in the list (undone): no longer leaving
    const next = new Map([...gone].filter(([url]) => !present.has(url)));
    previous.forEach((item, index) => {
      if (!present.has(item.api_url)) next.set(item.api_url, { item, index });
    });
    setPrevious(items);
    setGone(next);
  }

  // They all go `ms` after the last removal.
  useEffect(() => {
    if (!gone.size) return;
    const timer = setTimeout(() => setGone(new Map()), ms);
    return () => clearTimeout(timer);
  }, [gone, ms]);

  const present = new Set(items.map((i) => i.api_url));
  const out: Lingering<T>[] = items.map((item) => ({ item, leaving: false }));
  for (const { item, index } of [...gone.values()].sort((a, b) => a.index - b.index)) {
    if (present.has(item.api_url)) continue;
    out.splice(Math.min(index, out.length), 0, { item, leaving: true });
  }
  return out;
}
