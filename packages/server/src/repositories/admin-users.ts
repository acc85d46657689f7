/**
 * The operators' view of accounts (docs/decisions.md "Operators' console: the server side"): search, one account with
 * its team and sessions, role and status.
 */
import { type Kysely, sql } from 'kysely';
import type { Database, NewUser, SessionRow, TeamRow, UserRow, UserUpdate } from '../db/schema.ts';
import { onPostgres, unlessTaken } from './conflicts.ts';
import { likeContains } from './like.ts';

export interface AdminUserFilter {
  /** part of the email or username, folded to lower case */
  contains?: string;
  role?: 'admin' | 'content-creator' | 'preview-creator' | 'reader';
  status?: UserRow['status'];
  /** emails after this one (the previous page's last), ids to break ties */
  after?: { email: string; id: number };
  limit: number;
}

export class AdminUsersRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** `limit + 1` accounts in email order after `after`. */
  page(f: AdminUserFilter): Promise<UserRow[]> {
    let q = this.db.selectFrom('users').selectAll();
    if (f.contains) {
      const pattern = likeContains(f.contains);
      q = q.where((eb) => eb.or([sql<boolean>`lower(email) like ${pattern} escape '\\'`, sql<boolean>`lower(username) like ${pattern} escape '\\'`]));
    }
    if (f.role === 'admin') q = q.where('is_admin', '=', 1);
    if (f.role === 'content-creator') q = q.where('is_content_creator', '=', 1);
    if (f.role === 'preview-creator') q = q.where('is_preview_creator', '=', 1);
    if (f.role === 'reader') q = q.where('is_admin', '=', 0).where('is_content_creator', '=', 0).where('is_preview_creator', '=', 0);
    if (f.status) q = q.where('status', '=', f.status);
    if (f.after) q = q.where(sql<boolean>`(email, id) > (${f.after.email}, ${f.after.id})`);
    return q.orderBy('email').orderBy('id').limit(f.limit + 1).execute();
  }

  findByUuid(uuid: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('uuid', '=', uuid).executeTakeFirst();
  }

  findByEmail(email: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
  }

  findTeam(teamId: number): Promise<TeamRow | undefined> {
    return this.db.selectFrom('teams').selectAll().where('id', '=', teamId).executeTakeFirst();
  }

  liveSessions(userId: number, now: string): Promise<SessionRow[]> {
    return this.db.selectFrom('sessions').selectAll().where('user_id', '=', userId).where('expires_at', '>', now).orderBy('created_at', 'desc').execute();
  }

  /** The new account, in one insert; undefined when its email is taken (the unique index settles two at once). */
  insert(user: NewUser): Promise<UserRow | undefined> {
    return unlessTaken(this.db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow());
  }

  /**
   * Changes the account; a change of status is written to its history in the same transaction. With `keepAnAdmin`
   * (the change takes the account's admin role away) it changes nothing and answers false when no other admin
   * would be left: on PostgreSQL the admins' rows are locked first, so two operators demoting each other at once
   * are taken in turn and the second is refused (SQLite runs one write transaction at a time already).
   */
  async update(user: UserRow, changes: UserUpdate, at: string, keepAnAdmin = false): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      if (keepAnAdmin) {
        let admins = trx.selectFrom('users').select('id').where('is_admin', '=', 1);
        if (onPostgres(trx)) admins = admins.forUpdate();
        if (!(await admins.execute()).some((a) => a.id !== user.id)) return false;
      }
      await trx.updateTable('users').set(changes).where('id', '=', user.id).execute();
      if (changes.status !== undefined && changes.status !== user.status) {
        await trx.insertInto('account_history').values({ user_id: user.id, event: 'operator_status', from_status: user.status, to_status: changes.status, detail: 'changed by an operator', at }).execute();
      }
      return true;
    });
  }

  /** Signs the account out everywhere; answers how many sessions went. */
  async endSessions(userId: number): Promise<number> {
    const res = await this.db.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  async uuidsOf(ids: number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.selectFrom('users').select(['id', 'uuid']).where('id', 'in', ids).execute();
    return new Map(rows.map((r) => [r.id, r.uuid]));
  }
}
