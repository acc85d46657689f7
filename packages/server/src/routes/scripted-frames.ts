/**
 * GET /api/v1/book/{book_id}/scripted-frame/?path=: where a scripted title's chapter frame loads from
 * (docs/decisions.md "Scripted titles on their own origin");
 * GET|PUT|DELETE /api/v1/book/{book_id}/scripts-consent/: the reader's answer to running its scripts (docs/decisions.md
 * "Scripted publications").
 */
import { MESSAGES, scriptsConsentInputSchema } from '@lectern/core';
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

  // The reader's own answer: signed in; 404 for a title that runs no scripts here; CSRF on PUT and DELETE (global).
  const consentPath = '/api/v1/book/:bookId/scripts-consent/';
  app.get(consentPath, async (request, reply) => {
    const { bookId } = params.parse(request.params);
    const { user } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    reply.header('cache-control', 'private, no-store');
    return frames.consent(user.id, bookId);
  });
  app.put(consentPath, async (request, reply) => {
    const { bookId } = params.parse(request.params);
    const { user } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    const { allow } = scriptsConsentInputSchema.parse(request.body ?? {});
    reply.header('cache-control', 'private, no-store');
    return frames.answer(user.id, bookId, allow);
  });
  app.delete(consentPath, async (request, reply) => {
    const { bookId } = params.parse(request.params);
    const { user } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    reply.header('cache-control', 'private, no-store');
    return frames.withdraw(user.id, bookId);
  });
}
