/**
 * Whether the site's own chrome (skip link, header, footer) is out of reach: the reader's immersive view covers it,
 * and what is covered must not take the keyboard focus either (it is made `inert`). A tiny store rather than a
 * context so the reader can set it without the shell re-rendering the page below it.
 */
import { useSyncExternalStore } from 'react';

let covered = false;
const listeners = new Set<() => void>();

export function setShellChromeCovered(value: boolean): void {
  if (covered === value) return;
  covered = value;
  for (const l of listeners) l();
}

export function useShellChromeCovered(): boolean {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => covered,
    () => false,
  );
}
