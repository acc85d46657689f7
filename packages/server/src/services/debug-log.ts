/**
 * library-playlists-account.md §7 `POST /debug/` (debug or test mode only): a page's message written to the server's
 * log, with who sent it. The last few are kept in memory too, so a test or a developer's console can read them back
 * without a log file (the spec shows no answer: the call answers 204).
 */
import type { DebugMessage } from '@lectern/core';

export interface DebugEntry {
  at: string;
  /** the signed-in reader's uuid, or null for a visitor */
  user: string | null;
  message: string;
}

/** How many messages are kept in memory (the oldest goes first). */
export const DEBUG_ENTRIES_KEPT = 100;

export class DebugLog {
  private readonly entries: DebugEntry[] = [];

  constructor(
    private readonly write: (entry: DebugEntry) => void,
    private readonly now: () => Date = () => new Date(),
  ) {}

  record(user: { uuid: string } | null, input: DebugMessage): void {
    const entry: DebugEntry = { at: this.now().toISOString(), user: user?.uuid ?? null, message: input.message };
    this.entries.push(entry);
    if (this.entries.length > DEBUG_ENTRIES_KEPT) this.entries.shift();
    this.write(entry);
  }

  recent(): readonly DebugEntry[] {
    return this.entries;
  }
}
