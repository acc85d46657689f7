/**
 * Who may use the operators' console (docs/decisions.md "Operators' console: the server side"): admins everything;
 * content creators the content parts (import, titles, chapter flags); nobody else anything (401 signed out, 403 signed
 * in).
 */
import { APP_MESSAGES, MESSAGES } from '@lectern/core';
import type { UserRow } from '../db/schema.ts';
import { AppError } from '../errors.ts';

export function assertContentRole(user: Pick<UserRow, 'is_admin' | 'is_content_creator'> | null): void {
  if (!user) throw new AppError(401, MESSAGES.userNotLoggedIn);
  if (!user.is_admin && !user.is_content_creator) throw new AppError(403, APP_MESSAGES.adminOnly);
}
