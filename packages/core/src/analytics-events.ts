/**
 * First-party analytics (library-playlists-account.md §1, §4, §5, §7; reader.md §7; docs/decisions.md "Analytics
 * (issue 10)"): the addresses, the categories a page may send, and the bounds of an event. Plain constants, no zod,
 * so the web app's `track()` can use them without loading the schemas (those are in analytics.ts).
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
