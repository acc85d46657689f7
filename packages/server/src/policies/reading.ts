/**
 * Who may read what. Sample and public chapters are open to everyone (reader.md §6); the rest needs a signed-in
 * account whose subscription is live (a trial before its end, or a subscriber). Expired and cancelled accounts,
 * and trials past their end, keep the catalog and the samples and are asked to subscribe or reactivate
 * (library-playlists-account.md §6). The same rule guards what may be recorded as read (usage events, progress).
 */
import type { AccountStatus } from '@lectern/core';
import { MESSAGES, READING_MESSAGES } from '@lectern/core';
import type { Flag, UserRow } from '../db/schema.ts';
import { AppError } from '../errors.ts';

type Account = Pick<UserRow, 'status' | 'trial_ends_at' | 'is_admin' | 'is_content_creator' | 'is_preview_creator'> & {
  subscription_ends_at?: string | null;
} & TeamReading;

/**
 * The state of the team an account is a member of, as the session reads it with the account
 * (repositories/sessions.ts): a member reads while the team's subscription is live (docs/decisions.md "Teams").
 */
export interface TeamReading {
  team_status?: string | null;
  team_ends_at?: string | null;
}

/**
 * Who asks, as every service that shapes an answer by it takes it: the signed-in account as the session reads it
 * (with its team's state), or null for a visitor.
 */
export type Viewer = (UserRow & TeamReading) | null;

/** A team's subscription is live while active (the due job renews it), or cancelled but still in its paid period. */
export function teamIsLive(team: { status: string | null; subscription_ends_at: string | null }, now: Date = new Date()): boolean {
  if (team.status === 'active') return true;
  return team.status === 'cancelled' && inPaidPeriod(team, now);
}

/** The account reads through its team now. */
export function readsThroughTeam(user: TeamReading, now: Date = new Date()): boolean {
  return !!user.team_status && teamIsLive({ status: user.team_status, subscription_ends_at: user.team_ends_at ?? null }, now);
}

/**
 * The account's status as of `now`: a trial whose end has passed reads as expired everywhere (the stored status
 * stays 'trial' until someone changes it; nothing has to run at the moment a trial ends). A trial without an end
 * date (none is created so; only a hand-edited row) stays a trial.
 */
export function effectiveStatus(
  user: Pick<UserRow, 'status' | 'trial_ends_at'> & { subscription_ends_at?: string | null },
  now: Date = new Date(),
): AccountStatus {
  if (user.status === 'trial' && user.trial_ends_at !== null && Date.parse(user.trial_ends_at) <= now.getTime()) return 'expired';
  // Likewise a cancelled account whose paid period is over (the due job stores it a minute later at most).
  if (user.status === 'cancelled' && user.subscription_ends_at && Date.parse(user.subscription_ends_at) <= now.getTime()) return 'expired';
  return user.status;
}

/**
 * A cancelled account keeps reading to the end of the period it paid for (docs/decisions.md, its "Subscriptions"
 * entry: "Cancelling is at the end of the paid period"); the scheduled job then makes it expired.
 */
export function inPaidPeriod(user: { subscription_ends_at?: string | null }, now: Date = new Date()): boolean {
  return !!user.subscription_ends_at && Date.parse(user.subscription_ends_at) > now.getTime();
}

export function hasLiveSubscription(user: Account, now: Date = new Date()): boolean {
  if (user.is_admin || user.is_content_creator || user.is_preview_creator) return true;
  const status = effectiveStatus(user, now);
  return status === 'trial' || status === 'subscriber' || (status === 'cancelled' && inPaidPeriod(user, now)) || readsThroughTeam(user, now);
}

/**
 * library-playlists-account.md §6: accounts of type Expired get no live-training banner; staff, and members reading
 * through a live team, always count as live.
 */
export function seesLiveTraining(viewer: Account | null, now: Date = new Date()): boolean {
  return !viewer || !!viewer.is_admin || effectiveStatus(viewer, now) !== 'expired' || readsThroughTeam(viewer, now);
}

/** Throws the reason a chapter may not be read; returns when it may. */
export function assertCanReadChapter(user: Account | null, chapter: { as_sample: Flag; is_public: Flag }, now: Date = new Date()): void {
  if (chapter.as_sample || chapter.is_public) return;
  if (!user) throw new AppError(401, MESSAGES.signInToRead);
  if (!hasLiveSubscription(user, now)) throw new AppError(403, READING_MESSAGES.subscriptionEnded);
}

/**
 * How much of a chapter the caller gets: 'full', or 'sample' when only its bounded sample (the opening part of a
 * one-chapter book, the first pages of a PDF: `bounded`) is open to them. Throws, as assertCanReadChapter does,
 * when neither. Readers with a live subscription and public chapters always get the whole.
 */
export function chapterAccess(
  user: Account | null,
  chapter: { as_sample: Flag; is_public: Flag },
  bounded: boolean,
): 'full' | 'sample' {
  if (chapter.is_public || (user && hasLiveSubscription(user))) return 'full';
  if (chapter.as_sample) return bounded ? 'sample' : 'full';
  assertCanReadChapter(user, chapter);
  return 'full';
}

/** The refusal of a locked chapter: for a bounded sample that does not exist (a PDF too short to give a part of). */
export function refuseChapter(user: Account | null): never {
  assertCanReadChapter(user, { as_sample: 0, is_public: 0 });
  throw new AppError(403, READING_MESSAGES.subscriptionEnded);
}
