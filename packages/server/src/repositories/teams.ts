/**
 * Teams (docs/decisions.md "Teams"): a team's subscription and seats, its members (users.team_id) and its invitations.
 * Every change is one transaction with its account-history entries, made only from the state it expects
 * (compare-and-set, as in repositories/subscriptions.ts): the seats in use are a counter taken with `seats_used + n <=
 * seats`, an invitation is spent with `status = 'pending'`, a member is removed with `team_id = team` — so two clicks
 * at once use one seat, accept an invitation once and remove a member once.
 */
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database, InvoiceRow, NewUser, TeamInvitationRow, TeamRow, UserRow } from '../db/schema.ts';
import type { HistoryEntry } from './account-entry.ts';
import { isUniqueViolation } from './conflicts.ts';

type TeamStatus = 'active' | 'cancelled' | 'expired';
type Trx = Transaction<Database>;
export type TeamInvoice = Omit<InvoiceRow, 'id' | 'user_id' | 'team_id'>;
export interface NewInvitation {
  email: string;
  token_hash: string;
  expires_at: string;
}
/** A history entry for one account. */
export type AccountEvent = HistoryEntry & { userId: number };

/** What refused a change: the rows had moved on, or a rule stated by the caller's expectation. */
export class TeamConflict extends Error {
  constructor(readonly reason: 'owner-in-team' | 'no-seats' | 'already-invited' | 'already-in-team' | 'email-taken' | 'moved-on') {
    super(reason);
  }
}

/**
 * One seat back, never below none: a team no one bought (`users:create --team`) counts no seats, yet its members
 * may leave it.
 */
const freeOneSeat = sql<number>`case when seats_used > 0 then seats_used - 1 else 0 end`;

/** A team's subscription lets its members read at `now` (as policies/reading.ts teamIsLive says), in SQL. */
const liveAt = (now: string) => sql<boolean>`(status = 'active' or (status = 'cancelled' and subscription_ends_at > ${now}))`;

export class TeamsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  team(id: number): Promise<TeamRow | undefined> {
    return this.db.selectFrom('teams').selectAll().where('id', '=', id).executeTakeFirst();
  }

  user(id: number): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  userByUuid(uuid: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('uuid', '=', uuid).executeTakeFirst();
  }

  userByEmail(email: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
  }

  members(teamId: number): Promise<Pick<UserRow, 'id' | 'uuid' | 'email' | 'username' | 'team_joined_at'>[]> {
    return this.db
      .selectFrom('users')
      .select(['id', 'uuid', 'email', 'username', 'team_joined_at'])
      .where('team_id', '=', teamId)
      .orderBy('team_joined_at')
      .orderBy('id')
      .execute();
  }

  /** How many invitations this account has sent since `since` (ISO), whatever became of them. */
  async invitationsSentSince(invitedBy: number, since: string): Promise<number> {
    const row = await this.db
      .selectFrom('team_invitations')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('invited_by', '=', invitedBy)
      .where('created_at', '>', since)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  pendingInvitations(teamId: number): Promise<TeamInvitationRow[]> {
    return this.db.selectFrom('team_invitations').selectAll().where('team_id', '=', teamId).where('status', '=', 'pending').orderBy('id').execute();
  }

  invitationByHash(tokenHash: string): Promise<TeamInvitationRow | undefined> {
    return this.db.selectFrom('team_invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  async invitationStatus(teamId: number, invitationId: number): Promise<string | undefined> {
    const row = await this.db.selectFrom('team_invitations').select('status').where('id', '=', invitationId).where('team_id', '=', teamId).executeTakeFirst();
    return row?.status;
  }

  async joinedThroughInvitation(teamId: number, userId: number): Promise<boolean> {
    const row = await this.db.selectFrom('team_invitations').select('id').where('team_id', '=', teamId).where('accepted_by', '=', userId).executeTakeFirst();
    return row !== undefined;
  }

  private async history(trx: Trx, events: readonly AccountEvent[], at: string): Promise<void> {
    if (!events.length) return;
    await trx
      .insertInto('account_history')
      .values(events.map(({ userId, detail, ...e }) => ({ user_id: userId, ...e, detail: detail ?? '', at })))
      .execute();
  }

  private async insertInvitations(trx: Trx, teamId: number, invitedBy: number, list: readonly NewInvitation[], at: string): Promise<void> {
    if (!list.length) return;
    await trx
      .insertInto('team_invitations')
      .values(list.map((i) => ({ team_id: teamId, email: i.email, token_hash: i.token_hash, expires_at: i.expires_at, status: 'pending' as const, invited_by: invitedBy, accepted_by: null, created_at: at, closed_at: null })))
      .execute();
  }

  /**
   * A new team owned by `ownerId`, who takes its first seat; the invitations take one more each. Refused
   * ('owner-in-team') when the owner is in a team already — also when another request just made them one.
   */
  create(c: {
    ownerId: number;
    name: string;
    plan: string;
    seats: number;
    endsAt: string;
    invoice: TeamInvoice;
    invitations: readonly NewInvitation[];
    history: readonly AccountEvent[];
    at: string;
  }): Promise<TeamRow> {
    return this.run(async (trx) => {
      const team = await trx
        .insertInto('teams')
        .values({ name: c.name, created_at: c.at, owner_id: c.ownerId, plan: c.plan, seats: c.seats, seats_used: 1 + c.invitations.length, status: 'active', subscription_ends_at: c.endsAt })
        .returningAll()
        .executeTakeFirstOrThrow()
        .catch((err: unknown) => {
          // one team per owner (teams_owner_idx): another request made theirs first
          throw isUniqueViolation(err) ? new TeamConflict('owner-in-team') : err;
        });
      const joined = await trx.updateTable('users').set({ team_id: team.id, team_joined_at: c.at }).where('id', '=', c.ownerId).where('team_id', 'is', null).executeTakeFirst();
      if (Number(joined.numUpdatedRows) !== 1) throw new TeamConflict('owner-in-team');
      await trx.insertInto('invoices').values({ ...c.invoice, user_id: c.ownerId, team_id: team.id }).execute();
      await this.insertInvitations(trx, team.id, c.ownerId, c.invitations, c.at);
      await this.history(trx, c.history, c.at);
      return team;
    });
  }

  /** Takes a seat per invitation while seats are free and the team is live; 'no-seats' / 'already-invited' otherwise. */
  invite(c: { teamId: number; invitedBy: number; invitations: readonly NewInvitation[]; history: readonly AccountEvent[]; at: string }): Promise<void> {
    return this.run(async (trx) => {
      const n = c.invitations.length;
      const taken = await trx
        .updateTable('teams')
        .set({ seats_used: sql`seats_used + ${n}` })
        .where('id', '=', c.teamId)
        .where(sql<boolean>`seats_used + ${n} <= seats`)
        .where(liveAt(c.at))
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) !== 1) throw new TeamConflict('no-seats');
      await this.insertInvitations(trx, c.teamId, c.invitedBy, c.invitations, c.at);
      await this.history(trx, c.history, c.at);
    });
  }

  /** pending -> revoked (or expired), giving its seat back; false when it was not pending (a second click). */
  closeInvitation(c: { teamId: number; invitationId: number; to: 'revoked' | 'expired'; history: readonly AccountEvent[]; at: string }): Promise<boolean> {
    return this.run(async (trx) => {
      const closed = await trx
        .updateTable('team_invitations')
        .set({ status: c.to, closed_at: c.at })
        .where('id', '=', c.invitationId)
        .where('team_id', '=', c.teamId)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      if (Number(closed.numUpdatedRows) !== 1) return false;
      await trx.updateTable('teams').set({ seats_used: freeOneSeat }).where('id', '=', c.teamId).execute();
      await this.history(trx, c.history, c.at);
      return true;
    });
  }

  /** Pending invitations whose link has expired by `now` (the due job closes them and frees their seats). */
  expiredInvitations(now: string, limit = 500): Promise<TeamInvitationRow[]> {
    return this.db.selectFrom('team_invitations').selectAll().where('status', '=', 'pending').where('expires_at', '<=', now).orderBy('id').limit(limit).execute();
  }

  /** The member leaves the team, giving its seat back; false when they were not in it (a second click). */
  removeMember(c: { teamId: number; userId: number; history: readonly AccountEvent[]; at: string }): Promise<boolean> {
    return this.run(async (trx) => {
      const left = await trx.updateTable('users').set({ team_id: null, team_joined_at: null }).where('id', '=', c.userId).where('team_id', '=', c.teamId).executeTakeFirst();
      if (Number(left.numUpdatedRows) !== 1) return false;
      await trx.updateTable('teams').set({ seats_used: freeOneSeat }).where('id', '=', c.teamId).execute();
      await this.history(trx, c.history, c.at);
      return true;
    });
  }

  /**
   * Spends a live invitation on an account: `userId` (signed in) or `newUser` (made here, with its 'registered'
   * entry). The invitation's seat becomes the member's. Null when the invitation is not pending or has expired;
   * 'already-in-team' / 'email-taken' undo everything.
   */
  accept(c: {
    tokenHash: string;
    userId: number | null;
    newUser: NewUser | null;
    history: (userId: number, teamId: number) => AccountEvent[];
    at: string;
  }): Promise<{ teamId: number; userId: number } | null> {
    return this.run(async (trx) => {
      const spent = await trx
        .updateTable('team_invitations')
        .set({ status: 'accepted', closed_at: c.at })
        .where('token_hash', '=', c.tokenHash)
        .where('status', '=', 'pending')
        .where('expires_at', '>', c.at)
        .returning(['id', 'team_id'])
        .executeTakeFirst();
      if (!spent) return null;
      let userId = c.userId;
      if (c.newUser) {
        const made = await trx
          .insertInto('users')
          .values({ ...c.newUser, team_id: spent.team_id, team_joined_at: c.at })
          .returning('id')
          .executeTakeFirstOrThrow()
          .catch((err: unknown) => {
            throw isUniqueViolation(err) ? new TeamConflict('email-taken') : err;
          });
        userId = made.id;
      } else {
        const joined = await trx
          .updateTable('users')
          .set({ team_id: spent.team_id, team_joined_at: c.at })
          .where('id', '=', userId!)
          .where('team_id', 'is', null)
          .executeTakeFirst();
        if (Number(joined.numUpdatedRows) !== 1) throw new TeamConflict('already-in-team');
      }
      await trx.updateTable('team_invitations').set({ accepted_by: userId! }).where('id', '=', spent.id).execute();
      await this.history(trx, c.history(userId!, spent.team_id), c.at);
      return { teamId: spent.team_id, userId: userId! };
    });
  }

  /** The seat count, from the count the owner saw; never below the seats in use. False when either moved on. */
  setSeats(c: { teamId: number; from: number; to: number; invoice: TeamInvoice | null; ownerId: number | null; history: readonly AccountEvent[]; at: string }): Promise<boolean> {
    return this.run(async (trx) => {
      const set = await trx
        .updateTable('teams')
        .set({ seats: c.to })
        .where('id', '=', c.teamId)
        .where('seats', '=', c.from)
        .where('seats_used', '<=', c.to)
        .executeTakeFirst();
      if (Number(set.numUpdatedRows) !== 1) return false;
      if (c.invoice && c.ownerId !== null) await trx.insertInto('invoices').values({ ...c.invoice, user_id: c.ownerId, team_id: c.teamId }).execute();
      await this.history(trx, c.history, c.at);
      return true;
    });
  }

  /**
   * The team's owner, from the one the operator saw (null: none) to a member of it still in it; false when either
   * moved on. The unique owner index keeps one team per owner (a member is in this team only, so owns no other).
   */
  changeOwner(c: { teamId: number; from: number | null; to: number; history: readonly AccountEvent[]; at: string }): Promise<boolean> {
    return this.run(async (trx) => {
      const set = await trx
        .updateTable('teams')
        .set({ owner_id: c.to })
        .where('id', '=', c.teamId)
        .where((eb) => (c.from === null ? eb('owner_id', 'is', null) : eb('owner_id', '=', c.from)))
        .where((eb) => eb.exists(eb.selectFrom('users').select('id').where('id', '=', c.to).where('team_id', '=', c.teamId)))
        .executeTakeFirst();
      if (Number(set.numUpdatedRows) !== 1) return false;
      await this.history(trx, c.history, c.at);
      return true;
    });
  }

  /**
   * A change of the team's subscription state, made only from `fromStatuses` (and, for a renewal, only while the
   * period still ends at `whileEndsAt`), with its invoice and history entries. Null when the team had moved on.
   */
  change(c: {
    teamId: number;
    fromStatuses: readonly TeamStatus[];
    whileEndsAt?: string;
    set: { status?: TeamStatus; subscription_ends_at?: string };
    invoice: TeamInvoice | null;
    ownerId: number;
    history: readonly AccountEvent[];
    at: string;
  }): Promise<TeamRow | null> {
    return this.run(async (trx) => {
      const team = await trx
        .updateTable('teams')
        .set(c.set)
        .where('id', '=', c.teamId)
        .where('status', 'in', [...c.fromStatuses])
        .$if(c.whileEndsAt !== undefined, (q) => q.where('subscription_ends_at', '=', c.whileEndsAt!))
        .returningAll()
        .executeTakeFirst();
      if (!team) return null;
      if (c.invoice) await trx.insertInto('invoices').values({ ...c.invoice, user_id: c.ownerId, team_id: c.teamId }).execute();
      await this.history(trx, c.history, c.at);
      return team;
    });
  }

  /** Teams whose paid period has ended by `now`: active ones renew, cancelled ones expire. */
  due(now: string, limit = 500): Promise<TeamRow[]> {
    return this.db
      .selectFrom('teams')
      .selectAll()
      .where('status', 'in', ['active', 'cancelled'])
      .where('subscription_ends_at', 'is not', null)
      .where('subscription_ends_at', '<=', now)
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  async memberIds(teamId: number): Promise<number[]> {
    return (await this.db.selectFrom('users').select('id').where('team_id', '=', teamId).execute()).map((r) => r.id);
  }

  /** Runs `work` in a transaction; a TeamConflict thrown inside undoes it and is thrown again outside. */
  private async run<T>(work: (trx: Trx) => Promise<T>): Promise<T> {
    try {
      return await this.db.transaction().execute(work);
    } catch (err) {
      if (err instanceof TeamConflict) throw err;
      // two invitations of one address at once: the unique pending index refused the second
      if (isUniqueViolation(err)) throw new TeamConflict('already-invited');
      throw err;
    }
  }
}
