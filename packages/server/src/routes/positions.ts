/** Reading positions that follow the account: GET and PUT /api/v1/book/{book_id}/position/ (CSRF like every PUT). */
import { MESSAGES, positionRequestSchema } from '@lectern/core';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requireSignedIn } from '../plugins/auth-context.ts';
import type { PositionsService } from '../services/positions.ts';

const bookParams = z.object({ bookId: z.string().min(1).max(200) });

export function positionRoutes(app: FastifyInstance, deps: { positions: PositionsService }): void {
  app.get('/api/v1/book/:bookId/position/', async (request, reply) => {
    const { user } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    const { bookId } = bookParams.parse(request.params);
    reply.header('cache-control', 'private, no-store');
    return deps.positions.get(user, bookId);
  });

  app.put('/api/v1/book/:bookId/position/', async (request, reply) => {
    const { user } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    const { bookId } = bookParams.parse(request.params);
    const body = positionRequestSchema.parse(request.body ?? {});
    reply.header('cache-control', 'private, no-store');
    return deps.positions.put(user, bookId, body.locator);
  });
}
