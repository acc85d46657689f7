/**
 * The down half of the account's position (useServerPosition.ts) that the app's start needs too: what this browser
 * saw of the server's positions, and a server answer applied to the local position store. Apart from the hooks, so
 * that the entry (shared/useSession.ts seeds a reader address's position from the page's boot data) takes no
 * schema module of core with it: types only from there.
 */
import type { QueryClient } from '@tanstack/react-query';
import type { PositionResponse } from '@lectern/core';
import { queryKeys } from '../../api/queryKeys.ts';
import { PositionStore } from './position.ts';

/** Per user and book: the updated_at of the latest server position this browser has applied or written. */
export const SEEN_KEY = 'reader_server_positions';

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

function readSeen(): Record<string, string> {
  try {
    const v: unknown = JSON.parse(storage()?.getItem(SEEN_KEY) ?? '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, string>) : {};
  } catch {
    return {};
  }
}

const seenKey = (userId: string, bookId: string) => `${userId}/${bookId}`;

export function lastSeen(userId: string, bookId: string): string | null {
  return readSeen()[seenKey(userId, bookId)] ?? null;
}

export function markSeen(userId: string, bookId: string, updatedAt: string) {
  const all = readSeen();
  const key = seenKey(userId, bookId);
  const known = all[key];
  if (known && Date.parse(known) >= Date.parse(updatedAt)) return;
  all[key] = updatedAt;
  const entries = Object.entries(all);
  try {
    // Bounded like the positions themselves: the most recent 500 books.
    storage()?.setItem(SEEN_KEY, JSON.stringify(Object.fromEntries(entries.sort((a, b) => b[1].localeCompare(a[1])).slice(0, 500))));
  } catch {
    /* the next open simply trusts the server again */
  }
}

/** The server's answer applied to the local position store when it is newer than what this browser knows. */
export function applyServerPosition(bookId: string, userId: string | null, answer: PositionResponse): PositionResponse {
  const p = answer.position;
  if (p && userId) {
    const seen = lastSeen(userId, bookId);
    if (!seen || Date.parse(p.updated_at) > Date.parse(seen)) {
      new PositionStore(storage()).set(bookId, p.locator);
      markSeen(userId, bookId, p.updated_at);
    }
  }
  return answer;
}

/**
 * The server's position of a book as the page brought it (a reader address's boot data, api/boot.ts): applied as an
 * answer of GET .../position/ would be, and kept as that query's answer, so the reader does not wait for the request.
 * An answer not of the expected shape is left alone (the reader then asks).
 */
export function seedServerPosition(client: QueryClient, bookId: string, userId: string, answer: unknown): void {
  if (!answer || typeof answer !== 'object' || !('position' in answer)) return;
  // Only where this browser has no place of its own in the book. The page's position was read as the page was made,
  // which on a reload can be before the position the unloading page sent has landed: the reader then asks the server
  // (GET …/position/) as it did before, by which time that write is there (e2e/vertical-lr.e2e.ts's reloads).
  if (new PositionStore(storage()).latestHref(bookId)) return;
  const p = answer.position;
  const valid =
    p === null ||
    (!!p &&
      typeof p === 'object' &&
      typeof (p as { updated_at?: unknown }).updated_at === 'string' &&
      typeof (p as { locator?: { href?: unknown } }).locator?.href === 'string' &&
      typeof (p as { locator?: { progression?: unknown } }).locator?.progression === 'number');
  if (!valid) return;
  client.setQueryData(queryKeys.position(bookId, userId), applyServerPosition(bookId, userId, answer as PositionResponse));
}

