/**
 * library-playlists-account.md §7 `POST /debug/` with a message field, registered only in debug or test mode
 * (config.debugMode: NODE_ENV=test, or LOG_LEVEL debug or trace); elsewhere the address is unknown (404). The CSRF
 * check applies as to every unsafe call (plugins/csrf.ts), visitors included, who send the anonymous token.
 */
import { debugMessageSchema, debugPaths } from '@lectern/core';
import type { FastifyInstance } from 'fastify';
import { currentUser } from '../plugins/auth-context.ts';
import type { DebugLog } from '../services/debug-log.ts';

export function debugRoutes(app: FastifyInstance, debug: DebugLog): void {
  app.post(debugPaths.message(), async (request, reply) => {
    const input = debugMessageSchema.parse(request.body ?? {});
    debug.record(await currentUser(request), input);
    return reply.status(204).send();
  });
}
