/**
 * Teams (docs/decisions.md "Teams"): an owner buys seats on a plan (an invoice through the
 * payment provider, as an account's subscription is paid), invites members by email with a one-time link that
 * expires, lists and removes them; a member reads while the team's subscription is live (policies/reading.ts
 * teamIsLive). The team's subscription has the account's states and transitions: active -> cancelled (reading to
 * the end of the paid period) -> expired, reactivated or renewed; the due job (`runDue`, called with the
 * subscriptions' job by app.ts) renews, ends and closes expired invitations. Every change is one call here, made
 * from the state it expects and written to the account history (repositories/teams.ts).
 *
 * Who may do what: the owner and an admin manage a team; a member sees its name, owner and state and may leave;
 * anyone else gets a 404, as for anything that is not theirs.
 */
import {
  acceptInvitationSchema,
  ACCOUNT_ENTRY_MESSAGES,
  ADMIN_CONSOLE_MESSAGES,
  createTeamRequestSchema,
  type InvitationInfo,
  inviteRequestSchema,
  passwordProblem,
  seatsRequestSchema,
  type Team,
  TEAM_INVITATION_TTL_MS,
  TEAM_EXTRA_INVITES_PER_DAY,
  TEAM_MESSAGES,
  teamPaths,
} from '@lectern/core';
import type { NewUser, PlanRow, TeamRow, UserRow } from '../db/schema.ts';
import { AppError, badRequest, notFound } from '../errors.ts';
import { isAdmin } from '../policies/admin.ts';
import { effectiveStatus, teamIsLive } from '../policies/reading.ts';
import type { SubscriptionsRepository } from '../repositories/subscriptions.ts';
import { type NewInvitation, TeamConflict, type TeamInvoice, type TeamsRepository } from '../repositories/teams.ts';
import { randomToken } from '../util/random.ts';
import type { AccountsService } from './accounts.ts';
import { isCommonPassword } from './common-passwords.ts';
import type { Mailer } from './mailer.ts';
import type { PaymentProvider } from './payments.ts';
import { newInvoice, periodEnd } from './subscriptions.ts';
import { sha256 } from './tokens.ts';

type Role = Team['role'];
const money = (cents: number) => (cents / 100).toFixed(2);
const day = (iso: string) => iso.slice(0, 10);

export class TeamsService {
  constructor(
    private readonly repo: TeamsRepository,
    private readonly plans: Pick<SubscriptionsRepository, 'plan'>,
    private readonly provider: PaymentProvider,
    private readonly accounts: Pick<AccountsService, 'prepareUser'>,
    private readonly mailer: Mailer,
    private readonly publicUrl: string,
    private readonly now: () => Date = () => new Date(),
    /** told of every account whose reading rights may have changed (app.ts: the session cache forgets them) */
    private readonly onChange: (userIds: readonly number[]) => void = () => {},
  ) {}

  // ---- reading ----

  /** The caller's team, as they may see it; null when they are in none. */
  async mine(user: UserRow): Promise<Team | null> {
    const fresh = await this.repo.user(user.id);
    if (!fresh?.team_id) return null;
    const team = await this.repo.team(fresh.team_id);
    if (!team) return null;
    return this.view(team, team.owner_id === fresh.id ? 'owner' : 'member');
  }

  async get(user: UserRow, teamId: number): Promise<Team> {
    const { team, role } = await this.access(user, teamId);
    return this.view(team, role);
  }

  /** What an invitation link offers (its holder is who it was sent to); 400 when it is no longer good. */
  async invitationInfo(token: string): Promise<InvitationInfo> {
    const invitation = await this.repo.invitationByHash(sha256(token));
    if (!invitation || invitation.status !== 'pending' || Date.parse(invitation.expires_at) <= this.now().getTime()) throw this.dead();
    const team = await this.repo.team(invitation.team_id);
    if (!team) throw this.dead();
    const owner = team.owner_id ? await this.repo.user(team.owner_id) : undefined;
    return {
      team_name: team.name,
      owner_email: owner?.email ?? null,
      email: invitation.email,
      expires_at: invitation.expires_at,
      account_exists: (await this.repo.userByEmail(invitation.email)) !== undefined,
    };
  }

  // ---- the owner ----

  /** Buys `seats` on `plan` for a new team the caller owns (their own seat included) and invites `emails`. */
  async create(user: UserRow, input: unknown): Promise<Team> {
    const v = createTeamRequestSchema.parse(input ?? {});
    const owner = await this.fresh(user);
    if (owner.team_id !== null) throw badRequest(TEAM_MESSAGES.alreadyInTeam, { name: [TEAM_MESSAGES.alreadyInTeam] });
    if (v.emails.includes(owner.email)) throw badRequest(TEAM_MESSAGES.alreadyMember(owner.email), { emails: [TEAM_MESSAGES.alreadyMember(owner.email)] });
    const plan = await this.plan(v.plan);
    const now = this.now();
    const end = periodEnd(now, plan.period);
    const amount = plan.price_cents * v.seats;
    const charge = await this.provider.charge({
      userEmail: owner.email,
      amountCents: amount,
      currency: plan.currency,
      description: `Lectern ${plan.name} for the team ${v.name}, ${v.seats} seats, ${day(now.toISOString())} to ${day(end.toISOString())}`,
    });
    const links = v.emails.map((email) => this.newInvitation(email, now));
    let team: TeamRow;
    try {
      team = await this.repo.create({
        ownerId: owner.id,
        name: v.name,
        plan: plan.slug,
        seats: v.seats,
        endsAt: end.toISOString(),
        invoice: this.invoice(plan, v.seats, amount, charge, now, end),
        invitations: links.map((l) => l.row),
        history: [
          { userId: owner.id, event: 'team_created', from_status: null, to_status: 'active', detail: `${v.name}: ${plan.slug}, ${v.seats} seats, ${money(amount)} ${plan.currency}` },
          ...(links.length ? [{ userId: owner.id, event: 'team_invited', from_status: null, to_status: null, detail: v.emails.join(', ') }] : []),
        ],
        at: now.toISOString(),
      });
    } catch (err) {
      await this.provider.void(charge.reference);
      if (err instanceof TeamConflict) throw badRequest(TEAM_MESSAGES.alreadyInTeam, { name: [TEAM_MESSAGES.alreadyInTeam] });
      throw err;
    }
    this.onChange([owner.id]);
    await this.sendInvitations(team, owner, links);
    return this.view(team, 'owner');
  }

  /** Invites each address: one seat each while seats are free; refused whole, naming `emails`, when they are not. */
  async invite(user: UserRow, teamId: number, input: unknown): Promise<Team> {
    const { team, owner } = await this.manage(user, teamId);
    const { emails } = inviteRequestSchema.parse(input ?? {});
    await this.expireInvitations();
    const now = this.now();
    if (!teamIsLive(team, now)) throw badRequest(TEAM_MESSAGES.teamNotLive, { emails: [TEAM_MESSAGES.teamNotLive] });
    const members = await this.repo.members(team.id);
    const member = emails.find((e) => members.some((m) => m.email === e));
    if (member) throw badRequest(TEAM_MESSAGES.alreadyMember(member), { emails: [TEAM_MESSAGES.alreadyMember(member)] });
    const pending = await this.repo.pendingInvitations(team.id);
    const invited = emails.find((e) => pending.some((p) => p.email === e));
    if (invited) throw badRequest(TEAM_MESSAGES.alreadyInvited(invited), { emails: [TEAM_MESSAGES.alreadyInvited(invited)] });
    const current = (await this.repo.team(team.id)) ?? team;
    if (current.seats_used + emails.length > current.seats) throw this.noSeats(current);
    // A day's invitations are bounded by the seats and a few more (revoking frees a seat at once: see the constant).
    const perDay = current.seats + TEAM_EXTRA_INVITES_PER_DAY;
    const sent = await this.repo.invitationsSentSince(user.id, new Date(now.getTime() - 24 * 60 * 60 * 1000).toISOString());
    if (sent + emails.length > perDay) throw new AppError(429, TEAM_MESSAGES.tooManyToday(perDay));
    const links = emails.map((email) => this.newInvitation(email, now));
    try {
      await this.repo.invite({
        teamId: team.id,
        invitedBy: user.id,
        invitations: links.map((l) => l.row),
        history: [{ userId: owner.id, event: 'team_invited', from_status: null, to_status: null, detail: emails.join(', ') }],
        at: now.toISOString(),
      });
    } catch (err) {
      if (!(err instanceof TeamConflict)) throw err;
      // Lost a race: to another click inviting the same addresses (then this one is already done), or to other
      // invitations taking the last seats.
      const after = await this.repo.pendingInvitations(team.id);
      if (emails.every((e) => after.some((p) => p.email === e))) return this.view((await this.repo.team(team.id))!, this.roleOf(user, team));
      if (err.reason === 'no-seats') throw this.noSeats((await this.repo.team(team.id))!);
      const again = emails.find((e) => after.some((p) => p.email === e)) ?? emails[0]!;
      throw badRequest(TEAM_MESSAGES.alreadyInvited(again), { emails: [TEAM_MESSAGES.alreadyInvited(again)] });
    }
    await this.sendInvitations(team, owner, links);
    return this.view((await this.repo.team(team.id))!, this.roleOf(user, team));
  }

  /** Revokes a pending invitation and frees its seat; a second click finds it revoked and answers the same. */
  async revoke(user: UserRow, teamId: number, invitationId: number): Promise<Team> {
    const { team, owner } = await this.manage(user, teamId);
    const closed = await this.repo.closeInvitation({
      teamId: team.id,
      invitationId,
      to: 'revoked',
      history: [{ userId: owner.id, event: 'team_invitation_revoked', from_status: null, to_status: null, detail: `invitation ${invitationId}` }],
      at: this.now().toISOString(),
    });
    if (!closed && !(await this.invitationWas(team.id, invitationId, 'revoked'))) throw notFound(TEAM_MESSAGES.invitationNotFound);
    return this.view((await this.repo.team(team.id))!, this.roleOf(user, team));
  }

  /**
   * Removes a member (the owner or an admin), or lets a member leave (their own uuid). The member keeps their
   * playlists, notes and progress and reads as their own account allows. A second click answers the same.
   * Answers the team as the caller now sees it (null for a member who left).
   */
  async removeMember(user: UserRow, teamId: number, memberUuid: string): Promise<Team | null> {
    const { team, role } = await this.access(user, teamId);
    const leaving = memberUuid === user.uuid && role === 'member';
    if (!leaving && role === 'member') throw new AppError(403, TEAM_MESSAGES.ownerOnly);
    await this.takeOut(team, memberUuid, leaving);
    if (leaving) return null;
    return this.view((await this.repo.team(team.id))!, role);
  }

  /** The member leaves `team` (or, `leaving`, goes of their own); the owner stays (a 400 naming `field`). */
  private async takeOut(team: TeamRow, memberUuid: string, leaving: boolean, field?: string): Promise<UserRow> {
    const member = await this.repo.userByUuid(memberUuid);
    if (!member) throw notFound(TEAM_MESSAGES.memberNotFound);
    if (member.id === team.owner_id) throw badRequest(TEAM_MESSAGES.ownerStays, field ? { [field]: [TEAM_MESSAGES.ownerStays] } : undefined);
    const now = this.now();
    const own = effectiveStatus(member, now);
    const removed = await this.repo.removeMember({
      teamId: team.id,
      userId: member.id,
      history: [
        { userId: member.id, event: leaving ? 'team_left' : 'team_removed', from_status: 'team_member', to_status: own, detail: team.name },
        ...(team.owner_id ? [{ userId: team.owner_id, event: leaving ? 'team_member_left' : 'team_member_removed', from_status: null, to_status: null, detail: member.email }] : []),
      ],
      at: now.toISOString(),
    });
    if (removed) this.onChange([member.id]);
    // not in the team (any more): a second click of the same removal, else a uuid that was never a member here
    else if (!(await this.historyShowsLeft((await this.repo.user(member.id)) ?? member, team))) throw notFound(TEAM_MESSAGES.memberNotFound);
    return member;
  }

  /** Changes the seat count: more seats raise an invoice for the rest of the paid period; fewer never go below use. */
  async setSeats(user: UserRow, teamId: number, input: unknown): Promise<Team> {
    const { team, owner } = await this.manage(user, teamId);
    return this.view(await this.changeSeats(team, owner, input), this.roleOf(user, team));
  }

  // ---- the operators (console and command line: services/admin-selling.ts) ----

  /** The seat count, by the owner's rule (an invoice for added seats of a live team); ownerless teams too. */
  async operatorSetSeats(teamId: number, input: unknown): Promise<{ before: number; after: TeamRow }> {
    const team = await this.teamOr404(teamId);
    const owner = team.owner_id ? ((await this.repo.user(team.owner_id)) ?? null) : null;
    return { before: team.seats, after: await this.changeSeats(team, owner, input) };
  }

  /** Removes a member as the owner would (their notes, playlists and progress kept); the owner stays. */
  async operatorRemoveMember(teamId: number, memberUuid: string): Promise<{ team: TeamRow; member: UserRow }> {
    const team = await this.teamOr404(teamId);
    const member = await this.takeOut(team, memberUuid, false, 'user_id');
    return { team: (await this.repo.team(team.id))!, member };
  }

  /**
   * A member becomes the team's owner (who manages it and is billed from now on); the owner before stays a
   * member. The same owner again changes nothing. A 400 naming user_id for an account not in the team.
   */
  async changeOwner(teamId: number, memberUuid: string): Promise<{ team: TeamRow; before: UserRow | null; after: UserRow }> {
    const team = await this.teamOr404(teamId);
    const member = await this.repo.userByUuid(memberUuid);
    if (!member || member.team_id !== team.id) throw badRequest(ADMIN_CONSOLE_MESSAGES.notAMember, { user_id: [ADMIN_CONSOLE_MESSAGES.notAMember] });
    const before = team.owner_id ? ((await this.repo.user(team.owner_id)) ?? null) : null;
    if (team.owner_id === member.id) return { team, before, after: member };
    const at = this.now().toISOString();
    const detail = `${team.name}: ${before?.email ?? 'no owner'} -> ${member.email}`;
    const changed = await this.repo.changeOwner({
      teamId: team.id,
      from: team.owner_id ?? null,
      to: member.id,
      history: [
        ...(before ? [{ userId: before.id, event: 'team_owner_changed', from_status: null, to_status: null, detail }] : []),
        { userId: member.id, event: 'team_owner_changed', from_status: null, to_status: null, detail },
      ],
      at,
    });
    if (!changed) {
      const after = (await this.repo.team(team.id))!;
      if (after.owner_id === member.id) return { team: after, before, after: member };
      throw new AppError(409, TEAM_MESSAGES.changedMeanwhile);
    }
    return { team: (await this.repo.team(team.id))!, before, after: member };
  }

  private async teamOr404(teamId: number): Promise<TeamRow> {
    const team = await this.repo.team(teamId);
    if (!team) throw notFound(TEAM_MESSAGES.notFound);
    return team;
  }

  /**
   * Changes the seat count: more seats raise an invoice for the rest of the paid period (when there is an owner to
   * bill); fewer never go below the seats in use (members and pending invitations), nor below the members (a team
   * made by `users:create --team` counts none). Answers the team as it now is.
   */
  private async changeSeats(team: TeamRow, owner: UserRow | null, input: unknown): Promise<TeamRow> {
    const { seats } = seatsRequestSchema.parse(input ?? {});
    await this.expireInvitations();
    const current = (await this.repo.team(team.id))!;
    if (seats === current.seats) return current;
    const floor = Math.max(current.seats_used, (await this.repo.memberIds(team.id)).length);
    if (seats < floor) throw badRequest(TEAM_MESSAGES.seatsBelowUsed(floor), { seats: [TEAM_MESSAGES.seatsBelowUsed(floor)] });
    const now = this.now();
    const added = seats - current.seats;
    let invoice: TeamInvoice | null = null;
    let reference: string | null = null;
    let amount = 0;
    if (owner && added > 0 && teamIsLive(current, now) && current.subscription_ends_at) {
      const plan = await this.plan(current.plan ?? 'basic');
      const end = new Date(current.subscription_ends_at);
      const fullPeriod = periodEnd(now, plan.period).getTime() - now.getTime();
      const share = Math.min(1, Math.max(0, (end.getTime() - now.getTime()) / fullPeriod));
      amount = Math.round(plan.price_cents * added * share);
      const charge = await this.provider.charge({
        userEmail: owner.email,
        amountCents: amount,
        currency: plan.currency,
        description: `Lectern ${plan.name} for the team ${current.name}, ${added} more seats, ${day(now.toISOString())} to ${day(end.toISOString())}`,
      });
      reference = charge.reference;
      invoice = this.invoice(plan, added, amount, charge, now, end);
    }
    const done = await this.repo.setSeats({
      teamId: team.id,
      from: current.seats,
      to: seats,
      invoice,
      ownerId: owner?.id ?? null,
      history: owner ? [{ userId: owner.id, event: 'team_seats_changed', from_status: null, to_status: null, detail: `${current.seats} -> ${seats} seats${invoice ? `, ${money(amount)} ${invoice.currency}` : ''}` }] : [],
      at: now.toISOString(),
    });
    if (!done) {
      if (reference) await this.provider.void(reference);
      const after = (await this.repo.team(team.id))!;
      if (after.seats === seats) return after;
      throw new AppError(409, TEAM_MESSAGES.changedMeanwhile);
    }
    return (await this.repo.team(team.id))!;
  }

  /** active -> cancelled: the members read to the end of the paid period, then the team expires. */
  async cancel(user: UserRow, teamId: number): Promise<Team> {
    const { team, owner } = await this.manage(user, teamId);
    if (team.status !== 'active') {
      if (team.status === 'cancelled') return this.view(team, this.roleOf(user, team));
      throw badRequest(TEAM_MESSAGES.notActive);
    }
    const changed = await this.repo.change({
      teamId: team.id,
      fromStatuses: ['active'],
      set: { status: 'cancelled' },
      invoice: null,
      ownerId: owner.id,
      history: [{ userId: owner.id, event: 'team_cancelled', from_status: 'active', to_status: 'cancelled', detail: `${team.name}, paid until ${team.subscription_ends_at}` }],
      at: this.now().toISOString(),
    });
    return this.view(changed ?? (await this.repo.team(team.id))!, this.roleOf(user, team));
  }

  /** Undoes a cancellation within the paid period (no charge), or buys the seats again for a new period after it. */
  async reactivate(user: UserRow, teamId: number): Promise<Team> {
    const { team, owner } = await this.manage(user, teamId);
    const now = this.now();
    if (team.status === 'active') return this.view(team, this.roleOf(user, team));
    if (team.status === 'cancelled' && teamIsLive(team, now)) {
      const changed = await this.repo.change({
        teamId: team.id,
        fromStatuses: ['cancelled'],
        set: { status: 'active' },
        invoice: null,
        ownerId: owner.id,
        history: [{ userId: owner.id, event: 'team_reactivated', from_status: 'cancelled', to_status: 'active', detail: `${team.name}, paid until ${team.subscription_ends_at}` }],
        at: now.toISOString(),
      });
      return this.view(changed ?? (await this.repo.team(team.id))!, this.roleOf(user, team));
    }
    if (team.status !== 'cancelled' && team.status !== 'expired') throw badRequest(TEAM_MESSAGES.notCancelled);
    const plan = await this.plan(team.plan ?? 'basic');
    const end = periodEnd(now, plan.period);
    const amount = plan.price_cents * team.seats;
    const charge = await this.provider.charge({
      userEmail: owner.email,
      amountCents: amount,
      currency: plan.currency,
      description: `Lectern ${plan.name} for the team ${team.name}, ${team.seats} seats, ${day(now.toISOString())} to ${day(end.toISOString())}`,
    });
    const members = await this.repo.members(team.id);
    const changed = await this.repo.change({
      teamId: team.id,
      fromStatuses: [team.status],
      set: { status: 'active', subscription_ends_at: end.toISOString() },
      invoice: this.invoice(plan, team.seats, amount, charge, now, end),
      ownerId: owner.id,
      history: [
        { userId: owner.id, event: 'team_reactivated', from_status: team.status, to_status: 'active', detail: `${team.name}: ${plan.slug}, ${team.seats} seats, ${money(amount)} ${plan.currency}` },
        ...members.map((m) => ({ userId: m.id, event: 'team_restored', from_status: null, to_status: 'team_member', detail: team.name })),
      ],
      at: now.toISOString(),
    });
    if (!changed) {
      await this.provider.void(charge.reference);
      const after = (await this.repo.team(team.id))!;
      if (after.status === 'active') return this.view(after, this.roleOf(user, team));
      throw new AppError(409, TEAM_MESSAGES.changedMeanwhile);
    }
    this.onChange(members.map((m) => m.id));
    return this.view(changed, this.roleOf(user, team));
  }

  // ---- the invited ----

  /**
   * Accepts an invitation: a signed-in reader joins as they are; a visitor signs up with the invited address and
   * `password` (an account with no subscription of its own: it reads through the team). Of two accepts at once,
   * one joins; the other is told the link is used (or, the same reader clicking twice, answered as joined).
   */
  async accept(user: UserRow | null, input: unknown): Promise<{ team: Team; user: UserRow; created: boolean }> {
    const { token, password } = acceptInvitationSchema.parse(input ?? {});
    const hash = sha256(token);
    const invitation = await this.repo.invitationByHash(hash);
    const now = this.now();
    if (!invitation) throw this.dead();
    let newUser: NewUser | null = null;
    if (user) {
      const fresh = await this.fresh(user);
      if (fresh.team_id === invitation.team_id && (await this.acceptedBy(hash, fresh.id))) return this.joined(fresh, invitation.team_id, false);
      if (fresh.team_id !== null) throw badRequest(TEAM_MESSAGES.alreadyInTeam, { token: [TEAM_MESSAGES.alreadyInTeam] });
    } else {
      if (invitation.status !== 'pending' || Date.parse(invitation.expires_at) <= now.getTime()) throw this.dead();
      if (await this.repo.userByEmail(invitation.email)) throw badRequest(TEAM_MESSAGES.invitationAccountExists, { email: [TEAM_MESSAGES.invitationAccountExists] });
      if (!password) throw badRequest(ACCOUNT_ENTRY_MESSAGES.required, { password: [ACCOUNT_ENTRY_MESSAGES.required] });
      const problem = passwordProblem(password, invitation.email, isCommonPassword);
      if (problem) throw badRequest(problem, { password: [problem] });
      // Expired of its own: it reads through the team, and as an expired account once it leaves (no trial).
      newUser = await this.accounts.prepareUser({ email: invitation.email, password, status: 'expired' });
    }
    const team = await this.repo.team(invitation.team_id);
    if (!team) throw this.dead();
    // A lapsed team takes no one in: joining would give an account nothing to read and a seat of nothing.
    if (!teamIsLive(team, now)) throw badRequest(TEAM_MESSAGES.joinLapsed, { token: [TEAM_MESSAGES.joinLapsed] });
    let accepted: { teamId: number; userId: number } | null;
    try {
      accepted = await this.repo.accept({
        tokenHash: hash,
        userId: user?.id ?? null,
        newUser,
        history: (userId) => [
          ...(newUser ? [{ userId, event: 'registered', from_status: null, to_status: 'expired', detail: `invited to the team ${team.name}` }] : []),
          { userId, event: 'team_joined', from_status: newUser ? 'expired' : effectiveStatus(user!, now), to_status: 'team_member', detail: team.name },
          ...(team.owner_id ? [{ userId: team.owner_id, event: 'team_member_joined', from_status: null, to_status: null, detail: invitation.email }] : []),
        ],
        at: now.toISOString(),
      });
    } catch (err) {
      if (err instanceof TeamConflict && err.reason === 'email-taken') throw badRequest(TEAM_MESSAGES.invitationAccountExists, { email: [TEAM_MESSAGES.invitationAccountExists] });
      if (err instanceof TeamConflict && err.reason === 'already-in-team') throw badRequest(TEAM_MESSAGES.alreadyInTeam, { token: [TEAM_MESSAGES.alreadyInTeam] });
      throw err;
    }
    if (!accepted) {
      // Spent by another click: the same reader's (then they are in), else the link is dead for this one.
      if (user) {
        const fresh = await this.fresh(user);
        if (fresh.team_id === invitation.team_id && (await this.acceptedBy(hash, fresh.id))) return this.joined(fresh, invitation.team_id, false);
      }
      throw this.dead();
    }
    this.onChange([accepted.userId]);
    return this.joined((await this.repo.user(accepted.userId))!, accepted.teamId, newUser !== null);
  }

  // ---- on time, without a request ----

  /**
   * What is due at `now`: expired invitations give their seats back; active teams past their period renew (a new
   * invoice for their seats); cancelled teams past it expire, and their members stop reading. Returns how many
   * teams changed.
   */
  async runDue(): Promise<number> {
    await this.expireInvitations();
    const now = this.now();
    let changed = 0;
    for (const team of await this.repo.due(now.toISOString())) {
      if (!team.owner_id) continue;
      const members = await this.repo.members(team.id);
      if (team.status === 'cancelled') {
        const done = await this.repo.change({
          teamId: team.id,
          fromStatuses: ['cancelled'],
          set: { status: 'expired' },
          invoice: null,
          ownerId: team.owner_id,
          history: [
            { userId: team.owner_id, event: 'team_expired', from_status: 'cancelled', to_status: 'expired', detail: `${team.name}, paid until ${team.subscription_ends_at}` },
            ...members.map((m) => ({ userId: m.id, event: 'team_lapsed', from_status: 'team_member', to_status: null, detail: team.name })),
          ],
          at: now.toISOString(),
        });
        if (done) {
          this.onChange(members.map((m) => m.id));
          changed++;
        }
      } else if (team.status === 'active') {
        const plan = await this.plan(team.plan ?? 'basic');
        const start = new Date(team.subscription_ends_at ?? now.toISOString());
        const end = periodEnd(start, plan.period);
        const amount = plan.price_cents * team.seats;
        const charge = await this.provider.charge({
          userEmail: (await this.repo.user(team.owner_id))?.email ?? '',
          amountCents: amount,
          currency: plan.currency,
          description: `Lectern ${plan.name} for the team ${team.name}, ${team.seats} seats, ${day(start.toISOString())} to ${day(end.toISOString())}`,
        });
        const done = await this.repo.change({
          teamId: team.id,
          fromStatuses: ['active'],
          whileEndsAt: team.subscription_ends_at ?? undefined,
          set: { subscription_ends_at: end.toISOString() },
          invoice: this.invoice(plan, team.seats, amount, charge, start, end),
          ownerId: team.owner_id,
          history: [{ userId: team.owner_id, event: 'team_renewed', from_status: 'active', to_status: 'active', detail: `${team.name}: ${team.seats} seats until ${end.toISOString()}` }],
          at: now.toISOString(),
        });
        if (done) changed++;
        else await this.provider.void(charge.reference);
      }
    }
    return changed;
  }

  /** Closes every pending invitation whose link has expired, giving its seat back. */
  async expireInvitations(): Promise<number> {
    const now = this.now().toISOString();
    let closed = 0;
    for (const invitation of await this.repo.expiredInvitations(now)) {
      const team = await this.repo.team(invitation.team_id);
      const done = await this.repo.closeInvitation({
        teamId: invitation.team_id,
        invitationId: invitation.id,
        to: 'expired',
        history: team?.owner_id ? [{ userId: team.owner_id, event: 'team_invitation_expired', from_status: null, to_status: null, detail: invitation.email }] : [],
        at: now,
      });
      if (done) closed++;
    }
    return closed;
  }

  // ---- helpers ----

  private async fresh(user: UserRow): Promise<UserRow> {
    return (await this.repo.user(user.id)) ?? user;
  }

  private roleOf(user: UserRow, team: TeamRow): Role {
    return team.owner_id === user.id ? 'owner' : isAdmin(user) ? 'admin' : 'member';
  }

  /** The team and the caller's role in it; 404 for anyone who is neither its owner, an admin nor a member. */
  private async access(user: UserRow, teamId: number): Promise<{ team: TeamRow; role: Role }> {
    const team = await this.repo.team(teamId);
    if (!team) throw notFound(TEAM_MESSAGES.notFound);
    if (team.owner_id === user.id) return { team, role: 'owner' };
    if (isAdmin(user)) return { team, role: 'admin' };
    const fresh = await this.fresh(user);
    if (fresh.team_id === team.id) return { team, role: 'member' };
    throw notFound(TEAM_MESSAGES.notFound);
  }

  /** The team, for its owner or an admin: a member is told they may not (403), anyone else gets a 404. */
  private async manage(user: UserRow, teamId: number): Promise<{ team: TeamRow; owner: UserRow }> {
    const { team, role } = await this.access(user, teamId);
    if (role === 'member') throw new AppError(403, TEAM_MESSAGES.ownerOnly);
    const owner = team.owner_id ? await this.repo.user(team.owner_id) : undefined;
    // a team made by `users:create --team` has no owner and no subscription: nothing to manage
    if (!owner) throw notFound(TEAM_MESSAGES.notFound);
    return { team, owner };
  }

  private async plan(slug: string): Promise<PlanRow> {
    const plan = await this.plans.plan(slug);
    if (!plan) throw badRequest(`There is no ${slug} plan.`, { plan: [`There is no ${slug} plan.`] });
    return plan;
  }

  private invoice(plan: PlanRow, seats: number, amount: number, charge: { reference: string; paid: boolean }, start: Date, end: Date): TeamInvoice {
    return newInvoice({ plan, amountCents: amount, promotionCode: null, seats }, charge, this.provider.name, start, end, this.now());
  }

  private newInvitation(email: string, now: Date): { token: string; row: NewInvitation } {
    const token = randomToken(32);
    return { token, row: { email, token_hash: sha256(token), expires_at: new Date(now.getTime() + TEAM_INVITATION_TTL_MS).toISOString() } };
  }

  /**
   * Mails each link, built from PUBLIC_URL (never the request's Host). A mail server that refuses leaves the
   * invitation pending: the owner sees it in the list and can revoke it and invite again.
   */
  private async sendInvitations(team: TeamRow, owner: UserRow, links: { token: string; row: NewInvitation }[]): Promise<void> {
    const days = Math.round(TEAM_INVITATION_TTL_MS / 86_400_000);
    const results = await Promise.allSettled(
      links.map((l) =>
        this.mailer.send({
          to: l.row.email,
          subject: TEAM_MESSAGES.invitationEmailSubject(team.name),
          text: TEAM_MESSAGES.invitationEmailText(team.name, owner.email, new URL(teamPaths.acceptPage(l.token), this.publicUrl).toString(), days),
        }),
      ),
    );
    for (const r of results) if (r.status === 'rejected') console.error(`[lectern] sending a team invitation failed: ${String(r.reason)}`);
  }

  private async view(team: TeamRow, role: Role): Promise<Team> {
    const manages = role !== 'member';
    const owner = team.owner_id ? await this.repo.user(team.owner_id) : undefined;
    const members = manages ? await this.repo.members(team.id) : [];
    const invitations = manages ? await this.repo.pendingInvitations(team.id) : [];
    return {
      id: team.id,
      name: team.name,
      role,
      owner: owner ? { email: owner.email, username: owner.username } : null,
      plan: team.plan ?? null,
      status: team.status ?? null,
      subscription_ends_at: team.subscription_ends_at ?? null,
      live: teamIsLive({ status: team.status ?? null, subscription_ends_at: team.subscription_ends_at ?? null }, this.now()),
      seats: team.seats,
      seats_used: team.seats_used,
      members: members.map((m) => ({ uuid: m.uuid, email: m.email, username: m.username, is_owner: m.id === team.owner_id, joined_at: m.team_joined_at ?? null })),
      invitations: invitations.map((i) => ({ id: i.id, email: i.email, created_at: i.created_at, expires_at: i.expires_at })),
    };
  }

  private async joined(user: UserRow, teamId: number, created: boolean): Promise<{ team: Team; user: UserRow; created: boolean }> {
    const team = (await this.repo.team(teamId))!;
    return { team: await this.view(team, team.owner_id === user.id ? 'owner' : 'member'), user, created };
  }

  private noSeats(team: TeamRow): AppError {
    const message = TEAM_MESSAGES.notEnoughSeats(team.seats - team.seats_used);
    return badRequest(message, { emails: [message] });
  }

  /**
   * Whether the invitation was spent on this reader. Read again, not from the row read at the start: the reader's
   * other click may have joined between that read and the reader's own.
   */
  private async acceptedBy(tokenHash: string, userId: number): Promise<boolean> {
    return (await this.repo.invitationByHash(tokenHash))?.accepted_by === userId;
  }

  private dead(): AppError {
    return badRequest(TEAM_MESSAGES.invitationDead, { token: [TEAM_MESSAGES.invitationDead] });
  }

  private async invitationWas(teamId: number, invitationId: number, status: string): Promise<boolean> {
    return (await this.repo.invitationStatus(teamId, invitationId)) === status;
  }

  /** A member removed by an earlier click: out of the team now, and they joined it through one of its invitations. */
  private async historyShowsLeft(member: UserRow, team: TeamRow): Promise<boolean> {
    return member.team_id !== team.id && (await this.repo.joinedThroughInvitation(team.id, member.id));
  }
}
