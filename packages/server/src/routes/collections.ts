/**
 * Playlists, queue, metadata and progress (library-playlists-account.md §7). The collections API answers at
 * /api/v2/collections/ and, for the web client's base path, at /nest/api/api/v2/collections/.
 */
import {
  collectionOrderSchema,
  contentChangeSchema,
  createCollectionSchema,
  MESSAGES,
  queueChangeSchema,
  updateCollectionSchema,
  urlsRequestSchema,
} from '@lectern/core';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requireSignedIn } from '../plugins/auth-context.ts';
import type { CollectionsService } from '../services/collections.ts';
import type { MetadataService } from '../services/metadata.ts';

const idParams = z.object({ id: z.string().min(1).max(100) });
const fieldsQuery = z.object({ fields: z.string().max(1000).optional() });
/** Ours (docs/decisions.md, "The light playlist list"): `?content=none` leaves the items out, with their count. */
const listQuery = z.object({ content: z.literal('none').optional() });
export const COLLECTIONS_PREFIXES = ['/api/v2', '/nest/api/api/v2'];

export function collectionRoutes(app: FastifyInstance, deps: { collections: CollectionsService; metadata: MetadataService }): void {
  const { collections } = deps;
  const signedIn = async (request: Parameters<typeof requireSignedIn>[0]) => (await requireSignedIn(request, MESSAGES.userNotLoggedIn)).user;

  for (const prefix of COLLECTIONS_PREFIXES) {
    app.get(`${prefix}/collections/`, async (request, reply) => {
      const user = await signedIn(request);
      if (listQuery.parse(request.query).content === 'none') {
        const etag = await collections.summaryEtag(user);
        reply.header('etag', etag).header('cache-control', 'private, no-cache');
        if (request.headers['if-none-match'] === etag) return reply.status(304).send();
        const light = await collections.summaryJson(user);
        return reply.header('etag', light.etag).type('application/json; charset=utf-8').send(light.body);
      }
      const etag = await collections.etag(user);
      reply.header('etag', etag).header('cache-control', 'private, no-cache');
      if (request.headers['if-none-match'] === etag) return reply.status(304).send();
      const list = await collections.listJson(user);
      return reply.header('etag', list.etag).type('application/json; charset=utf-8').send(list.body);
    });

    app.post(`${prefix}/collections/`, async (request, reply) => {
      const user = await signedIn(request);
      const body = createCollectionSchema.parse(request.body ?? {});
      return reply.status(201).send(await collections.create(user, body));
    });

    // Ours: which of the reader's playlists hold each of these addresses (what the title cards on screen show).
    app.post(`${prefix}/collections/holding/`, async (request) => {
      const user = await signedIn(request);
      return collections.holding(user, contentChangeSchema.parse(request.body ?? {}).content);
    });

    app.get(`${prefix}/collections/:id/`, async (request) => collections.get(await signedIn(request), idParams.parse(request.params).id));

    app.patch(`${prefix}/collections/:id/`, async (request) => {
      const user = await signedIn(request);
      return collections.update(user, idParams.parse(request.params).id, updateCollectionSchema.parse(request.body ?? {}));
    });

    app.delete(`${prefix}/collections/:id/`, async (request, reply) => {
      await collections.delete(await signedIn(request), idParams.parse(request.params).id);
      return reply.status(204).send();
    });

    app.post(`${prefix}/collections/:id/add-content/`, async (request) => {
      const user = await signedIn(request);
      return collections.addContent(user, idParams.parse(request.params).id, contentChangeSchema.parse(request.body ?? {}).content);
    });

    // Ours: the spec has no reorder call. The whole list in the wanted order (docs/decisions.md).
    app.put(`${prefix}/collections/:id/order/`, async (request) => {
      const user = await signedIn(request);
      return collections.reorder(user, idParams.parse(request.params).id, collectionOrderSchema.parse(request.body ?? {}).content);
    });

    app.post(`${prefix}/collections/:id/remove-content/`, async (request) => {
      const user = await signedIn(request);
      return collections.removeContent(user, idParams.parse(request.params).id, contentChangeSchema.parse(request.body ?? {}).content);
    });
  }

  app.get('/api/v1/queue-simple/', async (request) => collections.queue(await signedIn(request)));
  app.post('/api/v1/queue-simple/', async (request) => collections.addToQueue(await signedIn(request), queueChangeSchema.parse(request.body)));
  app.delete('/api/v1/queue-simple/', async (request) => collections.removeFromQueue(await signedIn(request), queueChangeSchema.parse(request.body)));

  app.post('/api/v1/metadata/', async (request, reply) => {
    const { fields } = fieldsQuery.parse(request.query);
    const json = await deps.metadata.metadataJson(urlsRequestSchema.parse(request.body ?? {}).urls, fields);
    return reply.type('application/json; charset=utf-8').send(json);
  });

  app.post('/api/v1/user_progress/', async (request) => {
    const user = await signedIn(request);
    const { fields } = fieldsQuery.parse(request.query);
    return deps.metadata.progress(user, urlsRequestSchema.parse(request.body ?? {}).urls, fields);
  });
}
