/**
 * What a request's log line says of it: Fastify's own fields, with the values of secret query parameters replaced.
 * A team invitation's link (`/teams/join/?token=`, and the page's `GET /api/v1/team-invitations/?token=`) and a
 * password reset's (`/reset-password/?token=`) carry one-time tokens in the query; whoever reads the log while they
 * are good could use them (sign up as the invited address, set the password), so they never reach it.
 */
import type { FastifyRequest } from 'fastify';

/** Query parameters whose values are secrets. */
const SECRET_PARAMS = ['token'];
/**
 * A secret parameter in the query, or in a query encoded inside another parameter's value (the sign-in page's
 * `next=%2Fteams%2Fjoin%2F%3Ftoken%3D…` sends a visitor back to the link): its value runs to the next separator.
 */
const SECRET_QUERY = new RegExp(`((?:[?&]|%3F|%26)(?:${SECRET_PARAMS.join('|')})(?:=|%3D))(?:(?!%26)[^&#])*`, 'gi');

/** The URL with every secret query parameter's value replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[redacted]');
}

/** Fastify's request serializer (lib/logger-pino.js), the URL redacted. */
export function requestForLog(req: FastifyRequest): Record<string, unknown> {
  return {
    method: req.method,
    url: redactUrl(req.url),
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/** The app's logger options (app.ts) at `level`. */
export function loggerOptions(level: string): { level: string; serializers: { req: typeof requestForLog } } {
  return { level, serializers: { req: requestForLog } };
}
