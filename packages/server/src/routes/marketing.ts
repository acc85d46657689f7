/**
 * The marketing modules (issue 24): the home's blocks for this reader, dismissing one, the newsletter's opt-in and
 * sample, and the unsubscribe link's two calls, which need no sign-in (the signed token is the authority; the POST
 * still carries the page's CSRF token like every unsafe call).
 */
import {
  homeDismissalRequestSchema,
  marketingPaths,
  MESSAGES,
  newsletterSubscriptionRequestSchema,
  unsubscribeTokenSchema,
} from '@lectern/core';
import type { FastifyInstance } from 'fastify';
import { currentUser, requireSignedIn } from '../plugins/auth-context.ts';
import type { MarketingService } from '../services/marketing.ts';

export function marketingRoutes(app: FastifyInstance, deps: { marketing: MarketingService }): void {
  app.get(marketingPaths.homeModules(), async (request, reply) => {
    reply.header('cache-control', 'private, no-cache').header('vary', 'Cookie');
    return deps.marketing.homeModules(await currentUser(request));
  });

  app.post(marketingPaths.homeDismissals(), async (request, reply) => {
    const { user } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    await deps.marketing.dismiss(user, homeDismissalRequestSchema.parse(request.body ?? {}).module);
    return reply.status(204).send();
  });

  app.put(marketingPaths.newsletterSubscription(), async (request) => {
    const { user } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    return deps.marketing.setSubscribed(user, newsletterSubscriptionRequestSchema.parse(request.body ?? {}).subscribed);
  });

  app.get(marketingPaths.newsletterSample(), async (_request, reply) => {
    reply.header('cache-control', 'no-cache');
    return deps.marketing.sample();
  });

  app.get(marketingPaths.newsletterUnsubscribe(), async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return deps.marketing.unsubscribeState(unsubscribeTokenSchema.parse(request.query).token);
  });

  app.post(marketingPaths.newsletterUnsubscribe(), async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return deps.marketing.unsubscribe(unsubscribeTokenSchema.parse(request.body ?? {}).token);
  });
}
