/**
 * The marketing modules (docs/decisions.md "The marketing modules"): the home's blocks for this reader, dismissing one,
 * the newsletter's opt-in and sample, and the unsubscribe link's two calls, which need no sign-in (the signed token is
 * the authority; the POST still carries the page's CSRF token like every unsafe call).
 */
import {
  homeDismissalRequestSchema,
  marketingPaths,
  MESSAGES,
  newsletterSubscriptionRequestSchema,
  TRANSFORMATION_PLAYLISTS_ON_HOME,
  transformationPublishRequestSchema,
  unsubscribeTokenSchema,
} from '@lectern/core';
import { z } from 'zod';
import { type Gate, inTurn } from '../util/gate.ts';
import type { FastifyInstance } from 'fastify';
import { currentUser, requireSignedIn } from '../plugins/auth-context.ts';
import type { MarketingService } from '../services/marketing.ts';

const playlistParams = z.object({ id: z.string().min(1).max(200) });
const transformationQuery = z.object({ topic: z.string().min(1).max(200).optional() });

export function marketingRoutes(app: FastifyInstance, deps: { marketing: MarketingService; listing: Gate }): void {
  // ---- editors' transformation playlists ----

  app.get(marketingPaths.transformationPlaylists(), async (request, reply) => {
    const { topic } = transformationQuery.parse(request.query);
    reply.header('cache-control', 'private, no-cache').header('vary', 'Cookie');
    const viewer = await currentUser(request);
    // a topic's page shows all of its playlists; the home the newest few
    const limit = topic ? 20 : TRANSFORMATION_PLAYLISTS_ON_HOME;
    return inTurn(deps.listing, reply, async () => ({ results: await deps.marketing.transformationPlaylists(topic ?? null, limit, viewer) }));
  });

  app.get(marketingPaths.transformationOwn(), async (request, reply) => {
    reply.header('cache-control', 'private, no-store');
    return deps.marketing.ownPlaylists(await currentUser(request));
  });

  app.put('/api/v2/admin/transformation-playlists/:id/', async (request, reply) => {
    const { id } = playlistParams.parse(request.params);
    await deps.marketing.publishPlaylist(await currentUser(request), id, transformationPublishRequestSchema.parse(request.body ?? {}).topic);
    return reply.status(204).send();
  });

  app.delete('/api/v2/admin/transformation-playlists/:id/', async (request, reply) => {
    await deps.marketing.unpublishPlaylist(await currentUser(request), playlistParams.parse(request.params).id);
    return reply.status(204).send();
  });

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
