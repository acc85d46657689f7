/**
 * The first operator's set-up (docs/decisions.md "The first operator, from the browser"): `GET
 * /api/v1/admin/first-operator/?token=` says whether the printed link is live; `POST` with `{token, email, password}`
 * creates the first admin and signs them in, like a registration. Both count as sign-in attempts (the sign-in rate
 * limit), the POST is CSRF-checked like every unsafe call, and the new account is written to the audit log as its own
 * first action (the admin audit hook, `request.audit`).
 */
import { firstOperatorPaths, resetLinkStateSchema } from '@lectern/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { setSessionCookies } from '../plugins/auth-context.ts';
import { issueCsrfCookie } from '../plugins/csrf.ts';
import type { AccountsService } from '../services/accounts.ts';
import type { AuthService } from '../services/auth.ts';
import type { FirstOperatorService } from '../services/first-operator.ts';
import { type SignInThrottle, TooManySignIns } from '../services/sign-in-throttle.ts';
import type { CsrfTokens } from '../services/tokens.ts';

/** The sign-in limit's account key for this form: one counter for all guesses, whatever the email. */
const THROTTLE_KEY = 'first-operator-set-up';

export function firstOperatorRoutes(
  app: FastifyInstance,
  deps: { firstOperator: FirstOperatorService; auth: AuthService; accounts: AccountsService; throttle: SignInThrottle; csrf: CsrfTokens },
): void {
  const limit = async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      await deps.throttle.attempt(request.ip, THROTTLE_KEY);
    } catch (err) {
      if (err instanceof TooManySignIns) reply.header('retry-after', String(err.retryAfterSeconds));
      throw err;
    }
  };

  app.get(firstOperatorPaths.api(), async (request, reply) => {
    await limit(request, reply);
    const { token } = z.object({ token: z.string().max(200).default('') }).parse(request.query);
    reply.header('cache-control', 'no-store');
    return resetLinkStateSchema.parse({ live: token ? await deps.firstOperator.isLive(token) : false });
  });

  app.post(firstOperatorPaths.api(), async (request, reply) => {
    await limit(request, reply);
    const user = await deps.firstOperator.create(request.body ?? {});
    const signedIn = await deps.auth.openSession(user, request.headers['user-agent'] ?? null);
    request.authOverride = signedIn;
    request.audit = { action: 'user.create', target_kind: 'user', target_id: user.uuid, detail: { email: user.email, roles: ['admin'], status: user.status, via: 'set-up link' } };
    setSessionCookies(request, reply, signedIn.token);
    issueCsrfCookie(request, reply, deps.csrf, signedIn.session.public_id);
    request.log.info({ userId: user.id }, 'first operator created');
    return reply.status(201).send(await deps.accounts.profile(signedIn.user, signedIn.session));
  });
}
