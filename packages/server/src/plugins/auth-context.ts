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
    /** set by sign-in / sign-out so later hooks in the same request see the new state */
    authOverride: SignedIn | null | undefined;
    /** this request's session lookup, once started (a plain field: a WeakMap entry per request cost GC time) */
    authPending: Promise<SignedIn | null> | null;
  }
}

export function registerAuthContext(app: FastifyInstance, auth: AuthService): void {
  app.decorateRequest('authOverride', undefined);
  app.decorateRequest('authPending', null);
  app.decorateRequest('auth', function (this: FastifyRequest) {
    if (this.authOverride !== undefined) return Promise.resolve(this.authOverride);
    return (this.authPending ??= auth.resolve(this.cookies[COOKIES.session]));
  });
}

export async function currentUser(request: FastifyRequest): Promise<UserRow | null> {
  return (await request.auth())?.user ?? null;
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
