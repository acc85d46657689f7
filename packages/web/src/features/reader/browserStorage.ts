/** The page's local storage, or null where it is unavailable (private modes, blocked storage). */
export function browserStorage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}
