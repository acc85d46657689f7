/**
 * The annotation store (reader.md §7) and its companions: GET /auth/token, POST /a/sanitize-fragment/ and the
 * export. Store calls are authenticated by the `x-annotator-auth-token` header alone — never the session cookie —
 * which is why they are exempt from the CSRF check (plugins/csrf.ts; docs/decisions.md).
 */
import {
  ANNOTATION_LIMITS,
  annotationInputSchema,
  annotationPaths,
  annotationSearchQuerySchema,
  AUTH_TOKEN_HEADER,
  exportQuerySchema,
  MESSAGES,
  sanitizeFragmentRequestSchema,
} from '@lectern/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError, fieldError } from '../errors.ts';
import { requireSignedIn } from '../plugins/auth-context.ts';
import { ANNOTATION_STORE_ROUTE } from '../plugins/csrf.ts';
import type { AnnotationsService, StoreScope } from '../services/annotations.ts';

const storeParams = z.object({ title: z.string().max(500), bookId: z.string().min(1).max(200), '*': z.string().max(2_000) });
const bookParams = z.object({ bookId: z.string().min(1).max(200) });
const NOT_A_STORE_CALL = 'Not found.';

type StoreCall = { scope: StoreScope } & ({ kind: 'collection' } | { kind: 'search' } | { kind: 'item'; id: string });

/**
 * What follows `{book_id}/`: the chapter's path (possibly with folders, possibly empty for the book's prefix) and
 * then `annotations`, `annotations/{id}` or `search`, with or without a trailing slash. Read from the end, so a
 * chapter path may hold any segment.
 */
function parseStoreCall(bookId: string, tail: string): StoreCall | null {
  const segments = tail.split('/');
  if (segments.at(-1) === '') segments.pop();
  const last = segments.at(-1);
  const scope = (n: number): StoreScope => ({ bookId, chapterHref: segments.slice(0, segments.length - n).join('/') || null });
  if (last === 'search') return { scope: scope(1), kind: 'search' };
  if (last === 'annotations') return { scope: scope(1), kind: 'collection' };
  if (segments.length >= 2 && segments.at(-2) === 'annotations' && last) return { scope: scope(2), kind: 'item', id: last };
  return null;
}

function tokenOf(request: FastifyRequest): string | undefined {
  const value = request.headers[AUTH_TOKEN_HEADER];
  // Sent twice: neither is believed (the 401 tells the client to fetch a fresh one).
  if (Array.isArray(value)) return 'invalid';
  return value;
}

function annotationBody(body: unknown) {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw fieldError('body', 'An annotation (a JSON object) is required.');
  }
  return annotationInputSchema.parse(body);
}

export function annotationRoutes(app: FastifyInstance, deps: { annotations: AnnotationsService }): void {
  const { annotations } = deps;

  app.route({
    method: ['GET', 'POST', 'PUT', 'DELETE'],
    url: ANNOTATION_STORE_ROUTE,
    bodyLimit: ANNOTATION_LIMITS.bodyBytes,
    handler: async (request, reply) => {
      const params = storeParams.parse(request.params);
      const call = parseStoreCall(params.bookId, params['*']);
      if (!call) throw new AppError(404, NOT_A_STORE_CALL);
      reply.header('cache-control', 'private, no-store');
      const caller = await annotations.identify(tokenOf(request));
      const method = request.method === 'HEAD' ? 'GET' : request.method;
      if (call.kind === 'search' && method === 'GET') return annotations.search(caller, call.scope, annotationSearchQuerySchema.parse(request.query));
      if (call.kind === 'collection' && method === 'GET') return annotations.index(caller, call.scope);
      if (call.kind === 'collection' && method === 'POST') return annotations.create(caller, call.scope, annotationBody(request.body));
      if (call.kind === 'item') {
        if (method === 'GET') return annotations.read(caller, call.scope, call.id);
        // The Annotator store takes POST as well as PUT for an update.
        if (method === 'PUT' || method === 'POST') return annotations.update(caller, call.scope, call.id, annotationBody(request.body));
        if (method === 'DELETE') {
          await annotations.remove(caller, call.scope, call.id);
          return reply.status(204).send();
        }
      }
      throw new AppError(405, `${request.method} is not a store call here.`);
    },
  });

  app.get(annotationPaths.token(), async (request, reply) => {
    const signedIn = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    return reply.header('cache-control', 'private, no-store').type('text/plain; charset=utf-8').send(annotations.issueToken(signedIn));
  });

  app.post(annotationPaths.sanitizeFragment(), { bodyLimit: ANNOTATION_LIMITS.bodyBytes }, async (request) => {
    await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    const { fragment } = sanitizeFragmentRequestSchema.parse(request.body ?? {});
    return { fragment: await annotations.sanitizeFragment(fragment) };
  });

  app.get('/api/v2/annotations/:bookId/export/', async (request, reply) => {
    const { user } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    const { bookId } = bookParams.parse(request.params);
    const { format } = exportQuerySchema.parse(request.query);
    const file = await annotations.export(user, bookId, format);
    return reply
      .header('cache-control', 'private, no-store')
      .header('content-disposition', `attachment; filename="${file.filename}"`)
      .type(file.contentType)
      .send(file.body);
  });
}
