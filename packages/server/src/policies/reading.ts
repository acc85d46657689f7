/**
 * Who may read what. Sample and public chapters are open to everyone (reader.md §6); the rest needs a signed-in
 * account whose subscription is live (trial or subscriber). Expired and cancelled accounts keep the catalog and
 * the samples and are asked to subscribe or reactivate (library-playlists-account.md §6).
 */
import { MESSAGES } from '@lectern/core';
import type { Flag, UserRow } from '../db/schema.ts';
import { AppError } from '../errors.ts';

export const READING_MESSAGES = {
  subscriptionEnded: 'Your subscription has ended. Subscribe or reactivate your account to read this book.',
} as const;

export function hasLiveSubscription(user: Pick<UserRow, 'status' | 'is_admin' | 'is_content_creator' | 'is_preview_creator'>): boolean {
  if (user.is_admin || user.is_content_creator || user.is_preview_creator) return true;
  return user.status === 'trial' || user.status === 'subscriber';
}

/** Throws the reason a chapter may not be read; returns when it may. */
export function assertCanReadChapter(
  user: Pick<UserRow, 'status' | 'is_admin' | 'is_content_creator' | 'is_preview_creator'> | null,
  chapter: { as_sample: Flag; is_public: Flag },
): void {
  if (chapter.as_sample || chapter.is_public) return;
  if (!user) throw new AppError(401, MESSAGES.signInToRead);
  if (!hasLiveSubscription(user)) throw new AppError(403, READING_MESSAGES.subscriptionEnded);
}

/**
 * How much of a chapter the caller gets: 'full', or 'sample' when only its bounded sample (the opening part of a
 * one-chapter book, the first pages of a PDF: `bounded`) is open to them. Throws, as assertCanReadChapter does,
 * when neither. Readers with a live subscription and public chapters always get the whole.
 */
export function chapterAccess(
  user: Pick<UserRow, 'status' | 'is_admin' | 'is_content_creator' | 'is_preview_creator'> | null,
  chapter: { as_sample: Flag; is_public: Flag },
  bounded: boolean,
): 'full' | 'sample' {
  if (chapter.is_public || (user && hasLiveSubscription(user))) return 'full';
  if (chapter.as_sample) return bounded ? 'sample' : 'full';
  assertCanReadChapter(user, chapter);
  return 'full';
}

/** The refusal of a locked chapter: for a bounded sample that does not exist (a PDF too short to give a part of). */
export function refuseChapter(user: Pick<UserRow, 'status' | 'is_admin' | 'is_content_creator' | 'is_preview_creator'> | null): never {
  assertCanReadChapter(user, { as_sample: 0, is_public: 0 });
  throw new AppError(403, READING_MESSAGES.subscriptionEnded);
}

export function assertAdmin(user: Pick<UserRow, 'is_admin'> | null, message: string): void {
  if (!user) throw new AppError(401, MESSAGES.userNotLoggedIn);
  if (!user.is_admin) throw new AppError(403, message);
}
