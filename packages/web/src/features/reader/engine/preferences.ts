/**
 * Reader preferences (reader.md §3 "Reader preferences", library-playlists-account.md §9): kept in the
 * `reader_preferences` cookie for 365 days (font_size, font_name, column_width, reading_mode: what a server-rendered
 * page would need) and in local storage under the same name (everything, brightness, pagination and zoom too).
 * Every value goes through core's normalizePreferences, so whatever was stored (an older app, a hand-edited cookie)
 * comes back clamped to the spec's limits.
 */
import { DEFAULT_PREFERENCES, normalizePreferences, READER_CONSTANTS, READER_LIMITS, type ReaderPreferences } from '@lectern/core';
import { browserStorage } from '../../../shared/storage.ts';

export const PREFERENCES_KEY = 'reader_preferences';

/**
 * normalizePreferences steps brightness by 25 from 50, so 250 is the brightest stored value: full brightness. Below
 * it the reader's veil dims the screen (ReaderPage), which the page's own first screen has not (pageFirstScreen.ts).
 */
export const BRIGHTNESS_FULL = READER_LIMITS.brightness.min + Math.floor((READER_LIMITS.brightness.max - READER_LIMITS.brightness.min) / READER_LIMITS.brightness.step) * READER_LIMITS.brightness.step;
const COOKIE_FIELDS = ['font_size', 'font_name', 'column_width', 'reading_mode'] as const;

export interface PreferenceStores {
  storage: Pick<Storage, 'getItem' | 'setItem'> | null;
  cookies: { get(): string; set(cookie: string): void } | null;
}

function browserStores(): PreferenceStores {
  const storage = browserStorage();
  const cookies =
    typeof document === 'undefined'
      ? null
      : {
          get: () => document.cookie,
          set: (c: string) => {
            document.cookie = c;
          },
        };
  return { storage, cookies };
}

function readCookieValue(all: string, name: string): string | null {
  for (const part of all.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    try {
      return decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      return null;
    }
  }
  return null;
}

function parseJson(text: string | null): Record<string, unknown> | null {
  if (!text) return null;
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The fields of a stored object that mean something (numbers are clamped later; unknown words are dropped). */
function usable(input: Record<string, unknown> | null): Partial<ReaderPreferences> {
  if (!input) return {};
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(DEFAULT_PREFERENCES) as (keyof ReaderPreferences)[]) {
    const v = input[key];
    if (typeof v === 'number' ? Number.isFinite(v) : typeof v === 'string' && normalizePreferences({ [key]: v })[key] === v) out[key] = v;
  }
  return out;
}

/** Local storage first (it holds everything), the cookie's fields over nothing, then defaults; all clamped. */
export function loadPreferences(stores: PreferenceStores = browserStores()): ReaderPreferences {
  let stored: Record<string, unknown> | null = null;
  try {
    stored = parseJson(stores.storage?.getItem(PREFERENCES_KEY) ?? null);
  } catch {
    stored = null;
  }
  const cookie = stores.cookies ? parseJson(readCookieValue(stores.cookies.get(), PREFERENCES_KEY)) : null;
  return normalizePreferences({ ...DEFAULT_PREFERENCES, ...usable(cookie), ...usable(stored) });
}

export function savePreferences(input: Partial<ReaderPreferences>, stores: PreferenceStores = browserStores()): ReaderPreferences {
  const prefs = normalizePreferences(input);
  try {
    stores.storage?.setItem(PREFERENCES_KEY, JSON.stringify(prefs));
  } catch {
    /* storage full or disabled: the cookie still carries the main settings */
  }
  if (stores.cookies) {
    const subset: Record<string, unknown> = {};
    for (const f of COOKIE_FIELDS) subset[f] = prefs[f];
    const maxAge = READER_CONSTANTS.preferencesCookieDays * 24 * 60 * 60;
    stores.cookies.set(`${PREFERENCES_KEY}=${encodeURIComponent(JSON.stringify(subset))}; Max-Age=${maxAge}; Path=/; SameSite=Lax`);
  }
  return prefs;
}

/**
 * Whether the reader has chosen scroll or pages themselves (in the settings): until they have, a book's own
 * rendition:flow decides (bookFlow.ts). Kept under its own local-storage key, beside the spec's preferences.
 */
export const PAGINATION_CHOSEN_KEY = 'reader_pagination_chosen';

export function loadPaginationChosen(storage: Pick<Storage, 'getItem'> | null = browserStores().storage): boolean {
  try {
    return storage?.getItem(PAGINATION_CHOSEN_KEY) === '1';
  } catch {
    return false;
  }
}

export function savePaginationChosen(chosen: boolean, storage: Pick<Storage, 'setItem'> | null = browserStores().storage): boolean {
  try {
    storage?.setItem(PAGINATION_CHOSEN_KEY, chosen ? '1' : '0');
  } catch {
    /* storage full or disabled: the choice lasts for this page */
  }
  return chosen;
}

/** The Android rule of reader.md §2: the column-width slider is hidden there (the column is the screen). */
export const isAndroid = (ua: string = typeof navigator === 'undefined' ? '' : navigator.userAgent) => /Android/i.test(ua);

/**
 * Which parts of the reader's chrome are shown (reader.md §2: "a masthead toggle, a menu toggle"): the masthead is
 * the top bar (contents, titles, settings), the menu the bottom bar (previous/next chapter and position). Not part
 * of the spec's preference fields, so kept under their own local-storage key (docs/decisions.md).
 */
export interface ReaderChrome {
  masthead: boolean;
  menu: boolean;
}
export const CHROME_KEY = 'reader_chrome';
const DEFAULT_CHROME: ReaderChrome = { masthead: true, menu: true };

export function loadChrome(storage: Pick<Storage, 'getItem'> | null = browserStores().storage): ReaderChrome {
  const v = parseJson(storage?.getItem(CHROME_KEY) ?? null) as Partial<Record<keyof ReaderChrome, unknown>> | null;
  return {
    masthead: typeof v?.masthead === 'boolean' ? v.masthead : DEFAULT_CHROME.masthead,
    menu: typeof v?.menu === 'boolean' ? v.menu : DEFAULT_CHROME.menu,
  };
}

export function saveChrome(chrome: ReaderChrome, storage: Pick<Storage, 'setItem'> | null = browserStores().storage): ReaderChrome {
  try {
    storage?.setItem(CHROME_KEY, JSON.stringify(chrome));
  } catch {
    /* storage full or disabled: the choice lasts for this page */
  }
  return chrome;
}
