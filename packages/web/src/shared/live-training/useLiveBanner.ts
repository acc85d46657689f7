/**
 * The live-training banner's state (library-playlists-account.md §4, §6): the current event from
 * GET /api/v1/live-training/current-event/, its phase by the clock ('soon' before its start, 'live' until its end,
 * gone after), and whether this browser dismissed it (localStorage, one key per event id). Expired accounts never
 * ask (§6; the server answers them `{}` as well). `poll`: the reader asks again every 12 minutes (§4).
 */
import {
  type CurrentEventResponse,
  LIVE_TRAINING_DISMISSED_KEY_PREFIX,
  LIVE_TRAINING_POLL_MS,
  type LiveCourseStatus,
  type LiveEvent,
} from '@lectern/core';
import { useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';
import { api } from '../../api/client.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { browserStorage } from '../storage.ts';
import { useSession } from '../useSession.ts';

export type LivePhase = 'soon' | 'live';

export interface LiveBannerState {
  course: LiveCourseStatus;
  event: LiveEvent;
  phase: LivePhase;
  dismiss(): void;
}

const dismissedKey = (eventId: string) => `${LIVE_TRAINING_DISMISSED_KEY_PREFIX}${eventId}`;

// Dismissals, shared by every banner on the page (the shell's and the reader's): a tiny store over localStorage.
const listeners = new Set<() => void>();
let version = 0;
const subscribe = (l: () => void) => {
  listeners.add(l);
  // dismissed in another tab
  const onStorage = (e: StorageEvent) => {
    if (e.key === null || e.key.startsWith(LIVE_TRAINING_DISMISSED_KEY_PREFIX)) {
      version += 1;
      l();
    }
  };
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(l);
    window.removeEventListener('storage', onStorage);
  };
};

export function isLiveEventDismissed(eventId: string): boolean {
  const storage = browserStorage();
  return !!storage && storage.getItem(dismissedKey(eventId)) !== null;
}

function rememberDismissed(eventId: string): void {
  try {
    browserStorage()?.setItem(dismissedKey(eventId), new Date().toISOString());
  } catch {
    // storage full or refused: the banner still goes for this page
  }
  version += 1;
  for (const l of listeners) l();
}

const isCourse = (data: CurrentEventResponse | undefined): data is LiveCourseStatus => !!data && 'events' in data;

/** The phase of `event` at `now`, or null once it is over. */
export function livePhase(event: Pick<LiveEvent, 'start_datetime' | 'end_datetime'>, now: number): LivePhase | null {
  if (now >= Date.parse(event.end_datetime)) return null;
  return now < Date.parse(event.start_datetime) ? 'soon' : 'live';
}

/** A clock that ticks at `nextAt` (the event's start, then its end), so the banner changes on time without a request. */
function useNowUntil(nextAt: number | null): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (nextAt === null) return;
    // setTimeout takes at most 2^31-1 ms; a later change is met by a later tick
    const delay = Math.min(Math.max(nextAt - Date.now(), 0) + 50, 2 ** 31 - 1);
    const timer = window.setTimeout(() => setNow(Date.now()), delay);
    return () => window.clearTimeout(timer);
  }, [nextAt, now]);
  return now;
}

export function useLiveBanner({ poll = false }: { poll?: boolean } = {}): LiveBannerState | null {
  const { profile, isLoading } = useSession();
  // §6: accounts of type Expired get no live-training banner.
  const expired = profile?.account.type === 'Expired' || profile?.subscription_status === 'expired';
  const query = useQuery({
    queryKey: queryKeys.liveCurrent(profile?.user_uuid ?? ''),
    queryFn: ({ signal }) => api.currentLiveEvent(signal),
    enabled: !isLoading && !expired,
    staleTime: LIVE_TRAINING_POLL_MS,
    refetchInterval: poll ? LIVE_TRAINING_POLL_MS : false,
    retry: false,
  });
  const course = !expired && isCourse(query.data) ? query.data : null;
  const event = course?.events[0] ?? null;
  const start = event ? Date.parse(event.start_datetime) : null;
  const end = event ? Date.parse(event.end_datetime) : null;
  const probe = useNowUntil(start === null || end === null ? null : Date.now() < start ? start : end);
  const dismissedVersion = useSyncExternalStore(subscribe, () => version, () => 0);
  const dismissed = event ? (void dismissedVersion, isLiveEventDismissed(event.event_id)) : false;
  const eventId = event?.event_id;
  const dismiss = useCallback(() => {
    if (eventId) rememberDismissed(eventId);
  }, [eventId]);
  if (!course || !event || dismissed) return null;
  const phase = livePhase(event, probe);
  return phase ? { course, event, phase, dismiss } : null;
}
