/**
 * GET /api/v1/book/{book_id}/scripted-frame/?path=: where a scripted title's chapter frame loads from
 * (docs/decisions.md "Scripted titles on their own origin").
 */
import { MESSAGES } from '@lectern/core';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requireSignedIn } from '../plugins/auth-context.ts';
import type { ScriptedFrames } from '../services/scripted-frames.ts';

const params = z.object({ bookId: z.string().min(1).max(200) });
const query = z.object({ path: z.string().min(1, 'path is required').max(1000) });

export function scriptedFrameRoutes(app: FastifyInstance, frames: ScriptedFrames): void {
  app.get('/api/v1/book/:bookId/scripted-frame/', async (request, reply) => {
    const { bookId } = params.parse(request.params);
    const { path } = query.parse(request.query);
    const signedIn = await requireSignedIn(request, MESSAGES.signInToRead);
    reply.header('cache-control', 'private, no-store');
    return frames.frameFor(signedIn, bookId, path);
  });
}
