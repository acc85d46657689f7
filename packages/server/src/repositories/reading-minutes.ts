import { sql } from 'kysely';

/**
 * One usage event's minutes: the share read of its chapter's length (a media part's duration, else its reading time
 * at 250 words of 6 characters). Used where `ue` is usage_events, `c` its chapter and `mf` the chapter's media file
 * (left join): the dashboard's days and top titles, a title's readers.
 */
export const MINUTES = sql<number>`(case when ue.end_percentage > ue.start_percentage then ue.end_percentage - ue.start_percentage else 0 end) / 100.0 *
  coalesce(mf.duration_ms / 60000.0, c.text_length / 1500.0)`;
