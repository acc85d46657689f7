/**
 * The live-training contract (library-playlists-account.md §3 "Live-training event status", §4 banner, §7 calls):
 * what GET /api/v1/live-training/current-event/ and /course-statuses/ answer, and what operators send to add
 * courses and events. The spec's fields (slug, course_id, marketing_image2, events[] with event_id, start_datetime,
 * end_datetime in UTC, presenters[] with headshot_url1) are kept word for word; title, description, url, topics,
 * join_url and a presenter's name are ours (docs/decisions.md "Live training"). Constants and addresses live in
 * constants.ts (no zod there, for the web app's entry chunk); messages in messages.ts.
 */
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';
import { LIVE_TRAINING_MESSAGES } from './messages.ts';
import { isHttpUrl } from './redirects.ts';
import { topicSchema } from './schemas.ts';

/** UTC instants as ISO-8601 text with a Z (what the server writes: Date#toISOString). */
const utc = lazySchema(() => z.iso.datetime());

export const livePresenterSchema = lazySchema(() => z.object({ name: z.string(), headshot_url1: z.string().nullable() }));

export const liveEventSchema = lazySchema(() => z.object({
  event_id: z.string(),
  start_datetime: utc,
  end_datetime: utc,
  /** where 'Join now' leads; null for callers who may not join (visitors, accounts without a live subscription) */
  join_url: z.string().nullable(),
  presenters: z.array(livePresenterSchema),
}));
export type LiveEvent = z.infer<typeof liveEventSchema>;

/** §3 "Live-training event status", with our title, description, topics and course page address. */
export const liveCourseStatusSchema = lazySchema(() => z.object({
  slug: z.string(),
  course_id: z.string(),
  title: z.string(),
  description: z.string(),
  marketing_image2: z.string().nullable(),
  /** the course page (§2: /live-training/courses/{slug}/{course_id}/) */
  url: z.string(),
  topics: z.array(topicSchema),
  events: z.array(liveEventSchema),
}));
export type LiveCourseStatus = z.infer<typeof liveCourseStatusSchema>;

/**
 * GET /api/v1/live-training/current-event/: the course of the current event with that one event in `events`, or
 * `{}` — §4: "Empty current-event data means no banner".
 */
export const currentEventResponseSchema = lazySchema(() => z.union([liveCourseStatusSchema, z.object({}).strict()]));
export type CurrentEventResponse = z.infer<typeof currentEventResponseSchema>;

/** GET /api/v1/live-training/course-statuses/: every course (or one topic's) with its events not over yet. */
export const courseStatusesResponseSchema = lazySchema(() => z.object({
  results: z.array(liveCourseStatusSchema),
  /** the topics of all courses, for the index's filter */
  topics: z.array(topicSchema),
}));
export type CourseStatusesResponse = z.infer<typeof courseStatusesResponseSchema>;

export const courseStatusesQuerySchema = lazySchema(() => z.object({
  topic: z.string().trim().min(1).max(80).optional(),
  course_id: z.string().regex(/^[1-9][0-9]{0,9}$/, 'course_id must be a course id').optional(),
}));

// ---- operators ----

/** A link an operator gives for an image: a path of this site or an http(s) address, never a script. */
const imageUrl = lazySchema(() => z
  .string()
  .trim()
  .max(2000)
  .refine((u) => (u.startsWith('/') && !u.startsWith('//') && !u.startsWith('/\\')) || isHttpUrl(u), LIVE_TRAINING_MESSAGES.imageUrl));

export const LIVE_COURSE_LIMITS = { title: 200, description: 5000, topics: 10, topicName: 80, presenters: 10, presenterName: 120 } as const;

/** POST /api/v1/admin/live-training/courses/ (and `live:course-add`) */
export const liveCourseRequestSchema = lazySchema(() => z.object({
  title: z.string().trim().min(1, 'title is required').max(LIVE_COURSE_LIMITS.title),
  /** made from the title when left out */
  slug: z
    .string()
    .trim()
    .max(80)
    .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'slug may hold lower-case letters, digits and single hyphens')
    .optional(),
  description: z.string().trim().max(LIVE_COURSE_LIMITS.description).optional(),
  marketing_image_url: imageUrl.nullable().optional(),
  /** topic names ("Machine Learning"); their slugs are made from them */
  topics: z.array(z.string().trim().min(1, 'a topic needs a name').max(LIVE_COURSE_LIMITS.topicName)).max(LIVE_COURSE_LIMITS.topics).optional(),
}));
export type LiveCourseRequest = z.infer<typeof liveCourseRequestSchema>;

/** POST /api/v1/admin/live-training/courses/{course_id}/events/ (and `live:event-add`) */
export const liveEventRequestSchema = lazySchema(() => z
  .object({
    start_datetime: z.iso.datetime({ offset: true, error: 'start_datetime must be an ISO date and time (2026-05-01T15:00:00Z)' }),
    end_datetime: z.iso.datetime({ offset: true, error: 'end_datetime must be an ISO date and time (2026-05-01T17:00:00Z)' }),
    join_url: z.string().trim().max(2000).refine(isHttpUrl, LIVE_TRAINING_MESSAGES.joinUrlHttp),
    presenters: z
      .array(
        z.object({
          name: z.string().trim().min(1, 'a presenter needs a name').max(LIVE_COURSE_LIMITS.presenterName),
          headshot_url: imageUrl.nullable().optional(),
        }),
      )
      .max(LIVE_COURSE_LIMITS.presenters)
      .optional(),
  })
  .superRefine((v, ctx) => {
    if (Date.parse(v.end_datetime) <= Date.parse(v.start_datetime)) {
      ctx.addIssue({ code: 'custom', path: ['end_datetime'], message: LIVE_TRAINING_MESSAGES.endBeforeStart });
    }
  }));
export type LiveEventRequest = z.infer<typeof liveEventRequestSchema>;

/** GET /api/v1/admin/live-training/courses/: every course with every event, past ones too, join addresses shown. */
export const adminLiveCoursesResponseSchema = lazySchema(() => z.object({ results: z.array(liveCourseStatusSchema) }));
