import type { FastifyInstance } from 'fastify';
import type { Engine } from '../db/database.ts';
import type { HealthRepository } from '../repositories/health.ts';

/** GET /healthz: 200 when the database answers, 503 when it does not. */
export function healthRoutes(app: FastifyInstance, deps: { health: HealthRepository; engine: Engine }): void {
  app.get('/healthz', async (_request, reply) => {
    try {
      await deps.health.ping();
      return { status: 'ok', database: deps.engine };
    } catch (err) {
      app.log.error({ err }, 'health check: database unreachable');
      return reply.status(503).send({ detail: 'The database is not reachable.' });
    }
  });
}
