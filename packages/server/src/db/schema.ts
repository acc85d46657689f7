/**
 * Table types for kysely. Both engines store flags as 0/1 integers and times as ISO-8601 text so that the
 * same queries and the same rows work on SQLite and PostgreSQL.
 */
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/** A nullable column an insert may leave out (added by a later migration). */
type OptionalText = ColumnType<string | null, string | null | undefined, string | null>;
/** A nullable number a new row may leave out (columns added by later migrations). */
type OptionalNumber = ColumnType<number | null, number | null | undefined, number | null>;

export type Flag = 0 | 1;

export interface UsersTable {
  id: Generated<number>;
  uuid: string;
  email: string;
  username: string;
  password_hash: string;
  status: 'trial' | 'subscriber' | 'expired' | 'cancelled';
  trial_ends_at: string | null;
  team_id: number | null;
  is_admin: Flag;
  is_content_creator: Flag;
  is_preview_creator: Flag;
  created_at: string;
  collections_version: Generated<number>;
  /** the plan chosen at registration ('basic' | 'pro'); null for accounts made by an operator */
  plan: string | null;
  /** paid up to (a subscriber, a cancelled account still in its paid period); null otherwise */
  subscription_ends_at: string | null;
  /** when the account joined its team (0024); null outside a team or for teams made before */
  team_joined_at: OptionalText;
}

export interface TeamsTable {
  id: Generated<number>;
  name: string;
  created_at: string;
  /** the account that bought the seats (0024); null for a team made by `users:create --team` */
  owner_id: ColumnType<number | null, number | null | undefined, number | null>;
  plan: OptionalText;
  seats: Generated<number>;
  /** members (the owner included) plus pending invitations */
  seats_used: Generated<number>;
  /** 'active' | 'cancelled' | 'expired'; null: no subscription */
  status: ColumnType<'active' | 'cancelled' | 'expired' | null, 'active' | 'cancelled' | 'expired' | null | undefined, 'active' | 'cancelled' | 'expired' | null>;
  subscription_ends_at: OptionalText;
}

/** An invitation to a team (0024): one-time, expiring, kept as the sha256 of its token. */
export interface TeamInvitationsTable {
  id: Generated<number>;
  team_id: number;
  email: string;
  token_hash: string;
  status: 'pending' | 'accepted' | 'revoked' | 'expired';
  invited_by: number | null;
  accepted_by: number | null;
  created_at: string;
  expires_at: string;
  closed_at: string | null;
}

export interface SessionsTable {
  /** sha256 of the cookie value: a leaked database does not leak live sessions */
  id: string;
  /** short public id, shown as session_id to the client */
  public_id: string;
  user_id: number;
  created_at: string;
  expires_at: string;
  user_agent: string | null;
}

export interface TopicsTable {
  id: Generated<number>;
  slug: string;
  name: string;
  /** the name folded (core's nameKey), for suggestions (0018) */
  name_key: Generated<string>;
}

export interface PublishersTable {
  id: Generated<number>;
  slug: string;
  name: string;
  /** the name folded (core's nameKey), for suggestions (0018) */
  name_key: Generated<string>;
}

export interface TitlesTable {
  id: Generated<number>;
  book_id: string;
  title: string;
  title_safe: string;
  description: string | null;
  content_format: string;
  source: string;
  language: string | null;
  issued: string | null;
  identifier: string | null;
  cover_path: string | null;
  cover_media_type: string | null;
  allow_scripts: Flag;
  is_system_book: Flag;
  page_count: number | null;
  file_sha256: string;
  origin: string | null;
  created_at: string;
  /** titleSortKey(title): case folded, a leading The/A/An dropped */
  sort_title: Generated<string>;
  /** authorSortKey(authors): the first author folded; '' sorts last */
  sort_author: Generated<string>;
  /** workKey(title, authors): files of one work share it */
  work_key: Generated<string>;
  /** null when this title stands for its work in the catalog; else the id of the title that does */
  work_title_id: number | null;
  /** dc:title's dir (ltr, rtl, auto) and language as the package gives them (0011); null when it says nothing */
  title_dir: OptionalText;
  title_lang: OptionalText;
  /** which way the pages turn, 'ltr' or 'rtl' (0019); null for titles imported before */
  page_progression: OptionalText;
  /** the package's rendition:layout, spread and flow and its rendition:viewport (0022; ingest/rendition.ts); null before */
  rendition_layout: OptionalText;
  rendition_spread: OptionalText;
  rendition_flow: OptionalText;
  viewport_width: OptionalNumber;
  viewport_height: OptionalNumber;
  /** a video course's or audiobook's total length (0029); null for books */
  duration_ms: OptionalNumber;
  /** a media title's preview clip in the content store and its type (0029); null when it has none */
  preview_path: OptionalText;
  preview_mime: OptionalText;
  /** the operators' edit version, one more at each console edit (0031) */
  version: Generated<number>;
  /** when an operator retired it: out of the catalog's listings, its readers' data kept (0031); null when listed */
  retired_at: OptionalText;
  /** the import's warnings, a JSON array of plain-English lines, for the operators (0037); null before */
  import_warnings: OptionalText;
}

/** One part of a video course or audiobook: its playable file (0029_media.ts). */
export interface MediaFilesTable {
  chapter_id: number;
  title_id: number;
  /** below the content store's root, like resources.storage_path */
  storage_path: string;
  /** what browsers are sent: video/mp4, audio/mp4, audio/mpeg */
  mime: string;
  size: number;
  duration_ms: number;
  width: number | null;
  height: number | null;
  video_codec: string | null;
  audio_codec: string | null;
  /** sanitised HTML, shown in the video screen's Description tab */
  description: string | null;
  /** WebVTT captions (SRT is converted at import); null when the part has no transcript */
  captions_vtt: string | null;
}

export interface TitleAuthorsTable {
  title_id: number;
  position: number;
  name: string;
  /** the name folded (core's nameKey), for suggestions (0018) */
  name_key: Generated<string>;
  /** the dc:creator's dir and language (0011) */
  dir: OptionalText;
  lang: OptionalText;
}

export interface TitlePublishersTable {
  title_id: number;
  publisher_id: number;
  position: number;
}

export interface TitleTopicsTable {
  title_id: number;
  topic_id: number;
}

export interface ChaptersTable {
  id: Generated<number>;
  title_id: number;
  full_path: string;
  label: string;
  item_order: number;
  media_type: string;
  content: string;
  /** JSON array of stylesheet URLs */
  stylesheets: string;
  text_length: number;
  as_sample: Flag;
  is_public: Flag;
  /** the bounded sample (opening part) of a one-chapter book's only chapter; null for other chapters */
  sample_content: string | null;
  /** the spine item's layout, spread and flow (its overrides applied), its side of a spread, a fixed-layout page's size (0022) */
  rendition_layout: OptionalText;
  rendition_spread: OptionalText;
  rendition_flow: OptionalText;
  page_spread: OptionalText;
  viewport_width: OptionalNumber;
  viewport_height: OptionalNumber;
  /** its itemref's rendition:align-x-center: 1 centred, 0 not; null imported before it was read (0043) */
  align_x_center: OptionalNumber;
  /** its EPUB Media Overlay as compact JSON (0023, ingest/media-overlays.ts storedOverlay); null when it has none */
  media_overlay: OptionalText;
  /** the class, id and style of its content document's own html and body, as JSON (0026, ingest/render.ts rootAttributes) */
  root_attributes: OptionalText;
  /** why its XHTML is not well-formed XML (the importer's reason; read with the HTML parser's recovery) (0037) */
  markup_error: OptionalText;
}

export interface ResourcesTable {
  id: Generated<number>;
  title_id: number;
  full_path: string;
  media_type: string;
  size: number;
  /** path below DATA_DIR/content */
  storage_path: string;
  /** a PDF's sample (its first pages) below DATA_DIR/content; null when there is none */
  sample_storage_path: string | null;
  sample_size: number | null;
}

export interface TocEntriesTable {
  id: Generated<number>;
  title_id: number;
  position: number;
  depth: number;
  label: string;
  full_path: string;
  fragment: string | null;
  /** what the entry is (0019): the contents, a print page, or a landmark */
  kind: Generated<'toc' | 'page' | 'landmark'>;
  /** a landmark's epub:type (bodymatter, toc, index, …) */
  landmark: Generated<string | null>;
}

export interface CollectionsTable {
  id: string;
  user_id: number;
  name: string;
  description: string;
  is_default: Flag;
  created_at: string;
  updated_at: string;
}

export interface CollectionItemsTable {
  collection_id: string;
  api_url: string;
  title_id: number;
  chapter_id: number | null;
  position: number;
  added_at: string;
}

export interface ChapterProgressTable {
  user_id: number;
  chapter_id: number;
  title_id: number;
  top_percentage: number;
  updated_at: string;
}

export interface UsageEventsTable {
  user_id: number;
  usage_uuid: string;
  chapter_id: number;
  title_id: number;
  start_percentage: number;
  end_percentage: number;
  client_timestamp: string;
  usage_is_complete: Flag;
  is_offline: Flag;
  product: string | null;
  received_at: string;
}

export interface SignInAttemptsTable {
  key: string;
  /** ISO time the current one-minute window began */
  window_start: string;
  count: number;
}

/** A scheduled job's claim on one period (migration 0041, services/scheduled-jobs.ts). */
export interface JobClaimsTable {
  job: string;
  period: string;
  claimed_by: string;
  claimed_at: string;
  finished_at: string | null;
}

export interface ReadingPositionsTable {
  user_id: number;
  title_id: number;
  chapter_id: number;
  /** the Locator as JSON text (core's locatorSchema) */
  locator: string;
  /** the server's clock when the position was stored */
  updated_at: string;
}

export interface UserTopicsTable {
  user_id: number;
  topic_id: number;
  chosen_at: string;
}

/**
 * Every change of an account's state, in order (each transition one service call, written here; docs/decisions.md
 * "Joining").
 */
export interface AccountHistoryTable {
  id: Generated<number>;
  user_id: number;
  event: string;
  from_status: string | null;
  to_status: string | null;
  detail: Generated<string>;
  at: string;
}

/** One highlight or note (migration 0012); JSON columns hold what core's annotation schemas describe. */
export interface AnnotationsTable {
  id: string;
  title_id: number;
  /** the chapter's path in the book (kept when a re-import removes the chapter: the note is then orphaned) */
  chapter_href: string;
  user_id: number;
  /** the author's uuid: the `user` of the wire format and the `userId` of their tokens */
  user_uuid: string;
  consumer: string;
  uri: string;
  quote: string;
  text: string;
  /** JSON string[] */
  tags: string;
  /** JSON AnnotationRange[] */
  ranges: string;
  /** JSON AnnotationSelector[] */
  selectors: string;
  fragment: string;
  sanitized_fragment: string;
  /** JSON string[] */
  highlights: string;
  /** JSON string[] each: the principals of each action */
  perm_read: string;
  perm_update: string;
  perm_delete: string;
  perm_admin: string;
  /** the read list's groups, as flags for the search filter */
  read_world: Flag;
  read_authenticated: Flag;
  read_consumer: Flag;
  /** '3' or 'preview_annotation' */
  annotation_type: string;
  /** case-folded copies for the search filter (folded in JavaScript: the same on both engines) */
  text_lc: string;
  quote_lc: string;
  tags_lc: string;
  created_at: string;
  updated_at: string;
}

export interface PlansTable {
  slug: string;
  name: string;
  price_cents: number;
  currency: string;
  period: 'month' | 'year';
}

export interface PromotionCodesTable {
  code: string;
  kind: 'percent' | 'fixed';
  amount: number;
  plan: string | null;
  expires_at: string | null;
  usage_limit: number | null;
  used_count: Generated<number>;
  is_sale: Flag;
  created_at: string;
}

export interface InvoicesTable {
  id: Generated<number>;
  user_id: number;
  plan: string;
  amount_cents: number;
  currency: string;
  promotion_code: string | null;
  status: 'open' | 'paid' | 'void';
  provider: string;
  provider_reference: string;
  period_start: string;
  period_end: string;
  created_at: string;
  paid_at: string | null;
  /** the team whose seats this invoice pays for (0024); null for an account's own subscription */
  team_id: number | null;
  seats: number | null;
}

export interface PasswordResetsTable {
  token_hash: string;
  user_id: number;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

/** A new edition of a title, for other processes to forget what they kept of it (migration 0021). */
/** What other server processes must forget (migration 0047, services/server-changes.ts). */
export interface ServerChangesTable {
  id: Generated<number>;
  kind: string;
  subject: string;
  changed_at: string;
}

/** An import waiting for, held by or done by a server's worker (migration 0048, services/import-jobs.ts). */
export interface ImportJobsTable {
  id: string;
  area: string;
  owner_id: number | null;
  /** JSON: ImportJobRequest */
  request: string;
  state: 'queued' | 'running' | 'done' | 'failed';
  attempts: Generated<number>;
  claimed_by: string | null;
  lease_until: string | null;
  /** JSON: the import report, once done */
  report: string | null;
  /** why it failed; while a job waits to be retried, why its last attempt did not finish */
  error: string | null;
  /** 1 when it failed because the database or the content store was not available (migration 0049), not its file */
  unavailable: Generated<Flag>;
  created_at: string;
  finished_at: string | null;
}

export interface CatalogChangesTable {
  id: Generated<number>;
  book_id: string;
  title_id: number;
  changed_at: string;
}

/** A title's own row (chapter_id null) or a passage of a chapter's text, as search indexes them (migration 0016). */
export interface SearchDocsTable {
  id: Generated<number>;
  title_id: number;
  chapter_id: number | null;
  passage_no: number;
  title: string;
  people: string;
  subjects: string;
  description: string;
  body: string;
}

export interface SearchSelectionsTable {
  id: Generated<number>;
  user_id: number | null;
  rank: number;
  book_id: string;
  scope: string;
  content_type: string;
  selection_type: string;
  url: string;
  query: string;
  session_id: string;
  created_at: string;
}

/** A title in one catalog listing, with its sort keys (repositories/listings.ts). */
export interface TitleListingsTable {
  listing: string;
  title_id: number;
  sort_title: string;
  author_last: Flag;
  sort_author: string;
  created_at: string;
}

/** How many titles a listing holds, kept with its rows. */
export interface ListingCountsTable {
  listing: string;
  n: number;
}

/** An operator's choice for the home's editors' picks (migration 0017), in their order. */
export interface EditorsPicksTable {
  title_id: number;
  position: number;
  picked_at: string;
}

/** A line across the top of the home, shown from starts_at until ends_at (open when null). */
export interface AnnouncementsTable {
  id: Generated<number>;
  message: string;
  url: string | null;
  starts_at: string;
  ends_at: string | null;
  created_at: string;
}

/** library-playlists-account.md §3's recommendation action, as a reader took it. */
export interface RecommendationActionsTable {
  id: Generated<number>;
  user_id: number;
  title_id: number;
  action: 'queue' | 'view' | 'reject';
  client_type: string;
  context: string;
  recommender_system: string;
  recommendation_position: number;
  at: string;
}

/** An operator's live-training course (migration 0020). */
export interface LiveCoursesTable {
  id: Generated<number>;
  slug: string;
  title: string;
  description: Generated<string>;
  marketing_image_url: string | null;
  created_at: string;
}

/** A course's topics, for the live-training index's filter (names as the operator gave them). */
export interface LiveCourseTopicsTable {
  course_id: number;
  slug: string;
  name: string;
}

/** One session of a course: start and end as ISO UTC text, and where 'Join now' leads (http or https). */
export interface LiveEventsTable {
  id: Generated<number>;
  course_id: number;
  start_at: string;
  end_at: string;
  join_url: string;
  created_at: string;
}

export interface LivePresentersTable {
  id: Generated<number>;
  event_id: number;
  position: number;
  name: string;
  headshot_url: string | null;
}

/** A first-party analytics event (migration 0025): the account when signed in, never the client's address. */
export interface AnalyticsEventsTable {
  id: Generated<number>;
  category: string;
  action: string;
  label: string;
  value: number | null;
  path: string | null;
  user_id: number | null;
  created_at: string;
}

/** One operator action (0030; repositories/audit.ts). */
export interface AuditLogTable {
  id: Generated<number>;
  at: string;
  actor_id: number | null;
  /** the actor's email then, or 'cli' */
  actor_label: string;
  action: string;
  target_kind: string;
  target_id: string | null;
  /** JSON object */
  detail: string;
  ip: string | null;
}

/** Searches that found nothing, per UTC day and folded query (0031). */
/** The dashboard's daily reading summary (0040; repositories/reading-summary.ts writes it with the events). */
export interface ReadingDaysTable {
  day: string;
  readers: number;
  minutes: number;
}

export interface ReadingDayReadersTable {
  day: string;
  user_id: number;
}

export interface ReadingDayTitlesTable {
  day: string;
  title_id: number;
  minutes: number;
}

/** per UTC month (YYYY-MM) and title the minutes read (0046) */
export interface ReadingMonthTitlesTable {
  month: string;
  title_id: number;
  minutes: number;
}

/** per UTC day and topic the minutes read (0045; a title's minutes count for its topics as they are now) */
export interface ReadingDayTopicsTable {
  day: string;
  topic_id: number;
  minutes: number;
}

export interface SearchMissesTable {
  day: string;
  query: string;
  count: number;
}

/** The newsletter's readers (0038): a row while the reader is opted in. */
export interface NewsletterSubscribersTable {
  user_id: number;
  subscribed_at: string;
}

/** Each newsletter sent (0038); `follows_issue_id` unique: one issue per period, whichever process sends it. */
export interface NewsletterIssuesTable {
  id: Generated<number>;
  follows_issue_id: number;
  sent_at: string;
  since: string;
  title_count: number;
  recipient_count: number;
}

/** Home blocks a reader dismissed for good (0038): 'tutorial', 'newsletter'. */
export interface HomeDismissalsTable {
  user_id: number;
  module: string;
  dismissed_at: string;
}

/** An editor's playlist published under a topic (0039): the home's and the topic page's transformation playlists. */
export interface TransformationPlaylistsTable {
  collection_id: string;
  topic_id: number;
  published_at: string;
}

/** A reader's settings kept on the account (0035); no row: the defaults. */
/** A reader's answer to running a scripted title's scripts (migration 0044): no row, not asked. */
export interface ScriptsConsentsTable {
  user_id: number;
  title_id: number;
  /** 1: allowed, 0: declined */
  allowed: Flag;
  decided_at: string;
}

export interface AccountSettingsTable {
  user_id: number;
  /** single-key keyboard shortcuts on (1) or off (0) */
  keyboard_shortcuts: Flag;
  updated_at: string;
}

export interface Database {
  transformation_playlists: TransformationPlaylistsTable;
  newsletter_subscribers: NewsletterSubscribersTable;
  newsletter_issues: NewsletterIssuesTable;
  home_dismissals: HomeDismissalsTable;
  account_settings: AccountSettingsTable;
  scripts_consents: ScriptsConsentsTable;
  audit_log: AuditLogTable;
  search_misses: SearchMissesTable;
  reading_days: ReadingDaysTable;
  reading_day_readers: ReadingDayReadersTable;
  reading_day_titles: ReadingDayTitlesTable;
  reading_day_topics: ReadingDayTopicsTable;
  reading_month_titles: ReadingMonthTitlesTable;
  analytics_events: AnalyticsEventsTable;
  catalog_changes: CatalogChangesTable;
  server_changes: ServerChangesTable;
  import_jobs: ImportJobsTable;
  live_courses: LiveCoursesTable;
  live_course_topics: LiveCourseTopicsTable;
  live_events: LiveEventsTable;
  live_presenters: LivePresentersTable;
  editors_picks: EditorsPicksTable;
  announcements: AnnouncementsTable;
  recommendation_actions: RecommendationActionsTable;
  search_docs: SearchDocsTable;
  search_selections: SearchSelectionsTable;
  password_resets: PasswordResetsTable;
  plans: PlansTable;
  promotion_codes: PromotionCodesTable;
  invoices: InvoicesTable;
  user_topics: UserTopicsTable;
  account_history: AccountHistoryTable;
  annotations: AnnotationsTable;
  title_listings: TitleListingsTable;
  listing_counts: ListingCountsTable;
  sign_in_attempts: SignInAttemptsTable;
  job_claims: JobClaimsTable;
  reading_positions: ReadingPositionsTable;
  usage_events: UsageEventsTable;
  collections: CollectionsTable;
  collection_items: CollectionItemsTable;
  chapter_progress: ChapterProgressTable;
  users: UsersTable;
  teams: TeamsTable;
  team_invitations: TeamInvitationsTable;
  sessions: SessionsTable;
  topics: TopicsTable;
  publishers: PublishersTable;
  titles: TitlesTable;
  title_authors: TitleAuthorsTable;
  title_publishers: TitlePublishersTable;
  title_topics: TitleTopicsTable;
  chapters: ChaptersTable;
  resources: ResourcesTable;
  toc_entries: TocEntriesTable;
  media_files: MediaFilesTable;
}

export type UserRow = Selectable<UsersTable>;
export type AuditLogRow = Selectable<AuditLogTable>;
export type PlanRow = Selectable<PlansTable>;
export type PromotionCodeRow = Selectable<PromotionCodesTable>;
export type InvoiceRow = Selectable<InvoicesTable>;
export type TeamRow = Selectable<TeamsTable>;
export type TeamInvitationRow = Selectable<TeamInvitationsTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type TitleRow = Selectable<TitlesTable>;
export type ChapterRow = Selectable<ChaptersTable>;
export type ResourceRow = Selectable<ResourcesTable>;
export type CollectionRow = Selectable<CollectionsTable>;
export type AnnotationRow = Selectable<AnnotationsTable>;
export type AnnouncementRow = Selectable<AnnouncementsTable>;
export type LiveCourseRow = Selectable<LiveCoursesTable>;
export type LiveEventRow = Selectable<LiveEventsTable>;
