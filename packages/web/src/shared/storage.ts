/**
 * The browser's localStorage, or null where there is none (server-side tests) or the browser refuses it (storage
 * disabled, private modes that throw on access). Every feature that keeps something between visits asks here.
 */
export function browserStorage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}
