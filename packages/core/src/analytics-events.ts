/**
 * First-party analytics (library-playlists-account.md §1, §4, §5, §7; reader.md §7; docs/decisions.md
 * "Analytics"): the addresses, the categories a page may send, and the bounds of an event. Plain constants, no zod, so
 * the web app's `track()` can use them without loading the schemas (those are in analytics.ts).
 */

export const analyticsPaths = {
  /** POST {events: [{category, action, label, value?, path?}]}: anyone, signed in or not (CSRF as every POST) */
  events: () => '/api/v1/analytics/events/',
  /** GET ?from&to&category: counts by category, action and label (admins only) */
  adminReport: () => '/api/v1/admin/analytics/',
} as const;

/**
 * What is tracked, one category per place the spec names: the registration form's submit (§5), the sign-up calls to
 * action (§2), the subscribe nag (§4), the plan picker and promotion codes (§4, §5), the subscribe / upgrade /
 * cancel / reactivate forms, the account lifecycle (§4 "from tracked events"), clicks on live training courses and
 * topic pages (§1), and the reader's annotation, mode, navigation and table-of-contents events (reader.md §7).
 * Lectern has no newsletters or transformation playlists (§1 names their clicks too): their categories come with them.
 */
export const ANALYTICS_CATEGORIES = [
  'registration',
  'sign-up-cta',
  'subscribe-nag',
  'plan',
  'promotion',
  'subscription',
  'account',
  'live-training',
  'topic',
  'reader',
] as const;
export type AnalyticsCategory = (typeof ANALYTICS_CATEGORIES)[number];

export const ANALYTICS_LIMITS = {
  /** events in one POST */
  batch: 20,
  category: 40,
  action: 40,
  label: 200,
  path: 300,
  /** rows a report answers with at most (the biggest counts first) */
  reportRows: 1_000,
  /** a report's default span when `from` is not given */
  reportDefaultDays: 30,
} as const;

/**
 * What a label or path may not hold: C0 and C1 controls (U+009B is CSI to a terminal, and `analytics:report` prints
 * labels to the operator's), line and paragraph separators, and bidi embeddings, overrides and isolates (which
 * reorder what the report shows). The server refuses them; the page's tracker turns them into spaces first.
 */
// eslint-disable-next-line no-control-regex
export const ANALYTICS_CONTROL_PATTERN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** An action is a short lower-case word or words joined by '-' (submit, open, trial-created). */
export const ANALYTICS_ACTION_PATTERN = /^[a-z][a-z0-9-]*$/;

/** How long the page gathers events before sending them in one POST (and at once when the page is hidden). */
export const ANALYTICS_FLUSH_DELAY_MS = 2_000;

/** One event as the page sends it. */
export interface AnalyticsEventInput {
  category: AnalyticsCategory;
  action: string;
  label: string;
  value?: number;
  path?: string;
}
