/**
 * Joining (docs/decisions.md "Joining"): registration, the email and password checks, the onboarding topics. Each entry
 * call is limited per client address (services/request-limits.ts); registration opens a session like a sign-in.
 */
import {
  ACCOUNT_ENTRY_MESSAGES,
  accountEntryPaths,
  passwordResetConfirmSchema,
  passwordResetRequestSchema,
  chosenTopicsSchema,
  emailCheckQuerySchema,
  MESSAGES,
  passwordValidationSchema,
} from '@lectern/core';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { requireSignedIn, setSessionCookies } from '../plugins/auth-context.ts';
import { issueCsrfCookie } from '../plugins/csrf.ts';
import type { AuthService } from '../services/auth.ts';
import type { PasswordResetService } from '../services/password-reset.ts';
import type { RegistrationService } from '../services/registration.ts';
import { z } from 'zod';
import { type LimitedAction, type RequestLimits, TooManyRequests } from '../services/request-limits.ts';
import type { CsrfTokens } from '../services/tokens.ts';

export function registrationRoutes(
  app: FastifyInstance,
  deps: { registration: RegistrationService; auth: AuthService; limits: RequestLimits; csrf: CsrfTokens; passwordReset: PasswordResetService },
): void {
  const limit = async (action: LimitedAction, ip: string, reply: FastifyReply) => {
    try {
      await deps.limits.count(action, ip);
    } catch (err) {
      if (err instanceof TooManyRequests) reply.header('retry-after', String(err.retryAfterSeconds));
      throw err;
    }
  };

  app.post(accountEntryPaths.register(), async (request, reply) => {
    await limit('register', request.ip, reply);
    const { user, response } = await deps.registration.register(request.body);
    const signedIn = await deps.auth.openSession(user, request.headers['user-agent'] ?? null);
    request.authOverride = signedIn;
    setSessionCookies(request, reply, signedIn.token);
    issueCsrfCookie(request, reply, deps.csrf, signedIn.session.public_id);
    request.log.info({ userId: user.id }, 'registered');
    return reply.status(201).send(response);
  });

  // Whether an address has an account is what this answers: no shared cache may keep it.
  app.get(accountEntryPaths.emailCheck(), async (request, reply) => {
    await limit('email-check', request.ip, reply);
    const { email } = emailCheckQuerySchema.parse(request.query);
    reply.header('cache-control', 'no-store');
    return deps.registration.emailCheck(email);
  });

  app.post(accountEntryPaths.passwordValidation(), async (request, reply) => {
    await limit('password-check', request.ip, reply);
    const { password, email } = passwordValidationSchema.parse(request.body ?? {});
    reply.header('cache-control', 'no-store');
    return deps.registration.passwordCheck(password, email);
  });

  // The same answer whether or not an account uses the address; limited per address like the other entry calls.
  app.post(accountEntryPaths.passwordReset(), async (request, reply) => {
    await limit('password-reset', request.ip, reply);
    const { email } = passwordResetRequestSchema.parse(request.body ?? {});
    await deps.passwordReset.request(email);
    return reply.status(202).send({ detail: ACCOUNT_ENTRY_MESSAGES.resetSent });
  });

  app.get(accountEntryPaths.passwordResetConfirm(), async (request, reply) => {
    const { token } = z.object({ token: z.string().max(200).default('') }).parse(request.query);
    reply.header('cache-control', 'no-store');
    return { live: token ? await deps.passwordReset.isLive(token) : false };
  });

  app.post(accountEntryPaths.passwordResetConfirm(), async (request, reply) => {
    await limit('password-reset', request.ip, reply);
    const { token, new_password } = passwordResetConfirmSchema.parse(request.body ?? {});
    await deps.passwordReset.confirm(token, new_password);
    return { detail: ACCOUNT_ENTRY_MESSAGES.resetDone };
  });

  app.get(accountEntryPaths.topics(), async (request) => {
    const { user } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    return { topics: await deps.registration.chosenTopics(user) };
  });

  app.put(accountEntryPaths.topics(), async (request) => {
    const { user } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    const { topics } = chosenTopicsSchema.parse(request.body ?? {});
    return { topics: await deps.registration.chooseTopics(user, topics) };
  });
}
