/** The live-training courses from §7's course statuses: all of them, one topic's, or one course. */
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { useSession } from '../../shared/useSession.ts';

export function useLiveCourses(filter: { topic?: string; course_id?: string }) {
  const { profile, isLoading } = useSession();
  return useQuery({
    // per reader: join addresses depend on the account
    queryKey: [...queryKeys.liveCourses(filter), profile?.user_uuid ?? ''],
    queryFn: ({ signal }) => api.liveCourseStatuses(filter, signal),
    enabled: !isLoading,
  });
}

/** "Tue 12 May, 14:30 – 16:00": a session's time in the reader's own time zone. */
export function sessionTime(start: string, end: string): string {
  const s = Date.parse(start);
  const e = Date.parse(end);
  const day = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short' });
  const time = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' });
  const sameDay = new Date(s).toDateString() === new Date(e).toDateString();
  return `${day.format(s)}, ${time.format(s)} – ${sameDay ? time.format(e) : `${day.format(e)}, ${time.format(e)}`}`;
}

/** "Tue 12 May, 14:30": when a session starts, in the reader's own time zone. */
export const sessionStart = (start: string): string =>
  new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short', hour: 'numeric', minute: '2-digit' }).format(Date.parse(start));

export const isLiveNow = (event: { start_datetime: string; end_datetime: string }, now = Date.now()) =>
  Date.parse(event.start_datetime) <= now && now < Date.parse(event.end_datetime);
