/**
 * The sign-in and sign-out forms for browsers without JavaScript. index.html holds a marker inside its <noscript>;
 * each page response fills it with plain HTML forms that post to /login/ and /logout/ with the caller's CSRF token
 * in `csrfmiddlewaretoken` (the server's form handling does the rest: 303 redirects, ?error= on failure). With
 * JavaScript on, <noscript> content is inert text and the React app shows its own sign-in page.
 */
import { APP_MESSAGES, safeNextPath } from '@lectern/core';
import type { FastifyRequest } from 'fastify';
import { escapeAttribute } from '../util/html-escape.ts';

export const NOSCRIPT_MARKER = '<!--lectern:noscript-forms-->';

const ERRORS: Record<string, string> = {
  credentials: APP_MESSAGES.invalidCredentials,
  invalid: APP_MESSAGES.signInFieldsMissing,
};

/** The forms for this request: sign-out when a session is live, else sign-in (back to this page afterwards). */
export async function noscriptForms(request: FastifyRequest): Promise<string> {
  const token = escapeAttribute(request.pageCsrfToken ?? '');
  const signedIn = await request.auth();
  const style = 'style="font-family: system-ui, sans-serif; padding: 0 2rem 2rem; max-width: 24rem"';
  if (signedIn) {
    return `<form method="post" action="/logout/" ${style}>
<p>You are signed in as ${escapeAttribute(signedIn.user.email)}.</p>
<input type="hidden" name="csrfmiddlewaretoken" value="${token}">
<button type="submit">Sign out</button>
</form>`;
  }
  // The request's own path and query after an origin of ours: resolved against one instead, a path that starts with
  // "//" is read as a host ("//[" then throws: a 500 for any visitor, found by the attack suite's raw page paths).
  const url = new URL(`http://x${request.url.startsWith('/') ? '' : '/'}${request.url}`);
  const onLoginPage = url.pathname === '/login/';
  const next = safeNextPath(onLoginPage ? url.searchParams.get('next') : url.pathname + url.search);
  const error = onLoginPage ? ERRORS[url.searchParams.get('error') ?? ''] : undefined;
  return `<form method="post" action="/login/" ${style}>
${error ? `<p role="alert">${escapeAttribute(error)}</p>\n` : ''}<input type="hidden" name="csrfmiddlewaretoken" value="${token}">
<input type="hidden" name="next" value="${escapeAttribute(next)}">
<p><label>Email address<br><input type="email" name="email" autocomplete="username" required></label></p>
<p><label>Password<br><input type="password" name="password" autocomplete="current-password" required></label></p>
<button type="submit">Sign in</button>
</form>`;
}
