/** Every failure leaves as `{detail, errors?}` with the right status; unexpected ones are logged, not shown. */
import type { FastifyError, FastifyInstance } from 'fastify';
import { UNAVAILABLE_MESSAGES } from '@lectern/core';
import { ZodError } from 'zod';
import { AppError } from '../errors.ts';
import { unreachable } from '../util/unavailable.ts';

export function zodToErrors(err: ZodError): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const issue of err.issues) {
    // A field the call does not take is named by its own path (`events.0.colour`), not its object's.
    const paths = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [...issue.path, k]) : [issue.path];
    for (const p of paths) (errors[p.length ? p.join('.') : 'non_field_errors'] ??= []).push(issue.message);
  }
  return errors;
}

/** What a 503 asks a client to wait before sending again (a restart or failover is seconds). */
const RETRY_AFTER_SECONDS = '5';

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError | ZodError, request, reply) => {
    if (err instanceof AppError) {
      // a service's own 503 (an upload not kept, an import not finished for want of the database or the store) is
      // worth sending again, as the outages below are; a wait the thrower named (a busy gate's) stands
      if (err.status === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', RETRY_AFTER_SECONDS);
      return reply.status(err.status).send(err.errors ? { detail: err.detail, errors: err.errors } : { detail: err.detail });
    }
    if (err instanceof ZodError) {
      const errors = zodToErrors(err);
      const detail = Object.entries(errors)
        .map(([field, messages]) => `${field}: ${messages.join(' ')}`)
        .join('; ');
      return reply.status(400).send({ detail: `Invalid request. ${detail}`, errors });
    }
    // The database or the content store down (a restart, a failover, a full disk): not the request's fault, and
    // worth sending again — a 503 saying which, never a 500 that reads as a bug (util/unavailable.ts).
    const down = unreachable(err);
    if (down) {
      request.log.warn({ err }, `the ${down} was not available`);
      return reply.status(503).header('retry-after', RETRY_AFTER_SECONDS).send({ detail: UNAVAILABLE_MESSAGES.request(down) });
    }
    const status = typeof err.statusCode === 'number' ? err.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err }, 'request failed');
      return reply.status(500).send({ detail: 'Internal server error.' });
    }
    // An HTTP error's own headers go with it: a 416 from @fastify/send carries `Content-Range: bytes */size`, which
    // tells a player the file's length (RFC 9110 §15.5.17).
    const headers = (err as { headers?: unknown }).headers;
    if (headers && typeof headers === 'object') reply.headers(headers);
    return reply.status(status).send({ detail: err.message });
  });
}
