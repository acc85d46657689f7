/** Accounts: creating users (command line, first start) and the profile the web client reads. */
import { ACCOUNT_ENTRY_MESSAGES, ACCOUNT_STATUSES, ADMIN_MESSAGES, type AccountProfile, type AccountStatus, PASSWORD_MAX_LENGTH, passwordProblem, type Role, ROLES } from '@lectern/core';
import { z } from 'zod';
import type { NewUser, SessionRow, UserRow } from '../db/schema.ts';
import { badRequest, fieldError, notFound } from '../errors.ts';
import { effectiveStatus, readsThroughTeam } from '../policies/reading.ts';
import type { SessionsRepository, SessionUser } from '../repositories/sessions.ts';
import type { UsersRepository } from '../repositories/users.ts';
import { newUserUuid } from './auth.ts';
import { isCommonPassword } from './common-passwords.ts';
import { hashPassword, verifyPassword } from './passwords.ts';

export const TRIAL_DAYS = 10;

export const newUserSchema = z
  .object({
    email: z.string().trim().toLowerCase().email('Enter a valid email address.').max(254),
    password: z.string().max(PASSWORD_MAX_LENGTH),
    username: z.string().trim().min(1).max(150).optional(),
    role: z.enum(ROLES, { message: `role must be one of ${ROLES.join(', ')}` }).optional(),
    status: z.enum(ACCOUNT_STATUSES, { message: `status must be one of ${ACCOUNT_STATUSES.join(', ')}` }).optional(),
    team: z.string().trim().min(1).max(150).optional(),
  })
  .superRefine((v, ctx) => {
    // core's one password rule (length, not the email, not a common password), as the command line applies it
    const problem = passwordProblem(v.password, v.email, isCommonPassword);
    if (problem) ctx.addIssue({ code: 'custom', path: ['password'], message: problem });
  });
export type NewUserInput = z.input<typeof newUserSchema>;

export class AccountsService {
  constructor(
    private readonly users: UsersRepository,
    private readonly sessions: SessionsRepository,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async createUser(input: NewUserInput): Promise<UserRow> {
    const user = await this.users.insert(await this.prepareUser(input));
    // prepareUser looked first; another creation of the address may have come between
    if (!user) throw badRequest(ADMIN_MESSAGES.emailTaken, { email: [ADMIN_MESSAGES.emailTaken] });
    return user;
  }

  /**
   * A new account's row, checked and its password hashed, not yet written: createUser writes it alone; registration
   * writes it with its history entry (services/registration.ts). 400 with the fields named; an email in use is one,
   * in the caller's words for it (the operator's unless given).
   */
  async prepareUser(input: NewUserInput & { trialDays?: number; plan?: string | null }, emailTaken: string = ADMIN_MESSAGES.emailTaken): Promise<NewUser> {
    const parsed = newUserSchema.safeParse(input);
    if (!parsed.success) {
      const errors: Record<string, string[]> = {};
      for (const issue of parsed.error.issues) (errors[String(issue.path[0] ?? 'input')] ??= []).push(issue.message);
      throw badRequest(Object.values(errors).flat().join(' '), errors);
    }
    const v = parsed.data;
    if (await this.users.findByEmail(v.email)) throw badRequest(emailTaken, { email: [emailTaken] });
    const now = this.now();
    const status: AccountStatus = v.status ?? 'trial';
    const teamId = v.team ? await this.users.ensureTeam(v.team, now.toISOString()) : null;
    const trialDays = input.trialDays ?? TRIAL_DAYS;
    return {
      uuid: newUserUuid(),
      email: v.email,
      username: v.username ?? v.email.split('@')[0]!,
      password_hash: await hashPassword(v.password),
      status,
      trial_ends_at: status === 'trial' ? new Date(now.getTime() + trialDays * 86_400_000).toISOString() : null,
      team_id: teamId,
      is_admin: v.role === 'admin' ? 1 : 0,
      is_content_creator: v.role === 'content-creator' ? 1 : 0,
      is_preview_creator: v.role === 'preview-creator' ? 1 : 0,
      created_at: now.toISOString(),
      // a subscriber is billed on a plan (null was priced as Basic but shown as none): Basic unless one is given
      plan: input.plan ?? (status === 'subscriber' ? 'basic' : null),
    };
  }

  /** Sets a new password (core's rule applies) and signs the user out everywhere; 404 when no user has that email. */
  async resetPassword(email: string, password: string): Promise<UserRow> {
    const user = await this.users.findByEmail(email.trim());
    if (!user) throw notFound(ADMIN_MESSAGES.noUserWithEmail(email.trim()));
    const problem = passwordProblem(password, user.email, isCommonPassword);
    if (problem) throw fieldError('password', problem);
    await this.users.update(user.id, { password_hash: await hashPassword(password) });
    await this.sessions.deleteForUser(user.id);
    return user;
  }

  /**
   * The account page's password change: the current password proves it is the reader; the new one meets the rule;
   * every other session is signed out (this one stays). Returns how many were signed out.
   */
  async changePassword(user: UserRow, session: SessionRow, current: string, next: string): Promise<number> {
    const stored = await this.users.findById(user.id);
    if (!stored || !(await verifyPassword(stored.password_hash, current))) {
      throw badRequest(ACCOUNT_ENTRY_MESSAGES.currentPasswordWrong, { current_password: [ACCOUNT_ENTRY_MESSAGES.currentPasswordWrong] });
    }
    const problem = passwordProblem(next, stored.email, isCommonPassword);
    if (problem) throw badRequest(problem, { new_password: [problem] });
    await this.users.update(user.id, { password_hash: await hashPassword(next) });
    return this.sessions.deleteOthers(user.id, session.id);
  }

  /** The account page's email change, proved by the current password; an address in use is refused on the field. */
  async changeEmail(user: UserRow, current: string, email: string): Promise<UserRow> {
    const stored = await this.users.findById(user.id);
    if (!stored || !(await verifyPassword(stored.password_hash, current))) {
      throw badRequest(ACCOUNT_ENTRY_MESSAGES.currentPasswordWrong, { current_password: [ACCOUNT_ENTRY_MESSAGES.currentPasswordWrong] });
    }
    if (!z.string().email().safeParse(email).success) throw badRequest(ACCOUNT_ENTRY_MESSAGES.emailShape, { email: [ACCOUNT_ENTRY_MESSAGES.emailShape] });
    const other = await this.users.findByEmail(email);
    if (other && other.id !== user.id) throw badRequest(ACCOUNT_ENTRY_MESSAGES.emailTaken, { email: [ACCOUNT_ENTRY_MESSAGES.emailTaken] });
    if (!(await this.users.setEmail(user.id, email))) throw badRequest(ACCOUNT_ENTRY_MESSAGES.emailTaken, { email: [ACCOUNT_ENTRY_MESSAGES.emailTaken] });
    return (await this.users.findById(user.id))!;
  }

  /** Signs out every other session of the account; returns how many. */
  signOutOthers(user: UserRow, session: SessionRow): Promise<number> {
    return this.sessions.deleteOthers(user.id, session.id);
  }

  /** How many accounts exist (the first start creates the demo reader when none does). */
  count(): Promise<number> {
    return this.users.count();
  }

  async profile(user: SessionUser, session: SessionRow): Promise<AccountProfile> {
    // A trial past its end is an expired account here too (policies/reading.ts).
    const own = effectiveStatus(user, this.now());
    // A team member (the owner among them) whose own account is not a paid subscription reads as a subscriber while
    // the team's is live (docs/decisions.md "Teams"): no subscribe nag — a trial's "ends on" nag to someone whose
    // team is paid would only confuse — and the live-training banner.
    const status = own !== 'subscriber' && readsThroughTeam(user, this.now()) ? 'subscriber' : own;
    return {
      user_id: user.id,
      session_id: session.public_id,
      user_uuid: user.uuid,
      username: user.username,
      subscription_status: status,
      account: {
        type: status.charAt(0).toUpperCase() + status.slice(1),
        email: user.email,
        roles: rolesOf(user),
        team: await this.users.teamName(user.team_id),
        trial_ends_at: user.trial_ends_at,
      },
    };
  }
}

export function rolesOf(user: Pick<UserRow, 'is_admin' | 'is_content_creator' | 'is_preview_creator'>): Role[] {
  const roles: Role[] = [];
  if (user.is_admin) roles.push('admin');
  if (user.is_content_creator) roles.push('content-creator');
  if (user.is_preview_creator) roles.push('preview-creator');
  return roles;
}
