/**
 * The analytics contract (library-playlists-account.md §7: "Analytics events are sent on form submits and clicks,
 * each with category, action, label"; docs/decisions.md "Analytics"): what a page POSTs and what an
 * operator's report answers. Unknown fields are refused (strict objects) so a 400 names them.
 */
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';
import { ANALYTICS_ACTION_PATTERN, ANALYTICS_CATEGORIES, ANALYTICS_CONTROL_PATTERN, ANALYTICS_LIMITS as L } from './analytics-events.ts';
import { ANALYTICS_MESSAGES as M } from './messages.ts';

const CONTROL = ANALYTICS_CONTROL_PATTERN;
const printable = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => !CONTROL.test(s), M.controlCharacters);

export const analyticsEventSchema = lazySchema(() => z
  .object({
    category: z.enum(ANALYTICS_CATEGORIES, M.unknownCategory),
    action: z.string().min(1).max(L.action).regex(ANALYTICS_ACTION_PATTERN, M.actionShape),
    label: printable(L.label),
    value: z.number().int().min(-(2 ** 31)).max(2 ** 31 - 1).optional(),
    /** the page's path (no query: it may hold search words or tokens) */
    path: printable(L.path).regex(/^\/[^?#]*$/, M.pathShape).optional(),
  })
  .strict());
export type AnalyticsEvent = z.infer<typeof analyticsEventSchema>;

export const analyticsBatchSchema = lazySchema(() => z
  .object({
    events: z.array(analyticsEventSchema).min(1).max(L.batch),
  })
  .strict());
export type AnalyticsBatch = z.infer<typeof analyticsBatchSchema>;

/** A day (2026-05-01, the whole day in UTC) or an ISO instant. */
const when = lazySchema(() => z
  .string()
  .max(40)
  .refine((s) => /^\d{4}-\d{2}-\d{2}$/.test(s) ? !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) : z.iso.datetime({ offset: true }).safeParse(s).success, M.dateShape));

export const analyticsReportQuerySchema = lazySchema(() => z
  .object({
    from: when.optional(),
    to: when.optional(),
    category: z.enum(ANALYTICS_CATEGORIES, M.unknownCategory).optional(),
  })
  .strict());
export type AnalyticsReportQuery = z.infer<typeof analyticsReportQuerySchema>;

export const analyticsCountSchema = lazySchema(() => z.object({
  category: z.string(),
  action: z.string(),
  label: z.string(),
  count: z.number().int(),
  /** events sent by signed-in readers */
  signed_in: z.number().int(),
}));
export type AnalyticsCount = z.infer<typeof analyticsCountSchema>;

export const analyticsReportSchema = lazySchema(() => z.object({
  /** the span counted, as ISO instants: from inclusive, to exclusive */
  from: z.string(),
  to: z.string(),
  category: z.string().nullable(),
  total: z.number().int(),
  /** more distinct rows than ANALYTICS_LIMITS.reportRows: the smallest counts were left out */
  truncated: z.boolean(),
  results: z.array(analyticsCountSchema),
}));
export type AnalyticsReport = z.infer<typeof analyticsReportSchema>;
