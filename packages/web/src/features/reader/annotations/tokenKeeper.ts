/**
 * The annotation store's auth token on the client (reader.md §4 "Auth token", §9): fetched from /auth/token, used
 * while its claims are complete and time remains, refreshed ANNOTATION_TIMING.authRefreshBeforeExpiryMs before it
 * expires; after a failed request a new one is asked for only after authRetryMs (callers meanwhile get the failure,
 * a TokenFailure: the §8 notice "Couldn't get auth token:" and why, as Annotator's Auth plugin words it).
 */
import { ANNOTATION_MESSAGES, ANNOTATION_TIMING, authTokenClaimsSchema, tokenTimeLeftMs, type AuthTokenClaims } from '@lectern/core';
import { isApiError } from '../../../api/client.ts';

/** Why the token request failed, in a few words: the answer's status, or that none came. */
function reasonOf(e: unknown): string {
  if (isApiError(e)) return e.status === 0 ? 'the server could not be reached' : `${e.status} ${e.statusText}`.trim();
  return e instanceof Error ? e.message : String(e);
}

/** The token could not be had (reader.md §8 "Auth token failure"): its message is the notice the reader is shown. */
export class TokenFailure extends Error {
  override readonly name = 'TokenFailure';
  constructor(cause: unknown) {
    super(`${ANNOTATION_MESSAGES.tokenFailed} ${reasonOf(cause)}`, { cause });
  }
}

/** The claims of a JWT's payload, or null when it is not a token with complete claims (§5: such a token is invalid). */
export function tokenClaims(token: string): AuthTokenClaims | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(payload.length / 4) * 4, '='));
    const parsed = authTokenClaimsSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export class TokenKeeper {
  private token: string | null = null;
  private claims: AuthTokenClaims | null = null;
  private pending: Promise<string> | null = null;
  private failedAt = -Infinity;
  private failure: unknown = null;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly fetchToken: () => Promise<string>,
    private readonly now: () => number = Date.now,
  ) {}

  /** A token with more than the refresh margin left: the one held, or a new one. */
  get(): Promise<string> {
    if (this.token && this.claims && tokenTimeLeftMs(this.claims, this.now()) > ANNOTATION_TIMING.authRefreshBeforeExpiryMs) return Promise.resolve(this.token);
    if (this.pending) return this.pending;
    if (this.now() - this.failedAt < ANNOTATION_TIMING.authRetryMs) return Promise.reject(this.failure);
    this.pending = this.fetchToken()
      .then((token) => {
        const claims = tokenClaims(token);
        if (!claims) throw new Error('The store token has incomplete claims.');
        this.token = token;
        this.claims = claims;
        this.schedule();
        return token;
      })
      .catch((e: unknown) => {
        const failure = e instanceof TokenFailure ? e : new TokenFailure(e);
        this.failedAt = this.now();
        this.failure = failure;
        throw failure;
      })
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }

  /** A token the store refused (401): forget it, so the next call asks for a new one. */
  invalidate() {
    this.token = null;
    this.claims = null;
  }

  /** Refreshes ahead of expiry while the reader stays, so a save never waits for a token. */
  private schedule() {
    clearTimeout(this.timer);
    if (!this.claims) return;
    const wait = tokenTimeLeftMs(this.claims, this.now()) - ANNOTATION_TIMING.authRefreshBeforeExpiryMs;
    this.timer = setTimeout(() => {
      this.token = null;
      this.get().catch(() => undefined);
    }, Math.max(0, wait));
  }

  stop() {
    clearTimeout(this.timer);
  }
}
