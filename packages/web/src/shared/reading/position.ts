/**
 * Reading positions. One position type, core's Locator (DESIGN.md, after Readium): the chapter href, a progression
 * (0 to 1 within the chapter) and a text snippet (before / highlight / after) that finds the same words again after
 * any re-layout; the account's position, a search hit and the read-aloud cursor are Locators too. Positions are kept
 * per book and chapter in local storage, and the initial position of a chapter follows the priority of reader.md §4.
 */
import { clampPercentage, type Locator } from '@lectern/core';
import type { StorageLike } from './usageQueue.ts';

export type { Locator };

export type InitialPosition =
  | { kind: 'anchor'; id: string }
  | { kind: 'end' }
  | { kind: 'stored'; locator: Locator }
  | { kind: 'percentage'; value: number };

/**
 * How far down its chapter a position is, 0 to 1, where only that can be taken (a PDF, a scripted page the reader
 * cannot look into): an anchor is the chapter's top, the end its end.
 */
export function progressionOf(at: InitialPosition): number {
  return at.kind === 'stored' ? at.locator.progression : at.kind === 'percentage' ? at.value / 100 : at.kind === 'end' ? 1 : 0;
}

/**
 * reader.md §4 "Initial position priority": 1. target anchor or URL hash, 2. end of chapter when coming back (from
 * the next chapter, paging backwards), 3. stored position, 4. top_percentage of the block answer. A target Locator
 * (an annotation chosen in the notes panel) is a target of priority 1, taken the way a stored position is.
 */
export function resolveInitialPosition(input: {
  target?: Locator | null;
  hash?: string | null;
  comingBack?: boolean;
  stored?: Locator | null;
  topPercentage?: number | null;
}): InitialPosition {
  if (input.target && Number.isFinite(input.target.progression)) return { kind: 'stored', locator: input.target };
  const id = (input.hash ?? '').replace(/^#/, '');
  if (id) {
    let decoded = id;
    try {
      decoded = decodeURIComponent(id);
    } catch {
      /* keep as written */
    }
    return { kind: 'anchor', id: decoded };
  }
  if (input.comingBack) return { kind: 'end' };
  if (input.stored && Number.isFinite(input.stored.progression)) return { kind: 'stored', locator: input.stored };
  return { kind: 'percentage', value: clampPercentage(input.topPercentage ?? 0) };
}

export const POSITIONS_KEY = 'reader_positions';
const MAX_POSITIONS = 500;

/**
 * As browsers have kept positions from the start: the progression in percent (0-100). Converted here only, so the
 * places already stored stay good.
 */
interface StoredPositions {
  [bookAndHref: string]: { href: string; progression: number; text?: Locator['text']; at: number };
}

export class PositionStore {
  constructor(private readonly storage: StorageLike | null) {}

  private all(): StoredPositions {
    try {
      const raw = this.storage?.getItem(POSITIONS_KEY);
      const v: unknown = raw ? JSON.parse(raw) : {};
      return v && typeof v === 'object' && !Array.isArray(v) ? (v as StoredPositions) : {};
    } catch {
      return {};
    }
  }

  get(bookId: string, href: string): Locator | null {
    const v = this.all()[`${bookId}/${href}`];
    if (!v || typeof v.progression !== 'number' || !Number.isFinite(v.progression)) return null;
    return { href: v.href, progression: clampPercentage(v.progression) / 100, ...(v.text ? { text: v.text } : {}) };
  }

  /** The chapter of this book read most recently in this browser, if any. */
  latestHref(bookId: string): string | null {
    let best: { href: string; at: number } | null = null;
    for (const [key, value] of Object.entries(this.all())) {
      if (!key.startsWith(`${bookId}/`) || typeof value?.at !== 'number' || typeof value.href !== 'string') continue;
      if (!best || value.at > best.at) best = { href: value.href, at: value.at };
    }
    return best?.href ?? null;
  }

  set(bookId: string, locator: Locator, now = Date.now()) {
    const all = this.all();
    all[`${bookId}/${locator.href}`] = { ...locator, progression: clampPercentage(locator.progression * 100), at: now };
    let entries = Object.entries(all);
    if (entries.length > MAX_POSITIONS) {
      entries = entries.sort((a, b) => b[1].at - a[1].at).slice(0, MAX_POSITIONS);
    }
    try {
      this.storage?.setItem(POSITIONS_KEY, JSON.stringify(Object.fromEntries(entries)));
    } catch {
      /* positions are a convenience; the server's top_percentage is the fallback */
    }
  }
}
