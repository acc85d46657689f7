/**
 * The built web app: hashed assets with long caching, brotli or gzip when the build made a compressed copy and the
 * browser takes it; index.html for every other page address so the client router can take over (it renders its
 * own 404 page). Unknown API addresses get a JSON 404.
 */
import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import { type AccountProfile, APP_MESSAGES, BOOT_DATA_ID, COOKIES, highlightPrivacyAttributes, type HighlightPrivacySetting, SHORTCUTS_PAGE_PATH } from '@lectern/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { NOSCRIPT_MARKER, noscriptForms } from '../plugins/noscript-forms.ts';

/** Where index.html takes the page's first data (packages/web/index.html). */
export const BOOT_MARKER = '<!--lectern:boot-data-->';

const API_PREFIXES = ['/api/', '/nest/', '/u/', '/r/', '/a/', '/auth/', '/healthz'];
/** Pages below an API prefix (library-playlists-account.md §2: the shortcuts settings page is /u/shortcuts/). */
const PAGES_UNDER_API = [SHORTCUTS_PAGE_PATH, SHORTCUTS_PAGE_PATH.slice(0, -1)];

/**
 * Hashed assets never change; the icons change rarely and are asked for again on every in-app navigation (a
 * revalidation each time, competing with the chapter being opened), so they keep for a day; anything else, such as
 * index.html, is revalidated.
 */
export function cacheControlOf(filePath: string): string {
  if (filePath.includes(`${path.sep}assets${path.sep}`)) return 'public, max-age=31536000, immutable';
  if (/\.(png|ico|svg|webmanifest)$/i.test(filePath)) return 'public, max-age=86400';
  return 'no-cache';
}

/**
 * index.html per address: where the build's route-preloads.json (packages/web/vite.config.ts) names the code an
 * address's page opens with, the page's head names it too (modulepreload for its chunks, preload for its
 * stylesheets), so the browser fetches it with the entry rather than once the entry has run and routed. Each
 * variant is made once. Without the file (an older build), every page gets index.html as it is.
 */
export function routePagesOf(indexHtml: string | null, webDist: string | null): (pathname: string) => string {
  if (!indexHtml) return () => '';
  const file = webDist ? path.join(webDist, 'route-preloads.json') : null;
  let routes: { pattern: RegExp; html: string }[] = [];
  if (file && fs.existsSync(file) && indexHtml.includes('</head>')) {
    const table = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, { js: string[]; css: string[] }>;
    const attr = (url: string) => url.replace(/[^\w/.@-]/g, '');
    routes = Object.entries(table).map(([pattern, { js, css }]) => {
      const links = [
        ...js.map((u) => `<link rel="modulepreload" crossorigin href="${attr(u)}">`),
        ...css.map((u) => `<link rel="preload" as="style" crossorigin href="${attr(u)}">`),
      ].join('\n    ');
      return { pattern: new RegExp(pattern), html: indexHtml.replace('</head>', `  ${links}\n  </head>`) };
    });
  }
  return (pathname) => routes.find((r) => r.pattern.test(pathname))?.html ?? indexHtml;
}

/** index.html with what the page declares on its document element (reader.md §4's highlight privacy). */
export function withPageAttributes(indexHtml: string, attributes: Record<string, string>): string {
  const escape = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  const written = Object.entries(attributes)
    .map(([name, value]) => (value === '' ? ` ${name}` : ` ${name}="${escape(value)}"`))
    .join('');
  return indexHtml.replace(/<html(?=[\s>])/i, `<html${written}`);
}

/**
 * JSON as the text of a `<script type="application/json">`: every `<`, `>` and `&` escaped as JSON's \u00XX, so no
 * value (an email, a team name) can close the element (`</script>`) or open a comment; U+2028 and U+2029 too, which
 * older parsers took for line ends. JSON.parse reads the escapes back as the characters they stand for.
 */
export function inlineJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The page's first data, in the page (issue 21, "Mobile Lighthouse"; docs/decisions.md "The first screen's data
 * in the page"): for a request that carries a session cookie, the profile `/u/information_for_javascript` would
 * answer (null when the session has gone), so the app's first request is not made at all. Not a script the
 * browser runs: the app's CSP (script-src 'self') needs no nonce for it. Nothing for a visitor without a session.
 */
async function bootData(request: FastifyRequest, profileOf: BootDeps['profile']): Promise<string> {
  if (!request.cookies[COOKIES.session]) return '';
  const profile = await profileOf(request);
  return `<script type="application/json" id="${BOOT_DATA_ID}">${inlineJson({ profile })}</script>`;
}

export interface BootDeps {
  /** The signed-in reader's profile as the profile route answers it; null without a live session. */
  profile: (request: FastifyRequest) => Promise<AccountProfile | null>;
}

export async function webRoutes(
  app: FastifyInstance,
  webDist: string | null,
  page: { highlightPrivacy?: HighlightPrivacySetting } = {},
  boot: BootDeps = { profile: async () => null },
): Promise<void> {
  const indexFile = webDist ? path.join(webDist, 'index.html') : null;
  const hasWeb = indexFile !== null && fs.existsSync(indexFile);
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root: webDist!,
      prefix: '/',
      wildcard: false,
      index: false,
      decorateReply: false,
      // Ours, not the plugin's max-age=0 (which would also overwrite what setHeaders says).
      cacheControl: false,
      // The build writes .br and .gz copies of the text assets (vite.config.ts): sent to browsers that take them,
      // with no compression work per request. Uncompressed, the entry chunk alone is over 300 KB on the wire.
      preCompressed: true,
      // Source maps are not served (the build writes them for whoever reads a stack trace on the machine).
      globIgnore: ['**/*.br', '**/*.gz', '**/*.map', '**/route-preloads.json'],
      setHeaders: (reply, filePath) => reply.header('cache-control', cacheControlOf(filePath)),
    });
  }
  const indexHtml = hasWeb ? withPageAttributes(fs.readFileSync(indexFile!, 'utf8'), highlightPrivacyAttributes(page.highlightPrivacy ?? 'private')) : null;
  const withForms = indexHtml?.includes(NOSCRIPT_MARKER) ?? false;
  const withBoot = indexHtml?.includes(BOOT_MARKER) ?? false;
  const pageHtml = routePagesOf(indexHtml, webDist);

  app.setNotFoundHandler(async (request, reply) => {
    const pathname = request.url.split('?')[0] ?? '/';
    const isPage = (request.method === 'GET' || request.method === 'HEAD') && (PAGES_UNDER_API.includes(pathname) || !API_PREFIXES.some((p) => pathname.startsWith(p)));
    if (!isPage || pathname.endsWith('.map')) return reply.status(404).send({ detail: APP_MESSAGES.notFound });
    if (!indexHtml) {
      return reply.status(503).type('text/plain').send('The web app is not built yet: run `npm run build`, then restart.');
    }
    let html = pageHtml(pathname);
    if (!withForms && !withBoot) return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(html);
    // The no-JavaScript forms carry this caller's CSRF token, the boot data their profile: the page is theirs alone,
    // kept by no shared cache and never answered to another cookie from the browser's own.
    // Replaced by a function: a `$'` or `$&` in an email would otherwise be read as a replacement pattern.
    if (withForms) {
      const forms = await noscriptForms(request);
      html = html.replace(NOSCRIPT_MARKER, () => forms);
    }
    if (withBoot) {
      const data = await bootData(request, boot.profile);
      html = html.replace(BOOT_MARKER, () => data);
    }
    return reply.header('cache-control', 'private, no-cache').header('vary', 'Cookie').type('text/html; charset=utf-8').send(html);
  });
}
