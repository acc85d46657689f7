/**
 * Who is asking: `request.auth()` resolves the session cookie once per request and only when a handler or the
 * CSRF check needs it, so static files and the health check never touch the sessions table.
 */
import { COOKIES } from '@lectern/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { UserRow } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import type { AuthService, SignedIn } from '../services/auth.ts';
import { SESSION_TTL_MS } from '../services/auth.ts';

declare module 'fastify' {
  interface FastifyRequest {
    auth(): Promise<SignedIn | null>;
    /** `auth()`'s answer without a promise when it is known (set by sign-in or sign-out, cached); else undefined */
    authNow(): SignedIn | null | undefined;
    /** this request's answer once known: one request sees one answer, whichever way it was found */
    authKnown: SignedIn | null | undefined;
    /** set by sign-in / sign-out so later hooks in the same request see the new state */
    authOverride: SignedIn | null | undefined;
    /** this request's session lookup, once started (a plain field: a WeakMap entry per request cost GC time) */
    authPending: Promise<SignedIn | null> | null;
  }
}

export function registerAuthContext(app: FastifyInstance, auth: AuthService): void {
  app.decorateRequest('authOverride', undefined);
  app.decorateRequest('authPending', null);
  app.decorateRequest('authKnown', undefined);
  app.decorateRequest('auth', function (this: FastifyRequest) {
    const known = this.authNow();
    if (known !== undefined) return Promise.resolve(known);
    return (this.authPending ??= auth.resolve(this.cookies[COOKIES.session]).then((signedIn) => {
      // kept for authNow (an override set meanwhile, by a sign-in or sign-out, still comes first there)
      if (this.authKnown === undefined) this.authKnown = signedIn;
      return signedIn;
    }));
  });
  // The hot requests (a reader's chapter) find their session in the cache: answered without a promise or a
  // microtask hop for the CSRF check and the route.
  app.decorateRequest('authNow', function (this: FastifyRequest) {
    if (this.authOverride !== undefined) return this.authOverride;
    if (this.authKnown !== undefined) return this.authKnown;
    const hit = auth.resolveNow(this.cookies[COOKIES.session]);
    if (hit !== undefined) this.authKnown = hit;
    return hit;
  });
}

export async function currentUser(request: FastifyRequest): Promise<UserRow | null> {
  return (await request.auth())?.user ?? null;
}

/** The caller's user without a promise when `authNow` knows it; else the promise (`currentUser`). */
export function currentUserNow(request: FastifyRequest): UserRow | null | Promise<UserRow | null> {
  const known = request.authNow();
  return known === undefined ? currentUser(request) : (known?.user ?? null);
}

export async function requireSignedIn(request: FastifyRequest, message: string): Promise<SignedIn> {
  const signedIn = await request.auth();
  if (!signedIn) throw new AppError(401, message);
  return signedIn;
}

const isSecure = (request: FastifyRequest) => request.protocol === 'https';

export function setSessionCookies(request: FastifyRequest, reply: FastifyReply, token: string): void {
  const maxAge = Math.floor(SESSION_TTL_MS / 1000);
  const common = { path: '/', sameSite: 'lax' as const, secure: isSecure(request), maxAge };
  reply.setCookie(COOKIES.session, token, { ...common, httpOnly: true });
  reply.setCookie(COOKIES.loggedIn, '1', { ...common, httpOnly: false });
}

export function clearSessionCookies(request: FastifyRequest, reply: FastifyReply): void {
  const common = { path: '/', sameSite: 'lax' as const, secure: isSecure(request) };
  reply.clearCookie(COOKIES.session, { ...common, httpOnly: true });
  reply.clearCookie(COOKIES.loggedIn, common);
}
