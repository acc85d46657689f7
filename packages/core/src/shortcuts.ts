/**
 * Keyboard shortcuts' setting (library-playlists-account.md §6 "Shortcuts can be disabled by user setting"; the
 * settings page is /u/shortcuts/, §2). The spec names no call: ours is GET/PUT SHORTCUTS_SETTING_PATH with
 * `{enabled}` (schemas.ts shortcutSettingSchema), remembered per account (docs/decisions.md "Keyboard shortcuts").
 * No zod here: the web app's entry takes these names.
 */
export const SHORTCUTS_SETTING_PATH = '/api/v1/account/shortcuts/';

/** The settings page's address (library-playlists-account.md §2). */
export const SHORTCUTS_PAGE_PATH = '/u/shortcuts/';
