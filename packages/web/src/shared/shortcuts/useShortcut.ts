/** Binding to the shortcut registry from components (shared/shortcuts/registry.ts). */
import { useEffect, useRef, useSyncExternalStore } from 'react';
import { listenOnce, shortcuts, type ShortcutDef, type ShortcutHandler, type ShortcutId } from './registry.ts';

/** Binds `handler` to the entry while the component is mounted (and `enabled`); the latest handler is called. */
export function useShortcut(id: ShortcutId, handler: ShortcutHandler, enabled = true): void {
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(() => {
    if (!enabled) return;
    listenOnce();
    return shortcuts.bind(id, (e) => latest.current(e));
  }, [id, enabled]);
}

/** Several entries at once: `{ contents: () => …, 'font-larger': () => … }`. */
export function useShortcuts(handlers: Partial<Record<ShortcutId, ShortcutHandler>>, enabled = true): void {
  const latest = useRef(handlers);
  latest.current = handlers;
  const ids = Object.keys(handlers).sort().join(' ');
  useEffect(() => {
    if (!enabled || !ids) return;
    listenOnce();
    const unbind = ids.split(' ').map((id) => shortcuts.bind(id as ShortcutId, (e) => latest.current[id as ShortcutId]?.(e) ?? false));
    return () => unbind.forEach((u) => u());
  }, [ids, enabled]);
}

/** The page flag that turns the shortcuts off while the calling page is shown (reader.md §5). */
export function useShortcutsOff(off = true): void {
  useEffect(() => (off ? shortcuts.declarePageOff() : undefined), [off]);
}

/** The entries that work on the page now; re-rendered when that changes. */
export function useAvailableShortcuts(): ShortcutDef[] {
  useSyncExternalStore(shortcuts.subscribe, shortcuts.snapshot, shortcuts.snapshot);
  return shortcuts.available();
}
