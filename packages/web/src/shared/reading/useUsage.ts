/**
 * The signed-in reader's usage logging: one queue (local storage, batches of 20) and one tracker per user, synced
 * on the `online` event, on the usage timer (60 s) and whenever an event is logged. Anonymous visitors have none
 * (reader.md §1).
 */
import { READER_CONSTANTS } from '@lectern/core';
import { useEffect, useMemo } from 'react';
import { readerApi } from '../../api/reader.ts';
import { UsageQueue } from './usageQueue.ts';
import { UsageTracker } from './usageTracker.ts';
import { browserStorage } from '../storage.ts';

const storage = browserStorage;

/** The reader's tracker (books) on the user's queue. */
export function useUsage(userId: string | null): UsageTracker | null {
  return useUsageQueue(userId)?.tracker ?? null;
}

/** The user's usage queue (and the book tracker on it); the media players log their own intervals into it. */
export function useUsageQueue(userId: string | null): { queue: UsageQueue; tracker: UsageTracker } | null {
  const pair = useMemo(() => {
    if (!userId) return null;
    const queue = new UsageQueue({
      userId,
      storage: storage(),
      send: (events) => readerApi.postUsageEvents(events),
      // reader.md §8: a usage sync failure is logged; the events stay, marked is_offline.
      onError: (e) => console.warn('Usage sync failed; the events are kept and sent later.', e),
    });
    return { queue, tracker: new UsageTracker({ queue, userId, storage: storage() }) };
  }, [userId]);

  useEffect(() => {
    if (!pair) return;
    const flush = () => void pair.queue.flush();
    flush(); // what an earlier visit left behind
    window.addEventListener('online', flush);
    const timer = window.setInterval(flush, READER_CONSTANTS.usageTimerMs);
    return () => {
      window.removeEventListener('online', flush);
      window.clearInterval(timer);
    };
  }, [pair]);

  return pair;
}
