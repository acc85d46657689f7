/**
 * Staying (docs/decisions.md "Joining"): plans, promotion codes, the reader's subscription (subscribe or change plan,
 * cancel, reactivate), and the operator's side of it (plan prices, promotion codes, marking an invoice paid).
 */
import { accountEntryPaths, APP_MESSAGES, MESSAGES, promotionQuerySchema, reactivateRequestSchema, subscribeRequestSchema, PLANS } from '@lectern/core';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { assertAdmin } from '../policies/admin.ts';
import { currentUser, requireSignedIn } from '../plugins/auth-context.ts';
import { type RequestLimits, TooManyRequests } from '../services/request-limits.ts';
import type { SubscriptionsService } from '../services/subscriptions.ts';

const invoiceParams = z.object({ id: z.coerce.number().int().min(1).max(2 ** 31 - 1) });
const planParams = z.object({ slug: z.enum(PLANS) });

export function subscriptionRoutes(app: FastifyInstance, deps: { subscriptions: SubscriptionsService; limits: RequestLimits }): void {
  app.get(accountEntryPaths.plans(), async () => ({ results: await deps.subscriptions.plans() }));

  // Codes can be guessed: asking is limited per address like the other entry calls.
  app.get(accountEntryPaths.promotionRedeem(), async (request, reply) => {
    try {
      await deps.limits.count('promotion', request.ip);
    } catch (err) {
      if (err instanceof TooManyRequests) reply.header('retry-after', String(err.retryAfterSeconds));
      throw err;
    }
    const { code, plan } = promotionQuerySchema.parse(request.query);
    reply.header('cache-control', 'no-store');
    return deps.subscriptions.redeem(code, plan);
  });

  app.get(accountEntryPaths.subscription(), async (request) => {
    const { user } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    return deps.subscriptions.subscription(user);
  });

  app.post(accountEntryPaths.subscription(), async (request) => {
    const { user } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    const { plan, promotion_code, country, eu_agreement } = subscribeRequestSchema.parse(request.body ?? {});
    return deps.subscriptions.subscribe(user, plan, promotion_code, undefined, { country, euAgreement: eu_agreement });
  });

  app.post(accountEntryPaths.cancel(), async (request) => {
    const { user } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    return deps.subscriptions.cancel(user);
  });

  app.post(accountEntryPaths.reactivate(), async (request) => {
    const { user } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    const { plan, promotion_code, country, eu_agreement } = reactivateRequestSchema.parse(request.body ?? {});
    return deps.subscriptions.reactivate(user, plan, promotion_code, { country, euAgreement: eu_agreement });
  });

  // ---- operators ----

  app.put('/api/v2/admin/plans/:slug/', async (request) => {
    assertAdmin(await currentUser(request), APP_MESSAGES.adminOnly);
    const { slug } = planParams.parse(request.params);
    return deps.subscriptions.setPlan({ ...(request.body as object | undefined), slug });
  });

  app.get('/api/v2/admin/promotion-codes/', async (request) => {
    assertAdmin(await currentUser(request), APP_MESSAGES.adminOnly);
    return { results: await deps.subscriptions.listPromotionCodes() };
  });

  app.post('/api/v2/admin/promotion-codes/', async (request, reply) => {
    assertAdmin(await currentUser(request), APP_MESSAGES.adminOnly);
    return reply.status(201).send(await deps.subscriptions.addPromotionCode(request.body ?? {}));
  });

  app.post('/api/v2/admin/invoices/:id/paid/', async (request) => {
    assertAdmin(await currentUser(request), APP_MESSAGES.adminOnly);
    return deps.subscriptions.markInvoicePaid(invoiceParams.parse(request.params).id);
  });
}
