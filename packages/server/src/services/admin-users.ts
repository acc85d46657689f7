/**
 * The operators' people (docs/decisions.md "Operators' console: the server side"): search accounts, one account's
 * status, roles, trial, team and sessions; change roles and status, send a password reset, end every session, create an
 * account. The console's routes and the command line both come here; the caller writes the audit entry.
 */
import {
  ADMIN_CONSOLE_MESSAGES as M,
  ADMIN_MESSAGES,
  ADMIN_PAGE_SIZE,
  type AdminUserCreate,
  type AdminUserDetail,
  type AdminUserPage,
  type AdminUserPatch,
  type AdminUserRow,
  type AdminUsersQuery,
  type Role,
} from '@lectern/core';
import type { UserRow, UserUpdate } from '../db/schema.ts';
import { badRequest, fieldError, notFound } from '../errors.ts';
import { effectiveStatus } from '../policies/reading.ts';
import type { AdminUsersRepository } from '../repositories/admin-users.ts';
import { decodeKeyCursor, encodeKeyCursor } from './admin-cursor.ts';
import { type AccountsService, rolesOf, TRIAL_DAYS } from './accounts.ts';

const DAY_MS = 86_400_000;
const afterCursor = (cursor: string) => {
  const { key, id } = decodeKeyCursor(cursor);
  return { email: key, id };
};

export interface UserChange {
  user: AdminUserDetail;
  changed: Record<string, [unknown, unknown]>;
}

export class AdminUsersService {
  constructor(
    private readonly repo: AdminUsersRepository,
    private readonly accounts: AccountsService,
    private readonly deps: {
      /** emails a reset link (services/password-reset.ts) */
      sendReset: (email: string) => Promise<void>;
      /** forgets the sessions cached for an account whose rights changed */
      forgetUser: (userId: number) => void;
      trialDays?: number;
    },
    private readonly now: () => Date = () => new Date(),
  ) {}

  async list(q: AdminUsersQuery): Promise<AdminUserPage> {
    const limit = q.limit ?? ADMIN_PAGE_SIZE.default;
    const rows = await this.repo.page({
      contains: q.q?.trim().toLowerCase() || undefined,
      role: q.role,
      status: q.status,
      after: q.cursor !== undefined ? afterCursor(q.cursor) : undefined,
      limit,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { results: page.map((u) => this.rowOf(u)), next_cursor: rows.length > limit && last ? encodeKeyCursor(last.email, last.id) : null };
  }

  async detail(userId: string): Promise<AdminUserDetail> {
    return this.detailOf(await this.find(userId));
  }

  /**
   * One insert with every role and the configured trial length. The address is looked up first (prepareUser) for
   * the plain case; two creations at once are settled by the unique email, the loser a 400 naming email too.
   */
  async create(input: AdminUserCreate): Promise<AdminUserDetail> {
    const roles = [...new Set(input.roles ?? [])];
    const row = await this.accounts.prepareUser({ email: input.email, password: input.password, status: input.status, trialDays: this.trialDays });
    const user = await this.repo.insert({ ...row, ...flagsOf(roles) });
    if (!user) throw badRequest(ADMIN_MESSAGES.emailTaken, { email: [ADMIN_MESSAGES.emailTaken] });
    return this.detailOf(user);
  }

  /** Roles (the whole set) and status; an operator cannot take their own admin role away, nor anyone the last one's. */
  /** `committed`: called once the change is in, before what may still fail (see services/admin-titles.ts Committed). */
  async edit(userId: string, patch: AdminUserPatch, actorId: number | null, committed?: (user: UserRow) => void): Promise<UserChange> {
    const user = await this.find(userId);
    const before = this.rowOf(user);
    const changes: UserUpdate = {};
    let demotes = false;
    if (patch.roles !== undefined) {
      const roles = [...new Set(patch.roles)];
      demotes = !!user.is_admin && !roles.includes('admin');
      if (actorId === user.id && demotes) throw fieldError('roles', M.ownAdminRole);
      Object.assign(changes, flagsOf(roles));
    }
    if (patch.status !== undefined) {
      changes.status = patch.status;
      // a trial needs an end: a fresh trial's length from now when the account has none in the future
      if (patch.status === 'trial' && !(user.trial_ends_at && Date.parse(user.trial_ends_at) > this.now().getTime())) {
        changes.trial_ends_at = new Date(this.now().getTime() + this.trialDays * DAY_MS).toISOString();
      }
    }
    if (!(await this.repo.update(user, changes, this.now().toISOString(), demotes))) throw fieldError('roles', M.lastAdmin);
    committed?.(user);
    this.deps.forgetUser(user.id);
    const after = await this.detail(userId);
    const changed: Record<string, [unknown, unknown]> = {};
    if (JSON.stringify(before.roles) !== JSON.stringify(after.roles)) changed.roles = [before.roles, after.roles];
    if (before.status !== after.status) changed.status = [before.status, after.status];
    if (before.trial_ends_at !== after.trial_ends_at) changed.trial_ends_at = [before.trial_ends_at, after.trial_ends_at];
    return { user: after, changed };
  }

  async sendPasswordReset(userId: string): Promise<UserRow> {
    const user = await this.find(userId);
    await this.deps.sendReset(user.email);
    return user;
  }

  async endSessions(userId: string): Promise<{ user: UserRow; ended: number }> {
    const user = await this.find(userId);
    const ended = await this.repo.endSessions(user.id);
    this.deps.forgetUser(user.id);
    return { user, ended };
  }

  /** By the public id (uuid) or, for the command line, the email. */
  async find(userIdOrEmail: string): Promise<UserRow> {
    const user = userIdOrEmail.includes('@') ? await this.repo.findByEmail(userIdOrEmail.trim().toLowerCase()) : await this.repo.findByUuid(userIdOrEmail);
    if (!user) throw notFound(M.userNotFound);
    return user;
  }

  uuidsOf(ids: number[]): Promise<Map<number, string>> {
    return this.repo.uuidsOf(ids);
  }

  private get trialDays(): number {
    return this.deps.trialDays ?? TRIAL_DAYS;
  }

  private rowOf(u: UserRow): AdminUserRow {
    return {
      user_id: u.uuid,
      email: u.email,
      username: u.username,
      roles: rolesOf(u),
      status: u.status,
      effective_status: effectiveStatus(u, this.now()),
      trial_ends_at: u.trial_ends_at,
      created_at: u.created_at,
    };
  }

  private async detailOf(u: UserRow): Promise<AdminUserDetail> {
    const [team, sessions] = await Promise.all([u.team_id === null ? undefined : this.repo.findTeam(u.team_id), this.repo.liveSessions(u.id, this.now().toISOString())]);
    return {
      ...this.rowOf(u),
      plan: u.plan,
      subscription_ends_at: u.subscription_ends_at,
      team: team ? { team_id: String(team.id), name: team.name, role: team.owner_id === u.id ? 'owner' : 'member' } : null,
      sessions: sessions.map((s) => ({ session_id: s.public_id, created_at: s.created_at, expires_at: s.expires_at, user_agent: s.user_agent })),
    };
  }
}

function flagsOf(roles: Role[]): Pick<UserUpdate, 'is_admin' | 'is_content_creator' | 'is_preview_creator'> {
  return {
    is_admin: roles.includes('admin') ? 1 : 0,
    is_content_creator: roles.includes('content-creator') ? 1 : 0,
    is_preview_creator: roles.includes('preview-creator') ? 1 : 0,
  };
}
