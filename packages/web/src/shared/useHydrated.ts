/**
 * False while a screen the server rendered is being hydrated (and on the server), true otherwise: what differs
 * between the server and this browser (the browser's language, its time zone) is rendered as the server did until
 * the hydration is done, then as the browser would (docs/decisions.md "The first screen rendered on the server").
 * A page the browser renders itself is true from its first render.
 */
import { useSyncExternalStore } from 'react';

const subscribe = () => () => undefined;

export const useHydrated = (): boolean =>
  useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
