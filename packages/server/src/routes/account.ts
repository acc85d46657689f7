/** Sign-in, sign-out and the account profile (reader.md §3, §6). */
import {
  accountEntryPaths,
  APP_MESSAGES,
  COOKIES,
  emailChangeSchema,
  hasControlCharacter,
  loginRequestSchema,
  MESSAGES,
  passwordChangeSchema,
  safeNextPath,
  SHORTCUTS_SETTING_PATH,
  shortcutSettingSchema,
} from '@lectern/core';
import type { FastifyInstance } from 'fastify';
import { AppError, fieldError } from '../errors.ts';
import { clearSessionCookies, requireSignedIn, setSessionCookies } from '../plugins/auth-context.ts';
import { issueCsrfCookie } from '../plugins/csrf.ts';
import type { AccountsService } from '../services/accounts.ts';
import type { AccountSettingsService } from '../services/account-settings.ts';
import type { AuthService } from '../services/auth.ts';
import { type SignInThrottle, TooManySignIns } from '../services/sign-in-throttle.ts';
import type { CsrfTokens } from '../services/tokens.ts';

export function accountRoutes(
  app: FastifyInstance,
  deps: { auth: AuthService; accounts: AccountsService; settings: AccountSettingsService; csrf: CsrfTokens; throttle: SignInThrottle },
): void {
  app.post('/login/', async (request, reply) => {
    const isForm = (request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    const next = (request.body as { next?: unknown } | undefined)?.next;
    if (next !== undefined && (typeof next !== 'string' || hasControlCharacter(next))) throw fieldError('next', APP_MESSAGES.nextNotAPath);
    const parsed = loginRequestSchema.safeParse(request.body ?? {});
    if (!parsed.success) {
      if (isForm) return reply.redirect(`/login/?error=invalid&next=${encodeURIComponent(safeNextPath((request.body as { next?: string } | undefined)?.next))}`, 303);
      throw parsed.error;
    }
    // Counted per client address and account, in the database (services/sign-in-throttle.ts). request.ip is
    // the socket's address unless it is one of the proxies TRUST_PROXY names.
    try {
      await deps.throttle.attempt(request.ip, parsed.data.email);
    } catch (err) {
      if (err instanceof TooManySignIns) reply.header('retry-after', String(err.retryAfterSeconds));
      throw err;
    }
    try {
      const signedIn = await deps.auth.signIn(parsed.data.email, parsed.data.password, request.headers['user-agent'] ?? null);
      request.authOverride = signedIn;
      setSessionCookies(request, reply, signedIn.token);
      issueCsrfCookie(request, reply, deps.csrf, signedIn.session.public_id);
      request.log.info({ userId: signedIn.user.id }, 'signed in');
      if (isForm) return reply.redirect(safeNextPath(parsed.data.next), 303);
      return deps.accounts.profile(signedIn.user, signedIn.session);
    } catch (err) {
      if (isForm && err instanceof AppError && err.status === 401) {
        return reply.redirect(`/login/?error=credentials&next=${encodeURIComponent(safeNextPath(parsed.data.next))}`, 303);
      }
      throw err;
    }
  });

  app.post('/logout/', async (request, reply) => {
    await deps.auth.signOut(request.cookies[COOKIES.session]);
    request.authOverride = null;
    clearSessionCookies(request, reply);
    issueCsrfCookie(request, reply, deps.csrf, null);
    const isForm = (request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    if (isForm) return reply.redirect('/library/', 303);
    return reply.status(204).send();
  });

  app.post(accountEntryPaths.password(), async (request) => {
    const { user, session } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    const { current_password, new_password } = passwordChangeSchema.parse(request.body ?? {});
    const signedOut = await deps.accounts.changePassword(user, session, current_password, new_password);
    deps.auth.forgetUser(user.id);
    return { signed_out: signedOut };
  });

  app.post(accountEntryPaths.email(), async (request) => {
    const { user, session } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    const { current_password, email } = emailChangeSchema.parse(request.body ?? {});
    const changed = await deps.accounts.changeEmail(user, current_password, email);
    deps.auth.forgetUser(user.id);
    return deps.accounts.profile(changed, session);
  });

  app.delete(accountEntryPaths.otherSessions(), async (request) => {
    const { user, session } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    const signedOut = await deps.accounts.signOutOthers(user, session);
    deps.auth.forgetUser(user.id);
    return { signed_out: signedOut };
  });

  app.get('/u/information_for_javascript', async (request) => {
    const { user, session } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    return deps.accounts.profile(user, session);
  });

  // Single-key shortcuts on or off, per account (library-playlists-account.md §6; docs/decisions.md "Keyboard shortcuts").
  app.get(SHORTCUTS_SETTING_PATH, async (request, reply) => {
    const { user } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    reply.header('cache-control', 'private, no-store');
    return deps.settings.shortcuts(user.id);
  });

  app.put(SHORTCUTS_SETTING_PATH, async (request, reply) => {
    const { user } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    const setting = shortcutSettingSchema.parse(request.body ?? {});
    reply.header('cache-control', 'private, no-store');
    return deps.settings.setShortcuts(user.id, setting);
  });
}
