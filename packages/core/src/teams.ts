/**
 * Teams (library-playlists-account.md §1 "team members", "team plans", §2 "team sign-up page with
 * add-another-member"): an owner buys seats on a plan, invites members by email with a one-time, expiring link, and
 * removes them; a member reads while the team's subscription is live. The spec gives these calls no paths; ours are
 * below and in docs/decisions.md "Teams".
 */
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';
import { PASSWORD_MAX_LENGTH } from './constants.ts';
import { PLANS } from './account-entry.ts';
import { ACCOUNT_ENTRY_MESSAGES, TEAM_MESSAGES } from './messages.ts';

/** How long an invitation link works. */
export const TEAM_INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Seats one team may buy (the owner's own seat included). */
export const TEAM_SEATS_MAX = 500;
/** Addresses one invitation request may name (the sign-up page and the account page send a list). */
export const TEAM_INVITE_BATCH_MAX = 50;
/**
 * Invitations one account may send in 24 hours beyond its team's seats: revoking gives a seat back at once, so
 * without a daily bound an invite-and-revoke loop would send mail from the library's address without end.
 */
export const TEAM_EXTRA_INVITES_PER_DAY = 50;
export const TEAM_NAME_MAX = 100;

const email = lazySchema(() => z
  .string({ message: ACCOUNT_ENTRY_MESSAGES.required })
  .trim()
  .toLowerCase()
  .min(1, ACCOUNT_ENTRY_MESSAGES.required)
  .max(254, ACCOUNT_ENTRY_MESSAGES.emailShape)
  .email(ACCOUNT_ENTRY_MESSAGES.emailShape));

const emails = lazySchema(() => z
  .array(email)
  .max(TEAM_INVITE_BATCH_MAX, TEAM_MESSAGES.tooManyAtOnce(TEAM_INVITE_BATCH_MAX))
  .refine((list) => new Set(list).size === list.length, { message: TEAM_MESSAGES.sameEmailTwice }));

const seats = lazySchema(() => z
  .number({ message: TEAM_MESSAGES.seatsNumber })
  .int(TEAM_MESSAGES.seatsNumber)
  .min(1, TEAM_MESSAGES.seatsNumber)
  .max(TEAM_SEATS_MAX, TEAM_MESSAGES.seatsMax(TEAM_SEATS_MAX)));

/**
 * What a team name may not hold: it goes into the invitation's subject and text, so line breaks (C0/C1 controls,
 * U+2028/2029) would let an owner write lines of their own into a mail sent from the library's address, and bidi
 * controls would let them disguise what it says.
 */
// eslint-disable-next-line no-control-regex
const NOT_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

export const createTeamRequestSchema = lazySchema(() => z
  .object({
    name: z
      .string({ message: ACCOUNT_ENTRY_MESSAGES.required })
      .trim()
      .min(1, ACCOUNT_ENTRY_MESSAGES.required)
      .max(TEAM_NAME_MAX, TEAM_MESSAGES.nameMax(TEAM_NAME_MAX))
      .refine((name) => !NOT_ONE_LINE.test(name), TEAM_MESSAGES.nameOneLine),
    plan: z.enum(PLANS, { message: ACCOUNT_ENTRY_MESSAGES.planChoice }),
    /** the owner's own seat included */
    seats,
    /** the members to invite at once (empty: invite later from the account page) */
    emails: emails.default([]),
  })
  .superRefine((v, ctx) => {
    if (v.emails.length > v.seats - 1) ctx.addIssue({ code: 'custom', path: ['emails'], message: TEAM_MESSAGES.notEnoughSeats(v.seats - 1) });
  }));
export type CreateTeamRequest = z.input<typeof createTeamRequestSchema>;

export const inviteRequestSchema = lazySchema(() => z.object({ emails: emails.min(1, ACCOUNT_ENTRY_MESSAGES.required) }));
export const seatsRequestSchema = lazySchema(() => z.object({ seats }));

export const invitationTokenQuerySchema = lazySchema(() => z.object({
  token: z.string().min(1, TEAM_MESSAGES.invitationDead).max(200, TEAM_MESSAGES.invitationDead),
}));
export const acceptInvitationSchema = lazySchema(() => z.object({
  token: z.string().min(1, TEAM_MESSAGES.invitationDead).max(200, TEAM_MESSAGES.invitationDead),
  /** a visitor signs up with the invited address and this password; a signed-in reader sends none */
  password: z.string().max(PASSWORD_MAX_LENGTH).optional(),
}));

export const TEAM_STATUSES = ['active', 'cancelled', 'expired'] as const;
export type TeamStatus = (typeof TEAM_STATUSES)[number];

export const teamMemberSchema = lazySchema(() => z.object({
  uuid: z.string(),
  email: z.string(),
  username: z.string(),
  is_owner: z.boolean(),
  joined_at: z.string().nullable(),
}));
export type TeamMember = z.infer<typeof teamMemberSchema>;

export const teamInvitationSchema = lazySchema(() => z.object({
  id: z.number().int(),
  email: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
}));
export type TeamInvitation = z.infer<typeof teamInvitationSchema>;

/**
 * One team as the caller may see it: the owner (and an admin) get the members, the invitations and the seat
 * counts; a member gets the team's name, owner and state (not the other members' addresses).
 */
export const teamSchema = lazySchema(() => z.object({
  id: z.number().int(),
  name: z.string(),
  role: z.enum(['owner', 'member', 'admin']),
  owner: z.object({ email: z.string(), username: z.string() }).nullable(),
  plan: z.string().nullable(),
  status: z.enum(TEAM_STATUSES).nullable(),
  subscription_ends_at: z.string().nullable(),
  /** members read now (the subscription is active, or cancelled but still in its paid period) */
  live: z.boolean(),
  seats: z.number().int(),
  seats_used: z.number().int(),
  members: z.array(teamMemberSchema),
  invitations: z.array(teamInvitationSchema),
}));
export type Team = z.infer<typeof teamSchema>;
export const myTeamSchema = lazySchema(() => z.object({ team: teamSchema.nullable() }));

/** What an invitation link offers, to whoever holds it. */
export const invitationInfoSchema = lazySchema(() => z.object({
  team_name: z.string(),
  owner_email: z.string().nullable(),
  email: z.string(),
  expires_at: z.string(),
  /** an account already uses the invited address (a visitor signs in instead of signing up) */
  account_exists: z.boolean(),
}));
export type InvitationInfo = z.infer<typeof invitationInfoSchema>;
