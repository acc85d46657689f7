/** A reader's settings kept on the account (migration 0035): one row per account that changed one. */
import type { Kysely } from 'kysely';
import type { Database, Flag } from '../db/schema.ts';

export class AccountSettingsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async shortcuts(userId: number): Promise<Flag | undefined> {
    const row = await this.db.selectFrom('account_settings').select('keyboard_shortcuts').where('user_id', '=', userId).executeTakeFirst();
    return row?.keyboard_shortcuts;
  }

  /** One statement (INSERT … ON CONFLICT DO UPDATE): two writes at once never collide on the key. */
  async setShortcuts(userId: number, on: Flag, now: string): Promise<void> {
    await this.db
      .insertInto('account_settings')
      .values({ user_id: userId, keyboard_shortcuts: on, updated_at: now })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ keyboard_shortcuts: on, updated_at: now }))
      .execute();
  }
}
