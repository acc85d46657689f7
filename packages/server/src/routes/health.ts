import type { FastifyInstance } from 'fastify';
import type { HealthService } from '../services/health.ts';

/** GET /healthz: 200 when the database answers, 503 when it does not. */
export function healthRoutes(app: FastifyInstance, health: HealthService): void {
  app.get('/healthz', async (_request, reply) => {
    try {
      await health.check();
      return { status: 'ok', database: health.engine };
    } catch (err) {
      app.log.error({ err }, 'health check: database unreachable');
      return reply.status(503).send({ detail: 'The database is not reachable.' });
    }
  });
}
