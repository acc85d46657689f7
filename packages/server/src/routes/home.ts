/**
 * The home dashboard's data (docs/decisions.md "The home dashboard"): GET /api/v2/home/ for whoever asks (the recently
 * viewed cookie is read here), the recommendation action POST /r/api/ (library-playlists-account.md §7), and the
 * operators' editors' picks and announcements.
 */
import {
  announcementRequestSchema,
  APP_MESSAGES,
  editorsPicksRequestSchema,
  MESSAGES,
  RECENTLY_VIEWED_COOKIE,
  recommendationActionSchema,
  searchPaths,
} from '@lectern/core';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { assertAdmin } from '../policies/admin.ts';
import { currentUser, requireSignedIn } from '../plugins/auth-context.ts';
import type { HomeService } from '../services/home.ts';
import { type Gate, inTurn } from '../util/gate.ts';

const announcementParams = z.object({ id: z.coerce.number().int().min(1).max(2 ** 31 - 1) });

export function homeRoutes(app: FastifyInstance, deps: { home: HomeService; listing: Gate }): void {
  app.get(searchPaths.home(), async (request, reply) => {
    // Per reader and per cookie: never shared, never reused without asking.
    reply.header('cache-control', 'private, no-cache').header('vary', 'Cookie');
    const viewer = await currentUser(request);
    // the home reads many listings: it takes turns with them (docs/decisions.md "Heavy requests take turns")
    return inTurn(deps.listing, reply, () => deps.home.dashboard(viewer, request.cookies[RECENTLY_VIEWED_COOKIE]));
  });

  app.post(searchPaths.recommendationAction(), async (request, reply) => {
    const { user } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    await deps.home.recordAction(user, recommendationActionSchema.parse(request.body ?? {}));
    return reply.status(204).send();
  });

  // ---- operators ----

  app.get('/api/v2/admin/editors-picks/', async (request) => {
    assertAdmin(await currentUser(request), APP_MESSAGES.adminOnly);
    return deps.home.editorsPicks();
  });

  app.put('/api/v2/admin/editors-picks/', async (request) => {
    assertAdmin(await currentUser(request), APP_MESSAGES.adminOnly);
    return deps.home.setEditorsPicks(editorsPicksRequestSchema.parse(request.body ?? {}).book_ids);
  });

  app.get('/api/v2/admin/announcements/', async (request) => {
    assertAdmin(await currentUser(request), APP_MESSAGES.adminOnly);
    return deps.home.announcements();
  });

  app.post('/api/v2/admin/announcements/', async (request, reply) => {
    assertAdmin(await currentUser(request), APP_MESSAGES.adminOnly);
    return reply.status(201).send(await deps.home.addAnnouncement(announcementRequestSchema.parse(request.body ?? {})));
  });

  app.delete('/api/v2/admin/announcements/:id/', async (request, reply) => {
    assertAdmin(await currentUser(request), APP_MESSAGES.adminOnly);
    await deps.home.removeAnnouncement(announcementParams.parse(request.params).id);
    return reply.status(204).send();
  });
}
