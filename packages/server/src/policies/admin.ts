/**
 * Who may use the operators' console (docs/decisions.md "Operators' console: the server side"): admins everything;
 * content creators the content parts (import, titles, chapter flags); nobody else anything (401 signed out, 403 signed
 * in). And who may write preview annotations (preview creators and admins). Routes and services ask here; none of
 * them reads a role flag itself.
 */
import { APP_MESSAGES, MESSAGES } from '@lectern/core';
import type { UserRow } from '../db/schema.ts';
import { AppError } from '../errors.ts';

export function assertContentRole(user: Pick<UserRow, 'is_admin' | 'is_content_creator'> | null): void {
  if (!user) throw new AppError(401, MESSAGES.userNotLoggedIn);
  if (!user.is_admin && !user.is_content_creator) throw new AppError(403, APP_MESSAGES.adminOnly);
}

/** An admin: who runs the console, and may manage any team and any annotation (services ask here, not the flag). */
export function isAdmin(user: Pick<UserRow, 'is_admin'> | null): boolean {
  return !!user?.is_admin;
}

/** Admins only: 401 signed out, 403 with `message` for anyone else signed in. */
export function assertAdmin(user: Pick<UserRow, 'is_admin'> | null, message: string): void {
  if (!user) throw new AppError(401, MESSAGES.userNotLoggedIn);
  if (!user.is_admin) throw new AppError(403, message);
}

/**
 * Preview creators and admins (preview annotations): `message` with 401 for a caller without a token, 403 for anyone
 * else (the Annotator API says why in its own words either way).
 */
export function assertPreviewRole(user: Pick<UserRow, 'is_admin' | 'is_preview_creator'> | null, message: string): void {
  if (!user?.is_admin && !user?.is_preview_creator) throw new AppError(user ? 403 : 401, message);
}
