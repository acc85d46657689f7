/**
 * Bounded concurrency with a queue, for the requests that read much (docs/decisions.md "Heavy requests take turns"): at most
 * `concurrency` run at once, the rest wait in order of arrival, and past `maxWaiting` waiting a new one is refused
 * at once (Busy) instead of piling up. What a heavy request holds while it works (its candidate rows, a database
 * connection on PostgreSQL, turns of the event loop on SQLite) is then held by a few at a time, whatever the number
 * of connections, and cheap requests, which never wait here, find the loop and the pool free between them.
 */
import { APP_MESSAGES } from '@lectern/core';
import { AppError } from '../errors.ts';

export class Busy extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super(503, APP_MESSAGES.busy);
  }
}

export class Gate {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly concurrency: number,
    readonly maxWaiting: number,
  ) {
    if (!(concurrency >= 1)) throw new Error(`a gate lets at least one through (got ${concurrency})`);
  }

  /** How many run now and how many wait. */
  get load(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }

  /** Runs `work` when its turn comes; throws Busy when the queue is full. The turn is passed on however work ends. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.enter();
    try {
      return await work();
    } finally {
      this.leave();
    }
  }

  /** Takes a turn (waiting for it); the caller must `leave()` once done. */
  enter(): Promise<void> {
    if (this.active < this.concurrency) {
      this.active++;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.maxWaiting) return Promise.reject(new Busy(1));
    // the turn is handed over by leave(): `active` stays counted for the waiter it wakes
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  leave(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

/**
 * A route's work in its turn of `gate`; a full queue is a 503 with Retry-After (the error handler writes the body).
 * `reply` is the route's reply (only its header is set here).
 */
export async function inTurn<T>(gate: Gate, reply: { header(name: string, value: string): unknown }, work: () => Promise<T>): Promise<T> {
  try {
    return await gate.run(work);
  } catch (err) {
    if (err instanceof Busy) reply.header('retry-after', String(err.retryAfterSeconds));
    throw err;
  }
}
