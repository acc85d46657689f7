/**
 * The operators' console, selling (docs/decisions.md "The console's selling"): invoices (list, unpaid first to hand),
 * teams (seats, owner, members) and a promotion code's life (its limit and end changed, its redemptions). Addresses in
 * admin.ts `adminPaths`; the same paging as every console list (`{ results, next_cursor }`, keyset, newest first).
 */
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';
import { ADMIN_PAGE_SIZE, adminPageOf } from './admin.ts';
import { ADMIN_CONSOLE_MESSAGES as M } from './console-messages.ts';
import { TEAM_STATUSES } from './teams.ts';

const limit = lazySchema(() => z.coerce.number().int(M.limitShape).min(1, M.limitShape).max(ADMIN_PAGE_SIZE.max, M.limitShape).optional());
const cursor = lazySchema(() => z.string().min(1).max(200).optional());
const search = lazySchema(() => z.string().trim().max(200).optional());

// ---------------------------------------------------------------- invoices

/** unpaid: open invoices (owed); paid; all (void ones too) */
export const ADMIN_INVOICE_STATES = ['unpaid', 'paid', 'all'] as const;
export type AdminInvoiceState = (typeof ADMIN_INVOICE_STATES)[number];

export const adminInvoicesQuerySchema = lazySchema(() => z
  .object({
    cursor,
    limit,
    /** default all */
    state: z.enum(ADMIN_INVOICE_STATES, M.unknownInvoiceState).optional(),
    /** part of the account's email */
    q: search,
  })
  .strict());
export type AdminInvoicesQuery = z.infer<typeof adminInvoicesQuerySchema>;

export const adminInvoiceRowSchema = lazySchema(() => z.object({
  id: z.number().int(),
  created_at: z.string(),
  /** the account billed (a team's invoice: its owner) */
  account: z.object({ user_id: z.string(), email: z.string() }),
  plan: z.string(),
  amount_cents: z.number().int(),
  currency: z.string(),
  status: z.enum(['open', 'paid', 'void']),
  promotion_code: z.string().nullable(),
  period_start: z.string(),
  period_end: z.string(),
  paid_at: z.string().nullable(),
  /** the team whose seats it pays for (null: the account's own subscription) */
  team: z.object({ team_id: z.string(), name: z.string() }).nullable(),
  seats: z.number().int().nullable(),
}));
export type AdminInvoiceRow = z.infer<typeof adminInvoiceRowSchema>;
export const adminInvoicePageSchema = lazySchema(() => adminPageOf(adminInvoiceRowSchema));
export type AdminInvoicePage = z.infer<typeof adminInvoicePageSchema>;

// ---------------------------------------------------------------- teams

export const adminTeamsQuerySchema = lazySchema(() => z.object({ cursor, limit, /** part of the team's name or its owner's email */ q: search }).strict());
export type AdminTeamsQuery = z.infer<typeof adminTeamsQuerySchema>;

export const adminTeamRowSchema = lazySchema(() => z.object({
  team_id: z.string(),
  name: z.string(),
  /** null for a team made by `users:create --team` */
  owner: z.object({ user_id: z.string(), email: z.string() }).nullable(),
  plan: z.string().nullable(),
  status: z.enum(TEAM_STATUSES).nullable(),
  subscription_ends_at: z.string().nullable(),
  seats: z.number().int(),
  /** members plus pending invitations: what the seat count may not go below */
  seats_used: z.number().int(),
  members: z.number().int(),
  created_at: z.string(),
}));
export type AdminTeamRow = z.infer<typeof adminTeamRowSchema>;
export const adminTeamPageSchema = lazySchema(() => adminPageOf(adminTeamRowSchema));
export type AdminTeamPage = z.infer<typeof adminTeamPageSchema>;

export const adminTeamDetailSchema = lazySchema(() => adminTeamRowSchema.extend({
  /** members read now */
  live: z.boolean(),
  /** the owner first, then by joining */
  member_list: z.array(z.object({ user_id: z.string(), email: z.string(), username: z.string(), is_owner: z.boolean(), joined_at: z.string().nullable() })),
  invitations: z.array(z.object({ id: z.number().int(), email: z.string(), created_at: z.string(), expires_at: z.string() })),
}));
export type AdminTeamDetail = z.infer<typeof adminTeamDetailSchema>;

/** PUT teamSeats: the owner's own rule (core/teams.ts seatsRequestSchema): 1..500, never below seats_used */
export const adminTeamOwnerSchema = lazySchema(() => z.object({ user_id: z.string({ message: M.memberRequired }).trim().min(1, M.memberRequired).max(100) }).strict());
export type AdminTeamOwner = z.infer<typeof adminTeamOwnerSchema>;

// ---------------------------------------------------------------- promotion codes

/** PATCH promotionCode: only what is sent changes; null removes the limit or the end. */
export const adminPromotionCodePatchSchema = lazySchema(() => z
  .object({
    usage_limit: z.number({ message: M.usageLimitShape }).int(M.usageLimitShape).min(1, M.usageLimitShape).max(10_000_000, M.usageLimitShape).nullable().optional(),
    /** an ISO instant; in the past (or now) ends the code at once */
    expires_at: z.iso.datetime({ offset: true, message: M.dateShape }).nullable().optional(),
  })
  .strict()
  .refine((v) => v.usage_limit !== undefined || v.expires_at !== undefined, { message: M.nothingToChangeCode, path: ['usage_limit'] }));
export type AdminPromotionCodePatch = z.infer<typeof adminPromotionCodePatchSchema>;

export const adminRedemptionSchema = lazySchema(() => z.object({
  invoice_id: z.number().int(),
  at: z.string(),
  account: z.object({ user_id: z.string(), email: z.string() }),
  plan: z.string(),
  /** what was charged after the code */
  amount_cents: z.number().int(),
  currency: z.string(),
}));
export type AdminRedemption = z.infer<typeof adminRedemptionSchema>;
export const adminRedemptionPageSchema = lazySchema(() => adminPageOf(adminRedemptionSchema));
export type AdminRedemptionPage = z.infer<typeof adminRedemptionPageSchema>;
