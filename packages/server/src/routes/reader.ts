/** The reader's calls (reader.md §7): chapter blocks, the key, the table of contents, usage and progress. */
import { blockRequestSchema, LIMITS, MESSAGES, paths, usageEventsRequestSchema } from '@lectern/core';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { currentUser, requireSignedIn } from '../plugins/auth-context.ts';
import type { ReaderService } from '../services/reader.ts';

const tocQuery = z.object({ book_id: z.string().min(1, 'book_id is required').max(200), chapter_href: z.string().max(1000).optional() });
const progressQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(LIMITS.progressPageSize),
});
const bookParams = z.object({ bookId: z.string().min(1).max(200) });

export function readerRoutes(app: FastifyInstance, deps: { reader: ReaderService }): void {
  const { reader } = deps;

  app.post('/nest/epub/block/', async (request, reply) => {
    const items = await reader.block(await currentUser(request), blockRequestSchema.parse(request.body ?? {}));
    return reply.header('cache-control', 'private, no-store').send(items);
  });

  app.get('/nest/key/', async (request, reply) => {
    const { user } = await requireSignedIn(request, MESSAGES.signInToRead);
    return reply.header('cache-control', 'private, no-store').send(reader.userKey(user));
  });

  app.get('/nest/epub/toc/', async (request) => {
    const q = tocQuery.parse(request.query);
    return reader.toc(q.book_id, q.chapter_href ?? null);
  });

  app.post('/api/v1/usage-event/', async (request) => {
    const { user } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    const body = usageEventsRequestSchema.parse(request.body);
    return reader.recordUsage(user, Array.isArray(body) ? body : body.events);
  });

  app.get('/api/v1/book/:bookId/chapter-progress/', async (request) => {
    const { user } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    const { bookId } = bookParams.parse(request.params);
    const q = progressQuery.parse(request.query);
    return reader.chapterProgress(user, bookId, q.page, q.page_size, paths.chapterProgress(bookId));
  });
}
