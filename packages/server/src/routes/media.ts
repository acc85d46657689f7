/**
 * Video courses and audiobooks (docs/decisions.md "Media serving"): the video session (reader.md §7 `GET
 * /api/v1/player/kaltura_session/`), a part's stream and captions, and a title's preview clip. The streams go out as
 * book files do (plugins/book-files.ts sendMediaFile: sandbox CSP, nosniff, ranges, HEAD, from the content store).
 */
import { mediaSessionQuerySchema, type MediaSupport, paths } from '@lectern/core';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { currentUser } from '../plugins/auth-context.ts';
import { BOOK_FILE_CSP, sendMediaFile } from '../plugins/book-files.ts';
import type { MediaService } from '../services/media.ts';
import type { ContentStore } from '../storage/content-store.ts';

const bookParams = z.object({ bookId: z.string().min(1).max(200) });
/** a part's path is one segment (the import names parts `01-intro.mp4`: no slashes) */
const partParams = bookParams.extend({ href: z.string().min(1, 'href is required').max(1000) });
const streamQuery = z.object({ ks: z.string().max(1000).optional() });

/**
 * A part's stream is private to its reader (the address carries their session); the browser may keep it for the
 * session's length. The preview is the same for everyone.
 */
const PART_CACHE = 'private, max-age=3600';
const PREVIEW_CACHE = 'public, max-age=86400';

export function mediaRoutes(app: FastifyInstance, deps: { media: MediaService; store: ContentStore; supportEmail?: string | null }): void {
  const { media, store } = deps;

  // Where the video-failure page points (reader.md §2): the operator's SUPPORT_EMAIL, for anyone (a visitor's
  // preview can fail too). Only configuration: no service to ask.
  app.get(paths.mediaSupport(), async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return { support_email: deps.supportEmail ?? null } satisfies MediaSupport;
  });

  app.get('/api/v1/player/kaltura_session/', async (request, reply) => {
    const { reference_id } = mediaSessionQuerySchema.parse(request.query);
    reply.header('cache-control', 'private, no-store');
    return media.session(await currentUser(request), reference_id);
  });

  // GET and HEAD (a player asks a part's length and type before it plays)
  app.route({
    method: ['GET', 'HEAD'],
    url: '/api/v1/media/:bookId/preview',
    handler: async (request, reply) => {
      const { bookId } = bookParams.parse(request.params);
      const clip = await media.preview(bookId);
      reply.header('cache-control', PREVIEW_CACHE);
      return sendMediaFile(reply, store, clip.file, clip.mime);
    },
  });

  app.route({
    method: ['GET', 'HEAD'],
    url: '/api/v1/media/:bookId/:href/captions.vtt',
    handler: async (request, reply) => {
      const { bookId, href } = partParams.parse(request.params);
      const { ks } = streamQuery.parse(request.query);
      const vtt = await media.captions(bookId, href, await currentUser(request), ks);
      reply
        .header('cache-control', PART_CACHE)
        .header('content-security-policy', BOOK_FILE_CSP)
        .header('x-content-type-options', 'nosniff')
        .type('text/vtt; charset=utf-8');
      return vtt;
    },
  });

  app.route({
    method: ['GET', 'HEAD'],
    url: '/api/v1/media/:bookId/:href',
    handler: async (request, reply) => {
      const { bookId, href } = partParams.parse(request.params);
      const { ks } = streamQuery.parse(request.query);
      const part = await media.stream(bookId, href, await currentUser(request), ks);
      // the answer depends on the session cookie too (services/media.ts): no shared cache may keep it
      reply.header('cache-control', PART_CACHE).header('vary', 'Cookie');
      return sendMediaFile(reply, store, part.file, part.mime);
    },
  });
}
