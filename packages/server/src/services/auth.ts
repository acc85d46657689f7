/**
 * Sign-in, sessions and sign-out. Sessions live 30 days; the cookie holds a random token and the database only
 * its hash.
 */
import { randomUUID } from 'node:crypto';
import { APP_MESSAGES } from '@lectern/core';
import type { SessionRow, UserRow } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import type { SessionsRepository, SessionUser } from '../repositories/sessions.ts';
import type { UsersRepository } from '../repositories/users.ts';
import { dummyPasswordHash, verifyPassword } from './passwords.ts';
import { ReadCache } from '../util/cache.ts';
import type { ServerChanges } from './server-changes.ts';
import { randomToken } from '../util/random.ts';
import { sha256 } from './tokens.ts';

export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** How often expired sessions are deleted while the server runs. */
export const SESSION_PURGE_INTERVAL_MS = 60 * 60 * 1000;

export interface SignedIn {
  session: SessionRow;
  /** with its team's state when read from a session (a member's reading rights follow the team) */
  user: SessionUser;
}

/**
 * How long a session lookup is kept. A sign-out or an account change made here is told to the other server
 * processes (services/server-changes.ts), which forget it at their next poll; this bounds the rest (a password
 * reset, "sign out everywhere else") to the same second.
 */
const SESSION_CACHE_MS = 1_000;

export class AuthService {
  /** by cookie token; `expiresMs` is the session's own end, kept as a number so a hit allocates nothing */
  private readonly cache = new ReadCache<string, { signedIn: SignedIn; expiresMs: number }>(10_000, SESSION_CACHE_MS);

  constructor(
    private readonly users: UsersRepository,
    private readonly sessions: SessionsRepository,
    private readonly now: () => Date = () => new Date(),
    /** where sign-outs and account changes are told to the other server processes (null: one process alone) */
    private readonly changes: Pick<ServerChanges, 'record'> | null = null,
  ) {}

  /** Checks the credentials and opens a session; the returned token goes into the session cookie. */
  async signIn(email: string, password: string, userAgent: string | null): Promise<SignedIn & { token: string }> {
    const user = await this.users.findByEmail(email.trim());
    const ok = await verifyPassword(user?.password_hash ?? (await dummyPasswordHash()), password);
    if (!user || !ok) throw new AppError(401, APP_MESSAGES.invalidCredentials);
    return this.openSession(user, userAgent);
  }

  /** A new session for a user whose identity is settled (a right password, a registration just made). */
  async openSession(user: UserRow, userAgent: string | null): Promise<SignedIn & { token: string }> {
    const token = randomToken();
    const now = this.now();
    const session: SessionRow = {
      id: sha256(token),
      public_id: randomUUID(),
      user_id: user.id,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + SESSION_TTL_MS).toISOString(),
      user_agent: userAgent?.slice(0, 300) ?? null,
    };
    await this.sessions.insert(session);
    // Expired sessions are deleted here as well as on the hourly schedule (app.ts): a sign-in is when new rows
    // arrive, so the table never grows faster than it is cleaned.
    await this.sessions.deleteExpired(now.toISOString());
    return { token, session, user };
  }

  /** Deletes every expired session (the hourly schedule of app.ts); returns how many went. */
  purgeExpiredSessions(): Promise<number> {
    return this.sessions.deleteExpired(this.now().toISOString());
  }

  /**
   * What `resolve` answers when it needs no database, without a promise: null for no usable token, the session
   * while it is cached and unexpired; undefined when only the database can say. A hit is as fresh as `resolve`'s
   * (the same cache, the same expiry check, forgotten at sign-out).
   */
  resolveNow(token: string | undefined): SignedIn | null | undefined {
    if (!token || token.length > 200) return null;
    // Cached by the token itself, so a hit costs no hashing; the database still only ever sees the hash.
    const cached = this.cache.get(token);
    return cached && cached.expiresMs > this.now().getTime() ? cached.signedIn : undefined;
  }

  /** The session a cookie token names, or null when it is unknown or expired. */
  async resolve(token: string | undefined): Promise<SignedIn | null> {
    const known = this.resolveNow(token);
    if (known !== undefined || !token) return known ?? null;
    const found = await this.sessions.findLive(sha256(token), this.now().toISOString());
    if (found) this.cache.set(token, { signedIn: found, expiresMs: Date.parse(found.session.expires_at) });
    return found ?? null;
  }

  /**
   * Forgets the cached sessions of a user whose account just changed (a subscription), so the next request sees it,
   * here at once and on the other server processes at their next poll.
   */
  forgetUser(userId: number): void {
    this.forgetUserHere(userId);
    void this.changes?.record('user', userId);
  }

  /** Forgets a user's cached sessions in this process only (a change another process made: services/server-changes.ts). */
  forgetUserHere(userId: number): void {
    this.cache.deleteWhere((_token, cached) => cached.signedIn.user.id === userId);
  }

  /** Forgets one session, named by its id (the token's hash), in this process only (signed out elsewhere). */
  forgetSessionHere(sessionId: string): void {
    this.cache.deleteWhere((_token, cached) => cached.signedIn.session.id === sessionId);
  }

  async signOut(token: string | undefined): Promise<void> {
    if (!token) return;
    this.cache.delete(token);
    const id = sha256(token);
    await this.sessions.delete(id);
    await this.changes?.record('session', id);
  }
}

export function generatePassword(): string {
  return randomToken(12);
}

/** A new user's uuid (the spec reads user_uuid from the page root). */
export const newUserUuid = () => randomUUID();
