/**
 * Live training (library-playlists-account.md §7): the banner's GET /api/v1/live-training/current-event/, the
 * course statuses, and the operators' courses and events under /api/v1/admin/live-training/ (admins only).
 */
import { APP_MESSAGES, courseStatusesQuerySchema, liveCourseRequestSchema, liveEventRequestSchema, liveTrainingPaths } from '@lectern/core';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { currentUser } from '../plugins/auth-context.ts';
import { assertAdmin } from '../policies/admin.ts';
import type { LiveTrainingService } from '../services/live-training.ts';

const idParams = z.object({ id: z.coerce.number().int().min(1).max(2 ** 31 - 1) });

export function liveTrainingRoutes(app: FastifyInstance, deps: { live: LiveTrainingService }): void {
  app.get(liveTrainingPaths.currentEvent(), async (request, reply) => {
    // Per account (expired accounts get none; join addresses only for live subscriptions): never shared.
    reply.header('cache-control', 'private, no-cache').header('vary', 'Cookie');
    return deps.live.currentEvent(await currentUser(request));
  });

  app.get(liveTrainingPaths.courseStatuses(), async (request, reply) => {
    reply.header('cache-control', 'private, no-cache').header('vary', 'Cookie');
    return deps.live.courseStatuses(await currentUser(request), courseStatusesQuerySchema.parse(request.query ?? {}));
  });

  // ---- operators ----

  app.get(liveTrainingPaths.adminCourses(), async (request) => {
    assertAdmin(await currentUser(request), APP_MESSAGES.adminOnly);
    return deps.live.adminCourses();
  });

  app.post(liveTrainingPaths.adminCourses(), async (request, reply) => {
    assertAdmin(await currentUser(request), APP_MESSAGES.adminOnly);
    return reply.status(201).send(await deps.live.addCourse(liveCourseRequestSchema.parse(request.body ?? {})));
  });

  app.delete('/api/v1/admin/live-training/courses/:id/', async (request, reply) => {
    assertAdmin(await currentUser(request), APP_MESSAGES.adminOnly);
    await deps.live.removeCourse(idParams.parse(request.params).id);
    return reply.status(204).send();
  });

  app.post('/api/v1/admin/live-training/courses/:id/events/', async (request, reply) => {
    assertAdmin(await currentUser(request), APP_MESSAGES.adminOnly);
    const { id } = idParams.parse(request.params);
    return reply.status(201).send(await deps.live.addEvent(id, liveEventRequestSchema.parse(request.body ?? {})));
  });

  app.delete('/api/v1/admin/live-training/events/:id/', async (request, reply) => {
    assertAdmin(await currentUser(request), APP_MESSAGES.adminOnly);
    await deps.live.removeEvent(idParams.parse(request.params).id);
    return reply.status(204).send();
  });
}
