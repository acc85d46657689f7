/** Finding (paths in core's search.ts and docs/decisions.md): catalog search, suggest, in-book search, selection. */
import { catalogSearchQuerySchema, DEFAULT_SEARCH_QUERY, inBookSearchQuerySchema, searchPaths, searchSelectionSchema, suggestQuerySchema } from '@lectern/core';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { currentUser } from '../plugins/auth-context.ts';
import type { SearchService } from '../services/search.ts';
import { type Gate, inTurn } from '../util/gate.ts';

export function searchRoutes(
  app: FastifyInstance,
  /**
   * misses: counts a search that found nothing (the operators' dashboard, docs/decisions.md "Operators' console: the
   * server side")
   */
  deps: { search: SearchService; heavy: Gate; listing: Gate; misses?: (q: string) => Promise<void> },
): void {
  // The searches are the heavy requests and the suggestions read the catalog: they take turns (docs/decisions.md
  // "Heavy requests take turns"); a full queue is a 503 with Retry-After.
  const heavy = <T>(reply: FastifyReply, work: () => Promise<T>) => inTurn(deps.heavy, reply, work);

  // Answers depend on who asks (passages of what they may read, continue_url): no shared cache keeps them.
  app.get(searchPaths.catalog(), async (request, reply) => {
    const query = catalogSearchQuerySchema.parse(request.query);
    reply.header('cache-control', 'private, no-cache').header('vary', 'Cookie');
    const viewer = await currentUser(request);
    return heavy(reply, async () => {
      const found = await deps.search.catalogSearch(query, viewer);
      // the first page of a search for words that found nothing (a failure to count it is no failure of the search)
      if (found.count === 0 && query.page === 1 && !query.after && query.q && query.q !== DEFAULT_SEARCH_QUERY) await deps.misses?.(query.q).catch(() => {});
      return found;
    });
  });

  app.get(searchPaths.suggest(), async (request, reply) => {
    const { q } = suggestQuerySchema.parse(request.query);
    reply.header('cache-control', 'private, max-age=60');
    return inTurn(deps.listing, reply, () => deps.search.suggest(q));
  });

  app.get(searchPaths.inBook(), async (request, reply) => {
    const query = inBookSearchQuerySchema.parse(request.query);
    reply.header('cache-control', 'private, no-cache').header('vary', 'Cookie');
    const viewer = await currentUser(request);
    return heavy(reply, () => deps.search.inBook(query, viewer));
  });

  app.post(searchPaths.selection(), async (request, reply) => {
    const selection = searchSelectionSchema.parse(request.body ?? {});
    await deps.search.recordSelection(selection, await currentUser(request));
    return reply.status(204).send();
  });
}
