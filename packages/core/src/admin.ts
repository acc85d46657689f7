/**
 * The operators' console contract (docs/decisions.md "Operators' console: the server side"): every admin route the
 * console calls, its query or body schema and what it answers. The server parses with these schemas (a 400 names the
 * field); the web console builds its calls and reads its answers with the same ones. Addresses are built by
 * `adminPaths` only.
 *
 * Who may call: role admin everywhere; role content-creator only the content parts (`CONTENT_ROUTES`: titles,
 * import, chapter flags). Everyone else: 401 signed out, 403 signed in. Unsafe methods need the CSRF header as
 * every other call. Every successful unsafe admin call (these and the older ones: import, chapter flags, plans,
 * promotion codes, invoices, editors' picks, announcements, live training) writes one audit entry.
 *
 * Paging: lists answer `{ results, next_cursor }`; pass `cursor=<next_cursor>` for the next page (keyset, stable
 * under inserts); null means the last page.
 *
 * LIVE (server implemented, API tests on both engines: packages/server/test/api/admin-console.test.ts):
 *   audit, titles (list, detail, edit, retire, restore, readers), users (list, detail, create, edit, password
 *   reset, end sessions), dashboard, health; the older routes listed below write audit entries; content creators
 *   may import and flag chapters.
 */
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';
import { ACCOUNT_STATUSES, CONTENT_FORMATS, ROLES } from './constants.ts';
import { ADMIN_CONSOLE_MESSAGES as M } from './console-messages.ts';
import { topicSchema } from './schemas.ts';

// ---------------------------------------------------------------- addresses

const enc = encodeURIComponent;

export const adminPaths = {
  /** GET: the audit log, newest first (adminAuditQuerySchema) */
  audit: () => '/api/v1/admin/audit/',
  /** GET: search and page the titles (adminTitlesQuerySchema) */
  titles: () => '/api/v1/admin/titles/',
  /** GET: one title (AdminTitleDetail); PATCH: edit it (adminTitlePatchSchema; If-Match: "<version>" or body.version) */
  title: (bookId: string) => `/api/v1/admin/titles/${enc(bookId)}/`,
  /** POST (no body): hide from the catalog; notes, positions and playlists are kept. Answers AdminTitleDetail. */
  titleRetire: (bookId: string) => `/api/v1/admin/titles/${enc(bookId)}/retire/`,
  /** POST (no body): back in the catalog. Answers AdminTitleDetail. */
  titleRestore: (bookId: string) => `/api/v1/admin/titles/${enc(bookId)}/restore/`,
  /**
   * GET: what the importer forgave in the title (AdminTitleWarnings; docs/decisions.md "A chapter that is not
   * well-formed")
   */
  titleWarnings: (bookId: string) => `/api/v1/admin/titles/${enc(bookId)}/warnings/`,
  /**
   * PUT multipart, one `file` part: the title's cover, a JPEG, PNG or WebP of at most ADMIN_COVER_LIMITS (checked by
   * its bytes and decoded size, stored without its metadata). Answers AdminTitleDetail.
   */
  titleCover: (bookId: string) => `/api/v1/admin/titles/${enc(bookId)}/cover/`,
  /** PUT adminTitleScriptsSchema: allow the title's scripts (only with a scripted origin). Answers AdminTitleDetail. */
  titleScripts: (bookId: string) => `/api/v1/admin/titles/${enc(bookId)}/scripts/`,
  /** GET: topic or publisher names for the title editor's suggestions (adminNamesQuerySchema): only those a title in the catalog carries */
  names: () => '/api/v1/admin/names/',
  /** GET: the title's readers, most minutes first (adminPageQuerySchema) */
  titleReaders: (bookId: string) => `/api/v1/admin/titles/${enc(bookId)}/readers/`,
  /** GET: search and page accounts (adminUsersQuerySchema); POST: create one (adminUserCreateSchema) */
  users: () => '/api/v1/admin/users/',
  /** GET: one account (AdminUserDetail); PATCH: role(s) and status (adminUserPatchSchema) */
  user: (userId: string) => `/api/v1/admin/users/${enc(userId)}/`,
  /** POST (no body): email the account a password reset link. 202 `{ sent: true }` */
  userPasswordReset: (userId: string) => `/api/v1/admin/users/${enc(userId)}/password-reset/`,
  /** POST (no body): sign the account out everywhere. 200 `{ ended: n }` */
  userEndSessions: (userId: string) => `/api/v1/admin/users/${enc(userId)}/end-sessions/`,
  /** GET ?from=&to=: the charts' series (AdminDashboard) */
  dashboard: () => '/api/v1/admin/dashboard/',
  /** GET: version, engine, sizes, import queue, last errors, scheduled jobs (AdminHealth) */
  health: () => '/api/v1/admin/health/',

  // Older admin routes (already live; listed so the console has one place for addresses).
  /** POST multipart `file` parts (+ `topics`); ?replace=<book_id> for a new edition. Answers ImportReport. */
  import: () => '/api/v1/admin/import/',
  /** PATCH chapterFlagsSchema */
  chapterFlags: (bookId: string, fullPath: string) => `/api/v1/admin/book/${enc(bookId)}/chapter/${fullPath.split('/').map(enc).join('/')}`,
  /** PUT: a plan's name, price, currency, period */
  plan: (slug: string) => `/api/v2/admin/plans/${enc(slug)}/`,
  /** GET list, POST create */
  promotionCodes: () => '/api/v2/admin/promotion-codes/',
  /** POST: mark paid */
  invoicePaid: (id: string) => `/api/v2/admin/invoices/${enc(id)}/paid/`,
  /** GET: page the invoices, newest first (adminInvoicesQuerySchema in admin-selling.ts) */
  invoices: () => '/api/v2/admin/invoices/',
  /** PATCH: a code's redemption limit and end (adminPromotionCodePatchSchema). Answers the code. */
  promotionCode: (code: string) => `/api/v2/admin/promotion-codes/${enc(code)}/`,
  /** GET: who redeemed the code, newest first (adminPageQuerySchema) */
  promotionCodeRedemptions: (code: string) => `/api/v2/admin/promotion-codes/${enc(code)}/redemptions/`,
  /** GET: search and page the teams, newest first (adminTeamsQuerySchema) */
  teams: () => '/api/v1/admin/teams/',
  /** GET: one team with its members (AdminTeamDetail) */
  team: (teamId: string) => `/api/v1/admin/teams/${enc(teamId)}/`,
  /** PUT { seats }: the seat count (never below the seats in use). Answers AdminTeamDetail. */
  teamSeats: (teamId: string) => `/api/v1/admin/teams/${enc(teamId)}/seats/`,
  /** PUT { user_id }: a member becomes the owner. Answers AdminTeamDetail. */
  teamOwner: (teamId: string) => `/api/v1/admin/teams/${enc(teamId)}/owner/`,
  /** DELETE: the member leaves the team (keeping their notes, playlists and progress). Answers AdminTeamDetail. */
  teamMember: (teamId: string, userId: string) => `/api/v1/admin/teams/${enc(teamId)}/members/${enc(userId)}/`,
  /** GET, PUT */
  editorsPicks: () => '/api/v2/admin/editors-picks/',
  /** GET list, POST create */
  announcements: () => '/api/v2/admin/announcements/',
  /** DELETE */
  announcement: (id: string) => `/api/v2/admin/announcements/${enc(id)}/`,
  /** GET list, POST create */
  liveCourses: () => '/api/v1/admin/live-training/courses/',
  /** DELETE */
  liveCourse: (id: string) => `/api/v1/admin/live-training/courses/${enc(id)}/`,
  /** POST: an event of the course */
  liveCourseEvents: (id: string) => `/api/v1/admin/live-training/courses/${enc(id)}/events/`,
  /** DELETE */
  liveEvent: (id: string) => `/api/v1/admin/live-training/events/${enc(id)}/`,
} as const;

/** The parts of the console a content creator may use (everything else is admin only). */
export const CONTENT_ROUTES = ['titles', 'titleWarnings', 'import', 'chapterFlags'] as const satisfies readonly (keyof typeof adminPaths)[];

export const ADMIN_PAGE_SIZE = { default: 50, max: 200 } as const;

// ---------------------------------------------------------------- shared pieces

/** A day (2026-05-01, the whole day in UTC) or an ISO instant. */
const when = lazySchema(() => z
  .string()
  .max(40)
  .refine(
    (s) => (/^\d{4}-\d{2}-\d{2}$/.test(s) ? !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) : z.iso.datetime({ offset: true }).safeParse(s).success),
    M.dateShape,
  ));
const utc = lazySchema(() => z.string());
/** query values arrive as text */
const limit = lazySchema(() => z.coerce.number().int(M.limitShape).min(1, M.limitShape).max(ADMIN_PAGE_SIZE.max, M.limitShape).optional());
const cursor = lazySchema(() => z.string().min(1).max(200).optional());
const search = lazySchema(() => z.string().trim().max(200).optional());

export const adminPageQuerySchema = lazySchema(() => z.object({ cursor, limit }).strict());
export type AdminPageQuery = z.infer<typeof adminPageQuerySchema>;

export const adminPageOf = <T extends z.ZodTypeAny>(item: T) => z.object({ results: z.array(item), next_cursor: z.string().nullable() });

// ---------------------------------------------------------------- audit log

/** what an entry is about */
export const AUDIT_TARGET_KINDS = ['title', 'chapter', 'user', 'plan', 'promotion-code', 'invoice', 'editors-picks', 'announcement', 'live-course', 'live-event', 'import', 'team', 'transformation-playlist'] as const;
export type AuditTargetKind = (typeof AUDIT_TARGET_KINDS)[number];

export const adminAuditQuerySchema = lazySchema(() => z
  .object({
    cursor,
    limit,
    /** the actor's email, exact (case-insensitive) */
    actor: z.string().trim().max(320).optional(),
    /** an action name, exact (e.g. title.edit) */
    action: z.string().trim().max(80).optional(),
    target_kind: z.enum(AUDIT_TARGET_KINDS, M.unknownTargetKind).optional(),
    target_id: z.string().trim().max(200).optional(),
    from: when.optional(),
    to: when.optional(),
  })
  .strict());
export type AdminAuditQuery = z.infer<typeof adminAuditQuerySchema>;

export const auditEntrySchema = lazySchema(() => z.object({
  id: z.string(),
  at: utc,
  /** who: the account (null when the command line did it, or the account is gone) */
  actor: z.object({ user_id: z.string(), email: z.string() }).nullable(),
  /** 'cli' for the command line, else the account's email at the time */
  actor_label: z.string(),
  /**
   * what, as `<kind>.<verb>`: import, import.replace, chapter.flags, title.edit, title.retire, title.restore,
   * user.create, user.edit, user.password-reset, user.end-sessions, plan.set, promotion-code.create,
   * promotion-code.edit, invoice.paid, team.seats, team.owner, team.remove-member,
   * editors-picks.set, announcement.create, announcement.remove, live-course.create, live-course.remove,
   * live-event.create, live-event.remove
   */
  action: z.string(),
  target_kind: z.string(),
  target_id: z.string().nullable(),
  /** what changed (field: [before, after] for edits), without secrets */
  detail: z.record(z.string(), z.unknown()),
  /** from where: the client's address as the server saw it (null from the command line) */
  ip: z.string().nullable(),
}));
export type AuditEntry = z.infer<typeof auditEntrySchema>;
export const auditPageSchema = lazySchema(() => adminPageOf(auditEntrySchema));
export type AuditPage = z.infer<typeof auditPageSchema>;

// ---------------------------------------------------------------- titles

/**
 * What the importer forgave in a title (docs/decisions.md "A chapter that is not well-formed"), for operators: its
 * warnings in plain English, and the chapters shown recovered because their XHTML is not well-formed XML (readers see a
 * notice on them). `recorded` is false for a title imported before warnings were kept (import it again to see them).
 */
export const adminTitleWarningsSchema = lazySchema(() => z.object({
  recorded: z.boolean(),
  warnings: z.array(z.string()),
  recovered_chapters: z.array(z.object({ full_path: z.string(), label: z.string(), problem: z.string() })),
}));
export type AdminTitleWarnings = z.infer<typeof adminTitleWarningsSchema>;

export const ADMIN_TITLE_STATES = ['active', 'retired', 'all'] as const;

export const adminTitlesQuerySchema = lazySchema(() => z
  .object({
    cursor,
    limit,
    /** words of the title or an author's name (prefix match), or a book id */
    q: search,
    /** default active */
    state: z.enum(ADMIN_TITLE_STATES, M.unknownTitleState).optional(),
    content_format: z.enum(CONTENT_FORMATS).optional(),
  })
  .strict());
export type AdminTitlesQuery = z.infer<typeof adminTitlesQuerySchema>;

export const adminTitleRowSchema = lazySchema(() => z.object({
  book_id: z.string(),
  title: z.string(),
  authors: z.array(z.string()),
  content_format: z.enum(CONTENT_FORMATS),
  language: z.string().nullable(),
  publisher: z.string().nullable(),
  created_at: utc,
  /** when it was retired (hidden from the catalog); null when in the catalog */
  retired_at: utc.nullable(),
  editors_pick: z.boolean(),
  /** the title's edit version: send it back with a PATCH */
  version: z.number().int(),
  /** the title's cover for a thumbnail (null when none) */
  cover_url: z.string().nullable(),
}));
export type AdminTitleRow = z.infer<typeof adminTitleRowSchema>;
export const adminTitlePageSchema = lazySchema(() => adminPageOf(adminTitleRowSchema));
export type AdminTitlePage = z.infer<typeof adminTitlePageSchema>;

export const adminTitleStatsSchema = lazySchema(() => z.object({
  /** accounts that read any of it */
  readers: z.number().int(),
  /** minutes of reading recorded (usage events) */
  minutes_read: z.number(),
  /** readers who finished it (every chapter complete) */
  completed_readers: z.number().int(),
  /** mean share of chapters completed per reader, 0..1 (0 when no readers) */
  completion: z.number(),
}));
export type AdminTitleStats = z.infer<typeof adminTitleStatsSchema>;

export const ADMIN_NAME_KINDS = ['topic', 'publisher'] as const;
/** GET names: a kind and the start of a name (folded as names are); at most `limit` (default 10, up to 50). */
export const adminNamesQuerySchema = lazySchema(() => z
  .object({
    kind: z.enum(ADMIN_NAME_KINDS, M.unknownNameKind),
    q: z.string().max(200).optional(),
    limit: z.coerce.number().int(M.limitShape).min(1, M.limitShape).max(50, M.limitShape).optional(),
  })
  .strict());
export type AdminNamesQuery = z.infer<typeof adminNamesQuerySchema>;
export const adminNamesSchema = lazySchema(() => z.object({ results: z.array(z.string()) }));
export type AdminNames = z.infer<typeof adminNamesSchema>;

/** An uploaded cover's bounds: its bytes, and its decoded width and height. */
export const ADMIN_COVER_LIMITS = { maxBytes: 5 * 1024 * 1024, maxSide: 6000, maxPixels: 25_000_000 } as const;

/** PUT titleScripts: the flag the command line's `import --allow-scripts` sets. */
export const adminTitleScriptsSchema = lazySchema(() => z.object({ allow_scripts: z.boolean({ error: M.allowScriptsShape }) }).strict());
export type AdminTitleScripts = z.infer<typeof adminTitleScriptsSchema>;

export const adminTitleDetailSchema = lazySchema(() => adminTitleRowSchema.extend({
  description: z.string().nullable(),
  /** the title's chapters may run their scripts (in the scripted origin's frame) */
  allow_scripts: z.boolean(),
  /** whether this server has a scripted origin (SCRIPTED_ORIGIN): without one, scripts cannot be allowed */
  scripts_available: z.boolean(),
  topics: z.array(topicSchema),
  chapters: z.number().int(),
  /** the reader's title page */
  url: z.string(),
  stats: adminTitleStatsSchema,
}));
export type AdminTitleDetail = z.infer<typeof adminTitleDetailSchema>;

/** PATCH: only the fields sent change. `version` (or If-Match) is required: a 409 when someone saved since. */
/**
 * Topic names an operator gives: the title editor's topics, the import's (console field, API `topics` parts, the
 * command line's --topic). One rule for all three: each 1-80 characters once trimmed, at most 30.
 */
export const adminTopicNamesSchema = lazySchema(() => z.array(z.string().trim().min(1, M.topicEmpty).max(80, M.topicTooLong)).max(30, M.tooManyTopics));

export const adminTitlePatchSchema = lazySchema(() => z
  .object({
    version: z.number().int().min(1).optional(),
    title: z.string().trim().min(1, M.titleEmpty).max(500).optional(),
    authors: z.array(z.string().trim().min(1, M.authorEmpty).max(200)).max(50).optional(),
    description: z.string().max(20_000).nullable().optional(),
    /** a BCP 47 tag (en, pt-BR) or null */
    language: z.string().trim().regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, M.languageShape).nullable().optional(),
    /** the publisher's name (created when new) or null for none */
    publisher: z.string().trim().min(1).max(200).nullable().optional(),
    /** topic names (created when new), in order */
    topics: adminTopicNamesSchema.optional(),
    editors_pick: z.boolean().optional(),
  })
  .strict());
export type AdminTitlePatch = z.infer<typeof adminTitlePatchSchema>;

export const adminTitleReaderSchema = lazySchema(() => z.object({
  user_id: z.string(),
  email: z.string(),
  minutes_read: z.number(),
  /** share of chapters completed, 0..1 */
  completion: z.number(),
  last_read_at: utc.nullable(),
}));
export type AdminTitleReader = z.infer<typeof adminTitleReaderSchema>;
export const adminTitleReadersPageSchema = lazySchema(() => adminPageOf(adminTitleReaderSchema));
export type AdminTitleReadersPage = z.infer<typeof adminTitleReadersPageSchema>;

// ---------------------------------------------------------------- people

/** 'reader' filters accounts without any role */
export const adminUsersQuerySchema = lazySchema(() => z
  .object({
    cursor,
    limit,
    /** part of the email or username */
    q: search,
    role: z.enum([...ROLES, 'reader'], M.unknownRole).optional(),
    status: z.enum(ACCOUNT_STATUSES, M.unknownStatus).optional(),
  })
  .strict());
export type AdminUsersQuery = z.infer<typeof adminUsersQuerySchema>;

export const adminUserRowSchema = lazySchema(() => z.object({
  user_id: z.string(),
  email: z.string(),
  username: z.string(),
  roles: z.array(z.enum(ROLES)),
  /** as stored */
  status: z.enum(ACCOUNT_STATUSES),
  /** as it reads now (a trial past its end reads expired) */
  effective_status: z.enum(ACCOUNT_STATUSES),
  trial_ends_at: utc.nullable(),
  created_at: utc,
}));
export type AdminUserRow = z.infer<typeof adminUserRowSchema>;
export const adminUserPageSchema = lazySchema(() => adminPageOf(adminUserRowSchema));
export type AdminUserPage = z.infer<typeof adminUserPageSchema>;

export const adminSessionSchema = lazySchema(() => z.object({
  session_id: z.string(),
  created_at: utc,
  expires_at: utc,
  user_agent: z.string().nullable(),
}));
export type AdminSession = z.infer<typeof adminSessionSchema>;

export const adminUserDetailSchema = lazySchema(() => adminUserRowSchema.extend({
  plan: z.string().nullable(),
  subscription_ends_at: utc.nullable(),
  team: z.object({ team_id: z.string(), name: z.string(), role: z.enum(['owner', 'member']) }).nullable(),
  sessions: z.array(adminSessionSchema),
}));
export type AdminUserDetail = z.infer<typeof adminUserDetailSchema>;

export const adminUserPatchSchema = lazySchema(() => z
  .object({
    /** the whole set of roles ([] makes a plain reader) */
    roles: z.array(z.enum(ROLES, M.unknownRole)).max(3).optional(),
    status: z.enum(ACCOUNT_STATUSES, M.unknownStatus).optional(),
  })
  .strict()
  .refine((v) => v.roles !== undefined || v.status !== undefined, { message: M.nothingToChange, path: ['roles'] }));
export type AdminUserPatch = z.infer<typeof adminUserPatchSchema>;

export const adminUserCreateSchema = lazySchema(() => z
  .object({
    email: z.email(M.emailShape).max(320),
    /** checked as at registration (length, common passwords) */
    password: z.string().min(1).max(1000),
    roles: z.array(z.enum(ROLES, M.unknownRole)).max(3).optional(),
    /** default trial (with the configured trial length) */
    status: z.enum(ACCOUNT_STATUSES, M.unknownStatus).optional(),
  })
  .strict());
export type AdminUserCreate = z.infer<typeof adminUserCreateSchema>;

export const adminPasswordResetResponseSchema = lazySchema(() => z.object({ sent: z.literal(true) }));
export const adminEndSessionsResponseSchema = lazySchema(() => z.object({ ended: z.number().int() }));

// ---------------------------------------------------------------- dashboard

export const adminDashboardQuerySchema = lazySchema(() => z
  .object({
    /** default 30 days before `to` */
    from: when.optional(),
    /** default today (UTC) */
    to: when.optional(),
  })
  .strict());
export type AdminDashboardQuery = z.infer<typeof adminDashboardQuerySchema>;

export const ADMIN_DASHBOARD_MAX_DAYS = 366;

export const adminDashboardDaySchema = lazySchema(() => z.object({
  /** YYYY-MM-DD (UTC); every day of the range is present, zeros included */
  day: z.string(),
  /** accounts with any reading that day */
  active_readers: z.number().int(),
  minutes_read: z.number(),
  new_accounts: z.number().int(),
  /** accounts that became subscribers that day from a trial */
  trial_conversions: z.number().int(),
  /** files imported and files refused that day */
  imports: z.number().int(),
  import_failures: z.number().int(),
}));
export type AdminDashboardDay = z.infer<typeof adminDashboardDaySchema>;

export const adminDashboardSchema = lazySchema(() => z.object({
  from: z.string(),
  to: z.string(),
  days: z.array(adminDashboardDaySchema),
  /** up to 10, most minutes first */
  top_titles: z.array(z.object({ book_id: z.string(), title: z.string(), minutes_read: z.number(), readers: z.number().int() })),
  /** up to 10, most minutes first */
  top_topics: z.array(z.object({ slug: z.string(), name: z.string(), minutes_read: z.number() })),
  /** searches that found nothing, most asked first (up to 20), query folded to lower case */
  empty_searches: z.array(z.object({ query: z.string(), count: z.number().int() })),
  /** the last refused files of the range (up to 20, newest first) */
  import_failures: z.array(z.object({ at: utc, file: z.string(), reason: z.string() })),
}));
export type AdminDashboard = z.infer<typeof adminDashboardSchema>;

// ---------------------------------------------------------------- health

export const adminHealthSchema = lazySchema(() => z.object({
  version: z.string(),
  engine: z.enum(['sqlite', 'postgres']),
  /** null when the engine cannot say */
  db_bytes: z.number().nullable(),
  content_store_bytes: z.number(),
  titles: z.number().int(),
  import_queue: z.object({ running: z.number().int(), waiting: z.number().int() }),
  /** the last server errors (5xx), newest first, up to 20, since start */
  last_errors: z.array(z.object({ at: utc, method: z.string(), url: z.string(), status: z.number().int(), message: z.string() })),
  /** trial expiry, retention purge, ... with their last run since start (null before the first) */
  jobs: z.array(z.object({ name: z.string(), every_seconds: z.number(), last_run_at: utc.nullable(), last_ok: z.boolean().nullable(), last_error: z.string().nullable() })),
}));
export type AdminHealth = z.infer<typeof adminHealthSchema>;

/** a 409 from a PATCH of a title someone else saved first */
export const adminConflictSchema = lazySchema(() => z.object({ detail: z.string(), current: adminTitleDetailSchema }));
export type AdminConflict = z.infer<typeof adminConflictSchema>;
