/**
 * Per-address limits on the account-entry calls (registration, the email and password checks), counted in the
 * database like the sign-in limit (services/sign-in-throttle.ts, same counters table): a flood of other keys cannot
 * push an address's count out, a restart does not reset it, and several server processes count together. The email
 * check answers whether an address has an account, so its limit is also the rate at which anyone can enumerate
 * accounts; registration answers the same through "already exists", so it is limited too.
 */
import { ACCOUNT_ENTRY_MESSAGES } from '@lectern/core';
import { AppError } from '../errors.ts';
import type { SignInAttemptsRepository } from '../repositories/sign-in-attempts.ts';

export const REQUEST_LIMIT_WINDOW_MS = 60_000;

/** Calls per client address per minute. */
export const REQUEST_LIMITS = {
  register: 10,
  'email-check': 30,
  'password-check': 60,
  'password-reset': 5,
  promotion: 30,
  /** batches of analytics events (services/analytics.ts counts them under a keyed hash of the address) */
  analytics: 60,
  /** per inviting account, not per address: a request carries up to TEAM_INVITE_BATCH_MAX addresses */
  'team-invite': 10,
} as const;
export type LimitedAction = keyof typeof REQUEST_LIMITS;

export class TooManyRequests extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, ACCOUNT_ENTRY_MESSAGES.tooManyRequests);
  }
}

export class RequestLimits {
  constructor(
    private readonly counters: SignInAttemptsRepository,
    private readonly limits: Record<LimitedAction, number> = REQUEST_LIMITS,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Counts one call of `action` from `clientAddress`; throws TooManyRequests past the minute's limit. */
  async count(action: LimitedAction, clientAddress: string): Promise<void> {
    const now = this.now();
    const cutoff = new Date(now.getTime() - REQUEST_LIMIT_WINDOW_MS).toISOString();
    const hit = await this.counters.hit(`${action}:${clientAddress}`, now.toISOString(), cutoff);
    if (hit.count <= this.limits[action]) return;
    const until = Date.parse(hit.windowStart) + REQUEST_LIMIT_WINDOW_MS;
    throw new TooManyRequests(Math.max(1, Math.ceil((until - now.getTime()) / 1000)));
  }
}
