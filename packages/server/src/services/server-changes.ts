/**
 * What one server process changed that the others keep in memory (docs/decisions.md "Several servers:
 * current on all within a second"). A sign-out, an account whose rights changed, a reader's playlists (their ETag's
 * counter), the home's picks and announcements: each is a row of `server_changes`, recorded after its change
 * committed, and every process reads the rows it has not seen once a second (app.ts, with `catalog_changes`) and
 * forgets what it kept of them. Its own rows come back to it too: forgetting twice is harmless.
 */
import type { ServerChange, ServerChangesRepository } from '../repositories/server-changes.ts';

/** What a row names: a session (its id, the token's hash), a user (id), a user's playlists (user id), the home. */
export type ServerChangeKind = 'session' | 'user' | 'playlists' | 'home';

/** How long rows are kept: far past the poll's second, for a process that was busy or paused. */
export const SERVER_CHANGES_KEPT_MS = 60 * 60_000;
/** How many ids below the newest seen are read again (rows committed out of id order). */
const FEED_OVERLAP = 50;

/**
 * Reads a table of change rows once each, in commit order as far as a poll can see it. PostgreSQL hands out ids before
 * commit: a row with a lower id may become visible after a higher one, so the last FEED_OVERLAP ids are read again
 * and a row is acted on once.
 */
export class FeedCursor<R extends { id: number }> {
  /** the newest row acted on; null until the first poll (at start nothing is kept to forget) */
  private seen: number | null = null;
  private readonly handled = new Set<number>();

  constructor(private readonly rows: { latest(): Promise<number>; since(id: number): Promise<R[]> }) {}

  /** Hands each row not handled yet to `act`; returns how many. */
  async poll(act: (row: R) => void): Promise<number> {
    if (this.seen === null) {
      this.seen = await this.rows.latest();
      return 0;
    }
    const rows = await this.rows.since(Math.max(0, this.seen - FEED_OVERLAP));
    let acted = 0;
    for (const r of rows) {
      if (this.handled.has(r.id)) continue;
      act(r);
      this.handled.add(r.id);
      this.seen = Math.max(this.seen, r.id);
      acted++;
    }
    for (const id of this.handled) if (id <= this.seen - FEED_OVERLAP) this.handled.delete(id);
    return acted;
  }
}

export class ServerChanges {
  private readonly cursor: FeedCursor<ServerChange>;
  private readonly handlers = new Map<string, ((subject: string) => void)[]>();

  constructor(
    private readonly changes: ServerChangesRepository,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.cursor = new FeedCursor(changes);
  }

  /** What this process forgets when a row of `kind` arrives (wired in build-services.ts). */
  on(kind: ServerChangeKind, forget: (subject: string) => void): void {
    this.handlers.set(kind, [...(this.handlers.get(kind) ?? []), forget]);
  }

  /**
   * Tells the other processes (after the change committed). A failure here leaves them their caches' own time
   * limits, so callers let it pass rather than fail a change that is made.
   */
  record(kind: ServerChangeKind, subject: string | number): Promise<void> {
    return this.changes.record(kind, String(subject), this.now().toISOString()).catch(() => {});
  }

  /** Forgets what the rows since the last poll name, whichever process recorded them. */
  poll(): Promise<number> {
    return this.cursor.poll((r) => {
      for (const forget of this.handlers.get(r.kind) ?? []) forget(r.subject);
    });
  }

  /** Rows every process has read long since (the retention purge). */
  purge(): Promise<number> {
    return this.changes.purgeBefore(new Date(this.now().getTime() - SERVER_CHANGES_KEPT_MS).toISOString());
  }
}
