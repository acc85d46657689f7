/** The catalog API: the book list, a book, its chapters and resources at api/v1/book/{book_id}/chapter/{href}. */
import { bookListQuerySchema, paths } from '@lectern/core';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { currentUser } from '../plugins/auth-context.ts';
import { sendBookFile } from '../plugins/book-files.ts';
import { chooseCoding } from '../util/compressed-bytes.ts';
import { type Gate, inTurn } from '../util/gate.ts';
import type { CatalogService, TaxonomyLookups } from '../services/catalog.ts';
import type { MarketingService } from '../services/marketing.ts';
import type { ContentStore } from '../storage/content-store.ts';

const bookParams = z.object({ bookId: z.string().min(1).max(200) });
const chapterParams = bookParams.extend({ '*': z.string().min(1, 'chapter path is required').max(1000) });
const slugParams = z.object({ slug: z.string().min(1).max(200) });
const downloadQuery = z.object({ download: z.enum(['0', '1']).optional() });
/** `h=360`: the variant title cards show, 360 pixels high. */
const coverQuery = z.object({ h: z.literal('360').transform(() => 360 as const).optional() });

export function bookRoutes(app: FastifyInstance, deps: { catalog: CatalogService; buyLinks: Pick<MarketingService, 'buyLink'>; taxonomy: TaxonomyLookups; store: ContentStore; listing: Gate }): void {
  // continue_url and progress depend on who asks: no shared cache may keep these answers.
  app.get('/api/v1/book/', async (request, reply) => {
    const query = bookListQuerySchema.parse(request.query);
    reply.header('cache-control', 'private, no-cache').header('vary', 'Cookie');
    const viewer = await currentUser(request);
    // listings take turns (docs/decisions.md "Heavy requests take turns")
    return inTurn(deps.listing, reply, () => deps.catalog.list(query, paths.bookList(), viewer));
  });

  app.get('/api/v1/book/:bookId/', async (request, reply) => {
    const { bookId } = bookParams.parse(request.params);
    reply.header('cache-control', 'private, no-cache').header('vary', 'Cookie');
    const detail = await deps.catalog.detail(bookId, await currentUser(request));
    // the operator's bookshop address for it (BUY_LINK_TEMPLATE; docs/decisions.md "The marketing modules"), absent
    // when unset
    const buyUrl = deps.buyLinks.buyLink(detail);
    return buyUrl ? { ...detail, buy_url: buyUrl } : detail;
  });

  app.get('/api/v1/book/:bookId/cover', async (request, reply) => {
    const { bookId } = bookParams.parse(request.params);
    const { h } = coverQuery.parse(request.query);
    const cover = await deps.catalog.cover(bookId, h);
    reply.header('cache-control', 'public, max-age=86400');
    return sendBookFile(reply, deps.store, cover.file, cover.mediaType, { allowScripts: false });
  });

  app.get('/api/v1/book/:bookId/chapter/*', async (request, reply) => {
    const { bookId, '*': fullPath } = chapterParams.parse(request.params);
    const { download } = downloadQuery.parse(request.query);
    const found = await deps.catalog.chapterOrResource(bookId, fullPath, await currentUser(request), download === '1');
    if (found.kind === 'chapter') {
      reply.header('cache-control', 'private, no-store').type('application/json; charset=utf-8');
      if (!found.json.compressible) return reply.send(found.json.raw);
      const coding = chooseCoding(request.headers['accept-encoding']);
      reply.header('vary', 'Accept-Encoding');
      if (coding !== 'identity') reply.header('content-encoding', coding);
      return reply.send(found.json.in(coding));
    }
    if (found.mediaType === 'application/pdf') {
      // One address, two files: the whole PDF for readers, its first pages for everyone else. A sample kept in the
      // browser's cache must not stand in for the whole once the visitor signs in.
      reply.header('vary', 'cookie');
      reply.header('cache-control', found.partial ? 'private, no-cache' : 'private, max-age=3600');
      if (found.partial) reply.header('x-lectern-sample', 'first-pages');
    } else {
      reply.header('cache-control', 'public, max-age=86400');
    }
    return sendBookFile(reply, deps.store, found.file, found.mediaType, { allowScripts: found.allowScripts });
  });

  app.get('/api/v1/topics/', async (_request, reply) => inTurn(deps.listing, reply, () => deps.catalog.topics()));

  app.get('/api/v1/topics/:slug/', async (request) => deps.taxonomy.topic(slugParams.parse(request.params).slug));

  app.get('/api/v1/publishers/:slug/', async (request) => deps.taxonomy.publisher(slugParams.parse(request.params).slug));
}

