/**
 * The operators' console's calls (docs/decisions.md "The operators' console, web side"): the admin API (core/admin.ts,
 * core/admin-console.ts) through the one client (`api.request`, and `api.upload` for the import's progress). Only the
 * console imports this module, so its schemas travel in the console's own chunk, never in the readers' entry.
 */
import {
  marketingPaths,
  transformationOwnListSchema,
  adminAnnouncementListSchema,
  adminAnnouncementSchema,
  adminDashboardSchema,
  adminEditorsPicksSchema,
  adminEndSessionsResponseSchema,
  adminHealthSchema,
  adminInvoicePageSchema,
  adminRedemptionPageSchema,
  adminTeamDetailSchema,
  adminTeamPageSchema,
  adminLiveCoursesResponseSchema,
  adminPasswordResetResponseSchema,
  adminPaths,
  adminPromotionCodeListSchema,
  adminPromotionCodeSchema,
  adminTitleDetailSchema,
  adminNamesSchema,
  type AdminNamesQuery,
  adminTitlePageSchema,
  adminTitleReadersPageSchema,
  adminTitleWarningsSchema,
  adminUserDetailSchema,
  adminUserPageSchema,
  auditPageSchema,
  importReportSchema,
  planSchema,
  type AdminAuditQuery,
  type AdminDashboardQuery,
  type AdminInvoicesQuery,
  type AdminPromotionCodePatch,
  type AdminTeamsQuery,
  type AdminPromotionCodeInput,
  type AdminTitlePatch,
  type AdminTitlesQuery,
  type AdminUserCreate,
  type AdminUserPatch,
  type AdminUsersQuery,
  type AnnouncementRequest,
  type ImportReport,
  type LiveCourseRequest,
  type LiveEventRequest,
  type PlanInfo,
} from '@lectern/core';
import { api } from './client.ts';

export interface UploadFile {
  file: Blob;
  /** the name the server sees: a folder's files keep their folder ("course/01-intro.mp4") */
  name: string;
}

export interface ImportUploadOptions {
  /** a new edition of this book (the one file replaces its content; the book keeps its id) */
  replace?: string;
  topics?: readonly string[];
  signal?: AbortSignal;
  onProgress?: (sent: number, total: number) => void;
  onSent?: () => void;
}

/**
 * POST /api/v1/admin/import/: one request, the files of one title (a book, a media file, a folder of parts).
 * A refusal (400 with the report) is an answer: its `failed` says why, file by file.
 */
export function importFiles(files: readonly UploadFile[], opts: ImportUploadOptions = {}): Promise<ImportReport> {
  const form = new FormData();
  if (opts.topics?.length) form.append('topics', opts.topics.join(','));
  for (const f of files) form.append('file', f.file, f.name);
  return api.upload(adminPaths.import(), form, importReportSchema, {
    query: opts.replace ? { replace: opts.replace } : undefined,
    answerOn: [400],
    signal: opts.signal,
    onProgress: opts.onProgress,
    onSent: opts.onSent,
  });
}

export const adminKeys = {
  all: ['admin'] as const,
  liveCourses: ['admin', 'live-courses'] as const,
  announcements: ['admin', 'announcements'] as const,
  picks: ['admin', 'picks'] as const,
  promotionCodes: ['admin', 'promotion-codes'] as const,
  redemptions: (code: string, q: { cursor?: string }) => ['admin', 'redemptions', code, q] as const,
  invoices: (q: AdminInvoicesQuery) => ['admin', 'invoices', q] as const,
  teams: (q: AdminTeamsQuery) => ['admin', 'teams', q] as const,
  team: (teamId: string) => ['admin', 'team', teamId] as const,
  titles: (q: AdminTitlesQuery) => ['admin', 'titles', q] as const,
  names: (q: AdminNamesQuery) => ['admin', 'names', q] as const,
  title: (bookId: string) => ['admin', 'title', bookId] as const,
  titleWarnings: (bookId: string) => ['admin', 'title-warnings', bookId] as const,
  titleReaders: (bookId: string) => ['admin', 'title-readers', bookId] as const,
  users: (q: AdminUsersQuery) => ['admin', 'users', q] as const,
  user: (id: string) => ['admin', 'user', id] as const,
  audit: (q: AdminAuditQuery) => ['admin', 'audit', q] as const,
  dashboard: (q: AdminDashboardQuery) => ['admin', 'dashboard', q] as const,
  health: ['admin', 'health'] as const,
  transformation: ['admin', 'transformation-playlists'] as const,
};

export const adminApi = {
  /** the editor's own playlists, each with the topic it is published under (the home's transformation playlists) */
  transformationOwn: (signal?: AbortSignal) => api.request(marketingPaths.transformationOwn(), transformationOwnListSchema, { signal }).then((r) => r.results),
  publishTransformation: (id: string, topic: string) => api.request(marketingPaths.transformationPlaylist(id), null, { method: 'PUT', body: { topic } }),
  unpublishTransformation: (id: string) => api.request(marketingPaths.transformationPlaylist(id), null, { method: 'DELETE' }),
  // ---- selling
  setPlan: (plan: PlanInfo) => api.request(adminPaths.plan(plan.slug), planSchema, { method: 'PUT', body: plan }),
  promotionCodes: (signal?: AbortSignal) => api.request(adminPaths.promotionCodes(), adminPromotionCodeListSchema, { signal }).then((r) => r.results),
  addPromotionCode: (input: AdminPromotionCodeInput) => api.request(adminPaths.promotionCodes(), adminPromotionCodeSchema, { method: 'POST', body: input }),
  markInvoicePaid: (id: string) => api.request(adminPaths.invoicePaid(id), null, { method: 'POST', body: {} }),
  editPromotionCode: (code: string, patch: AdminPromotionCodePatch) => api.request(adminPaths.promotionCode(code), adminPromotionCodeSchema, { method: 'PATCH', body: patch }),
  redemptions: (code: string, q: { cursor?: string }, signal?: AbortSignal) =>
    api.request(adminPaths.promotionCodeRedemptions(code), adminRedemptionPageSchema, { query: q, signal }),
  invoices: (q: AdminInvoicesQuery, signal?: AbortSignal) => api.request(adminPaths.invoices(), adminInvoicePageSchema, { query: q, signal }),
  teams: (q: AdminTeamsQuery, signal?: AbortSignal) => api.request(adminPaths.teams(), adminTeamPageSchema, { query: q, signal }),
  team: (teamId: string, signal?: AbortSignal) => api.request(adminPaths.team(teamId), adminTeamDetailSchema, { signal }),
  setTeamSeats: (teamId: string, seats: number) => api.request(adminPaths.teamSeats(teamId), adminTeamDetailSchema, { method: 'PUT', body: { seats } }),
  setTeamOwner: (teamId: string, userId: string) => api.request(adminPaths.teamOwner(teamId), adminTeamDetailSchema, { method: 'PUT', body: { user_id: userId } }),
  removeTeamMember: (teamId: string, userId: string) => api.request(adminPaths.teamMember(teamId, userId), adminTeamDetailSchema, { method: 'DELETE' }),

  // ---- engaging
  liveCourses: (signal?: AbortSignal) => api.request(adminPaths.liveCourses(), adminLiveCoursesResponseSchema, { signal }).then((r) => r.results),
  addCourse: (course: LiveCourseRequest) => api.request(adminPaths.liveCourses(), null, { method: 'POST', body: course }),
  removeCourse: (id: string) => api.request(adminPaths.liveCourse(id), null, { method: 'DELETE' }),
  addEvent: (courseId: string, event: LiveEventRequest) => api.request(adminPaths.liveCourseEvents(courseId), null, { method: 'POST', body: event }),
  removeEvent: (id: string) => api.request(adminPaths.liveEvent(id), null, { method: 'DELETE' }),
  announcements: (signal?: AbortSignal) => api.request(adminPaths.announcements(), adminAnnouncementListSchema, { signal }).then((r) => r.results),
  addAnnouncement: (a: AnnouncementRequest) => api.request(adminPaths.announcements(), adminAnnouncementSchema, { method: 'POST', body: a }),
  removeAnnouncement: (id: string) => api.request(adminPaths.announcement(id), null, { method: 'DELETE' }),
  editorsPicks: (signal?: AbortSignal) => api.request(adminPaths.editorsPicks(), adminEditorsPicksSchema, { signal }).then((r) => r.book_ids),
  setEditorsPicks: (bookIds: readonly string[]) =>
    api.request(adminPaths.editorsPicks(), adminEditorsPicksSchema, { method: 'PUT', body: { book_ids: bookIds } }).then((r) => r.book_ids),

  // ---- titles
  titles: (q: AdminTitlesQuery, signal?: AbortSignal) => api.request(adminPaths.titles(), adminTitlePageSchema, { query: q, signal }),
  title: (bookId: string, signal?: AbortSignal) => api.request(adminPaths.title(bookId), adminTitleDetailSchema, { signal }),
  editTitle: (bookId: string, version: number, patch: Omit<AdminTitlePatch, 'version'>) =>
    api.request(adminPaths.title(bookId), adminTitleDetailSchema, { method: 'PATCH', body: { ...patch, version } }),
  retireTitle: (bookId: string) => api.request(adminPaths.titleRetire(bookId), adminTitleDetailSchema, { method: 'POST', body: {} }),
  restoreTitle: (bookId: string) => api.request(adminPaths.titleRestore(bookId), adminTitleDetailSchema, { method: 'POST', body: {} }),
  titleWarnings: (bookId: string, signal?: AbortSignal) => api.request(adminPaths.titleWarnings(bookId), adminTitleWarningsSchema, { signal }),
  /** PUT multipart: the title's cover (the server checks the bytes; a 400 names `file`) */
  setCover: (bookId: string, file: File) => {
    const form = new FormData();
    form.append('file', file, file.name);
    return api.upload(adminPaths.titleCover(bookId), form, adminTitleDetailSchema, { method: 'PUT' });
  },
  setScripts: (bookId: string, allow: boolean) => api.request(adminPaths.titleScripts(bookId), adminTitleDetailSchema, { method: 'PUT', body: { allow_scripts: allow } }),
  names: (q: AdminNamesQuery, signal?: AbortSignal) => api.request(adminPaths.names(), adminNamesSchema, { query: q, signal }),
  titleReaders: (bookId: string, cursor?: string, signal?: AbortSignal) =>
    api.request(adminPaths.titleReaders(bookId), adminTitleReadersPageSchema, { query: { cursor }, signal }),
  setChapterFlags: (bookId: string, fullPath: string, flags: { as_sample?: boolean; is_public?: boolean }) =>
    api.request(adminPaths.chapterFlags(bookId, fullPath), null, { method: 'PATCH', body: flags }),

  // ---- people
  users: (q: AdminUsersQuery, signal?: AbortSignal) => api.request(adminPaths.users(), adminUserPageSchema, { query: q, signal }),
  user: (id: string, signal?: AbortSignal) => api.request(adminPaths.user(id), adminUserDetailSchema, { signal }),
  editUser: (id: string, patch: AdminUserPatch) => api.request(adminPaths.user(id), adminUserDetailSchema, { method: 'PATCH', body: patch }),
  createUser: (input: AdminUserCreate) => api.request(adminPaths.users(), adminUserDetailSchema, { method: 'POST', body: input }),
  sendPasswordReset: (id: string) => api.request(adminPaths.userPasswordReset(id), adminPasswordResetResponseSchema, { method: 'POST', body: {} }),
  endSessions: (id: string) => api.request(adminPaths.userEndSessions(id), adminEndSessionsResponseSchema, { method: 'POST', body: {} }),

  // ---- seeing
  audit: (q: AdminAuditQuery, signal?: AbortSignal) => api.request(adminPaths.audit(), auditPageSchema, { query: q, signal }),
  dashboard: (q: AdminDashboardQuery, signal?: AbortSignal) => api.request(adminPaths.dashboard(), adminDashboardSchema, { query: q, signal }),
  health: (signal?: AbortSignal) => api.request(adminPaths.health(), adminHealthSchema, { signal }),
};
