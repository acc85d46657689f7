/**
 * Bounded concurrency with a queue, for the requests that read much (docs/decisions.md "Heavy requests take turns"): at most
 * `concurrency` run at once, the rest wait in order of arrival, and past `maxWaiting` waiting a new one is refused
 * at once (Busy) instead of piling up. What a heavy request holds while it works (its candidate rows, a database
 * connection on PostgreSQL, turns of the event loop on SQLite) is then held by a few at a time, whatever the number
 * of connections, and cheap requests, which never wait here, find the loop and the pool free between them. A wait is
 * bounded too (maxWaitMs, then Busy), and a request whose client has gone leaves the queue without its work run.
 */
import { APP_MESSAGES } from '@lectern/core';
import type { ServerResponse } from 'node:http';
import { AppError } from '../errors.ts';

export class Busy extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super(503, APP_MESSAGES.busy);
  }
}

/** The request's client went away while it waited: its work is not run (nobody would read the answer). */
export class ClientGone extends AppError {
  constructor() {
    super(503, APP_MESSAGES.busy);
  }
}

/** The longest a request waits for its turn by default, after which it is refused as Busy (HEAVY_REQUESTS_WAIT_SECONDS). */
export const DEFAULT_MAX_WAIT_MS = 30_000;

interface Waiter {
  /** hands the turn over; false when the waiter had gone (its client left), and the turn goes to the next */
  take(): boolean;
}

export class Gate {
  private active = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    readonly concurrency: number,
    readonly maxWaiting: number,
    /** how long one may wait; past it Busy, as when the queue is full */
    readonly maxWaitMs: number = DEFAULT_MAX_WAIT_MS,
  ) {
    if (!(concurrency >= 1)) throw new Error(`a gate lets at least one through (got ${concurrency})`);
    if (!(maxWaitMs > 0)) throw new Error(`a gate lets one wait some time (got ${maxWaitMs} ms)`);
  }

  /** How many run now and how many wait. */
  get load(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }

  /**
   * Runs `work` when its turn comes; throws Busy when the queue is full or the turn did not come within maxWaitMs,
   * ClientGone (work not run) when `signal` aborts before the turn. The turn is passed on however work ends.
   */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.enter(signal);
    try {
      if (signal?.aborted) throw new ClientGone();
      return await work();
    } finally {
      this.leave();
    }
  }

  /**
   * Takes a turn (waiting for it); the caller must `leave()` once done — but not when this rejects: a waiter that
   * times out or whose signal aborts leaves the queue holding nothing.
   */
  enter(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(new ClientGone());
    if (this.active < this.concurrency) {
      this.active++;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.maxWaiting) return Promise.reject(new Busy(1));
    // the turn is handed over by leave(): `active` stays counted for the waiter it takes
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const settle = () => {
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
      };
      const waiter: Waiter = {
        take: () => {
          if (settled) return false;
          settle();
          if (signal?.aborted) {
            reject(new ClientGone());
            return false;
          }
          resolve();
          return true;
        },
      };
      const giveUp = (err: Error) => {
        if (settled) return;
        settle();
        reject(err);
      };
      const onAbort = () => giveUp(new ClientGone());
      const timer = setTimeout(() => giveUp(new Busy(1)), this.maxWaitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  leave(): void {
    for (let next = this.waiting.shift(); next; next = this.waiting.shift()) {
      if (next.take()) return;
    }
    this.active--;
  }
}

/** What inTurn needs of a route's reply: its header (Retry-After) and the response under it (to see the client go). */
export interface TurnReply {
  header(name: string, value: string): unknown;
  raw: Pick<ServerResponse, 'once' | 'off' | 'writableFinished' | 'destroyed'>;
}

/**
 * A route's work in its turn of `gate`; a full queue or a turn that did not come in time is a 503 with Retry-After
 * (the error handler writes the body). A request whose client closes the connection while it waits leaves the
 * queue, and its work is not run (the closed response: 'close' before it finished).
 */
export async function inTurn<T>(gate: Gate, reply: TurnReply, work: () => Promise<T>): Promise<T> {
  const gone = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableFinished) gone.abort();
  };
  if (reply.raw.destroyed) gone.abort();
  else reply.raw.once('close', onClose);
  try {
    return await gate.run(work, gone.signal);
  } catch (err) {
    if (err instanceof Busy) reply.header('retry-after', String(err.retryAfterSeconds));
    throw err;
  } finally {
    reply.raw.off('close', onClose);
  }
}
