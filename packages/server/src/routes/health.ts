import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

/** GET /healthz: 200 when the database answers, 503 when it does not. */
export function healthRoutes(app: FastifyInstance, db: Db): void {
  app.get('/healthz', async (_request, reply) => {
    try {
      await sql`select 1`.execute(db.kysely);
      return { status: 'ok', database: db.engine };
    } catch (err) {
      app.log.error({ err }, 'health check: database unreachable');
      return reply.status(503).send({ detail: 'The database is not reachable.' });
    }
  });
}
