/** Sign-in sessions, stored by the hash of their cookie value. */
import type { Kysely } from 'kysely';
import type { Database, SessionRow, UserRow } from '../db/schema.ts';

/** An account as a session reads it: with the state of its team, which its reading rights follow (policies/reading.ts). */
export type SessionUser = UserRow & { team_status?: string | null; team_ends_at?: string | null };

export class SessionsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: SessionRow): Promise<void> {
    await this.db.insertInto('sessions').values(row).execute();
  }

  /** The live session with that hash and its user, in one query (this runs on every signed-in request). */
  async findLive(idHash: string, now: string): Promise<{ session: SessionRow; user: SessionUser } | undefined> {
    const row = await this.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .leftJoin('teams', 'teams.id', 'users.team_id')
      .selectAll('users')
      .select(['teams.status as team_status', 'teams.subscription_ends_at as team_ends_at'])
      .select([
        'sessions.id as s_id',
        'sessions.public_id as s_public_id',
        'sessions.created_at as s_created_at',
        'sessions.expires_at as s_expires_at',
        'sessions.user_agent as s_user_agent',
      ])
      .where('sessions.id', '=', idHash)
      .where('sessions.expires_at', '>', now)
      .executeTakeFirst();
    if (!row) return undefined;
    const { s_id, s_public_id, s_created_at, s_expires_at, s_user_agent, ...user } = row;
    return {
      session: { id: s_id, public_id: s_public_id, user_id: user.id, created_at: s_created_at, expires_at: s_expires_at, user_agent: s_user_agent },
      user,
    };
  }

  /**
   * The live session with that public id and its user (annotation tokens name the session they were issued in,
   * so signing out ends them too).
   */
  async findLiveByPublicId(publicId: string, now: string): Promise<{ session: SessionRow; user: SessionUser } | undefined> {
    const row = await this.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .leftJoin('teams', 'teams.id', 'users.team_id')
      .selectAll('users')
      .select(['teams.status as team_status', 'teams.subscription_ends_at as team_ends_at'])
      .select(['sessions.id as s_id', 'sessions.created_at as s_created_at', 'sessions.expires_at as s_expires_at', 'sessions.user_agent as s_user_agent'])
      .where('sessions.public_id', '=', publicId)
      .where('sessions.expires_at', '>', now)
      .executeTakeFirst();
    if (!row) return undefined;
    const { s_id, s_created_at, s_expires_at, s_user_agent, ...user } = row;
    return { session: { id: s_id, public_id: publicId, user_id: user.id, created_at: s_created_at, expires_at: s_expires_at, user_agent: s_user_agent }, user };
  }

  async delete(idHash: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id', '=', idHash).execute();
  }

  /** Every session of one user (signed out everywhere after a password reset). */
  async deleteForUser(userId: number): Promise<void> {
    await this.db.deleteFrom('sessions').where('user_id', '=', userId).execute();
  }

  /** Every session of one user but `keepIdHash` (sign out the other devices); returns how many went. */
  async deleteOthers(userId: number, keepIdHash: string): Promise<number> {
    const result = await this.db.deleteFrom('sessions').where('user_id', '=', userId).where('id', '!=', keepIdHash).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Deletes every session that has expired by `now`; returns how many went. */
  async deleteExpired(now: string): Promise<number> {
    const result = await this.db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
