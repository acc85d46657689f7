/** One-time password-reset links, by the sha256 of their token. */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

export class PasswordResetsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: { token_hash: string; user_id: number; expires_at: string; created_at: string }): Promise<void> {
    await this.db.insertInto('password_resets').values({ ...row, used_at: null }).execute();
  }

  /**
   * Uses the link: marks it used if it is unused and unexpired at `now`, in one statement (two clicks on one link
   * reset once). The user it belongs to, or undefined.
   */
  async use(tokenHash: string, now: string): Promise<number | undefined> {
    const row = await this.db
      .updateTable('password_resets')
      .set({ used_at: now })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning('user_id')
      .executeTakeFirst();
    return row?.user_id;
  }

  /** The user of a link that could still be used (the page asks before showing the form), or undefined. */
  async liveUser(tokenHash: string, now: string): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('password_resets')
      .select('user_id')
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row?.user_id;
  }

  /** A new link makes the user's older ones useless; used and expired ones go too. */
  async deleteForUser(userId: number): Promise<void> {
    await this.db.deleteFrom('password_resets').where('user_id', '=', userId).execute();
  }
}
