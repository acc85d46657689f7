/**
 * Keyboard shortcuts' setting (library-playlists-account.md §6 "Shortcuts can be disabled by user setting"; the
 * settings page is /u/shortcuts/, §2). The spec names no call: ours is GET/PUT SHORTCUTS_SETTING_PATH with
 * `{enabled}`, remembered per account (docs/decisions.md "Keyboard shortcuts").
 */
import { z } from 'zod';

export const SHORTCUTS_SETTING_PATH = '/api/v1/account/shortcuts/';

/** The settings page's address (library-playlists-account.md §2). */
export const SHORTCUTS_PAGE_PATH = '/u/shortcuts/';

export const shortcutSettingSchema = z.object({ enabled: z.boolean({ message: 'enabled must be true or false' }) }).strict();
export type ShortcutSetting = z.infer<typeof shortcutSettingSchema>;
