/** A reader's answer to running a scripted title's scripts (migration 0044): one row per reader and title answered. */
import type { Kysely } from 'kysely';
import type { Database, Flag } from '../db/schema.ts';

export class ScriptsConsentsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** 1 allowed, 0 declined, undefined not asked. */
  async find(userId: number, titleId: number): Promise<Flag | undefined> {
    const row = await this.db.selectFrom('scripts_consents').select('allowed').where('user_id', '=', userId).where('title_id', '=', titleId).executeTakeFirst();
    return row?.allowed;
  }

  /** One statement (INSERT … ON CONFLICT DO UPDATE): two answers at once never collide on the key. */
  async set(userId: number, titleId: number, allowed: Flag, now: string): Promise<void> {
    await this.db
      .insertInto('scripts_consents')
      .values({ user_id: userId, title_id: titleId, allowed, decided_at: now })
      .onConflict((oc) => oc.columns(['user_id', 'title_id']).doUpdateSet({ allowed, decided_at: now }))
      .execute();
  }

  async remove(userId: number, titleId: number): Promise<void> {
    await this.db.deleteFrom('scripts_consents').where('user_id', '=', userId).where('title_id', '=', titleId).execute();
  }
}
