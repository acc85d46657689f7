/**
 * Security headers from helmet, built once. (@fastify/helmet rebuilds the helmet middleware — and re-parses the
 * CSP — on every request, which cost a quarter of the chapter route's throughput in bench/http.ts.)
 */
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';

export function registerSecurityHeaders(app: FastifyInstance): void {
  const apply = helmet({
    contentSecurityPolicy: {
      useDefaults: true,
      directives: {
        'img-src': ["'self'", 'data:', 'blob:'],
        'object-src': ["'self'"],
        'frame-src': ["'self'", 'blob:'],
        'style-src': ["'self'", "'unsafe-inline'"],
        'upgrade-insecure-requests': null,
      },
    },
    // Chapter frames and the PDF <object> are same-origin embeds; the default would block them.
    crossOriginEmbedderPolicy: false,
    // Not helmet's no-referrer: under it Chromium sends `Origin: null` with a plain HTML form post, and the CSRF
    // check (rightly) refuses that, so the no-JavaScript sign-in and sign-out forms could never work. same-origin
    // sends the origin to ourselves and still nothing to other sites.
    referrerPolicy: { policy: 'same-origin' },
  });
  app.addHook('onRequest', (request, reply, done) => {
    apply(request.raw, reply.raw, (err?: unknown) => done(err instanceof Error ? err : undefined));
  });
}
