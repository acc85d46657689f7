/**
 * The built web app: hashed assets with long caching, and index.html for every other page address so the
 * client router can take over (it renders its own 404 page). Unknown API addresses get a JSON 404.
 */
import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import { APP_MESSAGES } from '@lectern/core';
import type { FastifyInstance } from 'fastify';

const API_PREFIXES = ['/api/', '/nest/', '/u/', '/r/', '/a/', '/auth/', '/healthz'];

export async function webRoutes(app: FastifyInstance, webDist: string | null): Promise<void> {
  const indexFile = webDist ? path.join(webDist, 'index.html') : null;
  const hasWeb = indexFile !== null && fs.existsSync(indexFile);
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root: webDist!,
      prefix: '/',
      wildcard: false,
      index: false,
      decorateReply: false,
      setHeaders: (res, filePath) => {
        const immutable = filePath.includes(`${path.sep}assets${path.sep}`);
        res.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }
  const indexHtml = hasWeb ? fs.readFileSync(indexFile!, 'utf8') : null;

  app.setNotFoundHandler(async (request, reply) => {
    const pathname = request.url.split('?')[0] ?? '/';
    const isPage = (request.method === 'GET' || request.method === 'HEAD') && !API_PREFIXES.some((p) => pathname.startsWith(p));
    if (!isPage) return reply.status(404).send({ detail: APP_MESSAGES.notFound });
    if (!indexHtml) {
      return reply.status(503).type('text/plain').send('The web app is not built yet: run `npm run build`, then restart.');
    }
    return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(indexHtml);
  });
}
