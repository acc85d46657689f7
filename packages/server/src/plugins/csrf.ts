/**
 * CSRF defence on every method other than GET, HEAD, OPTIONS and TRACE (library-playlists-account.md §7):
 * the `csrftoken` cookie must come back in the `X-CSRFToken` header (or, for plain HTML forms, the
 * `csrfmiddlewaretoken` field), it must be the HMAC-bound token of the caller's session, and a browser's `Origin`
 * (else `Referer`) must be this site. Safe requests get a token cookie when they lack a valid one.
 */
import { APP_MESSAGES, COOKIES, CSRF_HEADER, SAFE_METHODS } from '@lectern/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { SignedIn } from '../services/auth.ts';
import type { CsrfTokens } from '../services/tokens.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** the caller's valid CSRF token (or the one just issued) on page requests, for forms rendered without JS */
    pageCsrfToken: string | null;
  }
}

const SAFE = new Set<string>(SAFE_METHODS);

/**
 * The annotation store (routes/annotations.ts). Its calls are authenticated by the x-annotator-auth-token header
 * alone and never by the session cookie, so a cross-site request carries no authority there (a page on another
 * site cannot set that header without a CORS preflight we never grant): the header is the CSRF defence, and an
 * unmodified Annotator client sends neither the csrftoken nor an Origin we could check. Only this route is exempt.
 */
export const ANNOTATION_STORE_ROUTE = '/nest/api/a/:title/:bookId/*';
/**
 * Whether an address can be the annotation store's: request.routeOptions makes an object of a dozen fields at each
 * read, so it is read only for these (its prefix, or percent-encoded: the router decodes before it matches).
 */
const mayBeAnnotationStore = (url: string) => url.startsWith('/nest/api/a/') || url.includes('%');
const NO_TOKEN_PREFIXES = ['/assets/', '/api/', '/nest/'];
const CSRF_COOKIE_MAX_AGE = 365 * 24 * 60 * 60;

export function issueCsrfCookie(request: FastifyRequest, reply: FastifyReply, tokens: CsrfTokens, sessionPublicId: string | null): string {
  const token = tokens.issue(sessionPublicId);
  reply.setCookie(COOKIES.csrf, token, {
    path: '/',
    sameSite: 'lax',
    secure: request.protocol === 'https',
    httpOnly: false,
    maxAge: CSRF_COOKIE_MAX_AGE,
  });
  return token;
}

function sameOrigin(request: FastifyRequest, value: string): boolean {
  try {
    const url = new URL(value);
    return url.host === request.host && url.protocol === `${request.protocol}:`;
  } catch {
    return false;
  }
}

export function registerCsrf(app: FastifyInstance, tokens: CsrfTokens): void {
  app.decorateRequest('pageCsrfToken', null);
  // preHandler: runs after body parsing, so a form's csrfmiddlewaretoken field can be read. Callback-style hooks
  // whose fast paths return at once: an async hook cost every GET two promises and microtask hops (bench/http.ts).
  app.addHook('preHandler', (request, _reply, done) => {
    if (SAFE.has(request.method) || (mayBeAnnotationStore(request.url) && request.routeOptions.url === ANNOTATION_STORE_ROUTE)) return done();
    const refused = originRefusal(request);
    if (refused) return done(refused);
    // A session found in the cache is checked at once: no promise on the hot POSTs (the reader's chapter request).
    const known = request.authNow();
    if (known !== undefined) return done(tokenRefusal(request, known));
    request.auth().then((signedIn) => done(tokenRefusal(request, signedIn)), done);
  });

  function originRefusal(request: FastifyRequest): AppError | undefined {
    const origin = request.headers.origin;
    const referer = request.headers.referer;
    if (origin !== undefined ? !sameOrigin(request, origin) : referer !== undefined && !sameOrigin(request, referer)) {
      return new AppError(403, APP_MESSAGES.originRejected);
    }
    return undefined;
  }

  function tokenRefusal(request: FastifyRequest, signedIn: SignedIn | null): AppError | undefined {
    const cookie = request.cookies[COOKIES.csrf];
    const headerValue = request.headers[CSRF_HEADER];
    const sent =
      (typeof headerValue === 'string' ? headerValue : undefined) ??
      (request.body && typeof request.body === 'object' ? (request.body as Record<string, unknown>).csrfmiddlewaretoken : undefined);
    if (typeof sent !== 'string' || sent !== cookie || !tokens.verify(sent, signedIn?.session.public_id ?? null)) {
      return new AppError(403, APP_MESSAGES.csrfFailed);
    }
    return undefined;
  }

  // Pages and account calls get a token cookie when they lack a valid one (sign-in and sign-out replace it). The
  // catalog and reading API is skipped: every client loads a page or its profile first, and chapter fetches are
  // the hottest path there is.
  app.addHook('preHandler', (request, reply, done) => {
    if (!SAFE.has(request.method) || NO_TOKEN_PREFIXES.some((p) => request.url.startsWith(p))) return done();
    renewToken(request, reply).then(() => done(), done);
  });

  async function renewToken(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const current = request.cookies[COOKIES.csrf];
    // Without a session cookie the token must be the anonymous one; with one, it must be that session's.
    const session = request.cookies[COOKIES.session] ? ((await request.auth())?.session ?? null) : null;
    request.pageCsrfToken =
      current && tokens.verify(current, session?.public_id ?? null) ? current : issueCsrfCookie(request, reply, tokens, session?.public_id ?? null);
  }
}
