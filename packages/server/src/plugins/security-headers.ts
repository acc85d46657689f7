/**
 * Security headers from helmet. Helmet's headers do not depend on the request (no CSP nonces here), so helmet runs
 * once at start-up against a recording response and every reply gets the recorded set in one `reply.headers` call:
 * running helmet's middleware chain per request (a dozen validated `setHeader`s) cost about a tenth of the chapter
 * route's throughput in bench/http.ts, and @fastify/helmet even rebuilt the middleware per request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';

/**
 * `frameOrigins`: other origins the app's pages frame (the scripted origin of scripted titles, when configured);
 * `scriptSources`: hashes of the inline scripts the server writes into pages (routes/web.ts EARLY_BLOCK_SCRIPT and
 * EARLY_INPUT_SCRIPT), beside 'self'. Nothing else inline runs.
 */
const helmetFor = (frameOrigins: readonly string[], scriptSources: readonly string[]) =>
  helmet({
  contentSecurityPolicy: {
    useDefaults: true,
    directives: {
      'script-src': ["'self'", ...scriptSources],
      'img-src': ["'self'", 'data:', 'blob:'],
      'object-src': ["'self'"],
      'frame-src': ["'self'", 'blob:', ...frameOrigins],
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

/** The headers helmet sets, by lower-case name, recorded from one run of its middleware. */
export function securityHeaders(frameOrigins: readonly string[] = [], scriptSources: readonly string[] = []): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name.toLowerCase()] = String(value);
    },
    // helmet removes X-Powered-By; Fastify never sets it.
    removeHeader: () => {},
  };
  let failed: unknown;
  helmetFor(frameOrigins, scriptSources)({} as IncomingMessage, recorder as unknown as ServerResponse, (err?: unknown) => {
    failed = err;
  });
  if (failed) throw failed;
  return headers;
}

/**
 * What an API answer needs (the OWASP REST Security Cheat Sheet's set): JSON is never rendered as a document, so
 * the page policies (COOP, origin-agent-cluster, the old-browser switches) and a page's long CSP are bytes for
 * nothing on every call — a third of a compressed chapter answer. `frame-ancestors 'self'` and SAMEORIGIN, not
 * 'none': a PDF is embedded from the chapter address by the reader's own page. Book files replace the CSP with
 * their sandbox (plugins/book-files.ts).
 */
export function apiSecurityHeaders(page: Record<string, string> = securityHeaders()): Record<string, string> {
  return {
    'content-security-policy': "default-src 'none'; frame-ancestors 'self'",
    'cross-origin-resource-policy': 'same-origin',
    'referrer-policy': page['referrer-policy']!,
    'strict-transport-security': page['strict-transport-security']!,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'SAMEORIGIN',
  };
}

/** Addresses that answer data, never a page of the app (every page is served from elsewhere: routes/web.ts). */
const API_PREFIXES = ['/api/', '/nest/', '/r/api/', '/auth/', '/a/'];
export const isApiAddress = (url: string) => API_PREFIXES.some((p) => url.startsWith(p));

export function registerSecurityHeaders(app: FastifyInstance, frameOrigins: readonly string[] = [], scriptSources: readonly string[] = []): void {
  const page = securityHeaders(frameOrigins, scriptSources);
  const api = apiSecurityHeaders(page);
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(isApiAddress(request.url) ? api : page);
    done();
  });
}
