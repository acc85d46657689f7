/**
 * First-party analytics (docs/decisions.md "Analytics"): pages POST small batches of events, signed in or
 * not (the CSRF check applies as to every POST: an anonymous page sends the anonymous token); operators read the
 * counts under /api/v1/admin/analytics/ (admins only: 401 signed out, 403 otherwise, as the other admin routes).
 */
import { analyticsBatchSchema, analyticsPaths, analyticsReportQuerySchema, APP_MESSAGES } from '@lectern/core';
import type { FastifyInstance } from 'fastify';
import { currentUser } from '../plugins/auth-context.ts';
import { assertAdmin } from '../policies/admin.ts';
import type { AnalyticsService } from '../services/analytics.ts';
import { TooManyRequests } from '../services/request-limits.ts';

export function analyticsRoutes(app: FastifyInstance, deps: { analytics: AnalyticsService }): void {
  app.post(analyticsPaths.events(), async (request, reply) => {
    try {
      await deps.analytics.countCall(request.ip);
    } catch (err) {
      if (err instanceof TooManyRequests) reply.header('retry-after', String(err.retryAfterSeconds));
      throw err;
    }
    const { events } = analyticsBatchSchema.parse(request.body ?? {});
    const user = await currentUser(request);
    return reply.status(202).send(await deps.analytics.record(events, user?.id ?? null));
  });

  app.get(analyticsPaths.adminReport(), async (request, reply) => {
    assertAdmin(await currentUser(request), APP_MESSAGES.adminOnly);
    reply.header('cache-control', 'no-store');
    return deps.analytics.report(analyticsReportQuerySchema.parse(request.query ?? {}));
  });
}
