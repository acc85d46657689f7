/**
 * Who may use which part of the console (core/admin.ts: role admin everywhere; content creators only the content
 * parts). The server refuses the rest with 403 anyway; the console does not offer it.
 */
import type { AccountProfile } from '@lectern/core';

export type Access = 'admin' | 'content' | 'none';

export function accessOf(profile: Pick<AccountProfile, 'account'> | null): Access {
  const roles = profile?.account.roles ?? [];
  if (roles.includes('admin')) return 'admin';
  if (roles.includes('content-creator')) return 'content';
  return 'none';
}

export interface Section {
  path: string;
  label: string;
  /** content creators see it too */
  content?: boolean;
}

/** The console's sections, in the navigation's order. */
export const SECTIONS: readonly Section[] = [
  { path: '', label: 'Dashboard' },
  { path: 'import', label: 'Import', content: true },
  { path: 'titles', label: 'Titles', content: true },
  { path: 'people', label: 'People' },
  { path: 'selling', label: 'Selling' },
  { path: 'invoices', label: 'Invoices' },
  { path: 'teams', label: 'Teams' },
  { path: 'engaging', label: 'Engaging' },
  { path: 'health', label: 'Health' },
  { path: 'audit', label: 'Audit log' },
];

export const sectionsFor = (access: Access) => SECTIONS.filter((s) => access === 'admin' || (access === 'content' && s.content));

/** The console's addresses (its own: core's adminPaths are the API's). */
export const consolePaths = {
  root: '/admin/',
  section: (path: string) => `/admin/${path ? `${path}/` : ''}`,
  title: (bookId: string) => `/admin/titles/${encodeURIComponent(bookId)}/`,
  user: (userId: string) => `/admin/people/${encodeURIComponent(userId)}/`,
  team: (teamId: string) => `/admin/teams/${encodeURIComponent(teamId)}/`,
  promotionCode: (code: string) => `/admin/selling/codes/${encodeURIComponent(code)}/`,
};
