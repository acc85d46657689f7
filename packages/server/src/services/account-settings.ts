/**
 * A reader's settings kept on the account (docs/decisions.md "Keyboard shortcuts"): single-key shortcuts on or off
 * (library-playlists-account.md §6; WCAG 2.1.4). On unless the reader turned them off.
 */
import type { ShortcutSetting } from '@lectern/core';
import type { AccountSettingsRepository } from '../repositories/account-settings.ts';

export class AccountSettingsService {
  constructor(
    private readonly settings: AccountSettingsRepository,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async shortcuts(userId: number): Promise<ShortcutSetting> {
    return { enabled: (await this.settings.shortcuts(userId)) !== 0 };
  }

  async setShortcuts(userId: number, setting: ShortcutSetting): Promise<ShortcutSetting> {
    await this.settings.setShortcuts(userId, setting.enabled ? 1 : 0, this.now().toISOString());
    return { enabled: setting.enabled };
  }
}
