/**
 * The scripted origin's HTTP server (SCRIPTED_ORIGIN; docs/decisions.md "Scripted titles"): the second origin where a
 * title an operator allowed to run scripts is read. It serves nothing but that: `GET /b/{token}/{path}` — a chapter
 * as a page of its own, with the book's scripts and our small reading-system script (navigator.epubReadingSystem and
 * the messages to the reader), and the book's other files — and the reading-system script itself. Its one cookie
 * binds a token to the browser that opened it first (services/scripted-frames.ts: the handshake); every answer says
 * who may frame it (the app's origin only) and what the page may load (its own origin's files). What it cannot
 * find, or may not give, is a plain 404.
 */
import { READING_SYSTEM_NAME, type RootAttributes, type RootElementAttributes } from '@lectern/core';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { type DefaultTreeAdapterTypes as P5, parseFragment, serialize } from 'parse5';
import { EMBED_CLASS } from './ingest/render.ts';
import { bookFileType } from './plugins/book-files.ts';
import type { FrameBinding, FrameScope, ScriptedFrames } from './services/scripted-frames.ts';
import { BINDING_COOKIE, onScriptedOrigin } from './services/scripted-frames.ts';
import { type ContentStore, readStored } from './storage/content-store.ts';
import { escapeNumeric } from './util/html-escape.ts';

/** A book's stylesheet is rewritten in memory; past this it is refused (an import's files are far smaller). */
const MAX_STYLESHEET_BYTES = 64 * 1024 * 1024;

const RUNTIME_PATH = '/lectern-reading-system.js';

/**
 * navigator.epubReadingSystem (EPUB Reading Systems 3.3 §4) and the page's side of the reader's messages: where the
 * reader scrolled to, links to other chapters and out of the book. It runs before the book's scripts (first in the
 * head, not deferred), and answers only the app's origin.
 */
export const READING_SYSTEM_SCRIPT = `(() => {
  'use strict';
  const appOrigin = document.querySelector('meta[name="lectern-app-origin"]').content;
  const features = ['dom-manipulation', 'layout-changes', 'touch-events', 'mouse-events', 'keyboard-events', 'spine-scripting'];
  const system = Object.freeze({ name: ${JSON.stringify(READING_SYSTEM_NAME)}, version: '1.0', layoutStyle: 'scrolling', hasFeature: (feature) => features.includes(feature) });
  Object.defineProperty(navigator, 'epubReadingSystem', { value: system, enumerable: true });
  // (the reader's window taken now, before the book's scripts could replace window.parent)
  const reader = window.parent;
  const post = (message) => reader.postMessage(message, appOrigin);
  const scroller = () => document.scrollingElement || document.documentElement;
  let timer = 0;
  const progress = () => {
    const s = scroller();
    const max = s.scrollHeight - s.clientHeight;
    post({ lectern: 'progress', progression: max > 0 ? Math.min(1, Math.max(0, s.scrollTop / max)) : 0 });
  };
  addEventListener('scroll', () => { clearTimeout(timer); timer = setTimeout(progress, 250); }, { passive: true });
  addEventListener('load', () => { height(); post({ lectern: 'ready' }); });
  // The page's height down to the end of its text (never the frame's own, so a frame sized to it can shrink again):
  // a book read as one scroll sizes its frame by it, and the reader scrolls the stack (docs/decisions.md "A scripted
  // book read as one scroll").
  let told = -1;
  const height = () => {
    const body = document.body;
    if (!body) return;
    const html = document.documentElement;
    const below = (parseFloat(getComputedStyle(body).marginBottom) || 0) + (parseFloat(getComputedStyle(html).paddingBottom) || 0);
    const h = Math.ceil(body.getBoundingClientRect().bottom - html.getBoundingClientRect().top + below);
    if (h !== told) { told = h; post({ lectern: 'height', height: h }); }
  };
  // (said at once too, and again on load: Chromium holds back a frame's observers while it is hidden or off screen,
  // as a chapter below the one read is, and the reader stacks a page only once it knows its height)
  const sizes = new ResizeObserver(height);
  addEventListener('DOMContentLoaded', () => { sizes.observe(document.body); sizes.observe(document.documentElement); height(); });
  const look = document.createElement('style');
  addEventListener('message', (event) => {
    if (event.origin !== appOrigin || event.source !== parent) return;
    const m = event.data || {};
    if (m.lectern === 'goto' && typeof m.progression === 'number') {
      const s = scroller();
      s.scrollTop = Math.max(0, Math.min(1, m.progression)) * (s.scrollHeight - s.clientHeight);
      progress();
    } else if (m.lectern === 'look' && typeof m.fontScale === 'number') {
      const colour = (c) => (typeof c === 'string' && /^(#[0-9a-f]{3,8}|rgba?\\([0-9., ]+\\))$/i.test(c) ? c : 'inherit');
      look.textContent = 'html { background: ' + colour(m.background) + '; color: ' + colour(m.color) + '; font-size: ' + Math.max(0.5, Math.min(3, m.fontScale)) * 100 + '%; }';
      if (!look.isConnected) document.head.append(look);
    }
  });
  document.addEventListener('click', (event) => {
    const link = event.target instanceof Element ? event.target.closest('a[href]') : null;
    if (!link || event.defaultPrevented || event.button !== 0) return;
    const url = new URL(link.href, location.href);
    if (url.origin === location.origin) {
      // A link between chapters is stored as the reader's address (/library/view/{title}/{book}/{path}); one a
      // script made may name the chapter's file below the token (/b/{token}/{path}). Either way the reader moves.
      const book = location.pathname.split('/').slice(0, 3).join('/') + '/';
      const segments = url.pathname.split('/');
      const path = url.pathname.startsWith('/library/view/') ? segments.slice(5).join('/') : url.pathname.startsWith(book) ? url.pathname.slice(book.length) : null;
      if (path === null || (url.pathname === location.pathname && url.hash)) return;
      event.preventDefault();
      post({ lectern: 'navigate', path: decodeURIComponent(path), fragment: decodeURIComponent(url.hash.slice(1)) });
    } else if (/^(https?|mailto):$/.test(url.protocol)) {
      event.preventDefault();
      post({ lectern: 'external', url: url.href });
    }
  });
})();
`;

/**
 * Which frames a page may hold and who may frame it (docs/decisions.md "A book's iframes"). On the one scripted origin
 * a book's page frames its own pages from itself. Under a wildcard a chapter (the title's host) frames only the title's
 * frames host and is framed by the app alone; an inner page (the frames host) is framed by the chapter, inside the
 * app (frame-ancestors names every ancestor), and frames its own inner pages from itself.
 */
export interface Framing {
  frameSrc: string;
  ancestors: string;
}

export function framingOf(frames: ScriptedFrames, appOrigin: string, bookId: string, scope: FrameScope): Framing {
  if (!frames.perPublication) return { frameSrc: "'self'", ancestors: `'self' ${appOrigin}` };
  return scope === 'chapter'
    ? { frameSrc: frames.framesOriginFor(bookId), ancestors: appOrigin }
    : { frameSrc: "'self'", ancestors: `'self' ${frames.originFor(bookId)} ${appOrigin}` };
}

/** The page's policy: the book's own files and our script only, framed as `framing` says, no forms, no plugins. */
function pageCsp(framing: Framing): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "media-src 'self'",
    "connect-src 'self'",
    // a book's iframes show its own documents, from the publication's origins only (docs/decisions.md "A book's iframes")
    `frame-src ${framing.frameSrc}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${framing.ancestors}`,
  ].join('; ');
}

/** The headers of every answer; what is not a book's (a 404, our script) gets the app's framing and no more. */
function common(reply: FastifyReply, framing: Framing | string): FastifyReply {
  const policy = typeof framing === 'string' ? { frameSrc: "'none'", ancestors: framing } : framing;
  return reply
    .header('content-security-policy', pageCsp(policy))
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'private, no-store');
}

/** ` class="…" id="…" style="…"` of a content document's own html or body (checked at import), escaped. */
function rootAttributesHtml(element: RootElementAttributes | undefined, rewrite: (text: string) => string): string {
  if (!element) return '';
  return (['class', 'id', 'style'] as const)
    .map((name) => (element[name] ? ` ${name}="${escapeNumeric(rewrite(element[name]))}"` : ''))
    .join('');
}

/** The chapter as a page: our script first, the book's stylesheets, the chapter's markup (scripts kept at import). */
export function chapterPage(input: {
  html: string;
  label: string;
  stylesheets: string[];
  appOrigin: string;
  root?: RootAttributes | null;
  rewrite?: (text: string) => string;
}): string {
  const rewrite = input.rewrite ?? ((text: string) => text);
  return `<!DOCTYPE html>
<html${rootAttributesHtml(input.root?.html, rewrite)}><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="lectern-app-origin" content="${escapeNumeric(input.appOrigin)}">
<title>${escapeNumeric(input.label)}</title>
<script src="${RUNTIME_PATH}"></script>
<style>body { margin: 0 auto; max-width: 40em; padding: 1.25em 1.25em 3em; font-family: Georgia, serif; line-height: 1.6; overflow-wrap: break-word; } img, svg, video { max-width: 100%; height: auto; }</style>
${input.stylesheets.map((href) => `<link rel="stylesheet" href="${escapeNumeric(href)}">`).join('\n')}
</head><body${rootAttributesHtml(input.root?.body, rewrite)}>${input.html}</body></html>`;
}

const isP5Element = (node: P5.ChildNode): node is P5.Element => 'tagName' in node;
const attrOf = (element: P5.Element, name: string) => element.attrs.find((a) => a.name === name)?.value;

/**
 * A book's iframes built again (docs/decisions.md "A book's iframes"): the importer left, where an iframe showed a
 * document of the book, a note with a hidden link to it (ingest/render.ts embedFrames); on the publication's own
 * origin the note becomes the frame, its address the document's below the token (a chapter's link names the reader's
 * address, `/library/view/{title}/{book}/{path}`), its title and style the iframe's. Content whose mark is not of that
 * shape (a book's own markup that looks alike) is left as it is. `inner` says where the inner page of a document (its
 * path in the book) is framed from (ScriptedFrames.innerFrames: under a wildcard another host, an address of its own
 * for that document), asked once for each frame; null leaves the note.
 */
export function withFrames(html: string, token: string, inner: (document: string) => { origin: string; token: string } | null = () => ({ origin: '', token })): string {
  if (!html.includes(`class="${EMBED_CLASS}"`)) return html;
  const fragment = parseFragment(html);
  const iframe = parseFragment('<iframe></iframe>').childNodes.find(isP5Element)!;
  const book = `/b/${token}/`;
  const walk = (parent: P5.ParentNode): void => {
    parent.childNodes = parent.childNodes.map((child) => {
      if (!isP5Element(child)) return child;
      const link = child.childNodes.find(isP5Element);
      const href = link && link.tagName === 'a' && attrOf(link, 'hidden') !== undefined ? attrOf(link, 'href') : undefined;
      if (!link || child.tagName !== 'span' || attrOf(child, 'class') !== EMBED_CLASS || !href) {
        walk(child);
        return child;
      }
      const view = href.startsWith('/library/view/') ? href.split('/').slice(5).join('/') : null;
      const rest = href.startsWith(book) ? href.slice(book.length) : view;
      // (an address for each frame: frames loading side by side would race for one address's handshake)
      const into = rest === null ? null : inner(documentOf(rest));
      if (rest === null || !into) return child;
      const src = `${into.origin}/b/${into.token}/${rest}`;
      const title = attrOf(child, 'title');
      const style = attrOf(link, 'style');
      const frame: P5.Element = { ...iframe, childNodes: [] };
      frame.attrs = [{ name: 'src', value: src }, ...(title ? [{ name: 'title', value: title }] : []), ...(style ? [{ name: 'style', value: style }] : [])];
      frame.parentNode = parent;
      return frame;
    });
  };
  walk(fragment);
  return serialize(fragment);
}

/** The book's path an iframe's address below the token names (its query and fragment are not part of it). */
function documentOf(rest: string): string {
  const bare = rest.replace(/[?#].*$/s, '');
  try {
    return decodeURIComponent(bare);
  } catch {
    return bare;
  }
}

/** The values of the binding cookie the request carries (one per token whose path matches: normally one). */
function bindingsOf(cookieHeader: string | undefined): string[] {
  const values: string[] = [];
  for (const pair of (cookieHeader ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === BINDING_COOKIE) values.push(pair.slice(eq + 1).trim());
  }
  return values;
}

/**
 * The binding cookie. The frame is a third party to the app's page (another site, unless both share a registrable
 * domain): SameSite=None, Secure and Partitioned (kept per top-level site, so browsers that block third-party
 * cookies keep it) where the origin can hold a Secure cookie — https, or localhost —, else Lax (a plain-http
 * scripted origin then works only on the app's site, e.g. books.example.org beside example.org).
 */
export function bindingCookie(bind: FrameBinding, scriptedOrigin: string): string {
  const { protocol, hostname } = new URL(scriptedOrigin);
  const secureCapable = protocol === 'https:' || hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '127.0.0.1' || hostname === '[::1]';
  const site = secureCapable ? 'SameSite=None; Secure; Partitioned' : 'SameSite=Lax';
  return `${BINDING_COOKIE}=${bind.value}; Path=${bind.path}; Max-Age=${bind.maxAgeSeconds}; HttpOnly; ${site}`;
}

/** The routes each scripted origin's listener registered (its onRoute hook), as `lectern.routes` for the app's. */
const registered = new WeakMap<FastifyInstance, { method: string; url: string }[]>();

/** What a listener built by buildScriptedOrigin registered: the attack suite's route table is held to it. */
export function scriptedOriginRoutes(app: FastifyInstance): readonly { method: string; url: string }[] {
  return registered.get(app) ?? [];
}

export function buildScriptedOrigin(frames: ScriptedFrames, store: ContentStore, appOrigin: string, logLevel: string): FastifyInstance {
  // No request lines: every address here carries a capability token (errors are still logged).
  const app = Fastify({ logger: logLevel === 'silent' ? false : { level: logLevel }, disableRequestLogging: true, routerOptions: { ignoreTrailingSlash: false, maxParamLength: 600 } });
  const routes: { method: string; url: string }[] = [];
  registered.set(app, routes);
  app.addHook('onRoute', (route) => {
    for (const method of ([] as string[]).concat(route.method)) routes.push({ method, url: route.url });
  });

  // what no book's page is: nothing framed, framed only where a book's page could be
  const defaultFraming = frames.perPublication ? appOrigin : `'self' ${appOrigin}`;
  app.get(RUNTIME_PATH, async (_request, reply) =>
    common(reply, defaultFraming).header('cache-control', 'public, max-age=3600').type('text/javascript; charset=utf-8').send(READING_SYSTEM_SCRIPT),
  );

  app.get<{ Params: { token: string; '*': string } }>('/b/:token/*', async (request, reply) => {
    const { token, '*': fullPath } = request.params;
    const opened = fullPath && fullPath.length <= 1000 ? await frames.open(token, fullPath, bindingsOf(request.headers.cookie), request.headers.host) : null;
    if (!opened) return common(reply, defaultFraming).code(404).type('text/plain; charset=utf-8').send('Not found');
    const { found, bookId, scope, bind } = opened;
    const framing = framingOf(frames, appOrigin, bookId, scope);
    common(reply, framing);
    if (bind) reply.header('set-cookie', bindingCookie(bind, frames.scopeOrigin(bookId, scope)));
    // a chapter, or a document of the book its iframes show (rendered at import like a chapter)
    const shown =
      found.kind === 'chapter' ? { html: found.chapter.content, label: found.chapter.label, stylesheets: found.chapter.stylesheets, root: found.chapter.root_attributes }
      : found.kind === 'frame' ? { html: found.document.html, label: found.document.title ?? '', stylesheets: found.document.stylesheets, root: found.document.root }
      : null;
    if (shown) {
      // inner addresses are made for a page loaded as a frame only: a script's fetch of it gets the notes
      const framed = request.headers['sec-fetch-dest'] === 'iframe';
      const page = chapterPage({
        html: withFrames(onScriptedOrigin(shown.html, bookId, token), token, (document) => frames.innerFrames(token, document, framed)),
        label: shown.label,
        stylesheets: shown.stylesheets.map((s) => onScriptedOrigin(s, bookId, token)),
        appOrigin,
        root: shown.root,
        rewrite: (text) => onScriptedOrigin(text, bookId, token),
      });
      return reply.type('text/html; charset=utf-8').send(page);
    }
    if (found.kind !== 'resource') return common(reply, framing).code(404).type('text/plain; charset=utf-8').send('Not found');
    const type = await bookFileType(found.mediaType, store, found.file, { allowScripts: true });
    // The book's stylesheets name its files by the app's addresses: here they are below the token.
    if (type === 'text/css') return reply.type('text/css; charset=utf-8').send(onScriptedOrigin((await readStored(store, found.file, MAX_STYLESHEET_BYTES)).toString('utf8'), bookId, token));
    // Its other files go as the app sends them (HTML and unknown types as text), only never framed by anyone else.
    return reply.header('cross-origin-resource-policy', 'same-origin').type(type).send(await store.read(found.file));
  });

  app.setNotFoundHandler((_request, reply) => common(reply, defaultFraming).code(404).type('text/plain; charset=utf-8').send('Not found'));
  return app;
}
