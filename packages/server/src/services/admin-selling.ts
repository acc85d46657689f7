/**
 * The operators' selling (docs/decisions.md "The console's selling"): invoices, teams and promotion codes as the
 * console and the command line see and change them. The rules stay where readers meet them: seats, members and owners
 * in services/teams.ts, codes and invoices in services/subscriptions.ts; this adds the lists and answers in the
 * console's shapes. The caller writes the audit entry (routes: request.audit; the command line: 'cli').
 */
import {
  ADMIN_CONSOLE_MESSAGES as M,
  ADMIN_PAGE_SIZE,
  type AdminInvoicePage,
  type AdminInvoicesQuery,
  type AdminPageQuery,
  type AdminPromotionCodePatch,
  type AdminRedemptionPage,
  type AdminTeamDetail,
  type AdminTeamPage,
  type AdminTeamRow,
  type AdminTeamsQuery,
} from '@lectern/core';
import type { PromotionCodeRow } from '../db/schema.ts';
import { notFound } from '../errors.ts';
import { teamIsLive } from '../policies/reading.ts';
import type { AdminSellingRepository, InvoiceListRow, TeamListRow } from '../repositories/admin-selling.ts';
import type { TeamsRepository } from '../repositories/teams.ts';
import { decodeKeyCursor, encodeKeyCursor } from './admin-cursor.ts';
import { type SubscriptionsService, toInvoice } from './subscriptions.ts';
import type { TeamsService } from './teams.ts';

/** newest first by id: the cursor is the last id of the page */
const afterOf = (cursor: string | undefined) => (cursor === undefined ? undefined : decodeKeyCursor(cursor).id);
function pageOf<R extends { id: number }, T>(rows: R[], limit: number, map: (r: R) => T): { results: T[]; next_cursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { results: page.map(map), next_cursor: rows.length > limit && last ? encodeKeyCursor('', last.id) : null };
}

/** A team's id in a path: a positive whole number, else no such team (404). */
export function teamIdOf(raw: string): number {
  const id = /^[1-9][0-9]{0,9}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id) || id > 2 ** 31 - 1) throw notFound(M.teamNotFound);
  return id;
}

export class AdminSellingService {
  constructor(
    private readonly repo: AdminSellingRepository,
    private readonly teamsRepo: Pick<TeamsRepository, 'members' | 'pendingInvitations'>,
    private readonly teams: Pick<TeamsService, 'operatorSetSeats' | 'operatorRemoveMember' | 'changeOwner'>,
    private readonly subscriptions: Pick<SubscriptionsService, 'editPromotionCode'>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  // ---- invoices

  async invoices(q: AdminInvoicesQuery): Promise<AdminInvoicePage> {
    const limit = q.limit ?? ADMIN_PAGE_SIZE.default;
    const status = q.state === 'unpaid' ? 'open' : q.state === 'paid' ? 'paid' : null;
    const rows = await this.repo.invoices({ status, contains: q.q?.toLowerCase() || undefined, after: afterOf(q.cursor), limit });
    return pageOf(rows, limit, invoiceOf);
  }

  // ---- teams

  async teamList(q: AdminTeamsQuery): Promise<AdminTeamPage> {
    const limit = q.limit ?? ADMIN_PAGE_SIZE.default;
    const rows = await this.repo.teams({ contains: q.q?.toLowerCase() || undefined, after: afterOf(q.cursor), limit });
    return pageOf(rows, limit, teamRowOf);
  }

  async team(teamId: number): Promise<AdminTeamDetail> {
    const row = await this.repo.team(teamId);
    if (!row) throw notFound(M.teamNotFound);
    const [members, invitations] = await Promise.all([this.teamsRepo.members(teamId), this.teamsRepo.pendingInvitations(teamId)]);
    const memberList = members.map((m) => ({ user_id: m.uuid, email: m.email, username: m.username, is_owner: m.id === row.owner_id, joined_at: m.team_joined_at ?? null }));
    return {
      ...teamRowOf(row),
      live: teamIsLive({ status: row.status ?? null, subscription_ends_at: row.subscription_ends_at ?? null }, this.now()),
      // the owner first, then in the order they joined
      member_list: [...memberList.filter((m) => m.is_owner), ...memberList.filter((m) => !m.is_owner)],
      invitations: invitations.map((i) => ({ id: i.id, email: i.email, created_at: i.created_at, expires_at: i.expires_at })),
    };
  }

  async setSeats(teamId: number, input: unknown): Promise<{ team: AdminTeamDetail; changed: Record<string, [unknown, unknown]> }> {
    const { before, after } = await this.teams.operatorSetSeats(teamId, input);
    return { team: await this.team(teamId), changed: before === after.seats ? {} : { seats: [before, after.seats] } };
  }

  async setOwner(teamId: number, userId: string): Promise<{ team: AdminTeamDetail; changed: Record<string, [unknown, unknown]> }> {
    const { before, after } = await this.teams.changeOwner(teamId, userId);
    return { team: await this.team(teamId), changed: before?.id === after.id ? {} : { owner: [before?.email ?? null, after.email] } };
  }

  async removeMember(teamId: number, userId: string): Promise<{ team: AdminTeamDetail; email: string }> {
    const { member } = await this.teams.operatorRemoveMember(teamId, userId);
    return { team: await this.team(teamId), email: member.email };
  }

  // ---- promotion codes

  async editPromotionCode(code: string, patch: AdminPromotionCodePatch): Promise<{ code: PromotionCodeRow; changed: Record<string, [unknown, unknown]> }> {
    const { before, after } = await this.subscriptions.editPromotionCode(code, patch);
    const changed: Record<string, [unknown, unknown]> = {};
    if (before.usage_limit !== after.usage_limit) changed.usage_limit = [before.usage_limit, after.usage_limit];
    if (before.expires_at !== after.expires_at) changed.expires_at = [before.expires_at, after.expires_at];
    return { code: after, changed };
  }

  async redemptions(code: string, q: AdminPageQuery): Promise<AdminRedemptionPage> {
    const limit = q.limit ?? ADMIN_PAGE_SIZE.default;
    const rows = await this.repo.redemptions(code.trim().toLowerCase(), { after: afterOf(q.cursor), limit });
    return pageOf(rows, limit, (r) => ({
      invoice_id: r.id,
      at: r.created_at,
      account: { user_id: r.uuid, email: r.email },
      plan: r.plan,
      amount_cents: r.amount_cents,
      currency: r.currency,
    }));
  }
}

function invoiceOf(r: InvoiceListRow) {
  return {
    ...toInvoice(r),
    account: { user_id: r.uuid, email: r.email },
    team: r.team_id !== null && r.team_name !== null ? { team_id: String(r.team_id), name: r.team_name } : null,
    seats: r.seats,
  };
}

function teamRowOf(r: TeamListRow): AdminTeamRow {
  return {
    team_id: String(r.id),
    name: r.name,
    owner: r.owner_uuid && r.owner_email ? { user_id: r.owner_uuid, email: r.owner_email } : null,
    plan: r.plan ?? null,
    status: r.status ?? null,
    subscription_ends_at: r.subscription_ends_at ?? null,
    seats: r.seats,
    seats_used: r.seats_used,
    members: Number(r.members),
    created_at: r.created_at,
  };
}
