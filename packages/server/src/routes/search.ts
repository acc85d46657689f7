/** Finding (issue 11; paths in core's search.ts and docs/decisions.md): catalog search, suggest, in-book search, selection. */
import { catalogSearchQuerySchema, inBookSearchQuerySchema, searchPaths, searchSelectionSchema, suggestQuerySchema } from '@lectern/core';
import type { FastifyInstance } from 'fastify';
import { currentUser } from '../plugins/auth-context.ts';
import type { SearchService } from '../services/search.ts';

export function searchRoutes(app: FastifyInstance, deps: { search: SearchService }): void {
  // Answers depend on who asks (passages of what they may read, continue_url): no shared cache keeps them.
  app.get(searchPaths.catalog(), async (request, reply) => {
    const query = catalogSearchQuerySchema.parse(request.query);
    reply.header('cache-control', 'private, no-cache').header('vary', 'Cookie');
    return deps.search.catalogSearch(query, await currentUser(request));
  });

  app.get(searchPaths.suggest(), async (request, reply) => {
    const { q } = suggestQuerySchema.parse(request.query);
    reply.header('cache-control', 'private, max-age=60');
    return deps.search.suggest(q);
  });

  app.get(searchPaths.inBook(), async (request, reply) => {
    const query = inBookSearchQuerySchema.parse(request.query);
    reply.header('cache-control', 'private, no-cache').header('vary', 'Cookie');
    return deps.search.inBook(query, await currentUser(request));
  });

  app.post(searchPaths.selection(), async (request, reply) => {
    const selection = searchSelectionSchema.parse(request.body ?? {});
    await deps.search.recordSelection(selection, await currentUser(request));
    return reply.status(204).send();
  });
}
