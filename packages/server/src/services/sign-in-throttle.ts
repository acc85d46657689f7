/**
 * The sign-in rate limit (docs/decisions.md "Sign-in rate limit"): per minute, `limit` attempts per client address
 * and account, and ACCOUNT_FACTOR times that per account from all addresses together, so that guessing spread over
 * many addresses is bounded too. The counters live in the database: they survive a flood of other keys, a restart,
 * and count across server processes.
 */
import { APP_MESSAGES } from '@lectern/core';
import { AppError } from '../errors.ts';
import type { SignInAttemptsRepository } from '../repositories/sign-in-attempts.ts';

export const SIGN_IN_WINDOW_MS = 60_000;
export const ACCOUNT_FACTOR = 5;

export class TooManySignIns extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, APP_MESSAGES.tooManySignIns);
  }
}

export class SignInThrottle {
  constructor(
    private readonly attempts: SignInAttemptsRepository,
    private readonly limit: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Counts one attempt; throws TooManySignIns when either counter is over its limit for this minute. */
  async attempt(clientAddress: string, email: string): Promise<void> {
    const now = this.now();
    const cutoff = new Date(now.getTime() - SIGN_IN_WINDOW_MS).toISOString();
    const account = email.trim().toLowerCase();
    const [pair, whole] = await Promise.all([
      this.attempts.hit(`addr:${clientAddress}|${account}`, now.toISOString(), cutoff),
      this.attempts.hit(`acct:${account}`, now.toISOString(), cutoff),
    ]);
    const over = [pair.count > this.limit ? pair : null, whole.count > this.limit * ACCOUNT_FACTOR ? whole : null].filter((c) => c !== null);
    if (over.length === 0) return;
    const until = Math.max(...over.map((c) => Date.parse(c.windowStart) + SIGN_IN_WINDOW_MS));
    throw new TooManySignIns(Math.max(1, Math.ceil((until - now.getTime()) / 1000)));
  }

  /** Forgets counters whose minute is over. */
  purge(): Promise<number> {
    return this.attempts.deleteEndedBefore(new Date(this.now().getTime() - SIGN_IN_WINDOW_MS).toISOString());
  }
}
